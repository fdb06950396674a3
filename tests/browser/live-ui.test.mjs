// live-ui.test.mjs: a live capture's page grows while the capture runs.
// The test is the "perf script" source: it writes the bundled capture's
// samples into a live chain a few seconds at a time,
//   fp-read | fp-record --output REC | fp-bucket | fp-range | fp-fold --interval |
//   fp-serve --live demo --recording REC
// and checks that the page (fed by Server-Sent Events, it never polls) gains
// columns before the input ends, that a selected range is answered from the
// recording without changing the chain, that two live ranges compare, that
// a narrow page keeps the newest column in view (unless scrolled back), and
// that the end of the capture is shown once, with no retries.
// Prints TAP; screenshots go to tests/artifacts/live-*.png.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { TOP, BIN, step, check, eq, finish, deadline, launch, newPage, shot, getJSON, treeTotal,
	 clickCell, waitCells, drawnCells, testPage, waitFlame, startGroup, listeningUrl, tmpdir } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 90000;
const WAIT_MS = 10000;
const NAME = 'demo-live';
const CAPTURE = path.join(TOP, 'examples', 'demo-clockloop.perf.gz');
const CAPTURE_MAX = 121;	// at most this many seconds of the demo are used
const FEED_SECONDS = 200;	// seconds fed in all: the demo, then its start again
const SECONDS_PER_TICK = 6;	// capture seconds written per tick
const TICK_MS = 400;		// so 120 s of capture arrive in about 8 s
const FOLD_INTERVAL_MS = 200;

deadline(TEST_DEADLINE_MS);

// ---- the capture, cut into per-second chunks of perf script text ----------------------
const text = zlib.gunzipSync(fs.readFileSync(CAPTURE)).toString('latin1');
const blocks = text.split(/\n\n+/);
const header = [], bySecond = new Map();
let first = null;
for (const b of blocks) {
	const m = b.match(/^\S.*?\s(\d+)\.\d+:/m);
	if (!m || b.startsWith('#')) { if (b.startsWith('#')) header.push(b); continue; }
	const s = Number(m[1]);
	if (first === null) first = s;
	if (s - first >= CAPTURE_MAX) continue;
	if (!bySecond.has(s - first)) bySecond.set(s - first, []);
	bySecond.get(s - first).push(b);
}
check(bySecond.size > 10, `could not cut ${CAPTURE} into seconds`);
// its length: to its last second with a sample that is not idle (idle
// samples are not counted, so a column of only idle samples never appears)
const busy = [...bySecond.keys()].filter((k) => bySecond.get(k).some((blk) => !/^\s*swapper/.test(blk)));
const CAPTURE_SECONDS = Math.max(...busy) + 1;

// ---- the live chain -----------------------------------------------------------------------
const tmp = tmpdir('live-ui');
const rec = path.join(tmp, 'recording.fp.gz');
fs.mkdirSync(path.join(tmp, 'dir'));
fs.copyFileSync(CAPTURE, path.join(tmp, 'dir', 'finished.perf.gz'));	// for compare

