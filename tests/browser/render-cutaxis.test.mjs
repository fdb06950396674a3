// render-cutaxis.test.mjs: a heatmap whose axis is cut (issue 14 #5: one
// stray early sample, the bulk 100,002 s later) in real headless chromium:
// hm_cfg.colmap maps axis columns to seconds, hover names the real second,
// a selection names real seconds, and the page's range flame graph equals
// a --from/--to report of those seconds.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { step, check, eq, finish, deadline, run, tmpdir, launch, reportPage, heatCellPoint } from './render-lib.mjs';

deadline(60000);
const dir = tmpdir('render-cutaxis');
const capture = path.join(dir, 'stray.perf');

// perf script text: a sample at 1.0 s, then 300 at 100003.000 .. 100005.990 s.
function sample(t, leaf) {
	return `app 7/7 [000] ${t.toFixed(6)}: 1 cpu-clock: \n\t1000 ${leaf}+0x1 (/bin/app)\n\t2000 main+0x1 (/bin/app)\n\n`;
}
let text = sample(1.0, 'stray');
for (let i = 0; i < 300; i++)
	text += sample(100003 + i * 0.01, i % 3 ? 'work' : 'wait');
fs.writeFileSync(capture, text);

await step('flamepipe report: the axis is cut to the seconds with samples', async () => {
	run('flamepipe', ['report', '-q', capture, '-o', path.join(dir, 'out')]);
	const hm = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'heatmap.json'), 'utf8'));
	eq(JSON.stringify(hm.columns), '[0,100002,100003,100004]', 'columns');
	check(hm.cut > 0, 'cut');
});

const browser = await launch();
const { page, errors } = await reportPage(browser, 1400, 1000);
const cellPoint = (col, row) => heatCellPoint(page, col, row);

await step('index.html: four axis columns, colmap, no script errors', async () => {
	await page.goto(pathToFileURL(path.join(dir, 'out', 'index.html')).href);
	eq(await page.evaluate(() => hm_cfg.cols), 4, 'cols');
	eq(await page.evaluate(() => JSON.stringify(hm_cfg.colmap)), '[0,100002,100003,100004]', 'colmap');
	eq(errors.length, 0, 'page errors ' + errors.join('; '));
});

await step('hover on axis column 1 names second 100002', async () => {
	const p = await cellPoint(1, 0);
	await page.mouse.move(p.x, p.y);
	const status = (await page.textContent('#hm_status')).trim();
	check(status.startsWith('second 100002, 0 ms: '), `status: ${status}`);
});

await step('a selection of axis columns 1..2 is [100002, 100004) s; its graph = the report of it', async () => {
	const a = await cellPoint(1, 0), b = await cellPoint(2, 49);
	await page.mouse.click(a.x, a.y);
	await page.mouse.click(b.x, b.y);
	await page.waitForSelector('#rf_svg');
	eq(await page.getAttribute('#heatmap', 'data-from'), '100002.000', 'from');
	eq(await page.getAttribute('#heatmap', 'data-to'), '100004.000', 'to');
	const total = Number(await page.getAttribute('#rangeflame', 'data-total'));
	const out = path.join(dir, 'range');
	run('flamepipe', ['report', '-q', capture, '--from', '100002', '--to', '100004', '-o', out]);
	const want = fs.readFileSync(path.join(out, 'stacks.folded'), 'utf8').trim().split('\n')
		.reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
	eq(total, want, 'range total');
	eq(total, 200, 'two seconds of 100 samples');
	const sel = (await page.textContent('#hm_selected')).trim();
	eq(sel, 'Selected: [100002.000, 100004.000) s, 200 samples', 'selected text');
});

await browser.close();
await finish();
