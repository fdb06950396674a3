// views2-containers.test.mjs: the container picker and small multiples. A
// capture made by the test as a flamepipe recording (fp-record) of S
// records with cgroups (the 11th field, as fp-perfdata writes it from
// perf record --all-cgroups): a docker container (two processes), a
// Kubernetes pod's container, a systemd service, and samples without a
// cgroup. The page lists the containers by their readable names with
// their counts; checking one filters the heatmap and the flame graph to
// exactly its samples (and the URL keeps it); checking two filters to
// their sum; the small multiples draw one strip per container with
// exactly its samples, on the heatmap's axis; a capture without cgroups
// shows no container box. Screenshots: tests/artifacts/views2-containers-*.png.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, step, check, eq, finish, deadline, onCleanup, startServe, launch, newPage, shot, shootOnFailure,
	 waitCells } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const WAIT_MS = 15000;
const FILE = 'containers.fp.gz';
const PLAIN = 'plain.fp.gz';
const SECONDS = 5;
const HEX = '3f6c1a9e2b7d4c5e8f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6a';
const UID = '1a2b3c4d_0000_4e5f_8a9b_00112233aabb';
// [cgroup path, readable name (fp_container.h), pids, samples a second per pid]
const GROUPS = [
	[`/system.slice/docker-${HEX}.scope`, `docker-${HEX.slice(0, 12)}`, [700, 701], 9],
	[`/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID}.slice/cri-containerd-${HEX}.scope`,
	 `pod-${UID.replace(/_/g, '-')}/${HEX.slice(0, 12)}`, [800], 7],
	['/system.slice/nginx.service', 'nginx.service', [900], 4],
	['', '', [1], 2],	// no cgroup (the 11th field absent)
];

deadline(TEST_DEADLINE_MS);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-views2-containers-'));
if (!process.env.KEEP) onCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
const want = new Map();
const lines = ['%flamepipe\t1'];
for (let s = 0; s < SECONDS; s++)
	for (const [cg, name, pids, k] of GROUPS)
		for (const pid of pids)
			for (let i = 0; i < k; i++) {
				const t = (1000 + s) * 1e9 + Math.floor((i + 0.5) / (k + 1) * 1e9) + pid;
				lines.push(['S', t, pid, pid, 0, 1, 'cpu-clock', `app${pid}`, 'uu', `main;work_${pid}`]
					   .concat(cg ? [cg] : []).join('\t'));
				want.set(name, (want.get(name) || 0) + 1);
			}
lines.sort((a, b) => (a[0] === '%' ? -1 : b[0] === '%' ? 1 : Number(a.split('\t')[1]) - Number(b.split('\t')[1])));
function record(file, text) {
	const r = spawnSync(path.join(BIN, 'fp-record'), ['--output', path.join(dir, file)],
			    { input: text, stdio: ['pipe', 'ignore', 'pipe'] });
	if (r.status !== 0) throw new Error(`fp-record: ${r.stderr}`);
}
record(FILE, lines.join('\n') + '\n');
// the same samples without their cgroups
record(PLAIN, lines.map((l) => l.split('\t').slice(0, 10).join('\t')).join('\n') + '\n');
const TOTAL = [...want.values()].reduce((a, b) => a + b, 0);
const named = GROUPS.filter((g) => g[1] !== '').map((g) => g[1]);

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
