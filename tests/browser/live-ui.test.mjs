// live-ui.test.mjs: a live capture's page grows while the capture runs.
// The test is the "perf script" source: it writes the bundled capture's
// samples into a live chain a few seconds at a time,
//   fp-read | fp-bucket | fp-range --control FIFO | fp-fold --interval |
//   fp-serve --live demo --control FIFO
// and checks that the page (fed by Server-Sent Events, it never polls) gains
// columns before the input ends, that a selected range comes back through
// fp-range's control FIFO, and that the end of the capture is shown.
// Prints TAP; screenshots go to tests/artifacts/live-*.png.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import {
	TOP, BIN, step, check, eq, finish, deadline, onCleanup, launch, newPage, shot, getJSON, treeTotal,
	clickCell, waitCells, drawnCells, shootOnFailure
} from './serve-lib.mjs';

const TEST_DEADLINE_MS = 55000;
const WAIT_MS = 10000;
const NAME = 'demo-live';
const CAPTURE = path.join(TOP, 'examples', 'demo-clockloop.perf.gz');
const FEED_SECONDS = 60;	// capture seconds fed in all
const SECONDS_PER_TICK = 4;	// capture seconds written per tick
const TICK_MS = 400;		// so 60 s of capture arrive in about 6 s
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
	if (s - first >= FEED_SECONDS) continue;
	if (!bySecond.has(s - first)) bySecond.set(s - first, []);
	bySecond.get(s - first).push(b);
}
check(bySecond.size > 10, `could not cut ${CAPTURE} into seconds`);

// ---- the live chain -----------------------------------------------------------------------
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-live-ui-'));
onCleanup(() => fs.rmSync(tmp, { recursive: true, force: true }));
const fifo = path.join(tmp, 'range.ctl');
const mk = spawn('mkfifo', [fifo]);
await new Promise((res) => mk.once('exit', res));
check(fs.existsSync(fifo), 'mkfifo failed');
fs.mkdirSync(path.join(tmp, 'dir'));
fs.copyFileSync(CAPTURE, path.join(tmp, 'dir', 'finished.perf.gz'));	// for compare

const q = (s) => "'" + s.replace(/'/g, "'\\''") + "'";
const b = (p) => q(path.join(BIN, p));
const chain = `exec ${b('fp-read')} | ${b('fp-bucket')} --rows 50 | ${b('fp-range')} --control ${q(fifo)} | ` +
	`${b('fp-fold')} --all --interval ${FOLD_INTERVAL_MS} | ` +
	`${b('fp-serve')} --listen 127.0.0.1:0 --dir ${q(path.join(tmp, 'dir'))} --live ${NAME} --control ${q(fifo)}`;
// Its own process group, so the whole chain is stopped by the group's id.
const sh = spawn('/bin/sh', ['-c', chain], { cwd: TOP, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
let chainErr = '';
sh.stderr.on('data', (d) => { chainErr += d; });
sh.stdin.on('error', () => { /* the chain died: reported by the steps */ });
const stopChain = () => new Promise((resolve) => {
	if (sh.exitCode !== null || sh.signalCode !== null) return resolve();
	const t = setTimeout(() => { try { process.kill(-sh.pid, 'SIGKILL'); } catch (e) { /* gone */ } resolve(); }, 2000);
	sh.once('exit', () => { clearTimeout(t); resolve(); });
	try { process.kill(-sh.pid, 'SIGTERM'); } catch (e) { clearTimeout(t); resolve(); }
});
onCleanup(stopChain);
process.on('exit', () => { try { process.kill(-sh.pid, 'SIGKILL'); } catch (e) { /* gone */ } });

let url;
await step('the live chain starts and fp-serve prints its address', async () => {
	url = await new Promise((resolve, reject) => {
		let out = '';
		const t = setTimeout(() => reject(new Error('no address within 10 s; stderr: ' + chainErr)), WAIT_MS);
		sh.stdout.on('data', (d) => {
			out += d;
			const m = out.match(/listening on (http:\/\/\S+?)\/?\s/);
			if (m) { clearTimeout(t); resolve(m[1] + '/'); }
		});
		sh.once('exit', (c) => { clearTimeout(t); reject(new Error(`chain exited (${c}): ${chainErr}`)); });
	});
});

// Feeding: the header, then SECONDS_PER_TICK capture seconds per tick.
let fed = 0, feeding = null;
const write = (s) => new Promise((res) => { if (!sh.stdin.write(s)) sh.stdin.once('drain', res); else res(); });
function feedSome(nseconds) {
	const chunk = [];
	for (let i = 0; i < nseconds && fed < FEED_SECONDS; i++, fed++)
		for (const blk of bySecond.get(fed) || []) chunk.push(blk);
	return write(chunk.map((x) => x + '\n\n').join(''));
}
function startFeeding() {
	feeding = (async () => {
		while (fed < FEED_SECONDS) {
			await feedSome(SECONDS_PER_TICK);
			await new Promise((r) => setTimeout(r, TICK_MS));
		}
	})();
}

const browser = await launch();
const page = await newPage(browser, true);
page.setDefaultTimeout(WAIT_MS);
shootOnFailure(page, 'live-ui');
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
		if (Date.now() - t0 > WAIT_MS) throw new Error('no cells reached fp-serve: ' + JSON.stringify(h).slice(0, 300) + ' stderr: ' + chainErr);
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
		throw new Error(`${e.message}\npage state ${JSON.stringify(st)}\n/heatmap/ ncols ${h.values.length} rows ${h.rows_per_second}\nchain stderr: ${chainErr.slice(-500)}`);
	}
	c1 = await columns();
	const req1 = requests;
	startFeeding();
	await page.waitForFunction((n) => window.flamepipe.state.heat && window.flamepipe.state.heat.ncols >= n + 8, c1, { timeout: WAIT_MS });
	c2 = await columns();
	check(fed < FEED_SECONDS, `the input ended before the page grew (${c1} -> ${c2} columns)`);
	// redraws are coalesced: the grid catches up with the data shortly
	await page.waitForFunction(() => window.flamepipe.drawnCells().length ===
				   window.flamepipe.state.heat.ncols * window.flamepipe.state.heat.rows);
	check((await drawnCells(page)).length >= c2 * 50, 'grid smaller than the data');
	eq(requests, req1, 'the page re-fetched /heatmap/ instead of applying events');
	await shot(page, 'live-02-growing');
});

