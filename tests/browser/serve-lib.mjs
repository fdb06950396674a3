// serve-lib.mjs: shared parts of the fp-serve browser tests (serve-ui,
// live-ui, live-perf): the TAP steps and browser of tap-lib.mjs,
// starting/stopping fp-serve, pages, the heatmap canvas.
// Every exit path (failure, exception, timeout, signal) stops the server.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, BIN, TOP, finish, onCleanup, onStepFailure } from './tap-lib.mjs';

export { TOP, BIN, ARTIFACTS, step, check, eq, finish, deadline, onCleanup, launch } from './tap-lib.mjs';

const START_TIMEOUT_MS = 10000;
const STOP_GRACE_MS = 2000;

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
	const proc = spawn(exe, ['--listen', '127.0.0.1:0', ...args],
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

// ---- the heatmap canvas (web/ui/app.js exposes window.flamepipe) -------------------------------
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
// Colours drawn at the cell centres, and the cells the selection overlay covers.
export const drawnCells = (page) => page.evaluate(() => window.flamepipe.drawnCells());
export async function highlighted(page) {
	await page.mouse.move(0, 0);	// no hover box
	const a = await page.evaluate(() => window.flamepipe.overlayCells());
	return a.map((v, t) => (v > 0 ? t : -1)).filter((t) => t >= 0);
}
