// serve-cutaxis.test.mjs: a capture whose seconds are too far apart for a
// whole axis (one stray sample, then the bulk 100,001 s later: issue 14
// #5) is drawn on a cut axis: the page shows only the seconds with
// samples, and its hover and range selection use their real seconds
// (the /heatmap/ "columns" list), so the flame graph of a selected second
// counts that second's samples, and the heatmap total is the flame
// graph's. Screenshot: tests/artifacts/serve-cutaxis.png.
import fs from 'node:fs';
import path from 'node:path';
import { step, check, eq, finish, deadline, startServe, launch, shot, getJSON, treeTotal,
	 clickCell, hoverCell, waitCells, testPage, tmpdir } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const WAIT_MS = 15000;
const FILE = 'stray.perf';
const BULK_SEC = 101001, BULK_SECONDS = 4, PER_SECOND = 10;

deadline(TEST_DEADLINE_MS);
const dir = tmpdir('serve-cutaxis');
const sample = (comm, t) => `${comm} 4242 [000] ${t}:    250000 cpu-clock: \n` +
	`\t    55d0c0de1000 main+0x10 (/usr/bin/${comm})\n\n`;
let text = sample('stray', '1000.500000');
for (let i = 0; i < BULK_SECONDS * PER_SECOND; i++)
	text += sample('bulk', (BULK_SEC + i / PER_SECOND).toFixed(6));
fs.writeFileSync(path.join(dir, FILE), text);

const browser = await launch();
let srv, heat;
await step('fp-serve says the axis is cut: columns are the real seconds', async () => {
	srv = await startServe(['--dir', dir]);
	heat = await getJSON(srv.url + 'heatmap/?' + new URLSearchParams({ filename: FILE }));
	eq(JSON.stringify(heat.columns), JSON.stringify([0, 100001, 100002, 100003, 100004]), 'columns');
	eq(heat.cut, 100000, 'cut');
	eq(heat.counted, 1 + BULK_SECONDS * PER_SECOND, 'counted');
});

const page = await testPage(browser, 'serve-cutaxis', WAIT_MS);
let rows;
await step('the page draws the 5 seconds with samples and says the axis is cut', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE }));
	await waitCells(page);
	const h = await page.evaluate(() => window.flamepipe.state.heat);
	rows = h.rows;
	eq(h.ncols, 5, 'drawn columns');
	eq(h.total, 1 + BULK_SECONDS * PER_SECOND, 'heatmap total');
	const title = await page.textContent('#heat-title');
	check(title.includes('100,000 empty seconds cut') || title.includes('100000 empty seconds cut'),
	      'the title does not say the axis is cut: ' + title);
	await page.waitForFunction(() => window.flamepipe.flame.data);
	eq(await page.evaluate(() => window.flamepipe.flame.data.root.total), h.total,
	   'whole-profile flame graph total vs heatmap total');
});

await step('hovering drawn column 2 shows its real second, 100002', async () => {
	await hoverCell(page, 2 * rows);
	const tip = await page.textContent('#tooltip');
	check(tip.includes('second 100002 '), 'tooltip: ' + tip);
	check(tip.includes('count ' + heat.values[2][rows - 1]), 'tooltip count: ' + tip);
});

await step('selecting drawn column 1 selects second 100001: the flame graph counts its samples', async () => {
	await clickCell(page, 1 * rows);
	await clickCell(page, 2 * rows - 1);
	const sel = await page.evaluate(() => window.flamepipe.state.sel);
	eq(sel.from, 100001e9, 'selection start (ns)');
	eq(sel.to, 100002e9, 'selection end (ns)');
	const tree = await getJSON(srv.url + 'flamegraph/?' +
		new URLSearchParams({ filename: FILE, start: '100001', end: '100002' }));
	eq(treeTotal(tree), PER_SECOND, 'the API flame graph of second 100001');
	await page.waitForFunction((n) => window.flamepipe.flame.data &&
		window.flamepipe.flame.data.root.total === n, PER_SECOND);
	const readout = await page.textContent('#sel-readout');
	check(readout.includes('100001'), 'the readout does not show the real second: ' + readout);
	await shot(page, 'serve-cutaxis');
});

await step('no page errors', async () => {
	eq(page.pageErrors.length, 0, 'page errors: ' + page.pageErrors.join('; '));
});
await finish();
