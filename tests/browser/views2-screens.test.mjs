// views2-screens.test.mjs: the views this work touched (flame graph with
// wheel zoom and drag pan, flame chart, small multiples per thread, the
// help overlay) on a 1366x768 laptop and a 390x844 phone: at 1366 the
// heatmap and the flame graph are side by side and the flame graph's root
// row is in the window once its pane is scrolled to; at both sizes the
// page is never wider than the window (filters, picker, small multiples
// and help open), the graphs fit their panes, the help overlay fits the
// window, and the wheel and a drag still move the flame graph.
// Screenshots: tests/artifacts/views2-screens-*.png.
import { step, check, eq, finish, deadline, startServe, launch, shot, shootOnFailure,
	 waitCells } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 90000;
const WAIT_MS = 15000;
const FILE = 'multiproc.perf.gz';

deadline(TEST_DEADLINE_MS);
const browser = await launch();
let srv;
await step('fp-serve --dir examples starts', async () => {
	srv = await startServe(['--dir', 'examples']);
});

const rect = (page, sel) => page.evaluate((sel) => {
	const e = document.querySelector(sel);
	if (!e) return null;
	const r = e.getBoundingClientRect();
	return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height };
}, sel);
const notWider = (page) => page.evaluate(() => ({ sw: document.documentElement.scrollWidth, w: innerWidth }));
async function noOverflow(page, what) {
	const o = await notWider(page);
	check(o.sw <= o.w, `${what}: the page is ${o.sw} px wide in a ${o.w} px window`);
}
async function fitsIn(page, sel, outer, what) {
	const a = await rect(page, sel), b = await rect(page, outer);
	check(a && b, `${what}: ${sel} or ${outer} missing`);
	check(a.width <= b.width + 1, `${what}: ${sel} is ${a.width} px wide in a ${b.width} px ${outer}`);
}
async function helpFits(page, what) {
	await page.click('#help-btn');
	await page.waitForSelector('#flame-help', { state: 'visible' });
	const r = await rect(page, '#flame-help'), w = await page.evaluate(() => [innerWidth, innerHeight]);
	check(r.left >= 0 && r.right <= w[0] && r.top >= 0 && r.bottom <= w[1],
	      `${what}: the help overlay ${JSON.stringify(r)} leaves the ${w[0]}x${w[1]} window`);
	const rows = await page.$$eval('#flame-help tr', (t) => t.length);
	check(rows >= 14, 'help lists only ' + rows + ' keys and mouse actions');
	await noOverflow(page, what + ' with the help open');
}
async function wheelAndDrag(page, what) {
	const b = await rect(page, '#flame');
	const x = Math.round(b.left + b.width / 2), y = Math.round(b.bottom - 10);
	await page.mouse.move(x, y);
	await page.mouse.wheel(0, -300);
	await page.waitForFunction(() => window.flamepipe.flameView().moved);
	const r0 = await page.evaluate(() => window.flamepipe.flameView().range);
	await page.mouse.down();
	for (let i = 1; i <= 5; i++) await page.mouse.move(x - 10 * i, y);
	await page.mouse.up();
	await page.waitForFunction((r0) => window.flamepipe.flameView().range[0] > r0[0], r0);
	await noOverflow(page, what + ' after a wheel zoom and a drag');
	await page.dblclick('#flame', { position: { x: b.width / 2, y: b.height - 10 } });
	await page.waitForFunction(() => !window.flamepipe.flameView().moved);
}
// Opens the filters and the thread picker and draws small multiples per thread.
async function threadMultiples(page) {
	await page.click('#filters-box summary');
	await page.click('#threads-box summary');
	await page.selectOption('#multiples-by', 'tid');
	await page.click('#multiples');
	await page.waitForFunction(() => window.flamepipe.strips().length > 0);
}
async function open(width, height, label) {
	const page = await browser.newPage({ viewport: { width, height } });
	page.pageErrors = [];
	page.on('pageerror', (e) => page.pageErrors.push(e.message));
	page.setDefaultTimeout(WAIT_MS);
	shootOnFailure(page, 'views2-screens-' + label);
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE, start: '1', end: '4' }));
	await waitCells(page);
	await page.waitForFunction(() => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total > 0);
	return page;
}

let laptop;
await step('1366x768: heatmap and flame graph side by side; the root row in the window at the flame pane', async () => {
	laptop = await open(1366, 768, 'laptop');
	const h = await rect(laptop, '#heat-pane'), f = await rect(laptop, '#flame-pane');
	check(f.left >= h.right - 1 && Math.abs(f.top - h.top) < 40, `not side by side: heat ${JSON.stringify(h)}, flame ${JSON.stringify(f)}`);
	await noOverflow(laptop, '1366');
	await fitsIn(laptop, '#flame', '#flame-pane', '1366');
	await laptop.evaluate(() => document.getElementById('flame-wrap').scrollIntoView({ block: 'start' }));
	const root = await laptop.evaluate(() => {
		const d = window.flamepipe.flame.data;
		const r = document.querySelector('#flame g.frame[data-i="' + d.nodes.indexOf(d.root) + '"] rect').getBoundingClientRect();
		return { top: r.top, bottom: r.bottom, h: innerHeight };
	});
	check(root.top >= 0 && root.bottom <= root.h, 'the root frame is out of the window: ' + JSON.stringify(root));
	await laptop.evaluate(() => scrollTo(0, 0));
	await shot(laptop, 'views2-screens-01-1366', false);
});

await step('1366x768: wheel zoom and drag move the flame graph; the help fits', async () => {
	await wheelAndDrag(laptop, '1366');
	await helpFits(laptop, '1366');
	await shot(laptop, 'views2-screens-02-1366-help', false);
	await laptop.keyboard.press('Escape');
});

await step('1366x768: small multiples per thread and the flame chart fit the page', async () => {
	await threadMultiples(laptop);
	await noOverflow(laptop, '1366 small multiples');
	await laptop.selectOption('#fview', 'chart');
	await laptop.waitForFunction(() => window.flamepipe.chart().length > 0);
	await fitsIn(laptop, '#chart', '#flame-pane', '1366 chart');
	await noOverflow(laptop, '1366 chart');
	await shot(laptop, 'views2-screens-03-1366-multiples-chart');
	eq(laptop.pageErrors.join('; '), '', 'page errors');
});

let phone;
await step('390x844: nothing wider than the screen with filters, picker and small multiples open; graphs fit', async () => {
	phone = await open(390, 844, 'phone');
	await noOverflow(phone, '390');
	await fitsIn(phone, '#flame', '#flame-pane', '390');
	await threadMultiples(phone);
	await noOverflow(phone, '390 filters, picker, small multiples');
	await fitsIn(phone, '#strips', '#threads-box', '390 strips');
	await shot(phone, 'views2-screens-04-390');
});

await step('390x844: wheel zoom and drag move the flame graph; the help fits the screen', async () => {
	await phone.locator('#flame').scrollIntoViewIfNeeded();
	await wheelAndDrag(phone, '390');
	await helpFits(phone, '390');
	await shot(phone, 'views2-screens-05-390-help', false);
	await phone.keyboard.press('Escape');
});

await step('390x844: the flame chart fits the screen', async () => {
	await phone.selectOption('#fview', 'chart');
	await phone.waitForFunction(() => window.flamepipe.chart().length > 0);
	await fitsIn(phone, '#chart', '#flame-pane', '390 chart');
	await noOverflow(phone, '390 chart');
	await phone.locator('#chart').scrollIntoViewIfNeeded();
	await shot(phone, 'views2-screens-06-390-chart', false);
	eq(phone.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
