// views-chart.test.mjs: the time-ordered flame chart of a range
// (View -> flame chart) on examples/multiproc.perf.gz: its frames are in
// time order left to right at every depth, each sample counted once (the
// chart's width in samples = the range's flame graph total = /flamechart/'s
// total). Screenshots: tests/artifacts/views-chart-*.png.
import { step, check, eq, finish, shot, waitCells, treeTotal, servedPage } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 45000;
const WAIT_MS = 15000;
const FILE = 'multiproc.perf.gz';
const START = '2', END = '2.5';

const { srv, page, api } = await servedPage('views-chart', TEST_DEADLINE_MS, { waitMs: WAIT_MS });

await step(`the flame chart of [${START}, ${END}) counts every sample of the range once`, async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE, start: START, end: END, fv: 'chart' }));
	await waitCells(page);
	await page.waitForFunction(() => window.flamepipe.chart().length > 0);
	const tree = await api('flamegraph/', { filename: FILE, start: START, end: END });
	const fc = await api('flamechart/', { filename: FILE, start: START, end: END });
	const frames = await page.evaluate(() => window.flamepipe.chart());
	const top = frames.filter((f) => f.depth === 0);
	const width = top.reduce((s, f) => s + f.w, 0);
	eq(fc.total, treeTotal(tree), '/flamechart/ total vs /flamegraph/ total');
	eq(width, fc.total, 'chart width in samples');
	eq(fc.runs.reduce((s, r) => s + r.n, 0), fc.total, 'runs add up');
	check(await page.isHidden('#flame-wrap'), 'flame graph shown with the chart');
	await shot(page, 'views-chart-01-chart');
});

await step('frames are in time order left to right, at every depth', async () => {
	const frames = await page.evaluate(() => window.flamepipe.chart());
	const byDepth = new Map();
	for (const f of frames) {
		if (!byDepth.has(f.depth)) byDepth.set(f.depth, []);
		byDepth.get(f.depth).push(f);
	}
	for (const [d, fs] of byDepth) {
		fs.sort((a, b) => a.x - b.x);
		for (let i = 1; i < fs.length; i++) {
			if (fs[i].t < fs[i - 1].t) throw new Error(`depth ${d}: ${fs[i].name} at x ${fs[i].x} starts before ${fs[i - 1].name}`);
			if (fs[i].x < fs[i - 1].x + fs[i - 1].w) throw new Error(`depth ${d}: frames overlap at x ${fs[i].x}`);
		}
	}
	// the range holds several processes taking turns: the chart shows the turns
	check(byDepth.get(0).length > 4, 'no alternation between processes at depth 0');
	const runs = (await api('flamechart/', { filename: FILE, start: START, end: END })).runs;
	for (let i = 1; i < runs.length; i++) check(runs[i].t >= runs[i - 1].t, 'runs not in time order');
});

await step('switching back to the flame graph shows it again', async () => {
	await page.selectOption('#fview', 'flame');
	check(await page.isVisible('#flame-wrap') && await page.isHidden('#chart-box'), 'views not switched');
});

await step('no script errors on the page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
