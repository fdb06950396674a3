// render-range.test.mjs: index.html draws the flame graph of a selected
// heatmap range itself, offline (file://), from the embedded samples'
// timeline. Checked against `flamepipe report --from S --to E`: the page's
// total and every stack count equal that report's stacks.folded. Also: zoom,
// search with Matched %, "back to flame.svg", and the hostile capture
// (names stay text, nothing runs). Screenshots: tests/artifacts/render-range-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { step, check, eq, finish, deadline, run, tmpdir, launch, screenshot, reportPage, clickHeatCell } from './render-lib.mjs';

deadline(90000);
const dir = tmpdir('render-range');
const whole = path.join(dir, 'whole'), xss = path.join(dir, 'xss');

await step('flamepipe report on the demo capture and the hostile one', async () => {
	run('flamepipe', ['report', '-q', 'examples/demo-clockloop.perf.gz', '-o', whole]);
	run('flamepipe', ['report', '-q', '--keep-idle', 'tests/data/xss.perf', '-o', xss]);
	check(fs.readFileSync(path.join(whole, 'index.html'), 'utf8').includes('id="fp_timeline"'),
		'index.html has no timeline');
});

const browser = await launch();
const { page, errors } = await reportPage(browser, 1400, 1100);
const dialogs = [];
page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
const clickCell = (col, row) => clickHeatCell(page, col, row);

// `stack count` lines of a folded file, as a Map.
function foldedMap(lines) {
	const m = new Map();
	for (const l of lines) {
		const i = l.lastIndexOf(' ');
		if (i > 0) m.set(l.slice(0, i), Number(l.slice(i + 1)));
	}
	return m;
}
const sum = (m) => [...m.values()].reduce((a, b) => a + b, 0);

// Selects cells a..b (in either click order) and compares the page's graph
// with a --from/--to report of the range the page names.
async function selectAndCompare(a, b, name) {
	await clickCell(b[0], b[1]);
	await clickCell(a[0], a[1]);
	await page.waitForSelector('#rf_svg');
	const from = await page.getAttribute('#rangeflame', 'data-from');
	const to = await page.getAttribute('#rangeflame', 'data-to');
	eq(from, await page.getAttribute('#heatmap', 'data-from'), 'from as the heatmap says');
	const out = path.join(dir, name);
	run('flamepipe', ['report', '-q', 'examples/demo-clockloop.perf.gz', '--from', from, '--to', to, '-o', out]);
	const want = foldedMap(fs.readFileSync(path.join(out, 'stacks.folded'), 'utf8').split('\n'));
	const got = foldedMap(await page.evaluate(() => window.fp_range_folded));
	const total = Number(await page.getAttribute('#rangeflame', 'data-total'));
	eq(total, sum(want), `page total for [${from}, ${to})`);
	check(total > 0, 'the selection has samples');
	eq(got.size, want.size, 'stacks');
	for (const [k, v] of want)
		eq(got.get(k), v, `count of ${k}`);
	// The graph's root frame carries the same total.
	const root = await page.evaluate(() => {
		const g = document.querySelector('#rf_frames > g');
		return [g.querySelector('title').textContent, +g.getAttribute('data-w')];
	});
	eq(root[1], total, 'root width in samples');
	check(root[0].startsWith('all ('), `root title ${root[0]}`);
	check(!(await page.isVisible('#flameframe')), 'flame.svg frame still shown');
	return { from, to, want, total };
}

let sel;
await step('index.html: two clicks draw the range graph in the page; counts = a --from/--to report', async () => {
	await page.goto(pathToFileURL(path.join(whole, 'index.html')).href);
	check(!(await page.isVisible('#rangeflame')), 'range graph shown before a selection');
	check((await page.$('#range_hint')) === null, 'the static command hint is still there');
	sel = await selectAndCompare([6, 10], [9, 40], 'r1');
	const cap = await page.textContent('#flame_caption');
	eq(cap, `Flame graph of [${sel.from}, ${sel.to}) s (${sel.total} samples)`, 'caption');
	await screenshot(page, 'render-range-selected.png');
});

