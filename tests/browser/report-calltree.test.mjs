// report-calltree.test.mjs: the call tree view in the static report's page
// (ui/calltree.js on the embedded data, offline): top-down and bottom-up,
// every row's self and total equal to what the report's stacks.folded
// gives (the whole capture; a heatmap range with a comm filter checked
// against `flamepipe report --from --to --comm`; two processes picked
// against `report --pid`), its total the flame graph's; bottom-up
// first-level selfs add up to the samples; rows open and close with the
// keyboard and the mouse; a search marks the same
// samples as the flame graph's, "only matches" keeps only the paths
// through a match; dark mode and a phone's width. Screenshots:
// tests/artifacts/report-calltree-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { step, check, eq, deadline, launch, report, openReport, clickViewsCell, viewsShot,
	 waitTotals, pickProcesses, endClean } from './report-lib.mjs';
import { foldedTrees, treeMismatches, treeRows, waitTreeTotal } from './calltree-lib.mjs';

const TEST_DEADLINE_MS = 120000;
const CAPTURE = 'examples/multiproc.perf.gz';
const COMM = 'mp-crc32';

deadline(TEST_DEADLINE_MS);
const dir = report(CAPTURE, [], 'calltree');
const whole = foldedTrees(fs.readFileSync(path.join(dir, 'stacks.folded'), 'utf8'));
const browser = await launch();
const page = await openReport(browser, dir);
const v = page.views;
const flameTotal = () => v.evaluate(() => window.flamepipe.flame.data.root.total);

await step('top-down: every row\'s self and total equal stacks.folded; the total is the flame graph\'s', async () => {
	await v.selectOption('#fview', 'tree');
	await v.waitForSelector('#ct-table tbody tr');
	eq(await flameTotal(), whole.total, 'flame total vs stacks.folded');
	await waitTreeTotal(v, whole.total);
	eq((await treeMismatches(v, 'top', whole.top)).join('; '), '', 'top-down vs stacks.folded');
	const first = (await treeRows(v)).filter((r) => r.depth === 1);
	eq(first.reduce((s, r) => s + r.total, 0), whole.total, 'sum of the first-level totals');
	check((await v.evaluate(() => location.hash)).includes('fv=tree'), 'view not in the URL');
	await viewsShot(page, 'report-calltree-01-top-down');
});

await step('bottom-up: the first-level selfs are the leaf samples and add up to the total', async () => {
	await v.click('#ct-bottom');
	await v.waitForFunction(() => window.flamepipe.state.ctMode === 'bottom');
	eq((await treeMismatches(v, 'bottom', whole.bottom)).join('; '), '', 'bottom-up vs stacks.folded');
	const first = (await treeRows(v)).filter((r) => r.depth === 1);
	eq(first.reduce((s, r) => s + r.self, 0), whole.total, 'sum of the first-level selfs');
	check((await v.evaluate(() => location.hash)).includes('ct=bottom'), 'direction not in the URL');
	await viewsShot(page, 'report-calltree-02-bottom-up');
	await v.click('#ct-top');
});

await step('a heatmap range with a comm filter: both trees equal `report --from --to --comm`', async () => {
	const rows = await v.evaluate(() => window.flamepipe.state.rows);
	await clickViewsCell(page, 2 * rows);
	await clickViewsCell(page, 3 * rows + rows - 1);
	await v.waitForFunction(() => window.flamepipe.state.sel && window.flamepipe.state.sel.to !== null);
	await v.click('#filters-box summary');
	await v.fill('#filters input[name=comm]', COMM);
	await v.click('#filters button[type=submit]');
	const sel = await v.evaluate(() => window.flamepipe.state.sel);
	const from = (sel.from / 1e9).toFixed(3), to = (sel.to / 1e9).toFixed(3);
	const out = report(CAPTURE, ['--from', from, '--to', to, '--comm', COMM], 'calltree-range');
	const want = foldedTrees(fs.readFileSync(path.join(out, 'stacks.folded'), 'utf8'));
	check(want.total > 0 && want.total < whole.total, `range total ${want.total} of ${whole.total}`);
	await v.waitForFunction((n) => window.flamepipe.flame.data.root.total === n, want.total);
	await waitTreeTotal(v, want.total);
	eq((await treeMismatches(v, 'top', want.top)).join('; '), '', 'top-down vs the ranged report');
	eq((await treeMismatches(v, 'bottom', want.bottom)).join('; '), '', 'bottom-up vs the ranged report');
	await viewsShot(page, 'report-calltree-03-range-comm');
});

