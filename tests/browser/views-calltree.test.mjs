// views-calltree.test.mjs: the call tree view of fp-serve's page
// (ui/calltree.js over the flame graph JSON the server returns) on a real
// capture (examples/multiproc.perf.gz): top-down and bottom-up rows equal
// the server's own /folded text of the same selection (the whole profile,
// then a heatmap range with a pid filter and a comm filter), the tree's
// total is the flame graph's and /flamegraph/'s; bottom-up first-level
// selfs add up to the samples; a search marks the flame graph's matched
// samples; the view and direction come back from the URL. Screenshots:
// tests/artifacts/views-calltree-*.png.
import { step, check, eq, finish, shot, waitCells, servedPage, waitFlame, clickCell, treeTotal } from './serve-lib.mjs';
import { foldedTrees, treeMismatches, treeRows, waitTreeTotal } from './calltree-lib.mjs';

const TEST_DEADLINE_MS = 90000;
const WAIT_MS = 15000;
const FILE = 'multiproc.perf.gz';

const { srv, page, api } = await servedPage('views-calltree', TEST_DEADLINE_MS, { waitMs: WAIT_MS });
async function folded(params) {
	const r = await fetch(srv.url + 'folded?' + new URLSearchParams({ filename: FILE, ...params }));
	if (!r.ok) throw new Error('/folded: ' + r.status);
	return foldedTrees(await r.text());
}
const flameTotal = () => page.evaluate(() => window.flamepipe.flame.data.root.total);

await step('the whole profile: top-down and bottom-up rows equal /folded, the total is the flame graph\'s', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE, fv: 'tree' }));
	await waitCells(page);
	await waitFlame(page);
	await page.waitForSelector('#ct-table tbody tr');
	const want = await folded({});
	eq(await flameTotal(), want.total, 'flame graph total vs /folded');
	eq(treeTotal(await api('flamegraph/', { filename: FILE })), want.total, '/flamegraph/ total vs /folded');
	await waitTreeTotal(page, want.total);
	eq((await treeMismatches(page, 'top', want.top)).join('; '), '', 'top-down vs /folded');
	eq((await treeMismatches(page, 'bottom', want.bottom)).join('; '), '', 'bottom-up vs /folded');
	await shot(page, 'views-calltree-01-whole', false);
});

let range;
await step('a heatmap range, then a pid and a comm filter: the trees follow, equal to /folded of the same query', async () => {
	const rows = await page.evaluate(() => window.flamepipe.state.rows);
	await clickCell(page, 1 * rows + 10);
	await clickCell(page, 4 * rows + 30);
	await page.waitForFunction(() => window.flamepipe.state.sel && window.flamepipe.state.sel.to !== null);
	const sel = await page.evaluate(() => window.flamepipe.state.sel);
	range = { start: (sel.from / 1e9).toFixed(9), end: (sel.to / 1e9).toFixed(9) };
	let want = await folded(range);
	await page.waitForFunction((n) => window.flamepipe.flame.data.root.total === n, want.total);
	await waitTreeTotal(page, want.total);
	eq((await treeMismatches(page, 'top', want.top)).join('; '), '', 'top-down, range');
	const th = await api('threads/', { filename: FILE, ...range });
	const pids = th.processes.slice(0, 2).map((p) => p.pid).join(',');
	await page.click('#filters-box summary');
	await page.fill('#filters input[name=pid]', pids);
	await page.fill('#filters input[name=comm]', th.processes[0].comm);
	await page.click('#filters button[type=submit]');
	want = await folded({ ...range, pid: pids, comm: th.processes[0].comm });
	check(want.total > 0 && want.total < th.total, `filtered total ${want.total} of ${th.total}`);
	await page.waitForFunction((n) => window.flamepipe.flame.data.root.total === n, want.total);
	await waitTreeTotal(page, want.total);
	eq((await treeMismatches(page, 'top', want.top)).join('; '), '', 'top-down, range and filters');
	await page.click('#ct-bottom');
	eq((await treeMismatches(page, 'bottom', want.bottom)).join('; '), '', 'bottom-up, range and filters');
	const first = (await treeRows(page)).filter((r) => r.depth === 1);
	eq(first.reduce((s, r) => s + r.self, 0), want.total, 'sum of the bottom-up first-level selfs');
	await shot(page, 'views-calltree-02-range-filters-bottom-up', false);
});

await step('the address keeps the view and the direction: a reload opens the same bottom-up tree', async () => {
	const hash = await page.evaluate(() => location.hash);
	check(hash.includes('fv=tree') && hash.includes('ct=bottom'), 'not in the URL: ' + hash);
	const before = await treeRows(page);
	await page.reload();
	await waitCells(page);
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n,
				 before.filter((r) => r.depth === 1).reduce((s, r) => s + r.self, 0));
	await page.waitForSelector('#ct-table tbody tr');
	eq(await page.evaluate(() => window.flamepipe.state.ctMode), 'bottom', 'direction');
	eq(await page.inputValue('#fview'), 'tree', 'view');
});

await step('search: the samples marked equal the flame graph\'s search of the same term, in both directions', async () => {
	await page.click('#filters-reset');
	await page.click('#whole');
	const want = await folded({});
	await waitTreeTotal(page, want.total);
	await page.fill('#search', 'compare_keys');
	await page.press('#search', 'Enter');
	await page.fill('#ct-search', 'compare_keys');
	await page.press('#ct-search', 'Enter');
	await page.waitForFunction(() => document.getElementById('ct-count').getAttribute('data-matched') !== '');
	const hit = Number(await page.getAttribute('#matched', 'data-matched'));
	check(hit > 0, 'the flame graph matched nothing');
	eq(Number(await page.getAttribute('#ct-count', 'data-matched')), hit, 'bottom-up matched vs the flame graph');
	await page.click('#ct-top');
	await page.waitForFunction(() => window.flamepipe.state.ctMode === 'top');
	eq(Number(await page.getAttribute('#ct-count', 'data-matched')), hit, 'top-down matched vs the flame graph');
	const rows = await treeRows(page);
	check(rows.filter((r) => r.match).length >= 2, 'the search did not open the way to several matches');
	await shot(page, 'views-calltree-03-search', false);
});

await finish(0);
