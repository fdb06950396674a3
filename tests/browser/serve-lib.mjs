// serve-lib.mjs: shared parts of the fp-serve browser tests (serve-ui,
// live-ui, live-perf): the TAP steps and browser of tap-lib.mjs,
// starting/stopping fp-serve, pages, the heatmap canvas.
// Every exit path (failure, exception, timeout, signal) stops the server.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, BIN, TOP, deadline, finish, launch, onCleanup, onStepFailure, step } from './tap-lib.mjs';

export { TOP, BIN, ARTIFACTS, step, check, eq, finish, deadline, onCleanup, launch, tmpdir } from './tap-lib.mjs';

const START_TIMEOUT_MS = 10000;
const STOP_GRACE_MS = 2000;
const DEFAULT_WAIT_MS = 15000;	// one UI step (a flame graph is a stage chain run)

const children = new Set();
// Registered first, so it runs after every cleanup a test adds.
onCleanup(() => Promise.all([...children].map(stopChild)));

// Pages whose screenshot is kept when a step fails.
const failShots = new Map();
export function shootOnFailure(page, label) { failShots.set(page, label); }
onStepFailure(async (nstep) => {
	for (const [pg, label] of failShots) {
		try {
			const banner = await pg.evaluate(() => {
				const e = document.getElementById('error');
				return e && !e.hidden ? e.textContent : '';
			});
			if (banner) console.log(`#   ${label} page error banner: ${banner}`);
			await shot(pg, `FAILED-${label}-step${nstep}`);
			console.log(`#   screenshot: tests/artifacts/FAILED-${label}-step${nstep}.png`);
		} catch (e2) { /* the page is gone */ }
	}
});

process.on('SIGINT', () => finish(130));
process.on('SIGTERM', () => finish(143));
// Last resort (process.exit from elsewhere): never leave a server behind.
process.on('exit', () => { for (const c of children) try { c.kill('SIGKILL'); } catch (e) { /* gone */ } });

// ---- processes -------------------------------------------------------------------------
function stopChild(c) {
	return new Promise((resolve) => {
		if (c.exitCode !== null || c.signalCode !== null) { children.delete(c); return resolve(); }
		const t = setTimeout(() => { try { c.kill('SIGKILL'); } catch (e) { /* gone */ } }, STOP_GRACE_MS);
		c.once('exit', () => { clearTimeout(t); children.delete(c); resolve(); });
		try { c.kill('SIGTERM'); } catch (e) { resolve(); }
	});
}
export { stopChild };

// Starts fp-serve on a free port (--listen 127.0.0.1:0; it prints the
// port it got). Returns {url, proc, stderr()}.
export function startServe(args, opts = {}) {
	const exe = path.join(BIN, 'fp-serve');
	if (!fs.existsSync(exe)) throw new Error(`${exe} not found: run make`);
	// As root, fp-serve drops to nobody after binding (docs/fp-serve.md,
	// "Privilege"), which cannot read a test's private temporary
	// directory: the tests run it as root unless they pass --user.
	const user = process.getuid() === 0 && !args.includes('--user') ? ['--user', 'root'] : [];
	const proc = spawn(exe, ['--listen', '127.0.0.1:0', ...user, ...args],
			   { cwd: TOP, stdio: [opts.stdin || 'ignore', 'pipe', 'pipe'] });
	children.add(proc);
	let out = '', err = '';
	proc.stderr.on('data', (d) => { err += d; });
	return new Promise((resolve, reject) => {
		const t = setTimeout(() => reject(new Error(`fp-serve did not print its address within ${START_TIMEOUT_MS} ms; stderr: ${err}`)), START_TIMEOUT_MS);
		proc.stdout.on('data', (d) => {
			out += d;
			const m = out.match(/listening on (http:\/\/[^\s]+?)\/?\s/);
			if (m) {
				clearTimeout(t);
				resolve({ url: m[1] + '/', proc, stderr: () => err });
			}
		});
		proc.once('exit', (code, sig) => {
			clearTimeout(t);
			reject(new Error(`fp-serve exited (${code ?? sig}) before listening; stderr: ${err}`));
		});
		proc.once('error', (e) => { clearTimeout(t); reject(e); });
	});
}

