// report-chart.test.mjs: the static report's flame chart of a range
// (two clicks on the views' heatmap, View -> flame chart): each sample of
// the range counted once (its width = the range's flame graph total = the
// stacks.folded total of `flamepipe report --from --to` of the same
// range), frames in time order left to right at every depth (per heatmap
// cell: the page says so). Screenshots: tests/artifacts/report-chart-*.png.
import path from 'node:path';
import { step, check, eq, deadline, launch, report, openReport, functionTotals,
	 viewsShot, clickViewsCell, endClean } from './report-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const CAPTURE = 'examples/multiproc.perf.gz';
const FIRST_CELL = 2 * 50, LAST_CELL = 2 * 50 + 24;	// [2, 2.5) s at 50 rows
const FROM = '2', TO = '2.5';

deadline(TEST_DEADLINE_MS);
const dir = report(CAPTURE);
const ranged = functionTotals(path.join(report(CAPTURE, ['--from', FROM, '--to', TO], 'ranged'), 'stacks.folded')).total;
const browser = await launch();
const page = await openReport(browser, dir);
const v = page.views;

await step(`two clicks select [${FROM}, ${TO}); its flame graph = the --from/--to report`, async () => {
	eq(await v.evaluate(() => window.flamepipe.state.rows), 50, 'rows');
	await clickViewsCell(page, FIRST_CELL);
	await clickViewsCell(page, LAST_CELL);
	await v.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n, ranged);
	const sel = await v.evaluate(() => window.flamepipe.state.sel);
	eq(sel.from + ',' + sel.to, '2000000000,2500000000', 'selection (ns)');
});

await step('the page\'s state is in the report\'s address: a reload reopens the range', async () => {
	const url = page.url();
	const hash = decodeURIComponent(new URL(url).hash);
	check(hash.startsWith('#/profile?') && hash.includes('start=2') && hash.includes('end=2.5'), 'state not in the address: ' + url);
	const again = await browser.newPage();
	await again.goto(url);
	await again.waitForFunction((n) => window.flamepipe && window.flamepipe.flame.data &&
		window.flamepipe.flame.data.root.total === n, ranged);
	await again.close();
});

await step('the flame chart counts every sample of the range once', async () => {
	await v.selectOption('#fview', 'chart');
	await v.waitForFunction(() => window.flamepipe.chart().length > 0);
	const frames = await v.evaluate(() => window.flamepipe.chart());
	eq(frames.filter((f) => f.depth === 0).reduce((s, f) => s + f.w, 0), ranged, 'chart width in samples');
	check((await v.textContent('#chart-title')).includes('time order'), 'title');
	check((await v.textContent('#chart-note')).includes('per heatmap cell (20 ms)'), 'the per-cell order is not said');
	await viewsShot(page, 'report-chart-01-chart');
});

await step('frames are in time order left to right at every depth', async () => {
	const frames = await v.evaluate(() => window.flamepipe.chart());
	const depths = new Map();
	for (const f of frames) depths.set(f.depth, [...(depths.get(f.depth) || []), f]);
	for (const [d, fs] of depths) {
		fs.sort((a, b) => a.x - b.x);
		for (let i = 1; i < fs.length; i++) {
			check(fs[i].t >= fs[i - 1].t, `depth ${d}: ${fs[i].name} at ${fs[i].x} starts before ${fs[i - 1].name}`);
			check(fs[i].x >= fs[i - 1].x + fs[i - 1].w, `depth ${d}: overlap at ${fs[i].x}`);
		}
	}
	check(depths.get(0).length > 4, 'the processes do not take turns at depth 0');
});

const SECOND = [4 * 50, 4 * 50 + 49];	// [4, 5) s
await step('Compare: a second range gives the differential of the two, drawn with the second\'s widths', async () => {
	const second = functionTotals(path.join(report(CAPTURE, ['--from', '4', '--to', '5'], 'second'), 'stacks.folded')).total;
	await v.selectOption('#fview', 'flame');
	await v.click('#compare');
	await clickViewsCell(page, SECOND[0]);
	await clickViewsCell(page, SECOND[1]);
	await v.waitForSelector('#flame-tabs:not([hidden])');
	const t = await v.evaluate(() => {
		const tr = window.flamepipe.trees(), sum = (n) => (n.value || 0) + n.children.reduce((s, k) => s + sum(k), 0);
		return { diff: sum(tr.diff), flip: sum(tr.flip), drawn: window.flamepipe.flame.data.root.total, deltas: window.flamepipe.flame.data.nodes.filter((n) => n.d).length };
	});
	eq(t.diff, second, 'differential total (the second range)');
	eq(t.flip, ranged, 'flipped total (the first range)');
	eq(t.drawn, second, 'drawn total');
	check(t.deltas > 0, 'no frame changed between the ranges');
	await viewsShot(page, 'report-chart-02-compare');
});

await endClean(page);
