// live-perf.test.mjs: the real thing. `flamepipe live --http` profiles the
// machine with perf; a workload is started *after* the capture and the page
// must show it (new columns, its comm in the live flame graph) while the
// capture is still running. Needs perf and root (or perf_event_paranoid
// low enough): without them it skips, saying why.
// Prints TAP; screenshots go to tests/artifacts/live-perf-*.png.
import path from 'node:path';
import { BIN, step, check, eq, finish, deadline, launch, shot, waitCells, testPage, startGroup,
	 stopGroup, listeningUrl, skipUnlessPerf, namedShell, tmpdir } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 55000;
const WAIT_MS = 15000;
const NAME = 'wl-live';
const WORKLOAD = 'fpbusyloop';	// the workload's comm: a copy of /bin/sh
const CAPTURE_S = 20;		// upper bound: the test stops it sooner
const WORKLOAD_MS = 3000;	// CPU burnt by the workload
const SHOWN_WITHIN_MS = 8000;	// generous: the machine is shared

deadline(TEST_DEADLINE_MS);

skipUnlessPerf('live profiling');
const busy = namedShell(tmpdir('live-perf'), WORKLOAD);

let live, url;
await step('flamepipe live --http starts perf and the web view', async () => {
	live = startGroup(path.join(BIN, 'flamepipe'), ['live', '-F', '99', '-a', '-g', '--duration', String(CAPTURE_S),
							'--http', '127.0.0.1:0', '--exit-at-end', '--no-term', '--name', NAME],
			  { cleanupSignal: 'SIGINT' });
	url = await listeningUrl(live, WAIT_MS, 'flamepipe live');
});

const browser = await launch();
const page = await testPage(browser, 'live-perf', WAIT_MS);
const heatState = () => page.evaluate(() => {
	const h = window.flamepipe.state.heat;
	return h ? { ncols: h.ncols, total: h.total, ended: h.ended } : null;
});

let before;
await step('the live page opens from the file list', async () => {
	await page.goto(url);
	await page.getByRole('link', { name: NAME, exact: true }).click();
	await page.waitForSelector('#live-badge:not([hidden])');
	await waitCells(page);
	await page.waitForFunction(() => window.flamepipe.state.liveReady);
	before = await heatState();
});

let work, started;
await step(`a workload started after the capture shows up while it runs (within ${SHOWN_WITHIN_MS / 1000} s)`, async () => {
	work = startGroup(busy, ['-c', 'while :; do :; done']);
	started = Date.now();
	const killer = setTimeout(() => stopGroup(work, 'SIGKILL'), WORKLOAD_MS);
	try {
		// its comm becomes a frame under the root of the live flame graph
		await page.waitForFunction((w) => {
			const d = window.flamepipe.flame.data;
			return d && d.root.kids.some((k) => k.name === w && k.total > 0);
		}, WORKLOAD, { timeout: SHOWN_WITHIN_MS });
	} finally {
		clearTimeout(killer);
	}
	const shownAfter = Date.now() - started;
	// the flame graph can show the workload within the same second: a new
	// column comes at the next second boundary, so wait for it (same bound)
	await page.waitForFunction((n) => {
		const h = window.flamepipe.state.heat;
		return h && h.ncols > n;
	}, before.ncols, { timeout: Math.max(1000, SHOWN_WITHIN_MS - shownAfter) }).catch(() => {});
	const now = await heatState();
	check(now.ncols > before.ncols, `no new columns: ${before.ncols} -> ${now.ncols}`);
	check(now.total > before.total, 'no new samples in the heatmap');
	check(!now.ended && live.exitCode === null, 'the capture had already ended');
	console.log(`# workload shown ${shownAfter} ms after it started; columns ${before.ncols} -> ${now.ncols}`);
	await stopGroup(work, 'SIGKILL');
	await shot(page, 'live-perf-01-workload');
});

await step('Ctrl-C ends the capture cleanly', async () => {
	await stopGroup(live, 'SIGINT');
	eq(live.exitCode, 0, 'flamepipe live exit code (stderr: ' + live.err.slice(-300) + ')');
});

await step('no script errors on the live page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
