// render-lib.mjs: shared parts of the renderer's browser tests
// (render-flame, render-heatmap, render-range): the TAP steps and browser of
// tap-lib.mjs, running flamepipe programs, temporary dirs, screenshots.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ARTIFACTS, BIN, TOP, onCleanup } from './tap-lib.mjs';

export { TOP, BIN, ARTIFACTS, step, check, eq, finish, deadline, onCleanup, launch } from './tap-lib.mjs';

const SCREENSHOT_TIMEOUT_MS = 10000;

// Runs bin/PROG with args; returns stdout (throws with stderr on failure).
export function run(prog, args, opts = {}) {
	return execFileSync(path.join(BIN, prog), args, { cwd: TOP, maxBuffer: 1 << 28, ...opts });
}

export function tmpdir(name) {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `fp-${name}-`));
	onCleanup(() => fs.rmSync(d, { recursive: true, force: true }));
	return d;
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
