// report-threads.test.mjs: the static report's processes and threads
// (examples/multiproc.perf.gz, four processes): the picker's processes and
// threads each sum to the whole (= stacks.folded's total), checking two
// processes shows exactly their samples in the heatmap and the flame
// graph, and the small multiples draw one strip per process on the
// heatmap's axis, the strips summing to the whole, per process and per
// thread. Offline, from file://.
// Screenshots: tests/artifacts/report-threads-*.png.
import path from 'node:path';
import { step, check, eq, deadline, launch, report, openReport, functionTotals, readFolded,
	 viewsShot, waitTotals, pickProcesses, endClean } from './report-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const CAPTURE = 'examples/multiproc.perf.gz';

deadline(TEST_DEADLINE_MS);
const dir = report(CAPTURE);
const whole = functionTotals(path.join(dir, 'stacks.folded')).total;
const browser = await launch();
const page = await openReport(browser, dir);
const v = page.views;
const threads = () => v.evaluate(() => window.flamepipeReport.answer('/threads/'));

let th;
await step('the picker lists processes and threads; each list sums to stacks.folded\'s total', async () => {
	await v.click('#threads-box summary');
	await v.waitForSelector('#threads input[data-kind=pid]');
	th = await threads();
	eq(th.total, whole, 'total');
	eq(th.processes.reduce((s, p) => s + p.samples, 0), whole, 'processes sum');
	eq(th.threads.reduce((s, p) => s + p.samples, 0), whole, 'threads sum');
	check(th.processes.length >= 4, 'processes: ' + th.processes.length);
	// each process of this capture has a comm of its own: its samples are
	// those of stacks.folded's lines with that root frame
	for (const p of th.processes)
		eq(p.samples, readFolded(path.join(dir, 'stacks.folded')).filter(([f]) => f[0] === p.comm)
			.reduce((s, [, n]) => s + n, 0), `process ${p.pid} (${p.comm})`);
	const listed = await v.$$eval('#threads input[data-kind=pid]', (cs) => cs.map((c) => Number(c.value)));
	eq(JSON.stringify(listed), JSON.stringify(th.processes.map((p) => p.pid)), 'listed heaviest first');
	await viewsShot(page, 'report-threads-01-picker');
});

await step('picking one, then two processes: both views show exactly their samples', async () => {
	const [a, b] = th.processes;
	for (const picked of [[a], [a, b]]) {
		await pickProcesses(v, picked.map((p) => p.pid));
		await waitTotals(v, picked.reduce((s, p) => s + p.samples, 0));
		const roots = await v.evaluate(() => window.flamepipe.flame.data.root.kids.map((k) => k.name).sort());
		eq(roots.join(','), picked.map((p) => p.comm).sort().join(','), 'root frames');
	}
	await viewsShot(page, 'report-threads-02-two');
	await pickProcesses(v, []);
	await waitTotals(v, whole);
});

await step('small multiples: one strip per process on the heatmap axis, summing to the whole', async () => {
	await v.click('#multiples');
	await v.waitForFunction((n) => window.flamepipe.strips().length === n, th.processes.length);
	const strips = await v.evaluate(() => window.flamepipe.strips());
	const ncols = await v.evaluate(() => window.flamepipe.state.heat.ncols);
	eq(strips.reduce((s, x) => s + x.total, 0), whole, 'sum of the strips');
	for (const x of strips) {
		eq(x.ncols, ncols, `strip ${x.pid} columns`);
		eq(x.total, th.processes.find((p) => p.pid === x.pid).samples, `strip ${x.pid} total`);
	}
	await v.locator('#strips').scrollIntoViewIfNeeded();
	await viewsShot(page, 'report-threads-03-multiples');
});

await step('small multiples per thread: one strip per thread, summing to the whole', async () => {
	await v.selectOption('#multiples-by', 'tid');
	await v.waitForFunction((n) => window.flamepipe.strips().length === n && window.flamepipe.strips()[0].tid !== undefined,
				th.threads.length);
	const strips = await v.evaluate(() => window.flamepipe.strips());
	eq(strips.reduce((s, x) => s + x.total, 0), whole, 'sum of the thread strips');
	for (const x of strips) eq(x.total, th.threads.find((t) => t.tid === x.tid).samples, `thread ${x.tid}`);
	await viewsShot(page, 'report-threads-04-thread-multiples');
});

await endClean(page);