await step('the selection is kept in the URL: a reload draws the same range', async () => {
	const url = page.url();
	check(/#range=\d+,\d+$/.test(url), `url ${url}`);
	await page.goto('about:blank');
	await page.goto(url);
	await page.waitForSelector('#rf_svg');
	eq(await page.getAttribute('#rangeflame', 'data-from'), sel.from, 'from after reload');
	eq(Number(await page.getAttribute('#rangeflame', 'data-total')), sel.total, 'total after reload');
	eq(await page.evaluate(() => document.getElementById('hm_snake').children.length) > 0, true, 'snake after reload');
});

await step('a range inside one column and one spanning two bursts agree as well', async () => {
	await selectAndCompare([21, 5], [21, 30], 'r2');
	await selectAndCompare([7, 0], [37, 49], 'r3');
	sel = await selectAndCompare([6, 10], [9, 40], 'r1b');
});

await step('click a frame to zoom: it fills the width, ancestors faded, Reset Zoom restores', async () => {
	// The widest frame two levels below the root.
	const target = await page.evaluate(() => {
		const gs = [...document.querySelectorAll('#rf_frames > g')];
		const ys = [...new Set(gs.map((g) => +g.querySelector('rect').getAttribute('y')))].sort((a, b) => b - a);
		const level = gs.filter((g) => +g.querySelector('rect').getAttribute('y') === ys[2]);
		level.sort((a, b) => b.getAttribute('data-w') - a.getAttribute('data-w'));
		return level[0].querySelector('title').textContent;
	});
	const g = page.locator('#rf_frames > g', { has: page.locator(`title:text-is(${JSON.stringify(target)})`) }).first();
	await g.locator('rect').click();
	const after = await page.evaluate((t) => {
		const gs = [...document.querySelectorAll('#rf_frames > g')];
		const z = gs.find((x) => x.querySelector('title').textContent === t);
		const r = z.querySelector('rect');
		return { w: +r.getAttribute('width'), x: +r.getAttribute('x'), parents: document.querySelectorAll('#rf_frames > g.rf_parent').length };
	}, target);
	eq(after.w, 1180, 'zoomed frame width');
	eq(after.x, 10, 'zoomed frame x');
	check(after.parents >= 2, `faded ancestors: ${after.parents}`);
	check(!(await page.isDisabled('#rf_reset')), 'Reset Zoom disabled while zoomed');
	await screenshot(page, 'render-range-zoomed.png');
	await page.click('#rf_reset');
	eq(await page.evaluate(() => document.querySelectorAll('#rf_frames > g.rf_parent').length), 0, 'parents after reset');
});

await step('search: Matched % equals the share of samples whose stack matches', async () => {
	const re = 'clock';
	await page.fill('#rf_search', re);
	let n = 0;
	for (const [k, v] of sel.want)
		if (k.split(';').some((f) => new RegExp(re).test(f))) n += v;
	const want = n === sel.total ? '100' : (100 * n / sel.total).toFixed(1);
	eq((await page.textContent('#rf_matched')).trim(), `Matched: ${want}%`, 'matched');
	eq(Number(await page.getAttribute('#rf_matched', 'data-samples')), n, 'matched samples');
	const purple = await page.evaluate(() => [...document.querySelectorAll('#rf_frames rect')]
		.filter((r) => r.getAttribute('fill') === 'rgb(230,0,230)').length);
	check(purple > 0, 'no frame highlighted');
	await screenshot(page, 'render-range-search.png');
	await page.fill('#rf_search', '');
	eq((await page.textContent('#rf_matched')).trim(), '', 'search cleared');
});

await step('hover shows the details line; "flame.svg" goes back to the file graph', async () => {
	await page.hover('#rf_frames > g:first-child rect');
	check((await page.textContent('#rf_details')).startsWith('Function: all ('), 'details line');
	await page.click('#rf_back');
	check(await page.isVisible('#flameframe'), 'flame.svg frame hidden');
	check(!(await page.isVisible('#rangeflame')), 'range graph still shown');
	eq(errors.length, 0, 'page errors ' + errors.join('; '));
});

await step('--timeline-max 0: no timeline, the page names the --from/--to command instead', async () => {
	const out = path.join(dir, 'notl');
	run('flamepipe', ['report', '-q', 'examples/demo-clockloop.perf.gz', '-o', out,
		'--render-arg', '--timeline-max=0']);
	await page.goto(pathToFileURL(path.join(out, 'index.html')).href);
	check((await page.textContent('#timeline_note')).includes('--timeline-max 0'), 'note');
	await clickCell(9, 40);
	await clickCell(6, 10);
	check((await page.textContent('#range_hint')).includes('--from 6.200 --to 9.820'), 'command hint');
	check((await page.$('#rangeflame')) === null, 'range graph without a timeline');
});

await step('hostile names: the range graph shows them as text and runs nothing', async () => {
	await page.goto(pathToFileURL(path.join(xss, 'index.html')).href);
	const cols = await page.evaluate(() => hm_cfg.cols), rows = await page.evaluate(() => hm_cfg.rows);
	await clickCell(0, 0);
	await clickCell(cols - 1, rows - 1);
	await page.waitForSelector('#rf_svg');
	const titles = await page.evaluate(() => [...document.querySelectorAll('#rf_frames title')].map((t) => t.textContent));
	check(titles.some((t) => t.startsWith('<script>alert(1)</script> (')), 'the <script> name as text: ' + titles.join(' | '));
	check(titles.some((t) => t.startsWith('x]]>y<!--z-')), ']]> and <!-- as text');
	eq(dialogs.length, 0, 'dialogs ' + dialogs.join('; '));
	eq(await page.evaluate(() => document.querySelectorAll('script').length), 3, 'script elements');
	const total = Number(await page.getAttribute('#rangeflame', 'data-total'));
	const folded = fs.readFileSync(path.join(xss, 'stacks.folded'), 'utf8').trim().split('\n');
	eq(total, folded.reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0), 'whole capture total');
	await screenshot(page, 'render-range-xss.png');
	eq(errors.length, 0, 'page errors ' + errors.join('; '));
});

await finish(0);
