// views-threads.test.mjs: per-process and per-thread views on
// examples/multiproc.perf.gz (five processes): the picker lists them with
// the samples /threads/ gives, summing to the heatmap's total; checking
// processes shows exactly their samples in the heatmap and the flame
// graph; small multiples draw one strip per process on the heatmap's axis
// and the strips sum to the whole. Screenshots: tests/artifacts/views-threads-*.png.
import { step, check, eq, finish, shot, waitCells, servedPage } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const WAIT_MS = 15000;
const FILE = 'multiproc.perf.gz';

const { srv, page, api } = await servedPage('views-threads', TEST_DEADLINE_MS, { waitMs: WAIT_MS });

let th, whole;
await step('the picker lists the processes and threads with their samples; they sum to the heatmap total', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE }));
	await waitCells(page);
	await page.click('#threads-box summary');
	await page.waitForSelector('#threads input[data-kind=pid]');
	th = await api('threads/', { filename: FILE });
	whole = await page.evaluate(() => window.flamepipe.state.heat.total);
	eq(th.processes.reduce((s, p) => s + p.samples, 0), whole, 'processes sum vs heatmap total');
	eq(th.threads.reduce((s, p) => s + p.samples, 0), whole, 'threads sum vs heatmap total');
	eq(th.total, whole, '/threads/ total');
	const listed = await page.$$eval('#threads input[data-kind=pid]', (cs) => cs.map((c) => c.value));
	eq(listed.join(','), th.processes.map((p) => String(p.pid)).join(','), 'processes listed, heaviest first');
	await shot(page, 'views-threads-01-picker');
});

await step('checking two processes shows exactly their samples in both views', async () => {
	const [a, b] = th.processes;
	await page.check(`#threads input[data-kind=pid][value="${a.pid}"]`);
	await page.waitForFunction((n) => window.flamepipe.state.heat.total === n &&
		window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n, a.samples);
	await page.check(`#threads input[data-kind=pid][value="${b.pid}"]`);
	await page.waitForFunction((n) => window.flamepipe.state.heat.total === n &&
		window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n, a.samples + b.samples);
	const h = await page.evaluate(() => location.hash);
	check(decodeURIComponent(h).includes(`pid=${a.pid},${b.pid}`), 'pids not in the URL: ' + h);
	await shot(page, 'views-threads-02-two-processes');
	await page.uncheck(`#threads input[data-kind=pid][value="${a.pid}"]`);
	await page.uncheck(`#threads input[data-kind=pid][value="${b.pid}"]`);
	await page.waitForFunction((n) => window.flamepipe.state.heat.total === n && !window.flamepipe.state.heat.filtered, whole);
});

await step('small multiples: one strip per process on the same axis; the strips sum to the whole', async () => {
	await page.click('#multiples');
	await page.waitForFunction((n) => window.flamepipe.strips().length === n, th.processes.length);
	const strips = await page.evaluate(() => window.flamepipe.strips());
	const main = await page.evaluate(() => ({ ncols: window.flamepipe.state.heat.ncols, base: window.flamepipe.state.heat.base }));
	eq(strips.reduce((s, x) => s + x.total, 0), whole, 'sum of the strips');
	for (const x of strips) {
		eq(x.ncols, main.ncols, `strip ${x.pid} columns`);
		eq(x.start_sec, main.base, `strip ${x.pid} start second`);
		eq(x.total, th.processes.find((p) => p.pid === x.pid).samples, `strip ${x.pid} total`);
	}
	await page.locator('#strips').scrollIntoViewIfNeeded();
	await shot(page, 'views-threads-03-small-multiples');
});

await step('no script errors on the page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
