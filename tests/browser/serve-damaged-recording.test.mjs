// serve-damaged-recording.test.mjs: a recording with a damaged batch
// (issue 22) opens on the page: the heatmap draws every other batch, its
// title says what was skipped, a range after the damage draws its flame
// graph, and no script error appears. The recording is made here with
// fp-record (60 one-second batches of 50 samples) and batch 30's CRC
// changed. Screenshot: tests/artifacts/serve-damaged-recording.png.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, step, check, eq, finish, deadline, startServe, launch, shot, getJSON, treeTotal,
	 clickCell, waitCells, testPage, tmpdir } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const WAIT_MS = 15000;
const FILE = 'damaged.fp.gz';
const SECONDS = 60, PER_SECOND = 50, DAMAGED = 30, ROWS = 50;

deadline(TEST_DEADLINE_MS);
const dir = tmpdir('serve-damaged');
let text = '%flamepipe\t1\n';
for (let s = 0; s < SECONDS; s++)
	for (let i = 0; i < PER_SECOND; i++)
		text += `S\t${1000 + s}${String(i * 20000000).padStart(9, '0')}\t7\t7\t0\t1\tcpu-clock\tapp\tuu\tmain;f${s % 5}\n`;
const rec = path.join(dir, FILE);
const r = spawnSync(path.join(BIN, 'fp-record'), ['--output', rec], { input: text, encoding: 'utf8' });
if (r.status !== 0) throw new Error('fp-record: ' + r.stderr);
// batch DAMAGED's CRC (the 8 bytes before the next batch: CRC32, ISIZE)
const index = spawnSync(path.join(BIN, 'fp-read'), ['--index', rec], { encoding: 'utf8' }).stdout
	.split('\n').filter((l) => l && l[0] !== '#').map((l) => l.split(' ').map(Number));
const [off, len] = index[DAMAGED];
const fd = fs.openSync(rec, 'r+');
fs.writeSync(fd, Buffer.from([1, 2, 3, 4]), 0, 4, off + len - 8);
fs.closeSync(fd);
// fp-record makes recordings 0600; fp-serve started as root serves as
// nobody (docs/fp-serve.md), which must read the directory and the file
fs.chmodSync(dir, 0o755);
fs.chmodSync(rec, 0o644);

const browser = await launch();
let srv;
await step('fp-serve answers the damaged recording, counting the skipped batch', async () => {
	srv = await startServe(['--dir', dir]);
	const heat = await getJSON(srv.url + 'heatmap/?' + new URLSearchParams({ filename: FILE }));
	eq(heat.samples, (SECONDS - 1) * PER_SECOND, 'samples');
	eq(heat.recording.damaged_batches, 1, 'damaged_batches');
	eq(heat.recording.damaged_samples, PER_SECOND, 'damaged_samples');
});

const page = await testPage(browser, 'serve-damaged-recording', WAIT_MS);
await step('the page draws the heatmap and its title says what was skipped', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE }));
	await waitCells(page);
	const warn = await page.textContent('#heat-title .damaged');
	check(/damaged recording: 1 batch \(50 samples\) skipped in 1 place; the rest is shown/.test(warn),
	      'title: ' + warn);
	// the damage is said once, as itself, not as a bad input line
	check(!/bad input line/.test(await page.textContent('#heat-title')), 'counted as a bad input line too');
});

await step('a range after the damage draws its flame graph', async () => {
	const c0 = DAMAGED + 5, c1 = DAMAGED + 8;
	await clickCell(page, c0 * ROWS);
	await clickCell(page, c1 * ROWS - 1);
	await page.waitForFunction((s) => document.getElementById('flame-title').textContent.includes(s) &&
				   window.flamepipe.flame.data, `${c0} s`);
	const got = await page.evaluate(() => window.flamepipe.flame.data.root.total);
	eq(got, (c1 - c0) * PER_SECOND, 'flame graph total of the range');
	eq(got, treeTotal(await getJSON(srv.url + `flamegraph/?filename=${FILE}&start=${c0}&end=${c1}`)),
	   'vs /flamegraph/');
	await shot(page, 'serve-damaged-recording');
});

await step('no script errors', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
