// views-long.test.mjs: a long capture (600 s, made by the test) on a
// 1366x768 laptop screen: after scrolling the heatmap to its end and the
// page down, the ms axis, the title, the selection readout and the legend
// stay visible; and at 390 px (a phone) nothing is wider than the screen.
// Screenshots: tests/artifacts/views-long-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { step, check, eq, finish, deadline, startServe, launch, shot, shootOnFailure, waitCells,
	 clickCell, tmpdir } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const WAIT_MS = 15000;
const FILE = 'long.perf';
const SECONDS = 600, PER_SECOND = 4;

deadline(TEST_DEADLINE_MS);
const dir = tmpdir('views-long');
let text = '';
for (let i = 0; i < SECONDS * PER_SECOND; i++) {
	const t = (1000 + i / PER_SECOND + (i % 7) * 0.013).toFixed(6);
	text += `longrun 4242 [000] ${t}:    250000 cpu-clock: \n\t    55d0c0de1000 ${i % 3 ? 'work' : 'wait'}+0x10 (/usr/bin/longrun)\n` +
		'\t    55d0c0de0000 main+0x20 (/usr/bin/longrun)\n\n';
}
fs.writeFileSync(path.join(dir, FILE), text);

const browser = await launch();
let srv;
await step('fp-serve serves a directory with a 600-s capture', async () => {
	srv = await startServe(['--dir', dir]);
});
async function newPageAt(width, height) {
	const page = await browser.newPage({ viewport: { width, height } });
	page.pageErrors = [];
	page.on('pageerror', (e) => page.pageErrors.push(e.message));
	page.setDefaultTimeout(WAIT_MS);
	return page;
}
const page = await newPageAt(1366, 768);
shootOnFailure(page, 'views-long');

const inView = (sel) => page.evaluate((sel) => {
	const r = document.querySelector(sel).getBoundingClientRect();
	return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, h: innerHeight, w: innerWidth,
		 visible: r.bottom > 0 && r.top >= 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth };
}, sel);

await step('the capture opens with every second and scrolls sideways', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE }));
	await waitCells(page);
	eq(await page.evaluate(() => window.flamepipe.state.heat.ncols), SECONDS, 'columns');
	const w = await page.evaluate(() => { const e = document.getElementById('heat-wrap'); return [e.scrollWidth, e.clientWidth]; });
	check(w[0] > w[1], 'the heatmap does not scroll sideways: ' + w);
	const rows = await page.evaluate(() => window.flamepipe.state.rows);
	await clickCell(page, 10 * rows);
	await clickCell(page, 12 * rows - 1);
	await page.waitForFunction(() => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === 2 * 4);
});

await step('scrolled to the end and down: ms axis, title, readout and legend stay in view', async () => {
	await page.evaluate(() => {
		const w = document.getElementById('heat-wrap');
		w.scrollLeft = w.scrollWidth;
		window.scrollTo(0, w.getBoundingClientRect().top + window.scrollY + 150);
	});
	await page.waitForTimeout(100);
	const wrap = await inView('#heat-wrap');
	const axis = await inView('#heat-yaxis');
	check(Math.abs(axis.left - wrap.left) <= 2, `the ms axis scrolled away: axis left ${axis.left}, pane left ${wrap.left}`);
	for (const sel of ['#heat-title', '#sel-readout', '#legend']) {
		const r = await inView(sel);
		check(r.visible, `${sel} is not in view after scrolling: ${JSON.stringify(r)}`);
	}
	const ro = await page.textContent('#sel-readout');
	check(ro.includes('(2 s)') && ro.includes('8 samples'), 'readout: ' + ro);
	await shot(page, 'views-long-01-scrolled', false);
});

await step('at 390 px nothing is wider than the screen', async () => {
	const phone = await newPageAt(390, 844);
	await phone.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE, start: '10', end: '12' }));
	await waitCells(phone);
	await phone.waitForFunction(() => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total > 0);
	const sw = await phone.evaluate(() => document.documentElement.scrollWidth);
	check(sw <= 390, 'page wider than the screen: ' + sw);
	await shot(phone, 'views-long-02-phone');
	eq(phone.pageErrors.join('; '), '', 'page errors (phone)');
});

await step('no script errors on the page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
