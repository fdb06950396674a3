// live-after-end.test.mjs: a live session outlives its capture (issue 22).
// `flamepipe live --http --duration S -o DIR` (no Ctrl-C, no flag) ends the
// capture by itself; the page that watched it stays up: it still selects
// ranges (their totals equal the heatmap's cells), a reload opens the same
// profile again, and no console error appears after the end. Then one
// Ctrl-C ends the session with status 0.
// Needs perf and root (or perf_event_paranoid low enough): else it skips.
// Prints TAP; screenshots go to tests/artifacts/live-after-end-*.png.
import path from 'node:path';
import { BIN, step, check, eq, finish, deadline, launch, newPage, shot, getJSON, treeTotal,
	 clickCell, waitCells, shootOnFailure, startGroup, stopGroup, listeningUrl, skipUnlessPerf,
	 namedShell, tmpdir } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 90000;
const WAIT_MS = 20000;
const NAME = 'afterend';
const CAPTURE_S = 8;
const ROWS = 50;
const BURNER = 'fpburner2';

deadline(TEST_DEADLINE_MS);

skipUnlessPerf('live after the end');
const tmp = tmpdir('live-after-end');
const burner = namedShell(tmp, BURNER);

let live, url;
await step('flamepipe live --http --duration starts, and a burner runs', async () => {
	startGroup(burner, ['-c', 'while :; do :; done'], { cleanupSignal: 'SIGKILL' });
	live = startGroup(path.join(BIN, 'flamepipe'), ['live', '-F', '99', '-a', '-g', '--duration', String(CAPTURE_S),
							'--http', '127.0.0.1:0', '--no-term', '--name', NAME,
							'-o', path.join(tmp, 'out')], { cleanupSignal: 'SIGKILL' });
	url = await listeningUrl(live, WAIT_MS, 'flamepipe live');
});

const browser = await launch();
const page = await newPage(browser, true);
const errors = [];
page.setDefaultTimeout(WAIT_MS);
shootOnFailure(page, 'live-after-end');
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
page.on('pageerror', (e) => errors.push(e.message));

const flameTotal = () => page.evaluate(() => window.flamepipe.flame.data ? window.flamepipe.flame.data.root.total : -1);
const cellsSum = (c0, c1) => page.evaluate(([a, b]) => {
	const h = window.flamepipe.state.heat;
	let s = 0;
	for (let i = a * h.rows; i < b * h.rows; i++) s += h.cells[i];
	return s;
}, [c0, c1]);
async function selectColumns(c0, c1) {
	await clickCell(page, c0 * ROWS);
	await clickCell(page, c1 * ROWS - 1);
	await page.waitForFunction((s) => document.getElementById('flame-title').textContent.includes(s) &&
				   window.flamepipe.flame.data, `${c0} s`);
	await page.waitForFunction(() => !/loading flame graph/.test(document.getElementById('status').textContent));
}

await step('the page opens on the live capture while it runs', async () => {
	await page.goto(url + '#/profile?file=' + NAME);
	await page.waitForSelector('#live-badge:not([hidden])');
	await waitCells(page);
});

await step('--duration ends the capture; the page says so and the session stays up', async () => {
	await page.waitForFunction(() => window.flamepipe.state.heat && window.flamepipe.state.heat.ended,
				   null, { timeout: (CAPTURE_S + 20) * 1000 });
	await page.waitForFunction(() => /^capture ended/.test(document.getElementById('status').textContent));
	// the runner's line that the view stays up comes once everything before it drained
	const t0 = Date.now();
	while (!/web view stays up/.test(live.err) && Date.now() - t0 < WAIT_MS)
		await new Promise((r) => setTimeout(r, 100));
	check(/web view stays up/.test(live.err), 'no "stays up" line: ' + live.err.slice(-300));
	check(live.exitCode === null, 'flamepipe live exited with the capture');
});

await step('after the end the same page still selects ranges from the recording', async () => {
	const heat = await getJSON(url + 'heatmap/?filename=' + NAME);
	const n = heat.values.length;
	check(n >= 4, `only ${n} columns`);
	for (const [c0, c1] of [[0, 2], [2, n]]) {
		await selectColumns(c0, c1);
		const got = await flameTotal();
		check(got > 0, `empty range ${c0}..${c1}`);
		eq(got, await cellsSum(c0, c1), `flame graph of ${c0}..${c1} vs its selected cells`);
		eq(got, treeTotal(await getJSON(url + `flamegraph/?filename=${NAME}&start=${c0}&end=${c1}`)),
		   `flame graph of ${c0}..${c1} vs /flamegraph/`);
	}
	await shot(page, 'live-after-end-01-range');
});

await step('a reload opens the ended capture again, with its selection', async () => {
	const before = page.url();
	await page.reload();
	await waitCells(page);
	eq(page.url(), before, 'the address after the reload');
	await page.waitForFunction(() => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total > 0);
	check(await page.evaluate(() => window.flamepipe.state.sel !== null), 'the selection was lost');
	await shot(page, 'live-after-end-02-reload');
});

await step('no console errors after the end', async () => {
	await new Promise((r) => setTimeout(r, 3000));	// an EventSource would have retried by now
	eq(errors.join('; '), '', 'console and page errors');
});

await step('Ctrl-C ends the session with status 0', async () => {
	await page.close();
	await stopGroup(live, 'SIGINT');
	eq(live.exitCode, 0, 'flamepipe live exit code (stderr: ' + live.err.slice(-300) + ')');
});
await finish(0);
