// report-flame.test.mjs: the static report's page (index.html: ui/'s
// modules on the embedded data), opened from
// file:// with no server: no request leaves the machine, the flame graph is
// left-heavy (children by weight) by default and alphabetical on demand,
// the sandwich table equals stacks.folded (self, total, every function),
// a function's callers and callees graphs total its samples, the help
// overlay opens; no console or page errors.
// Screenshots: tests/artifacts/report-flame-*.png.
import { step, check, eq, deadline, launch, report, openReport, functionTotals,
	 networkRequests, viewsShot, orderProblems, tableMismatches, endClean } from './report-lib.mjs';
import path from 'node:path';

const TEST_DEADLINE_MS = 60000;
const CAPTURE = 'examples/multiproc.perf.gz';

deadline(TEST_DEADLINE_MS);
const dir = report(CAPTURE);
const browser = await launch();
let page, v;

await step('index.html from file:// starts the views offline (no network request)', async () => {
	page = await openReport(browser, dir);
	v = page.views;
	eq(networkRequests(page).join(' '), '', 'network requests');
	const folded = functionTotals(path.join(dir, 'stacks.folded'));
	eq(await v.evaluate(() => window.flamepipe.flame.data.root.total), folded.total, 'flame total vs stacks.folded');
	eq(await v.evaluate(() => window.flamepipe.state.heat.total), folded.total, 'heatmap total vs stacks.folded');
	await viewsShot(page, 'report-flame-01-views');
});

await step('left-heavy by default: every frame\'s children by weight, drawn left to right', async () => {
	eq(await v.inputValue('#order'), 'weight', 'default order');
	eq((await orderProblems(v, 'weight')).join('; '), '', 'children out of weight order');
	const drawn = await v.evaluate(() => {
		const d = window.flamepipe.flame.data;
		return d.root.kids.map((k) => +document.querySelector(`#flame g.frame[data-i="${d.nodes.indexOf(k)}"] rect`).getAttribute('x'));
	});
	for (let i = 1; i < drawn.length; i++) check(drawn[i - 1] < drawn[i], 'root children not drawn left to right: ' + drawn);
});

await step('alphabetical order: the same tree, children by name', async () => {
	const total = await v.evaluate(() => window.flamepipe.flame.data.root.total);
	await v.selectOption('#order', 'name');
	eq((await orderProblems(v, 'name')).join('; '), '', 'children out of name order');
	eq(await v.evaluate(() => window.flamepipe.flame.data.root.total), total, 'total');
	await v.selectOption('#order', 'weight');
});

let rows;
await step('sandwich: the function table equals stacks.folded (self, total, every function)', async () => {
	const folded = functionTotals(path.join(dir, 'stacks.folded'));
	await v.selectOption('#fview', 'sandwich');
	await v.waitForSelector('#sw-table tbody tr');
	rows = await v.evaluate(() => window.flamepipe.sandwich());
	eq(tableMismatches(rows, folded.fns).join('; '), '', 'table vs stacks.folded');
	eq(rows.reduce((s, r) => s + r.self, 0), folded.total, 'sum of self');
	await viewsShot(page, 'report-flame-02-sandwich');
});

await step('sandwich: a function\'s callers and callees graphs each total its samples', async () => {
	const pick = rows.find((r) => r.name === 'run_for');
	check(pick, 'run_for not in the table');
	await v.fill('#sw-search', pick.name);
	await v.click(`#sw-table tbody tr[data-name="${pick.name}"]`);
	await v.waitForSelector('#sw-graphs:not([hidden])');
	const t = await v.evaluate(() => [document.getElementById('sw-callers').sandwich.root.total,
					  document.getElementById('sw-callees').sandwich.root.total]);
	eq(t.join(','), pick.total + ',' + pick.total, 'callers, callees totals');
	await viewsShot(page, 'report-flame-03-sandwich-picked');
	await v.selectOption('#fview', 'flame');
});

await step('icicle and the help overlay ("?") work in the report', async () => {
	await v.check('#icicle');
	await v.waitForFunction(() => window.flamepipe.state.icicle === true);
	await v.click('#help-btn');
	check(await v.isVisible('#flame-help'), 'help overlay not shown');
	await viewsShot(page, 'report-flame-04-icicle-help');
	await v.click('#flame-help');
	check(await v.isHidden('#flame-help'), 'help overlay not closed');
});

await step('a report with --rows 20 (not one of the page\'s choices) opens at 20 rows, no error', async () => {
	const p20 = await openReport(browser, report(CAPTURE, ['--rows', '20'], 'rows20'));
	eq(await p20.views.evaluate(() => window.flamepipe.state.heat.rows), 20, 'rows drawn');
	eq(await p20.views.evaluate(() => window.flamepipe.drawnCells().length), 7 * 20, 'cells drawn');
	check(await p20.views.isHidden('#error'), 'error banner: ' + await p20.views.textContent('#error'));
	eq(p20.problems.join('; '), '', 'errors');
	await p20.close();
});

await step('a report of a range and a comm: the views hold and say exactly that', async () => {
	const rdir = report(CAPTURE, ['--from', '2', '--to', '3', '--comm', 'mp-crc32'], 'ranged');
	const pr = await openReport(browser, rdir);
	const want = functionTotals(path.join(rdir, 'stacks.folded')).total;
	eq(await pr.views.evaluate(() => window.flamepipe.flame.data.root.total), want, 'flame total');
	eq(await pr.views.evaluate(() => window.flamepipe.state.heat.total), want, 'heatmap total');
	check((await pr.views.textContent('#selected-note')).includes('range [2, 3) s, filter comm mp-crc32'), 'note');
	eq(pr.problems.join('; '), '', 'errors');
	await pr.close();
});

await endClean(page);
