// live-perf.test.mjs: the real thing. `flamepipe live --http` profiles the
// machine with perf; a workload is started *after* the capture and the page
// must show it (new columns, its comm in the live flame graph) while the
// capture is still running. Needs perf and root (or perf_event_paranoid
// low enough): without them it skips, saying why.
// Prints TAP; screenshots go to tests/artifacts/live-perf-*.png.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
	TOP, BIN, step, check, eq, finish, deadline, onCleanup, launch, newPage, shot, waitCells, shootOnFailure
} from './serve-lib.mjs';

const TEST_DEADLINE_MS = 55000;
const WAIT_MS = 15000;
const NAME = 'wl-live';
const WORKLOAD = 'fpbusyloop';	// the workload's comm: a copy of /bin/sh
const CAPTURE_S = 20;		// upper bound: the test stops it sooner
const WORKLOAD_MS = 3000;	// CPU burnt by the workload
const SHOWN_WITHIN_MS = 8000;	// generous: the machine is shared

deadline(TEST_DEADLINE_MS);

// ---- can we profile at all? -----------------------------------------------------------------
const perf = spawnSync('perf', ['--version'], { encoding: 'utf8' });
let paranoid = 2;
try { paranoid = Number(fs.readFileSync('/proc/sys/kernel/perf_event_paranoid', 'utf8')); } catch (e) { /* absent */ }
if (perf.status !== 0 || (process.getuid() !== 0 && paranoid > 0)) {
	console.log(`ok 1 - # skip live profiling: ${perf.status !== 0 ? 'perf is not installed' : 'not root and perf_event_paranoid=' + paranoid}`);
	process.exit(0);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-live-perf-'));
onCleanup(() => fs.rmSync(tmp, { recursive: true, force: true }));
const busy = path.join(tmp, WORKLOAD);
fs.copyFileSync('/bin/sh', busy);
fs.chmodSync(busy, 0o755);

// Own process groups: each is stopped by its group id on every exit path.
const groups = [];
function startGroup(cmd, args) {
	const p = spawn(cmd, args, { cwd: TOP, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
	groups.push(p);
	return p;
}
function stopGroup(p, sig = 'SIGINT') {
	return new Promise((resolve) => {
		if (p.exitCode !== null || p.signalCode !== null) return resolve();
		const t = setTimeout(() => { try { process.kill(-p.pid, 'SIGKILL'); } catch (e) { /* gone */ } resolve(); }, 5000);
		p.once('exit', () => { clearTimeout(t); resolve(); });
		try { process.kill(-p.pid, sig); } catch (e) { clearTimeout(t); resolve(); }
	});
}
onCleanup(() => Promise.all(groups.map((p) => stopGroup(p))));
process.on('exit', () => { for (const p of groups) try { process.kill(-p.pid, 'SIGKILL'); } catch (e) { /* gone */ } });

let live, url, liveErr = '';
await step('flamepipe live --http starts perf and the web view', async () => {
	live = startGroup(path.join(BIN, 'flamepipe'), ['live', '-F', '99', '-a', '-g', '--duration', String(CAPTURE_S),
							'--http', '127.0.0.1:0', '--no-term', '--name', NAME]);
	live.stderr.on('data', (d) => { liveErr += d; });
	url = await new Promise((resolve, reject) => {
		let out = '';
		const t = setTimeout(() => reject(new Error('no web address within 15 s; stderr: ' + liveErr)), WAIT_MS);
		const look = (d) => {
			out += d;
			const m = out.match(/fp-serve: listening on (http:\/\/\S+?)\/?\s/);
			if (m) { clearTimeout(t); resolve(m[1] + '/'); }
		};
		live.stdout.on('data', look);
		live.stderr.on('data', look);
		live.once('exit', (c) => { clearTimeout(t); reject(new Error(`flamepipe live exited (${c}): ${liveErr}`)); });
	});
});

const browser = await launch();
const page = await newPage(browser, true);
page.setDefaultTimeout(WAIT_MS);
shootOnFailure(page, 'live-perf');
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
	eq(live.exitCode, 0, 'flamepipe live exit code (stderr: ' + liveErr.slice(-300) + ')');
});

await step('no script errors on the live page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