await step('a range selected on the live page comes back through fp-range\'s control FIFO', async () => {
	// a band of the capture that is already in: seconds 5..9 of the axis
	const rows = 50, s0 = 5, s1 = 9;
	await clickCell(page, s0 * rows);
	await clickCell(page, s1 * rows - 1);
	await page.waitForFunction(() => /Live flame graph: 5 s/.test(document.getElementById('flame-title').textContent));
	const snap = await getJSON(url + 'live/flamegraph?name=' + NAME);
	eq(snap.from, String(s0), 'snapshot range start');
	eq(snap.to, String(s1), 'snapshot range end');
	const heat = await getJSON(url + 'heatmap/?filename=' + NAME);
	let want = 0;
	for (let c = s0; c < s1; c++) want += heat.values[c].reduce((a, v) => a + v, 0);
	const got = await page.evaluate(() => window.flamepipe.flame.data.root.total);
	eq(got, want, 'flame graph samples vs the selected live cells');
	check(got > 0, 'the selected band is empty');
	await shot(page, 'live-03-range');
});

await step('compare: the live range against a range of a finished capture', async () => {
	await page.click('#compare');
	// the live chain has one selection: the second range comes from a file
	await page.waitForFunction(() => window.flamepipe.state.heat && window.flamepipe.state.heat.file === 'finished.perf.gz');
	const rows = await page.evaluate(() => window.flamepipe.state.heat.rows);
	await clickCell(page, 20 * rows);
	await clickCell(page, 25 * rows - 1);
	await page.waitForSelector('#flame-tabs:not([hidden])');
	await page.waitForFunction(() => /^Differential/.test(document.getElementById('flame-title').textContent));
	const diff = await getJSON(url + 'differential/?' + new URLSearchParams({
		filename: 'finished.perf.gz', start: '20', end: '25', compareFilename: NAME, compareStart: '5', compareEnd: '9' }));
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n, treeTotal(diff));
	// back on the live heatmap, still growing
	await page.waitForFunction((n) => window.flamepipe.state.heat.file === n && window.flamepipe.state.heat.live, NAME);
	await shot(page, 'live-04-compare');
	await page.click('#stop-cmp');
	await page.waitForFunction(() => /Live flame graph: 5 s/.test(document.getElementById('flame-title').textContent));
});

// Filters of a live capture go to fp-range (the flame graph); the live
// heatmap is the chain's own (fp-bucket before fp-range): never filtered,
// and the page says so.
await step('a comm filter on the live page filters the flame graph; the heatmap says it is unfiltered', async () => {
	if (!(await page.$eval('#filters-box', (d) => d.open))) await page.click('#filters-box summary');
	await page.fill('#filters [name=comm]', 'clockloop');
	await page.click('#filters button[type=submit]');
	await page.waitForFunction(() => /filters apply to the flame graph only/.test(document.getElementById('heat-title').textContent));
	const heat = await getJSON(url + 'heatmap/?filename=' + NAME + '&comm=clockloop');
	check(heat.filtered === false && heat.live === true, 'live /heatmap/ with a filter: filtered=' + heat.filtered);
	await page.waitForFunction(() => {
		const d = window.flamepipe.flame.data;
		return d && d.root.total > 0 && d.root.kids.every((c) => c.name === 'clockloop');
	});
	const snap = await getJSON(url + 'live/flamegraph?name=' + NAME);
	check(snap.tree.c.length > 0 && snap.tree.c.every((c) => c.n === 'clockloop'), 'live snapshot not filtered by comm');
	await shot(page, 'live-04b-filter');
	await page.click('#filters-reset');
	await page.waitForFunction(() => !/flame graph only/.test(document.getElementById('heat-title').textContent));
});

await step('the end of the capture is shown and the page keeps every column', async () => {
	const t0 = Date.now();
	await feeding;
	const t1 = Date.now();
	sh.stdin.end();
	await page.waitForFunction(() => /capture ended/.test(document.getElementById('heat-title').textContent));
	console.log(`# feeding done after ${t1 - t0} ms, end shown ${Date.now() - t1} ms after EOF`);
	const heat = await getJSON(url + 'heatmap/?filename=' + NAME);
	eq(await columns(), heat.values.length, 'columns on the page vs /heatmap/ at the end');
	check(heat.ended === true, '/heatmap/ does not say ended');
	await shot(page, 'live-05-ended');
});

await step('no script errors on the live page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
