// views2-containers.test.mjs: the container picker and small multiples,
// on fp-serve, of a capture with cgroups made by the test
// (containers-lib.mjs: a docker container of two processes, a Kubernetes
// pod's container, a systemd service, samples without a cgroup). The page lists the containers by their readable names with
// their counts; checking one filters the heatmap and the flame graph to
// exactly its samples (and the URL keeps it); checking two filters to
// their sum; the small multiples draw one strip per container with
// exactly its samples, on the heatmap's axis; a capture without cgroups
// shows no container box. Screenshots: tests/artifacts/views2-containers-*.png.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { step, check, eq, finish, deadline, onCleanup, startServe, launch, newPage, shot, shootOnFailure,
	 waitCells } from './serve-lib.mjs';
import { GROUPS, containerCapture } from './containers-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const WAIT_MS = 15000;
const FILE = 'containers.fp.gz';
const PLAIN = 'plain.fp.gz';

deadline(TEST_DEADLINE_MS);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-views2-containers-'));
if (!process.env.KEEP) onCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
const { want, total: TOTAL, named } = containerCapture(dir, FILE, PLAIN);

const browser = await launch();
let srv;
await step('fp-serve serves a recording whose samples carry cgroups', async () => {
	srv = await startServe(['--dir', dir]);
});
const page = await newPage(browser, true);
page.setDefaultTimeout(WAIT_MS);
shootOnFailure(page, 'views2-containers');

async function heatTotal() {
	return page.evaluate(() => window.flamepipe.state.heat && window.flamepipe.state.heat.total);
}
let heat;
await step('the heatmap counts every sample', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE }));
	await waitCells(page);
	heat = await page.evaluate(() => ({ total: window.flamepipe.state.heat.total, ncols: window.flamepipe.state.heat.ncols, base: window.flamepipe.state.heat.base }));
	eq(heat.total, TOTAL, 'heatmap total');
});

await step('the picker lists each container by its readable name with its samples, and the samples without one', async () => {
	await page.waitForSelector('#containers-box:not([hidden])');
	await page.click('#containers-box summary');
	await page.waitForSelector('#containers input[data-container]');
	const rows = await page.$$eval('#containers label.owner', (ls) => ls.map((l) => l.textContent.trim()));
	for (const [, name] of GROUPS) {
		const shown = name || '(no cgroup)';
		const row = rows.find((r) => r.startsWith(shown + ' '));
		check(row, `no row for ${shown} in ${JSON.stringify(rows)}`);
		check(row.includes(` ${want.get(name)} (`), `row ${row}: want ${want.get(name)} samples`);
	}
	eq(await page.locator('#containers input[data-container]:disabled').count(), 1, 'the no-cgroup row cannot be picked');
	await shot(page, 'views2-containers-01-picker');
});

await step('checking a container filters the heatmap to exactly its samples, and the URL keeps it', async () => {
	const name = named[1];
	await page.check(`#containers input[value="${name}"]`);
	await page.waitForFunction((n) => window.flamepipe.state.heat && window.flamepipe.state.heat.total === n, want.get(name));
	eq(await heatTotal(), want.get(name), 'filtered heatmap total');
	check(decodeURIComponent(await page.evaluate(() => location.hash)).includes('container=' + name), 'container not in the URL');
	eq(await page.inputValue('#filters input[name=container]'), name, 'filter form field');
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n, want.get(name));
});

await step('checking a second container filters to the sum of both', async () => {
	await page.check(`#containers input[value="${named[0]}"]`);
	const sum = want.get(named[0]) + want.get(named[1]);
	await page.waitForFunction((n) => window.flamepipe.state.heat && window.flamepipe.state.heat.total === n, sum);
	eq(await heatTotal(), sum, 'two containers');
	await page.uncheck(`#containers input[value="${named[0]}"]`);
	await page.uncheck(`#containers input[value="${named[1]}"]`);
	await page.waitForFunction((n) => window.flamepipe.state.heat && window.flamepipe.state.heat.total === n, TOTAL);
});

await step('small multiples: one strip per container, each with exactly its samples on the heatmap axis', async () => {
	await page.click('#cmultiples');
	await page.waitForFunction((n) => window.flamepipe.containerStrips().length === n, named.length);
	const strips = await page.evaluate(() => window.flamepipe.containerStrips());
	eq(strips.map((s) => s.name).sort().join(), [...named].sort().join(), 'containers drawn');
	for (const s of strips) {
		eq(s.total, want.get(s.name), `${s.name} strip total`);
		eq(s.ncols, heat.ncols, `${s.name} strip columns`);
		eq(s.start_sec, heat.base, `${s.name} strip start second`);
		eq(s.cols.reduce((a, b) => a + b, 0), s.total, `${s.name} columns sum`);
	}
	eq(await page.locator('#cstrips canvas').count(), named.length, 'canvases drawn');
	// the heaviest first: docker's two processes
	eq(strips[0].name, named[0], 'heaviest strip first');
	await page.locator('#cstrips').scrollIntoViewIfNeeded();
	await shot(page, 'views2-containers-02-multiples');
});

await step('a capture without cgroups shows no container box', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: PLAIN }));
	await page.reload();
	await page.waitForFunction((n) => window.flamepipe.state.heat && window.flamepipe.state.heat.total === n, TOTAL);
	// the picker is drawn (hidden or not) when the /threads/ answer is in
	await page.waitForSelector('#containers .owners-title', { state: 'attached' });
	eq(await page.locator('#containers-box').isHidden(), true, 'container box hidden');
});

await step('no script errors on the page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
