// report-screens.test.mjs: the report's page (ui/, offline) on a 390x844
// phone and a 600-s capture: the page carries the viewport meta and is
// never wider than the window, the heatmap and flame graph panes fit it;
// a 600-s heatmap keeps every second (no cut at the pane's edge) and
// scrolls inside its pane: scrolled to its last second, that second's
// cells, the ms axis, the title and the legend are all in view, at phone
// width and on a laptop. Screenshots: tests/artifacts/report-screens-*.png.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TOP, step, check, eq, deadline, launch, tmpdir, report, openReport, viewsShot,
	 endClean } from './report-lib.mjs';

deadline(150000);
const PHONE = { width: 390, height: 844 }, LAPTOP = { width: 1366, height: 768 };
const SECONDS = 600;
const browser = await launch();

const rect = (page, sel) => page.evaluate((sel) => {
	const r = document.querySelector(sel).getBoundingClientRect();
	return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width };
}, sel);
async function noOverflow(page, what) {
	const o = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, w: innerWidth }));
	check(o.sw <= o.w, `${what}: the page is ${o.sw} px wide in a ${o.w} px window`);
}
async function inView(page, sel) {
	const r = await rect(page, sel), w = await page.evaluate(() => [innerWidth, innerHeight]);
	return r.width > 0 && r.left >= -1 && r.right <= w[0] + 1 && r.top >= -1 && r.bottom <= w[1] + 1;
}

const mp = report('examples/multiproc.perf.gz', [], 'screens-mp');
let phone;
await step('phone (390 px): viewport meta, nothing wider than the window, both panes fit', async () => {
	phone = await openReport(browser, mp, PHONE);
	eq(await phone.getAttribute('meta[name=viewport]', 'content'), 'width=device-width, initial-scale=1', 'viewport meta');
	await noOverflow(phone, 'phone');
	for (const sel of ['#heat-pane', '#flame-pane', '#toolbar', '#report-notes']) {
		const r = await rect(phone, sel);
		check(r.left >= 0 && r.right <= PHONE.width, `${sel} spans ${r.left}..${r.right}`);
	}
	await phone.click('#filters-box summary');
	await noOverflow(phone, 'phone, filters open');
	await viewsShot(phone, 'report-screens-01-phone');
});

// 600 s at 20 samples a second, 200 stacks: the long capture's shape, quick.
const capture = path.join(tmpdir('report-screens'), 'long.perf');
fs.writeFileSync(capture, execFileSync('sh', [path.join(TOP, 'tests/mk-long-capture.sh'), SECONDS, 20, 200],
				      { maxBuffer: 1 << 28 }));
const long = report(capture, [], 'screens-long');

// Scrolls the heatmap's pane to its end; then the last second's top cell,
// the ms axis, the title and the legend must be in the window.
async function scrolledToEnd(page, what) {
	const h = await page.evaluate(() => ({ n: window.flamepipe.state.heat.ncols, rows: window.flamepipe.state.rows }));
	eq(h.n, SECONDS, `${what}: columns drawn`);
	const sc = await page.evaluate(() => {
		const w = document.getElementById('heat-wrap');
		w.scrollLeft = w.scrollWidth;
		document.getElementById('heat-pane').scrollIntoView({ block: 'start' });
		return { scrolls: w.scrollWidth > w.clientWidth, left: w.scrollLeft };
	});
	check(sc.scrolls && sc.left > 0, `${what}: the heatmap does not scroll inside its pane`);
	await page.waitForTimeout(100);
	const last = await page.evaluate((t) => window.flamepipe.cellCenter(t), h.n * h.rows - 1);
	const wrap = await rect(page, '#heat-wrap');
	check(last.x > wrap.left && last.x < wrap.right, `${what}: second ${SECONDS - 1} at x ${last.x}, pane ${wrap.left}..${wrap.right}`);
	const hidden = [];
	for (const sel of ['#heat-yaxis', '#heat-title', '#legend'])
		if (!(await inView(page, sel))) hidden.push(sel);
	eq(hidden.join(' '), '', `${what}: out of view`);
	await noOverflow(page, what);
}

let lp, ll;
await step('600 s on a phone: every second, scrolled to the end with axis, title and legend in view', async () => {
	lp = await openReport(browser, long, PHONE);
	await scrolledToEnd(lp, 'phone');
	await viewsShot(lp, 'report-screens-02-600s-phone');
});

await step('600 s on a laptop: the same', async () => {
	ll = await openReport(browser, long, LAPTOP);
	await scrolledToEnd(ll, 'laptop');
	await viewsShot(ll, 'report-screens-03-600s-laptop');
});

await endClean(phone, lp, ll);