const q = (s) => "'" + s.replace(/'/g, "'\\''") + "'";
const b = (p) => q(path.join(BIN, p));
const chain = `exec ${b('fp-read')} | ${b('fp-record')} --output ${q(rec)} --flush-interval 100 | ` +
	`${b('fp-bucket')} --rows 50 | ${b('fp-range')} --history 0 | ` +
	`${b('fp-fold')} --all --interval ${FOLD_INTERVAL_MS} | ` +
	`${b('fp-serve')} --listen 127.0.0.1:0 --dir ${q(path.join(tmp, 'dir'))} --live ${NAME} --recording ${q(rec)}`;
// Its own process group, so the whole chain is stopped by the group's id.
const sh = startGroup('/bin/sh', ['-c', chain], { stdin: 'pipe' });
sh.stdin.on('error', () => { /* the chain died: reported by the steps */ });

let url;
await step('the live chain starts and fp-serve prints its address', async () => {
	url = await listeningUrl(sh, WAIT_MS, 'chain');
});

// Feeding: the header, then SECONDS_PER_TICK capture seconds per tick.
let fed = 0, feeding = null;
const write = (s) => new Promise((res) => { if (!sh.stdin.write(s)) sh.stdin.once('drain', res); else res(); });
// second k >= CAPTURE_SECONDS repeats second k - CAPTURE_SECONDS, its
// timestamps moved CAPTURE_SECONDS later (a longer capture)
const shifted = (blk, by) => by ? blk.replace(/(\s)(\d+)(\.\d+:)/, (m, sp, sec, frac) => sp + (Number(sec) + by) + frac) : blk;
function feedSome(nseconds) {
	const chunk = [];
	for (let i = 0; i < nseconds && fed < FEED_SECONDS; i++, fed++) {
		const by = Math.floor(fed / CAPTURE_SECONDS) * CAPTURE_SECONDS;
		for (const blk of bySecond.get(fed % CAPTURE_SECONDS) || []) chunk.push(shifted(blk, by));
	}
	return write(chunk.map((x) => x + '\n\n').join(''));
}
// feeds up to `limit` capture seconds, a tick at a time (the narrow page's
// step wants input still arriving when it starts)
let limit = 0;
// A click on a growing heatmap can land on the next column: a new column
// rescales the grid between reading a cell's position and the click (CI
// compared 10-15 s with the 10-14 s the test asked the server for). The
// clicks of a step are made on a still grid: feeding pauses, the page
// catches up with the chain, then the clicks, then feeding resumes.
let paused = null, resume = null;
async function clickStill(cells) {
	paused = new Promise((r) => { resume = r; });
	let prev = -1;
	for (;;) {	// until the chain's columns stopped growing and the page has them all
		const n = (await getJSON(url + 'heatmap/?filename=' + NAME)).values.length;
		const drawn = await page.evaluate((n) => window.flamepipe.state.heat.ncols === n &&
			window.flamepipe.drawnCells().length === n * window.flamepipe.state.heat.rows, n);
		if (n === prev && drawn) break;
		prev = n;
		await new Promise((r) => setTimeout(r, 3 * FOLD_INTERVAL_MS));
	}
	for (const c of cells) await clickCell(page, c);
	const r = resume;
	paused = resume = null;
	r();
}
function startFeeding(upTo) {
	limit = upTo;
	const prev = feeding || Promise.resolve();
	feeding = prev.then(async () => {
		while (fed < limit) {
			if (paused) await paused;
			await feedSome(Math.min(SECONDS_PER_TICK, limit - fed));
			await new Promise((r) => setTimeout(r, TICK_MS));
		}
	});
}
const FIRST_PART = 60;	// capture seconds fed before the narrow page opens

const browser = await launch();
const page = await testPage(browser, 'live-ui', WAIT_MS);
const columns = () => page.evaluate(() => (window.flamepipe.state.heat ? window.flamepipe.state.heat.ncols : 0));
let requests = 0;
page.on('request', (r) => { if (r.url().includes('/heatmap/')) requests++; });

await step('the live capture is listed and marked live', async () => {
	await write(header.join('\n\n') + '\n\n');
	await feedSome(SECONDS_PER_TICK);
	// the first cells are through the chain before the page opens
	const t0 = Date.now();
	for (;;) {
		const h = await getJSON(url + 'heatmap/?filename=' + NAME);
		if (h.values.length > 0) break;
		if (Date.now() - t0 > WAIT_MS) throw new Error('no cells reached fp-serve: ' + JSON.stringify(h).slice(0, 300) + ' stderr: ' + sh.err);
		await new Promise((r) => setTimeout(r, 100));
	}
	await page.goto(url);
	await page.waitForSelector('a.file-link');
	const live = await page.$$eval('tr.live-file a.file-link', (as) => as.map((a) => a.textContent));
	eq(live.join(','), NAME, 'live entries');
	await shot(page, 'live-01-list');
});

let c1, c2;
await step('its page gains columns by Server-Sent Events while the capture runs', async () => {
	await page.getByRole('link', { name: NAME, exact: true }).click();
	await page.waitForSelector('#live-badge:not([hidden])');
	try {
		await waitCells(page);
		// the SSE stream is open and its opening state fetch is done
		await page.waitForFunction(() => window.flamepipe.state.liveReady);
	} catch (e) {
		const st = await page.evaluate(() => {
			const s = window.flamepipe.state;
			return { heat: s.heat && { ncols: s.heat.ncols, rows: s.heat.rows, total: s.heat.total, live: s.heat.live },
				 live: s.live, liveReady: s.liveReady, liveFetching: s.liveFetching, error: document.getElementById('error').textContent };
		});
		const h = await getJSON(url + 'heatmap/?filename=' + NAME);
		throw new Error(`${e.message}\npage state ${JSON.stringify(st)}\n/heatmap/ ncols ${h.values.length} rows ${h.rows_per_second}\nchain stderr: ${sh.err.slice(-500)}`);
	}
	c1 = await columns();
	const req1 = requests;
	startFeeding(FIRST_PART);
	await page.waitForFunction((n) => window.flamepipe.state.heat && window.flamepipe.state.heat.ncols >= n + 8, c1, { timeout: WAIT_MS });
	c2 = await columns();
	check(fed < FIRST_PART, `the input ended before the page grew (${c1} -> ${c2} columns)`);
	// redraws are coalesced: the grid catches up with the data shortly
	await page.waitForFunction(() => window.flamepipe.drawnCells().length ===
				   window.flamepipe.state.heat.ncols * window.flamepipe.state.heat.rows);
	check((await drawnCells(page)).length >= c2 * 50, 'grid smaller than the data');
	eq(requests, req1, 'the page re-fetched /heatmap/ instead of applying events');
	await shot(page, 'live-02-growing');
});

await step('a range selected on the live page is answered from the recording; the chain is not changed', async () => {
	// a band of the capture that is already in: seconds 5..9 of the axis
	const rows = 50, s0 = 5, s1 = 9;
	await clickStill([s0 * rows, s1 * rows - 1]);
	await page.waitForFunction(() => /flame graph: 5 s/.test(document.getElementById('flame-title').textContent));
	const heat = await getJSON(url + 'heatmap/?filename=' + NAME);
	let want = 0;
	for (let c = s0; c < s1; c++) want += heat.values[c].reduce((a, v) => a + v, 0);
	await waitFlame(page);
	const got = await page.evaluate(() => window.flamepipe.flame.data.root.total);
	eq(got, want, 'flame graph samples vs the selected live cells');
	const direct = await getJSON(url + 'flamegraph/?filename=' + NAME + '&start=5&end=9');
	eq(treeTotal(direct), want, '/flamegraph/ of the range');
	// the chain's own flame graph is still the whole capture
	const snap = await getJSON(url + 'live/flamegraph?name=' + NAME);
	check(snap.total > got, `the live snapshot (${snap.total}) is not the whole capture`);
	await shot(page, 'live-03-range');
});

await step('compare: two ranges of the live capture', async () => {
	await page.waitForFunction(() => window.flamepipe.state.heat.ncols >= 16);
	await page.click('#compare');
	const rows = await page.evaluate(() => window.flamepipe.state.heat.rows);
	await clickStill([10 * rows, 14 * rows - 1]);
	await page.waitForSelector('#flame-tabs:not([hidden])');
	await page.waitForFunction(() => /^Differential/.test(document.getElementById('flame-title').textContent));
	const diff = await getJSON(url + 'differential/?' + new URLSearchParams({
		filename: NAME, start: '10', end: '14', compareFilename: NAME, compareStart: '5', compareEnd: '9' }));
	check(treeTotal(diff) > 0, 'empty differential');
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n, treeTotal(diff));
	await shot(page, 'live-04-compare');
	await page.click('#stop-cmp');
	await page.waitForFunction(() => /flame graph: 5 s/.test(document.getElementById('flame-title').textContent));
});

