// report-containers.test.mjs: the static report's container picker and
// small multiples (the same page as fp-serve's, answered from the
// report's embedded timeline, which keeps each sample's cgroup), on a
// capture with cgroups made by the test (containers-lib.mjs). The picker
// lists each container by its readable name with its samples; checking
// one shows exactly its samples in the heatmap and the flame graph, as
// `flamepipe report --container` does; the small multiples draw one strip
// per container with exactly its samples. Offline, from file://.
// Screenshots: tests/artifacts/report-containers-*.png.
import path from 'node:path';
import { step, check, eq, deadline, launch, report, openReport, functionTotals, viewsShot,
	 waitTotals, endClean, tmpdir } from './report-lib.mjs';
import { containerCapture } from './containers-lib.mjs';

const TEST_DEADLINE_MS = 60000;

deadline(TEST_DEADLINE_MS);
const capDir = tmpdir('report-containers-capture');
const { want, total, named } = containerCapture(capDir, 'containers.fp.gz');
const capture = path.join(capDir, 'containers.fp.gz');
const dir = report(capture);
const browser = await launch();
const page = await openReport(browser, dir);
const v = page.views;

await step('the report has every sample', async () => {
	eq(functionTotals(path.join(dir, 'stacks.folded')).total, total, 'stacks.folded total');
	await waitTotals(v, total);
});

await step('the picker lists each container by its readable name with its samples', async () => {
	await v.waitForSelector('#containers-box:not([hidden])');
	await v.click('#containers-box summary');
	await v.waitForSelector('#containers input[data-container]');
	const th = await v.evaluate(() => window.flamepipeReport.answer('/threads/'));
	for (const [name, n] of want) {
		const c = th.containers.find((x) => x.name === name);
		check(c, `no container ${JSON.stringify(name)} in ${JSON.stringify(th.containers)}`);
		eq(c.samples, n, `${name || '(no cgroup)'} samples`);
	}
	eq(th.containers.reduce((s, c) => s + c.samples, 0), total, 'containers sum');
	await viewsShot(page, 'report-containers-01-picker');
});

await step('checking a container shows exactly its samples, as flamepipe report --container', async () => {
	const name = named[1];
	const filtered = report(capture, ['--container', name], 'report-containers-filtered');
	const n = functionTotals(path.join(filtered, 'stacks.folded')).total;
	eq(n, want.get(name), 'flamepipe report --container total');
	await v.check(`#containers input[value="${name}"]`);
	await waitTotals(v, n);
	await v.uncheck(`#containers input[value="${name}"]`);
	await waitTotals(v, total);
});

await step('small multiples: one strip per container with exactly its samples', async () => {
	await v.click('#cmultiples');
	await v.waitForFunction((n) => window.flamepipe.containerStrips().length === n, named.length);
	const strips = await v.evaluate(() => window.flamepipe.containerStrips());
	for (const s of strips)
		eq(s.total, want.get(s.name), `${s.name} strip`);
	await viewsShot(page, 'report-containers-02-multiples');
});

await endClean(page);
