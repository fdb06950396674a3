// render-lib.mjs: shared parts of the renderer's browser tests
// (render-flame, render-heatmap): TAP steps, running flamepipe programs,
// launching Debian's chromium through playwright-core, screenshots.
// A failure prints "not ok N - step" with the reason and exits 1.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const TOP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = process.env.FP_BIN ? path.resolve(TOP, process.env.FP_BIN) : path.join(TOP, 'bin');
export const ARTIFACTS = path.join(TOP, 'tests', 'artifacts');
const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT_TIMEOUT_MS = 10000;

let chromium;
try {
	({ chromium } = await import('playwright-core'));
} catch (e) {
	console.log('not ok 1 - playwright-core is not installed: run `npm install` in tests/browser (make deps does it)');
	process.exit(1);
}

let nstep = 0;
const cleanups = [];

export function onCleanup(fn) { cleanups.push(fn); }

export async function finish(code) {
	for (const fn of cleanups.reverse()) {
		try { await fn(); } catch (e) { console.log('# cleanup: ' + e.message); }
	}
	if (code === 0)
		console.log(`1..${nstep}`);
	process.exit(code);
}

export async function step(name, fn) {
	nstep++;
	const t0 = Date.now();
	try {
		await fn();
		console.log(`ok ${nstep} - ${name} (${Date.now() - t0} ms)`);
	} catch (e) {
		console.log(`not ok ${nstep} - ${name}`);
		for (const line of String(e && e.stack || e).split('\n').slice(0, 8))
			console.log('#   ' + line);
		await finish(1);
	}
}

export function check(cond, msg) {
	if (!cond) throw new Error(msg);
}
export function eq(got, want, what) {
	if (got !== want) throw new Error(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

// A hard deadline so a hung browser never hangs the suite.
export function deadline(ms) {
	const t = setTimeout(() => {
		console.log(`not ok ${nstep + 1} - test took longer than ${ms / 1000} s`);
		finish(1);
	}, ms);
	t.unref();
}
process.on('unhandledRejection', (e) => {
	console.log(`not ok ${nstep + 1} - unhandled error`);
	console.log('#   ' + String(e && e.stack || e).split('\n').slice(0, 6).join('\n#   '));
	finish(1);
});

// Runs bin/PROG with args; returns stdout (throws with stderr on failure).
export function run(prog, args, opts = {}) {
	return execFileSync(path.join(BIN, prog), args, { cwd: TOP, maxBuffer: 1 << 28, ...opts });
}

export function tmpdir(name) {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `fp-${name}-`));
	onCleanup(() => fs.rmSync(d, { recursive: true, force: true }));
	return d;
}

export async function launch() {
	if (!fs.existsSync(CHROMIUM)) {
		console.log(`not ok 1 - ${CHROMIUM} is missing: apt-get install chromium (make deps does it)`);
		process.exit(1);
	}
	const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
	onCleanup(() => browser.close());
	return browser;
}

export async function screenshot(page, name) {
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	await page.screenshot({ path: path.join(ARTIFACTS, name), timeout: SCREENSHOT_TIMEOUT_MS });
}

// A folded file as [[frames], count] pairs, frames named as the page shows
// them (a _[k]-style annotation only picks the colour).
export function readFolded(file) {
	const out = [];
	for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
		const m = /^(.*) (\d+)$/.exec(line);
		if (m) out.push([m[1].split(';').map((f) => f.replace(/_\[[kwij]\]$/, '')), Number(m[2])]);
	}
	return out;
}