// Filters of a running capture: the flame graph is filtered (from the
// recording); the live heatmap is the chain's own and says it is not.
await step('a comm filter on the live page filters the flame graph, and the heatmap from the recording; the chain\'s heatmap stays unfiltered', async () => {
	if (!(await page.$eval('#filters-box', (d) => d.open))) await page.click('#filters-box summary');
	await page.fill('#filters [name=comm]', 'clockloop');
	await page.click('#filters button[type=submit]');
	// the page asks the recording for the filtered heatmap (recording=1)
	await page.waitForFunction(() => /filtered from its recording/.test(document.getElementById('heat-title').textContent) &&
		window.flamepipe.state.heat.filtered);
	const fromRec = await getJSON(url + 'heatmap/?filename=' + NAME + '&comm=clockloop&recording=1');
	check(fromRec.filtered === true && fromRec.live === true && fromRec.counted > 0, 'recording=1: filtered=' + fromRec.filtered);
	const whole = await getJSON(url + 'heatmap/?filename=' + NAME);
	check(fromRec.counted < whole.counted, `clockloop's samples ${fromRec.counted} are not fewer than all ${whole.counted}`);
	const heat = await getJSON(url + 'heatmap/?filename=' + NAME + '&comm=clockloop');
	check(heat.filtered === false && heat.live === true, 'live /heatmap/ with a filter: filtered=' + heat.filtered);
	await page.waitForFunction(() => {
		const d = window.flamepipe.flame.data;
		return d && d.root.total > 0 && d.root.kids.every((c) => c.name === 'clockloop');
	});
	const snap = await getJSON(url + 'live/flamegraph?name=' + NAME);
	check(snap.tree.c.some((c) => c.n !== 'clockloop'), 'the filter reached the live chain');
	await shot(page, 'live-04b-filter');
	await page.click('#filters-reset');
	await page.waitForFunction(() => !/filtered from its recording/.test(document.getElementById('heat-title').textContent) &&
		!window.flamepipe.state.heat.filtered);
});