await step('keyboard: arrows move, Right and Left open and close a row, Enter toggles, * opens all below', async () => {
	await v.click('#ct-collapse');
	let rows = await treeRows(v);
	check(rows.every((r) => r.depth === 1), 'collapse all left deeper rows');
	const first = rows[0];
	await v.focus('#ct-table tbody tr[tabindex="0"]');
	await page.keyboard.press('ArrowRight');
	rows = await treeRows(v);
	const kids = rows.filter((r) => r.path.startsWith(first.path + ';') && r.depth === 2);
	check(kids.length > 0 && rows[0].open === true, 'Right did not open the first row');
	await page.keyboard.press('ArrowDown');
	eq(await v.evaluate(() => document.activeElement.getAttribute('data-path')), kids[0].path, 'Down: the first child');
	await page.keyboard.press('ArrowLeft');	// to the parent
	eq(await v.evaluate(() => document.activeElement.getAttribute('data-path')), first.path, 'Left: the parent');
	await page.keyboard.press('ArrowLeft');	// closes it
	rows = await treeRows(v);
	check(rows[0].open === false && rows.every((r) => r.depth === 1), 'Left did not close the row');
	await page.keyboard.press('Enter');
	check((await treeRows(v))[0].open === true, 'Enter did not open the row');
	await page.keyboard.press('*');
	rows = await treeRows(v);
	const under = rows.filter((r) => r.path.startsWith(first.path + ';'));
	check(under.every((r) => r.open !== false), 'a row under the first is still closed after *');
	check(under.some((r) => r.depth > 3), '* did not open deeper rows');
	await viewsShot(page, 'report-calltree-04-keyboard');
});

await step('mouse: a click on a row opens it, a second closes it', async () => {
	await v.click('#ct-collapse');
	const first = (await treeRows(v))[0];
	await v.click(`#ct-table tbody tr[data-path="${first.path}"]`);
	check((await treeRows(v))[0].open === true, 'click did not open');
	await v.click(`#ct-table tbody tr[data-path="${first.path}"]`);
	check((await treeRows(v))[0].open === false, 'click did not close');
});

await step('the whole capture again: search marks the flame graph\'s samples; "only matches" filters', async () => {
	await v.click('#filters-reset');
	await v.click('#whole');
	await waitTotals(v, whole.total);
	await waitTreeTotal(v, whole.total);
	await v.fill('#search', 'run_for');
	await v.press('#search', 'Enter');
	await v.fill('#ct-search', 'run_for');
	await v.press('#ct-search', 'Enter');
	await v.waitForFunction(() => document.getElementById('ct-count').getAttribute('data-matched') !== '');
	const flameHit = Number(await v.getAttribute('#matched', 'data-matched'));
	check(flameHit > 0, 'the flame graph matched nothing');
	eq(Number(await v.getAttribute('#ct-count', 'data-matched')), flameHit, 'matched samples vs the flame graph');
	let rows = await treeRows(v);
	check(rows.some((r) => r.match), 'no row marked');
	const all = rows.length;
	await v.check('#ct-filter');
	rows = await treeRows(v);
	const matches = rows.filter((r) => r.match).map((r) => r.path);
	const bad = rows.filter((r) => !r.match && !matches.some((m) => m.startsWith(r.path + ';') || r.path.startsWith(m + ';')));
	eq(bad.map((r) => r.path).join('; '), '', 'rows off every path through a match');
	check(rows.length < all || all === matches.length, 'the filter hid nothing');
	await viewsShot(page, 'report-calltree-05-search');
	await v.uncheck('#ct-filter');
	await v.fill('#ct-search', '');
	await v.press('#ct-search', 'Enter');
});

await step('two processes picked in the processes and threads box: both trees equal `report --pid`', async () => {
	await v.click('#threads-box summary');
	await v.waitForSelector('#threads input[data-kind=pid]');
	const pids = (await v.$$eval('#threads input[data-kind=pid]', (cs) => cs.map((c) => Number(c.value)))).slice(1, 3);
	await pickProcesses(v, pids);
	const out = report(CAPTURE, ['--pid', pids.join(',')], 'calltree-pids');
	const want = foldedTrees(fs.readFileSync(path.join(out, 'stacks.folded'), 'utf8'));
	check(want.total > 0 && want.total < whole.total, `picked total ${want.total} of ${whole.total}`);
	await v.waitForFunction((n) => window.flamepipe.flame.data.root.total === n, want.total);
	await waitTreeTotal(v, want.total);
	eq((await treeMismatches(v, 'top', want.top)).join('; '), '', 'top-down vs report --pid');
	eq((await treeMismatches(v, 'bottom', want.bottom)).join('; '), '', 'bottom-up vs report --pid');
	await pickProcesses(v, []);
	await waitTreeTotal(v, whole.total);
});

await step('dark mode and a phone\'s width: nothing wider than the screen', async () => {
	await page.emulateMedia({ colorScheme: 'dark' });
	await page.setViewportSize({ width: 390, height: 844 });
	await v.locator('#calltree').scrollIntoViewIfNeeded();
	const w = await v.evaluate(() => [document.documentElement.scrollWidth, document.getElementById('ct-table').getBoundingClientRect().right]);
	check(w[0] <= 390 && w[1] <= 390, 'wider than 390 px: ' + w);
	const bg = await v.evaluate(() => getComputedStyle(document.getElementById('ct-table-wrap')).backgroundColor);
	eq(bg, 'rgb(34, 35, 38)', 'dark panel');
	await viewsShot(page, 'report-calltree-06-dark-phone');
});

await endClean(page);