// ---- process groups (flamepipe live, a shell chain, a workload) ---------------------------
// startGroup runs CMD ARGS detached, in its own process group, so that
// stopGroup(p, sig) stops it and all its children by the group id (SIGKILL
// after GROUP_GRACE_MS). Every group still running is stopped at cleanup
// with opts.cleanupSignal (default SIGTERM), and killed on process exit.
// p.err collects its stderr.
const GROUP_GRACE_MS = 5000;
const groups = [];
onCleanup(() => Promise.all(groups.map((p) => stopGroup(p, p.cleanupSignal))));
process.on('exit', () => { for (const p of groups) try { process.kill(-p.pid, 'SIGKILL'); } catch (e) { /* gone */ } });
export function startGroup(cmd, args, opts = {}) {
	const p = spawn(cmd, args, { cwd: TOP, detached: true, stdio: [opts.stdin || 'ignore', 'pipe', 'pipe'] });
	p.cleanupSignal = opts.cleanupSignal || 'SIGTERM';
	p.err = '';
	p.stderr.on('data', (d) => { p.err += d; });
	groups.push(p);
	return p;
}
export function stopGroup(p, sig = 'SIGINT') {
	return new Promise((resolve) => {
		if (p.exitCode !== null || p.signalCode !== null) return resolve();
		const t = setTimeout(() => { try { process.kill(-p.pid, 'SIGKILL'); } catch (e) { /* gone */ } resolve(); }, GROUP_GRACE_MS);
		p.once('exit', () => { clearTimeout(t); resolve(); });
		try { process.kill(-p.pid, sig); } catch (e) { clearTimeout(t); resolve(); }
	});
}
// The address fp-serve prints ("listening on URL") on the stdout or stderr
// of p (fp-serve itself, or a chain or runner that starts it), within ms.
export function listeningUrl(p, ms, what) {
	return new Promise((resolve, reject) => {
		let text = '';
		const t = setTimeout(() => reject(new Error(`no web address within ${ms / 1000} s; stderr: ${p.err}`)), ms);
		const look = (d) => {
			text += d;
			const m = text.match(/listening on (http:\/\/\S+?)\/?\s/);
			if (m) { clearTimeout(t); resolve(m[1] + '/'); }
		};
		p.stdout.on('data', look);
		p.stderr.on('data', look);
		p.once('exit', (c) => { clearTimeout(t); reject(new Error(`${what} exited (${c}): ${p.err}`)); });
	});
}

// ---- live profiling --------------------------------------------------------------------------
// Ends the test with a TAP skip unless perf can profile the machine here
// (installed, and root or perf_event_paranoid <= 0).
export function skipUnlessPerf(what) {
	const perf = spawnSync('perf', ['--version'], { encoding: 'utf8' });
	let paranoid = 2;
	try { paranoid = Number(fs.readFileSync('/proc/sys/kernel/perf_event_paranoid', 'utf8')); } catch (e) { /* absent */ }
	if (perf.status !== 0 || (process.getuid() !== 0 && paranoid > 0)) {
		console.log(`ok 1 - # skip ${what}: ${perf.status !== 0 ? 'perf is not installed' : 'not root and perf_event_paranoid=' + paranoid}`);
		process.exit(0);
	}
}
// A copy of /bin/sh named COMM in DIR: a workload whose comm the test knows.
export function namedShell(dir, comm) {
	const sh = path.join(dir, comm);
	fs.copyFileSync('/bin/sh', sh);
	fs.chmodSync(sh, 0o755);
	return sh;
}

