// report-long.test.mjs: a long capture in the static report: 600 s, 400
// samples a second from four processes, 5,000 distinct stacks
// (tests/mk-long-capture.sh). index.html stays bounded and loads in
// bounded time (both printed as TAP comments), and in the views, on a
// 1366x768 screen, after scrolling the heatmap to its end and the page
// down, the ms axis, the title, the selection readout (count and
// duration) and the legend stay in view. Screenshot:
// tests/artifacts/report-long-01-scrolled.png.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TOP, step, check, eq, deadline, launch, tmpdir, report, openReport,
	 viewsShot, clickViewsCell, endClean } from './report-lib.mjs';

const TEST_DEADLINE_MS = 150000;
const SECONDS = 600, RATE = 400, STACKS = 5000;
const PAGE_MAX_BYTES = 16 << 20;	// the page with its timeline
const LOAD_MAX_MS = 60000;		// to the views drawn, on a loaded machine

deadline(TEST_DEADLINE_MS);
const capture = path.join(tmpdir('report-long'), 'long.perf');
fs.writeFileSync(capture, execFileSync('sh', [path.join(TOP, 'tests/mk-long-capture.sh'), SECONDS, RATE, STACKS],
				      { maxBuffer: 1 << 28 }));
const dir = report(capture);
const browser = await launch();
let page, v;

await step('index.html of a 600-s capture with 5,000 stacks: bounded size and load time', async () => {
	const bytes = fs.statSync(path.join(dir, 'index.html')).size;
	const t0 = Date.now();
	page = await openReport(browser, dir, { width: 1366, height: 768 });
	v = page.views;
	const ms = Date.now() - t0;
	console.log(`# index.html ${(bytes / 1e6).toFixed(2)} MB, views drawn ${ms} ms after the page was opened`);
	check(bytes < PAGE_MAX_BYTES, 'index.html is ' + bytes + ' bytes');
	check(ms < LOAD_MAX_MS, 'load took ' + ms + ' ms');
	eq(await v.evaluate(() => window.flamepipe.state.heat.ncols), SECONDS, 'columns');
	eq(await v.evaluate(() => window.flamepipe.flame.data.root.total), SECONDS * RATE, 'flame total');
});

const where = (sel) => v.evaluate((sel) => {
	const r = document.querySelector(sel).getBoundingClientRect();
	return { left: r.left, top: r.top, bottom: r.bottom, visible: r.bottom > 0 && r.top >= 0 && r.top < innerHeight &&
		 r.right > 0 && r.left < innerWidth };
}, sel);

await step('select 2 s, scroll to the end and down: ms axis, title, readout, legend in view', async () => {
	const rows = await v.evaluate(() => window.flamepipe.state.rows);
	await clickViewsCell(page, 10 * rows);
	await clickViewsCell(page, 12 * rows - 1);
	await v.waitForFunction((n) => window.flamepipe.flame.data.root.total === n, 2 * RATE);
	// the processes' strips make the views taller than their frame
	await v.click('#threads-box summary');
	await v.click('#multiples');
	await v.waitForFunction(() => window.flamepipe.strips().length === 4);
	const scrolled = await v.evaluate(() => {
		const w = document.getElementById('heat-wrap');
		w.scrollLeft = w.scrollWidth;
		window.scrollTo(0, w.getBoundingClientRect().top + window.scrollY + 150);
		return [window.scrollY, w.scrollLeft];
	});
	check(scrolled[0] > 0 && scrolled[1] > 0, 'the views did not scroll: ' + scrolled);
	await v.waitForTimeout(100);
	const wrap = await where('#heat-wrap'), axis = await where('#heat-yaxis');
	check(Math.abs(axis.left - wrap.left) <= 2, `ms axis at ${axis.left}, pane at ${wrap.left}`);
	const hidden = [];
	for (const sel of ['#heat-title', '#sel-readout', '#legend'])
		if (!(await where(sel)).visible) hidden.push(sel);
	eq(hidden.join(' '), '', 'out of view');
	const ro = await v.textContent('#sel-readout');
	check(ro.includes('(2 s)') && ro.includes(String(2 * RATE)), 'readout: ' + ro);
	await viewsShot(page, 'report-long-01-scrolled');
});

await endClean(page);