// A narrow page (a phone): the capture is soon wider than the window.
let narrow;
const atNewest = (p) => p.evaluate(() => {
	const w = document.getElementById('heat-wrap');
	return w.scrollWidth > w.clientWidth + 10 && w.scrollLeft + w.clientWidth >= w.scrollWidth - 4;
});
await step('a capture wider than the window keeps its newest column in view, unless scrolled back', async () => {
	narrow = await browser.newPage({ viewport: { width: 390, height: 800 } });
	narrow.pageErrors = [];
	narrow.consoleErrors = [];
	narrow.on('pageerror', (e) => { narrow.pageErrors.push(e.message); });
	narrow.on('console', (m) => { if (m.type() === 'error') narrow.consoleErrors.push(m.text()); });
	await feeding;
	await narrow.goto(url + '#/profile?file=' + NAME);
	await narrow.waitForFunction(() => window.flamepipe.state.liveReady);
	const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
	const wider = () => narrow.evaluate(() => {
		const w = document.getElementById('heat-wrap');
		return w.scrollWidth > w.clientWidth + 10;
	});
	// the test feeds here, two capture seconds at a time, until the
	// heatmap is wider than the window
	while (!(await wider()) && fed < FEED_SECONDS - 20) {
		await feedSome(2);
		await sleep(300);
	}
	check(await wider(), 'the heatmap never got wider than the window');
	const n0 = await narrow.evaluate(() => window.flamepipe.state.heat.ncols);
	console.log(`# wider than the window at ${n0} columns, ${fed} s fed`);
	await feedSome(10);
	await narrow.waitForFunction((n) => window.flamepipe.state.heat.ncols >= n + 3, n0);
	await sleep(600);	// one coalesced redraw
	check(await atNewest(narrow), 'the newest column is not in view while live');
	// scrolled back: stays there, and offers to jump to now
	await narrow.evaluate(() => { document.getElementById('heat-wrap').scrollLeft = 0; });
	await narrow.waitForSelector('#live-now:not([hidden])');
	const n1 = await narrow.evaluate(() => window.flamepipe.state.heat.ncols);
	await feedSome(10);
	await narrow.waitForFunction((n) => window.flamepipe.state.heat.ncols > n, n1);
	await sleep(600);
	eq(await narrow.evaluate(() => document.getElementById('heat-wrap').scrollLeft), 0, 'scrolled back, but moved');
	await narrow.click('#live-now');
	check(await atNewest(narrow), 'Jump to now did not show the newest column');
	await narrow.waitForSelector('#live-now', { state: 'hidden' });
	const stats = await narrow.textContent('#live-stats');
	check(/^Live: \d+ s, [\d,]+ samples read \([\d.]+\/s\), 0 dropped \(0\.0%\), 0 lost by perf/.test(stats), 'live stats: ' + stats);
	await shot(narrow, 'live-04c-narrow');
});

await step('the end of the capture is shown and the page keeps every column', async () => {
	const t0 = Date.now();
	startFeeding(FEED_SECONDS);
	await feeding;
	const t1 = Date.now();
	sh.stdin.end();
	await page.waitForFunction(() => /capture ended/.test(document.getElementById('heat-title').textContent));
	console.log(`# feeding done after ${t1 - t0} ms, end shown ${Date.now() - t1} ms after EOF`);
	const heat = await getJSON(url + 'heatmap/?filename=' + NAME);
	eq(await columns(), heat.values.length, 'columns on the page vs /heatmap/ at the end');
	check(heat.ended === true, '/heatmap/ does not say ended');
	for (const p of [page, narrow]) {
		await p.waitForSelector('#live-badge', { state: 'hidden' });
		check(await p.evaluate(() => window.flamepipe.state.es === null), 'the SSE stream is still open');
		check(/^capture ended/.test(await p.textContent('#status')), 'status: ' + await p.textContent('#status'));
		check(/^Capture ended: /.test(await p.textContent('#live-stats')), 'stats after the end');
	}
	await shot(page, 'live-05-ended');
});

await step('after the end: a range still draws, from the recording, and filters reach the heatmap', async () => {
	const rows = 50;
	await clickCell(page, 30 * rows);
	await clickCell(page, 40 * rows - 1);
	const direct = await getJSON(url + 'flamegraph/?filename=' + NAME + '&start=30&end=40');
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n, treeTotal(direct));
	await page.fill('#filters [name=comm]', 'clockloop');
	await page.click('#filters button[type=submit]');
	await page.waitForFunction(() => /matching the filters/.test(document.getElementById('heat-title').textContent));
	await page.click('#filters-reset');
	await page.waitForTimeout(1500);	// an EventSource would have retried by now
	eq(narrow.consoleErrors.concat(narrow.pageErrors).join('; '), '', 'console errors on the narrow page');
});

await step('no script errors on the live page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
