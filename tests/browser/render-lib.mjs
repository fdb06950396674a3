// render-lib.mjs: shared parts of the renderer's browser tests
// (render-flame, render-heatmap: flame.svg and heatmap.svg): the TAP steps and browser of
// tap-lib.mjs, running flamepipe programs, temporary dirs, screenshots.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, BIN, TOP } from './tap-lib.mjs';

export { TOP, BIN, ARTIFACTS, step, check, eq, finish, deadline, onCleanup, launch, tmpdir } from './tap-lib.mjs';

const SCREENSHOT_TIMEOUT_MS = 10000;

// Runs bin/PROG with args; returns stdout (throws with stderr on failure).
export function run(prog, args, opts = {}) {
	return execFileSync(path.join(BIN, prog), args, { cwd: TOP, maxBuffer: 1 << 28, ...opts });
}

// A page for a report's files (file://): script errors are collected in
// the returned errors array; one UI step waits at most STEP_TIMEOUT_MS.
const STEP_TIMEOUT_MS = 10000;
export async function reportPage(browser, width, height) {
	const page = await browser.newPage({ viewport: { width, height } });
	page.setDefaultTimeout(STEP_TIMEOUT_MS);
	const errors = [];
	page.on('pageerror', (e) => errors.push(e.message));
	return { page, errors };
}

// The centre of heatmap.svg's cell (col, row) in page pixels, via the
// SVG's CTM (hm_cfg is the page's heatmap geometry); clickHeatCell clicks it.
export function heatCellPoint(page, col, row) {
	return page.evaluate(([c, r]) => {
		const svg = document.getElementById('heatmap');
		const pt = svg.createSVGPoint();
		pt.x = hm_cfg.x0 + c * hm_cfg.cw + hm_cfg.cw / 2;
		pt.y = hm_cfg.y0 + (hm_cfg.rows - 1 - r) * hm_cfg.ch + hm_cfg.ch / 2;
		const p = pt.matrixTransform(svg.getScreenCTM());
		return { x: p.x, y: p.y };
	}, [col, row]);
}
export async function clickHeatCell(page, col, row) {
	const p = await heatCellPoint(page, col, row);
	await page.mouse.click(p.x, p.y);
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
