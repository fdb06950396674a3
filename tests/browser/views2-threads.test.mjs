// views2-threads.test.mjs: small multiples per thread. A capture made by
// the test: process 500 with threads 500..502, process 600 with ten
// threads 600..609, one of them (605) busy in second 3 only. Per thread,
// the page draws one strip for each of the 8 heaviest threads, each with
// the samples the test wrote for that thread, on the heatmap's columns
// and start second; the burst is in thread 605's strip alone; the strips
// and the "other threads" line sum to the whole heatmap; per process the
// strips still sum to the whole. Screenshots: tests/artifacts/views2-threads-*.png.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { step, check, eq, finish, deadline, onCleanup, startServe, launch, newPage, shot, shootOnFailure,
	 waitCells } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const WAIT_MS = 15000;
const FILE = 'threads.perf';
const STRIPS_MAX = 8;	// ui/threads.js
const SECONDS = 6, BURST_TID = 605, BURST_SEC = 3;

deadline(TEST_DEADLINE_MS);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-views2-threads-'));
if (!process.env.KEEP) onCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
// thread t of process p writes (t % 7) + 2 samples a second; 605 writes 40 more in second 3
const want = new Map(), perPid = new Map();
let text = '', n = 0;
function sample(pid, tid, t) {
	const comm = pid === 500 ? 'server' : 'pool';
	text += `${comm} ${pid}/${tid} [00${n++ % 4}] ${(1000 + t).toFixed(6)}:    250000 cpu-clock: \n` +
		`\t    55d0c0de1000 work_${tid}+0x10 (/usr/bin/${comm})\n\t    55d0c0de0000 main+0x20 (/usr/bin/${comm})\n\n`;
	want.set(tid, (want.get(tid) || 0) + 1);
	perPid.set(pid, (perPid.get(pid) || 0) + 1);
}
const threads = [[500, 500], [500, 501], [500, 502]];
for (let t = 600; t < 610; t++) threads.push([600, t]);
for (let s = 0; s < SECONDS; s++)
	for (const [pid, tid] of threads) {
		const k = (tid % 7) + 2;
		for (let i = 0; i < k; i++) sample(pid, tid, s + (i + 0.5) / (k + 1));
	}
for (let i = 0; i < 40; i++) sample(600, BURST_TID, BURST_SEC + (i + 0.5) / 41);
// perf script prints in time order
const blocks = text.split('\n\n').filter((b) => b).sort((a, b) => Number(a.split(' ')[3].replace(':', '')) - Number(b.split(' ')[3].replace(':', '')));
fs.writeFileSync(path.join(dir, FILE), blocks.join('\n\n') + '\n\n');
const TOTAL = [...want.values()].reduce((a, b) => a + b, 0);

const browser = await launch();
let srv;
await step('fp-serve serves a capture with 13 threads in 2 processes', async () => {
	srv = await startServe(['--dir', dir]);
});
const page = await newPage(browser, true);
page.setDefaultTimeout(WAIT_MS);
shootOnFailure(page, 'views2-threads');

let heat;
await step('the heatmap counts every sample the test wrote', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE }));
	await waitCells(page);
	heat = await page.evaluate(() => ({ total: window.flamepipe.state.heat.total, ncols: window.flamepipe.state.heat.ncols, base: window.flamepipe.state.heat.base }));
	eq(heat.total, TOTAL, 'heatmap total');
	eq(heat.ncols, SECONDS, 'columns');
});

await step('per thread: one strip for each of the 8 heaviest threads, each with exactly its samples on the heatmap axis', async () => {
	await page.click('#threads-box summary');
	await page.selectOption('#multiples-by', 'tid');
	await page.click('#multiples');
	await page.waitForFunction((n) => window.flamepipe.strips().length === n && window.flamepipe.strips()[0].tid !== undefined, STRIPS_MAX);
	const strips = await page.evaluate(() => window.flamepipe.strips());
	const heaviest = [...want.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, STRIPS_MAX);
	eq(strips.map((s) => s.tid).sort().join(), heaviest.map((e) => e[0]).sort().join(), 'threads drawn');
	for (const s of strips) {
		eq(s.total, want.get(s.tid), `thread ${s.tid} strip total`);
		eq(s.ncols, heat.ncols, `thread ${s.tid} strip columns`);
		eq(s.start_sec, heat.base, `thread ${s.tid} strip start second`);
		eq(s.cols.reduce((a, b) => a + b, 0), s.total, `thread ${s.tid} columns sum`);
	}
	eq(await page.locator('#strips canvas').count(), STRIPS_MAX, 'canvases drawn');
	await page.locator('#strips').scrollIntoViewIfNeeded();
	await shot(page, 'views2-threads-01-per-thread');
});

await step('the burst of second 3 is in its thread\'s strip alone', async () => {
	const strips = await page.evaluate(() => window.flamepipe.strips());
	const b = strips.find((s) => s.tid === BURST_TID);
	check(b, 'the burst thread has no strip');
	const others = strips.filter((s) => s.tid !== BURST_TID);
	eq(b.cols[BURST_SEC] - b.cols[BURST_SEC - 1], 40, 'burst thread: second 3 minus second 2');
	for (const s of others)
		eq(s.cols[BURST_SEC], s.cols[BURST_SEC - 1], `thread ${s.tid}: second 3 vs second 2`);
});

await step('per-thread strips and the "other threads" line sum to the whole', async () => {
	const strips = await page.evaluate(() => window.flamepipe.strips());
	const other = await page.evaluate(() => window.flamepipe.stripsOther());
	eq(other.count, threads.length - STRIPS_MAX, 'threads not drawn');
	eq(strips.reduce((a, s) => a + s.total, 0) + other.samples, TOTAL, 'strips + other');
	const undrawn = [...want.keys()].filter((t) => !strips.some((s) => s.tid === t));
	eq(other.samples, undrawn.reduce((a, t) => a + want.get(t), 0), 'other = the samples of the threads not drawn');
	check((await page.textContent('#strips')).includes(`other ${threads.length - STRIPS_MAX} threads`), 'no "other threads" line');
});

await step('per process: one strip per process, summing to the whole', async () => {
	await page.selectOption('#multiples-by', 'pid');
	await page.waitForFunction(() => window.flamepipe.strips().length === 2 && window.flamepipe.strips()[0].pid !== undefined);
	const strips = await page.evaluate(() => window.flamepipe.strips());
	for (const s of strips) eq(s.total, perPid.get(s.pid), `process ${s.pid} strip`);
	eq(strips.reduce((a, s) => a + s.total, 0), TOTAL, 'process strips sum');
	await shot(page, 'views2-threads-02-per-process');
});

await step('no script errors on the page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
