// tap-lib.mjs: what every browser test shares (render-lib.mjs and
// serve-lib.mjs build on it): paths, TAP steps with a hard deadline, one
// ordered list of cleanups run on every exit path, and launching Debian's
// chromium through playwright-core.
// A failure prints "not ok N - step" with the reason and exits 1.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const TOP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = process.env.FP_BIN ? path.resolve(TOP, process.env.FP_BIN) : path.join(TOP, 'bin');
export const ARTIFACTS = path.join(TOP, 'tests', 'artifacts');
const CHROMIUM = '/usr/bin/chromium';

let chromium;
try {
	({ chromium } = await import('playwright-core'));
} catch (e) {
	console.log('not ok 1 - playwright-core is not installed: run `npm install` in tests/browser (make deps does it)');
	process.exit(1);
}

let nstep = 0;
const cleanups = [];
const failureHooks = [];
let finishing = false;

export function onCleanup(fn) { cleanups.push(fn); }
// fn(stepNumber) runs when a step fails, before the cleanups (screenshots).
export function onStepFailure(fn) { failureHooks.push(fn); }

export async function finish(code) {
	if (finishing) return;
	finishing = true;
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
		for (const hook of failureHooks)
			await hook(nstep);
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

// A temporary directory fp-NAME-XXXXXX, removed on every exit path.
export function tmpdir(name) {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `fp-${name}-`));
	onCleanup(() => fs.rmSync(d, { recursive: true, force: true }));
	return d;
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

export async function launch() {
	if (!fs.existsSync(CHROMIUM)) {
		console.log(`not ok 1 - ${CHROMIUM} is missing: apt-get install chromium (make deps does it)`);
		process.exit(1);
	}
	const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
	onCleanup(() => browser.close());
	return browser;
}
