// render-heatmap.test.mjs: `flamepipe report`'s heatmap.svg (the standalone
// picture; index.html is ui/'s page, tested by report-*.test.mjs) in real
// headless chromium: hover shows second/ms/count, two clicks select
// [start, end) (checked against heatmap.tsv), the snake highlight, the
// enhanced scale, the initial selection of a --from/--to report.
// Screenshots go to tests/artifacts/render-heatmap-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { step, check, eq, finish, deadline, run, tmpdir, launch, screenshot, reportPage,
	 heatCellPoint, clickHeatCell } from './render-lib.mjs';

deadline(60000);
const dir = tmpdir('render-heatmap');
const ranged = path.join(dir, 'ranged');

await step('flamepipe report on the demo capture (whole, and --from 10 --to 20.5)', async () => {
	run('flamepipe', ['report', '-q', 'examples/demo-clockloop.perf.gz', '-o', dir]);
	run('flamepipe', ['report', '-q', 'examples/demo-clockloop.perf.gz', '--from', '10', '--to', '20.5', '-o', ranged]);
	for (const f of ['index.html', 'heatmap.svg', 'flame.svg', 'heatmap.tsv'])
		check(fs.existsSync(path.join(dir, f)), `${f} missing`);
});

// cells[col][row] from the TSV (rows = lines per second).
const tsv = fs.readFileSync(path.join(dir, 'heatmap.tsv'), 'utf8').trim().split('\n').slice(1)
	.map((l) => l.split('\t').map(Number));
const ROWS = tsv.filter((c) => c[0] === 0).length;
const count = (col, row) => tsv[col * ROWS + row][2];
function sumRange(a, b) {		// cell indexes col*ROWS+row, inclusive
	let n = 0;
	for (let i = a; i <= b; i++) n += tsv[i][2];
	return n;
}

const browser = await launch();
const { page, errors } = await reportPage(browser, 1400, 1000);
const cellPoint = (col, row) => heatCellPoint(page, col, row);
const clickCell = (col, row) => clickHeatCell(page, col, row);

await step('heatmap.svg loads: its rows, no script errors', async () => {
	await page.goto(pathToFileURL(path.join(dir, 'heatmap.svg')).href);
	eq(await page.evaluate(() => hm_cfg.rows), ROWS, 'rows');
	eq(errors.length, 0, 'page errors ' + errors.join('; '));
});

// The hottest cell, so hover and clicks land on real data.
let hot = [0, 0];
for (const [c, msRow, n] of tsv)
	if (n > count(hot[0], hot[1])) hot = [c, Math.round(msRow * ROWS / 1000)];

await step('hover shows the second, the millisecond and the count', async () => {
	const p = await cellPoint(hot[0], hot[1]);
	await page.mouse.move(p.x, p.y);
	const ms = Math.round(1000 * hot[1] / ROWS * 1000) / 1000;
	eq((await page.textContent('#hm_status')).trim(),
		`second ${hot[0]}, ${ms} ms: ${count(hot[0], hot[1])} samples`, 'status');
	eq(await page.getAttribute('#hm_hover', 'visibility'), 'visible', 'hover box');
});

await step('two clicks select [start, end) in time order; the count matches the TSV', async () => {
	// End clicked first: the selection is ordered anyway.
	const a = [2, 10], b = [5, 40];
	await clickCell(b[0], b[1]);
	check((await page.textContent('#hm_selected')).startsWith('Start: 5.800 s'), 'start text');
	await clickCell(a[0], a[1]);
	const ia = a[0] * ROWS + a[1], ib = b[0] * ROWS + b[1];
	const from = (ia / ROWS).toFixed(3), to = ((ib + 1) / ROWS).toFixed(3);
	eq((await page.textContent('#hm_selected')).trim(),
		`Selected: [${from}, ${to}) s, ${sumRange(ia, ib)} samples`, 'selection');
	eq(await page.getAttribute('#heatmap', 'data-from'), from, 'data-from');
	eq(await page.getAttribute('#heatmap', 'data-to'), to, 'data-to');
	// The snake: rest of column 2, columns 3-4 whole, column 5 up to row 40.
	const rects = await page.evaluate(() => [...document.getElementById('hm_snake').children]
		.map((r) => ['x', 'y', 'width', 'height'].map((k) => +r.getAttribute(k))));
	eq(rects.length, 3, 'snake rects');
	const c = await page.evaluate(() => hm_cfg);
	eq(JSON.stringify(rects[0]), JSON.stringify([c.x0 + 2 * c.cw, c.y0, c.cw, (ROWS - 10) * c.ch]), 'first column part');
	eq(JSON.stringify(rects[1]), JSON.stringify([c.x0 + 3 * c.cw, c.y0, 2 * c.cw, ROWS * c.ch]), 'middle columns');
	eq(JSON.stringify(rects[2]), JSON.stringify([c.x0 + 5 * c.cw, c.y0 + (ROWS - 1 - 40) * c.ch, c.cw, 41 * c.ch]), 'last column part');
	await screenshot(page, 'render-heatmap-selected.png');
});

await step('Enhanced makes single samples visible (FlameScope\'s scale), and toggles back', async () => {
	const one = tsv.find((t) => t[2] === 1);
	check(one, 'no cell with 1 sample');
	const fillOf = () => page.evaluate(() => {
		const r = [...document.getElementById('hm_cells').children].find((e) => e.getAttribute('data-c') === '1');
		return r.getAttribute('fill');
	});
	const before = await fillOf();
	await page.click('#hm_enhanced');
	eq((await page.textContent('#hm_enhanced')).trim(), 'Enhanced: on', 'toggle text');
	const after = await fillOf();
	check(before !== after, 'enhanced did not recolour');
	// FlameScope's Enhanced scale (ui/heatscale.js): one sample is its blue
	eq(after, 'rgb(106,170,255)', 'a cell of one sample, enhanced');
	eq(await page.evaluate(() => document.getElementById('hm_scale').children.length), 5, 'legend stops (enhanced)');
	await screenshot(page, 'render-heatmap-enhanced.png');
	await page.click('#hm_enhanced');
	eq(await fillOf(), before, 'toggled back');
});

await step('a selection of one whole second', async () => {
	await clickCell(1, 0);
	await clickCell(1, ROWS - 1);
	eq((await page.textContent('#hm_selected')).trim(),
		`Selected: [1.000, 2.000) s, ${sumRange(ROWS, 2 * ROWS - 1)} samples`, 'one whole second');
	eq(errors.length, 0, 'page errors ' + errors.join('; '));
});

await step('a --from/--to report\'s heatmap.svg opens with that range selected', async () => {
	await page.goto(pathToFileURL(path.join(ranged, 'heatmap.svg')).href);
	const n = await page.evaluate(() => document.getElementById('hm_snake').children.length);
	eq(n, 3, 'initial selection snake');
	await screenshot(page, 'render-heatmap-ranged.png');
	eq(errors.length, 0, 'page errors ' + errors.join('; '));
});

await finish(0);
