// live-session.test.mjs: a live capture is a profile that is still growing
// (issue 11). `flamepipe live --http --keep-serving -o DIR` profiles the
// machine with perf while a CPU burner runs; two pages select different
// ranges at the same time and each sees its own totals (never the other's,
// never the chain's); after the capture ends each page still draws range
// flame graphs whose totals equal `flamepipe report DIR/recording.fp.gz`
// with the same --from/--to, and no console error appears after the end.
// Needs perf and root (or perf_event_paranoid low enough): else it skips.
// Prints TAP; screenshots go to tests/artifacts/live-session-*.png.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, step, check, eq, finish, deadline, launch, newPage, shot, getJSON, treeTotal,
	 clickCell, waitCells, shootOnFailure, startGroup, stopGroup, listeningUrl, skipUnlessPerf,
	 namedShell, tmpdir } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 90000;
const WAIT_MS = 20000;
const NAME = 'session';
const CAPTURE_S = 60;		// an upper bound: the test ends the capture (Ctrl-C)
const ROWS = 50;
const BURNER = 'fpburner';	// the burner's comm: a copy of /bin/sh

deadline(TEST_DEADLINE_MS);

skipUnlessPerf('live session');
const tmp = tmpdir('live-session');
const out = path.join(tmp, 'out');
const burner = namedShell(tmp, BURNER);

// the samples `flamepipe report RECORDING --from A --to B` finds
function reportTotal(from, to) {
	const dir = path.join(tmp, `report-${from}-${to}`);
	const r = spawnSync(path.join(BIN, 'flamepipe'), ['report', '-q', path.join(out, 'recording.fp.gz'),
							'--from', String(from), '--to', String(to), '-o', dir], { encoding: 'utf8' });
	check(r.status === 0, `flamepipe report --from ${from} --to ${to}: ${r.status} ${r.stderr}`);
	return fs.readFileSync(path.join(dir, 'stacks.folded'), 'utf8').split('\n')
		.reduce((s, l) => s + (Number(l.slice(l.lastIndexOf(' ') + 1)) || 0), 0);
}

let live, url;
await step('flamepipe live --http --keep-serving -o DIR starts, and a burner runs', async () => {
	startGroup(burner, ['-c', 'while :; do :; done'], { cleanupSignal: 'SIGKILL' });
	live = startGroup(path.join(BIN, 'flamepipe'), ['live', '-F', '99', '-a', '-g', '--duration', String(CAPTURE_S),
							'--http', '127.0.0.1:0', '--keep-serving', '--no-term',
							'--name', NAME, '-o', out], { cleanupSignal: 'SIGKILL' });
	url = await listeningUrl(live, WAIT_MS, 'flamepipe live');
});

const browser = await launch();
const pages = [await newPage(browser, true), await newPage(browser, true)];
const errorsAfterEnd = [[], []];
let ended = false;
pages.forEach((p, i) => {
	p.setDefaultTimeout(WAIT_MS);
	shootOnFailure(p, 'live-session-' + i);
	p.on('console', (m) => { if (ended && m.type() === 'error') errorsAfterEnd[i].push(m.text()); });
	p.on('pageerror', (e) => { if (ended) errorsAfterEnd[i].push(e.message); });
});
const flameTotal = (p) => p.evaluate(() => window.flamepipe.flame.data ? window.flamepipe.flame.data.root.total : -1);
const cellsSum = (p, c0, c1) => p.evaluate(([a, b]) => {
	const h = window.flamepipe.state.heat;
	let s = 0;
	for (let i = a * h.rows; i < b * h.rows; i++) s += h.cells[i];
	return s;
}, [c0, c1]);
// select whole columns [c0, c1) and wait for that range's flame graph
async function selectColumns(p, c0, c1) {
	await clickCell(p, c0 * ROWS);
	await clickCell(p, c1 * ROWS - 1);
	await p.waitForFunction((s) => document.getElementById('flame-title').textContent.includes(s) &&
				window.flamepipe.flame.data, `${c0} s`);
	await p.waitForFunction(() => !/loading flame graph/.test(document.getElementById('status').textContent));
}

await step('two pages open the live capture while it runs', async () => {
	await Promise.all(pages.map(async (p) => {
		await p.goto(url + '#/profile?file=' + NAME);
		await p.waitForSelector('#live-badge:not([hidden])');
		await waitCells(p);
		await p.waitForFunction(() => window.flamepipe.state.liveReady);
	}));
	// five columns: the first four are in the recording (a batch a second)
	await pages[0].waitForFunction(() => window.flamepipe.state.heat.ncols >= 6, null, { timeout: WAIT_MS });
	check(live.exitCode === null, 'the capture ended before the pages were ready');
});