// ---- browser ----------------------------------------------------------------------------
// Every page gets: console errors and page errors recorded, dialogs
// (alert/confirm) recorded and dismissed.
export async function newPage(browser, log) {
	const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
	page.dialogs = [];
	page.pageErrors = [];
	page.on('dialog', (d) => { page.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
	page.on('pageerror', (e) => { page.pageErrors.push(e.message); });
	page.on('console', (m) => { if (log && m.type() === 'error') console.log('# console: ' + m.text()); });
	return page;
}
// fullPage false for documents that are not HTML (an SVG never settles).
// The page a test drives: newPage's, with a bound on every UI step
// (waitMs) and a screenshot tests/artifacts/FAILED-LABEL-stepN.png when a
// step fails; log: console errors are printed.
export async function testPage(browser, label, waitMs, log = true) {
	const page = await newPage(browser, log);
	page.setDefaultTimeout(waitMs);
	shootOnFailure(page, label);
	return page;
}
// GET ROUTE?PARAMS of a server as JSON: api(route, params).
export const apiOf = (srv) => (route, params) => getJSON(srv.url + route + '?' + new URLSearchParams(params));

// The common start of a page test on fp-serve: a hard deadline, the
// browser, fp-serve --dir DIR (default examples) started as step 1 (named
// opts.stepName; opts.started(srv) may check more in that step), and
// testPage(browser, label, opts.waitMs). Returns {browser, srv, page, api}.
export async function servedPage(label, deadlineMs, opts = {}) {
	deadline(deadlineMs);
	const browser = await launch();
	let srv;
	await step(opts.stepName || `fp-serve --dir ${opts.dir || 'examples'} starts`, async () => {
		srv = await startServe(['--dir', opts.dir || 'examples']);
		if (opts.started) await opts.started(srv);
	});
	const page = await testPage(browser, label, opts.waitMs || DEFAULT_WAIT_MS);
	return { browser, srv, page, api: apiOf(srv) };
}

export async function shot(page, name, fullPage = true) {
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	await page.screenshot({ path: path.join(ARTIFACTS, name + '.png'), fullPage });
}
export async function getJSON(url) {
	const r = await fetch(url);
	const body = await r.text();
	if (!r.ok) throw new Error(`GET ${url}: ${r.status} ${body.slice(0, 200)}`);
	return JSON.parse(body);
}

// ---- flame graph trees (FlameScope shape) ---------------------------------------------------
export function treeTotal(t) {
	const kids = t.c || t.children || [];
	return Number(t.v ?? t.value ?? 0) + kids.reduce((s, k) => s + treeTotal(k), 0);
}
// Samples under frames whose name matches `re`, counting nested matches
// once (what flamegraph.pl's "Matched" reports). The root is not a frame.
export function treeMatched(t, re, depth = 0, inMatch = false) {
	const name = t.n ?? t.name;
	const m = depth > 0 && re.test(name);
	let sum = m && !inMatch ? treeTotal(t) : 0;
	for (const k of t.c || t.children || [])
		sum += treeMatched(k, re, depth + 1, inMatch || m);
	return sum;
}

// ---- the heatmap canvas (ui/app.js exposes window.flamepipe) -------------------------------
// Clicks cell t = col * rows + row (row 0 = start of the second).
export async function clickCell(page, t) {
	await page.locator('#heat-overlay').scrollIntoViewIfNeeded();
	const p = await page.evaluate((t) => window.flamepipe.cellCenter(t), t);
	if (!p) throw new Error('no heatmap drawn');
	await page.mouse.click(p.x, p.y);
}
export async function hoverCell(page, t) {
	const p = await page.evaluate((t) => window.flamepipe.cellCenter(t), t);
	await page.mouse.move(p.x, p.y);
}
// Waits until the heatmap is drawn with n cells (any n > 0 if omitted).
export async function waitCells(page, n) {
	await page.waitForFunction((n) => {
		const c = window.flamepipe && window.flamepipe.drawnCells();
		return c && (n === undefined ? c.length > 0 : c.length === n);
	}, n);
}
// Waits until the flame graph of the current selection is drawn with samples.
export async function waitFlame(page) {
	await page.waitForFunction(() => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total > 0);
}
// Colours drawn at the cell centres, and the cells the selection overlay covers.
export const drawnCells = (page) => page.evaluate(() => window.flamepipe.drawnCells());
export async function highlighted(page) {
	await page.mouse.move(0, 0);	// no hover box
	const a = await page.evaluate(() => window.flamepipe.overlayCells());
	return a.map((v, t) => (v > 0 ? t : -1)).filter((t) => t >= 0);
}
