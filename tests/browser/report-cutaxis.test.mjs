// report-cutaxis.test.mjs: a report whose heatmap axis is cut (issue 14
// #5: one stray early sample, the bulk 100,002 s later), its index.html
// (ui/'s page, offline) in real headless chromium: the colmap maps axis
// columns to seconds, hover names the real second, a selection is of real
// seconds, and its flame graph equals a --from/--to report of them.
import fs from 'node:fs';
import path from 'node:path';
import { step, check, eq, deadline, run, tmpdir, launch, openReport, clickViewsCell, endClean } from './report-lib.mjs';

deadline(60000);
const dir = tmpdir('report-cutaxis');
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
let page;

await step('index.html: four axis columns on the colmap, no script errors', async () => {
	page = await openReport(browser, path.join(dir, 'out'));
	const h = await page.evaluate(() => ({ n: window.flamepipe.state.heat.ncols, colmap: window.flamepipe.state.heat.colmap }));
	eq(h.n, 4, 'columns');
	eq(JSON.stringify(h.colmap), '[0,100002,100003,100004]', 'colmap');
});

await step('hover on axis column 1 names second 100002', async () => {
	const p = await page.evaluate(() => window.flamepipe.cellCenter(window.flamepipe.state.rows * 1));
	await page.mouse.move(p.x, p.y);
	await page.waitForSelector('#tooltip:not([hidden])');
	const tip = await page.textContent('#tooltip');
	check(tip.startsWith('second 100002'), `tooltip: ${tip}`);
});

await step('a selection of axis columns 1..2 is [100002, 100004) s; its graph = the report of it', async () => {
	const rows = await page.evaluate(() => window.flamepipe.state.rows);
	await clickViewsCell(page, rows);
	await clickViewsCell(page, 3 * rows - 1);
	const out = path.join(dir, 'range');
	run('flamepipe', ['report', '-q', capture, '--from', '100002', '--to', '100004', '-o', out]);
	const want = fs.readFileSync(path.join(out, 'stacks.folded'), 'utf8').trim().split('\n')
		.reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
	eq(want, 200, 'two seconds of 100 samples');
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n, want);
	const sel = await page.evaluate(() => window.flamepipe.state.sel);
	eq(sel.from + ',' + sel.to, '100002000000000,100004000000000', 'selection (ns)');
});

await endClean(page);