await step('they select different ranges at the same time and each sees its own totals', async () => {
	const ranges = [[0, 2], [2, 4]];
	await Promise.all(pages.map((p, i) => selectColumns(p, ...ranges[i])));
	check(await pages[0].evaluate(() => !window.flamepipe.state.heat.ended), 'the capture ended during the selection');
	for (let i = 0; i < 2; i++) {
		const [c0, c1] = ranges[i];
		const got = await flameTotal(pages[i]);
		const direct = treeTotal(await getJSON(url + `flamegraph/?filename=${NAME}&start=${c0}&end=${c1}`));
		eq(got, direct, `page ${i}: flame graph vs /flamegraph/ of ${c0}..${c1}`);
		eq(got, await cellsSum(pages[i], c0, c1), `page ${i}: flame graph vs its selected cells`);
		check(got > 0, `page ${i}: empty range`);
		check(new RegExp(`flame graph: ${c0} s`, 'i').test(await pages[i].textContent('#flame-title')),
		      `page ${i} shows another range: ` + await pages[i].textContent('#flame-title'));
	}
	// the chain was not changed by either: its snapshot is the whole capture
	const snap = await getJSON(url + 'live/flamegraph?name=' + NAME);
	check(snap.total > Math.max(await flameTotal(pages[0]), await flameTotal(pages[1])),
	      'the live snapshot is not the whole capture');
	await shot(pages[0], 'live-session-01-a');
	await shot(pages[1], 'live-session-01-b');
});

await step('the capture ends (Ctrl-C): both pages say so once and stop the event stream', async () => {
	// the first Ctrl-C ends the capture; --keep-serving keeps the web view
	process.kill(live.pid, 'SIGINT');
	await Promise.all(pages.map((p) => p.waitForFunction(() => window.flamepipe.state.heat && window.flamepipe.state.heat.ended,
							      null, { timeout: (CAPTURE_S + 20) * 1000 })));
	ended = true;
	for (const p of pages) {
		await p.waitForSelector('#live-badge', { state: 'hidden' });
		await p.waitForFunction(() => /^capture ended/.test(document.getElementById('status').textContent));
		check(await p.evaluate(() => window.flamepipe.state.es === null), 'the event stream is still open');
	}
	check(live.exitCode === null, '--keep-serving: the server should still be up');
});

await step('after the end each page draws range flame graphs equal to flamepipe report of the recording', async () => {
	const heat = await getJSON(url + 'heatmap/?filename=' + NAME);
	const n = heat.values.length;
	check(n >= 6, `only ${n} columns`);
	const ranges = [[1, 3], [3, n]];
	await Promise.all(pages.map((p, i) => selectColumns(p, ...ranges[i])));
	for (let i = 0; i < 2; i++) {
		const [c0, c1] = ranges[i];
		const got = await flameTotal(pages[i]);
		eq(got, reportTotal(c0, c1), `page ${i}: flame graph of ${c0}..${c1} vs flamepipe report --from ${c0} --to ${c1}`);
		eq(got, await cellsSum(pages[i], c0, c1), `page ${i}: vs its selected cells`);
	}
	// and the final report is the whole capture, whatever was selected
	const folded = fs.readFileSync(path.join(out, 'stacks.folded'), 'utf8').split('\n')
		.reduce((s, l) => s + (Number(l.slice(l.lastIndexOf(' ') + 1)) || 0), 0);
	eq(folded, heat.values.flat().reduce((a, v) => a + v, 0), 'final stacks.folded total vs the heatmap total');
	await shot(pages[0], 'live-session-02-after');
});

await step('no console errors after the end', async () => {
	await new Promise((r) => setTimeout(r, 3000));	// an EventSource would have retried by now
	eq(errorsAfterEnd[0].concat(errorsAfterEnd[1]).join('; '), '', 'console errors after the end');
	eq(pages[0].pageErrors.concat(pages[1].pageErrors).join('; '), '', 'page errors');
});

await step('a second Ctrl-C ends the session with status 0', async () => {
	// (open connections of the pages would make fp-serve wait its grace period)
	await Promise.all(pages.map((p) => p.close()));
	await stopGroup(live, 'SIGINT');
	eq(live.exitCode, 0, 'flamepipe live exit code (stderr: ' + live.err.slice(-300) + ')');
});
await finish(0);
