// views-errors.test.mjs: errors keep the last good view and say what was
// wrong next to the control that caused it; values of the address that
// cannot be used are reported, not replaced silently.
// Screenshots: tests/artifacts/views-errors-*.png.
import { step, check, eq, finish, shot, waitCells, servedPage, waitFlame } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 45000;
const WAIT_MS = 15000;
const FILE = 'demo-clockloop.perf.gz';

const { srv, page } = await servedPage('views-errors', TEST_DEADLINE_MS, { waitMs: WAIT_MS });
const views = () => page.evaluate(() => ({
	cells: window.flamepipe.drawnCells().length,
	heat: window.flamepipe.state.heat && window.flamepipe.state.heat.total,
	flame: window.flamepipe.flame.data && window.flamepipe.flame.data.root.total,
	frames: document.querySelectorAll('#flame g.frame').length
}));

let good;
await step('a range of the demo capture is shown', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE, start: '20', end: '24' }));
	await waitCells(page);
	await waitFlame(page);
	good = await views();
	check(good.cells > 0 && good.frames > 0, 'nothing drawn: ' + JSON.stringify(good));
	// the selection's duration and count are on screen, and the count is the flame graph's
	const ro = await page.textContent('#sel-readout');
	check(ro.includes('(4 s)'), 'selection duration not shown: ' + ro);
	eq(Number(await page.getAttribute('#sel-readout', 'data-samples')), good.flame, 'selection count vs flame graph total');
});

await step('a bad stack regex: both views stay, the filter form says what is wrong', async () => {
	await page.click('#filters-box summary');
	await page.fill('form#filters input[name=include]', 'clock_(gettime');
	await page.click('form#filters button[type=submit]');
	await page.waitForSelector('#filters-error:not([hidden])');
	const msg = await page.textContent('#filters-error');
	check(/include/.test(msg), 'the message does not name the control: ' + msg);
	check(await page.isHidden('#error'), 'the page banner is used instead of the form');
	const now = await views();
	eq(JSON.stringify(now), JSON.stringify(good), 'views after the error');
	await shot(page, 'views-errors-01-bad-regex');
});

await step('fixing the filter clears the message and applies it', async () => {
	await page.fill('form#filters input[name=include]', 'clock_gettime');
	await page.click('form#filters button[type=submit]');
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total < n, good.flame);
	check(await page.isHidden('#filters-error'), 'the message stays after a good filter');
});

await step('bad address values are reported, the rest of the address is used', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE, rows: '7', start: 'abc', end: '24', order: 'upside' }));
	await page.waitForSelector('#error:not([hidden])');
	await waitCells(page);
	const msg = await page.textContent('#error');
	for (const want of ['rows=7', 'start=abc', 'order=upside'])
		check(msg.includes(want), `banner does not mention ${want}: ${msg}`);
	eq(await page.evaluate(() => window.flamepipe.state.rows), 50, 'rows used');
	eq(await page.evaluate(() => window.flamepipe.state.sel && window.flamepipe.state.sel.from), null, 'start used');
	await shot(page, 'views-errors-02-bad-url');
});

await step('no script errors on the page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
