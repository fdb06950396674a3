// report-keys.test.mjs: the static report's views take the server page's
// keys and mouse (examples/multiproc.perf.gz, file://): the arrows move a
// focus over the flame graph (heaviest callee first), Enter zooms to it and
// Escape back, Ctrl+wheel zooms to the frame under the pointer and out,
// "?" opens the help; a bad filter keeps both views and is reported next
// to the form; with the system in dark mode the views are dark.
// Screenshots: tests/artifacts/report-keys-*.png.
import { step, check, eq, deadline, launch, report, openReport, viewsShot, totals,
	 rootFramePoint, endClean } from './report-lib.mjs';

const TEST_DEADLINE_MS = 60000;

deadline(TEST_DEADLINE_MS);
const dir = report('examples/multiproc.perf.gz');
const browser = await launch();
const page = await openReport(browser, dir);
const v = page.views;
const state = () => v.evaluate(() => ({ focus: window.flamepipe.focus(),
	zoom: window.flamepipe.flame.zoomed ? window.flamepipe.flame.zoomed.name : null }));
// the root's heaviest child, its heaviest child, and the root child right of it
const want = await v.evaluate(() => {
	const kids = (n) => n.kids.slice().sort((a, b) => b.total - a.total || a.x - b.x);
	const r = window.flamepipe.flame.data.root, top = kids(r)[0];
	const right = r.kids.slice().sort((a, b) => a.x - b.x).find((k) => k.x > top.x);
	return { top: top.name, next: kids(top)[0].name, right: right.name };
});

await step('arrows: up to the heaviest callee (twice), down to the caller, right to the sibling', async () => {
	await v.focus('#flame');
	const seen = [];
	for (const key of ['ArrowUp', 'ArrowUp', 'ArrowDown', 'ArrowRight']) {
		await page.keyboard.press(key);
		seen.push((await state()).focus);
	}
	eq(seen.join(' > '), [want.top, want.next, want.top, want.right].join(' > '), 'focus path');
	await viewsShot(page, 'report-keys-01-focus');
});

await step('Enter zooms to the focused frame, Escape zooms out', async () => {
	await page.keyboard.press('Enter');
	eq((await state()).zoom, want.right, 'zoomed');
	await page.keyboard.press('Escape');
	eq((await state()).zoom, null, 'zoom after Escape');
});

await step('Ctrl+wheel over a frame zooms to it; Ctrl+wheel back zooms out', async () => {
	const at = await rootFramePoint(v, want.top);
	await page.mouse.move(at.x, at.y);
	await page.keyboard.down('Control');
	const zooms = [];
	for (const dy of [-100, 100]) {
		await page.mouse.wheel(0, dy);
		await v.waitForFunction((z) => (window.flamepipe.flame.zoomed ? window.flamepipe.flame.zoomed.name : null) === z,
				       dy < 0 ? want.top : null);
		zooms.push((await state()).zoom);
	}
	await page.keyboard.up('Control');
	eq(zooms.join(','), want.top + ',', 'zoom after each wheel');
});

await step('"?" opens the help overlay; Escape closes it', async () => {
	await v.focus('#flame');
	await page.keyboard.press('?');
	check(await v.isVisible('#flame-help'), 'help not shown');
	await page.keyboard.press('Escape');
	check(await v.isHidden('#flame-help'), 'help not closed');
});

await step('a bad stack regex: both views stay, the form says what is wrong', async () => {
	const good = await totals(v);
	await v.click('#filters-box summary');
	await v.fill('form#filters input[name=include]', 'crc_(step');
	await v.press('form#filters input[name=include]', 'Enter');
	await v.waitForSelector('#filters-error:not([hidden])');
	const msg = await v.textContent('#filters-error');
	check(/include: bad regex/.test(msg) && /last good/.test(msg), 'message: ' + msg);
	eq(JSON.stringify(await totals(v)), JSON.stringify(good), 'views after the error');
	await viewsShot(page, 'report-keys-02-bad-regex');
});

await step('dark mode: with the system dark, the views are dark', async () => {
	const dark = await openReport(browser, dir);
	await dark.emulateMedia({ colorScheme: 'dark' });
	const bg = await dark.views.evaluate(() => getComputedStyle(document.body).backgroundColor);
	const rgb = bg.match(/\d+/g).map(Number);
	check(rgb[0] + rgb[1] + rgb[2] < 3 * 96, 'background in dark mode: ' + bg);
	await viewsShot(dark, 'report-keys-03-dark');
	eq(dark.problems.join('; '), '', 'errors (dark)');
});

await endClean(page);
