// live-slow-tree.test.mjs: a live flame graph that takes longer to load
// than snapshots take to come is still drawn while the capture runs.
// fp-serve --live gets a fold snapshot every SNAPSHOT_MS; the browser's
// /live/flamegraph answers are held TREE_DELAY_MS (a system-wide
// capture's tree of tens of MB over an ssh tunnel). The page loads one
// tree at a time, so each is drawn, rather than starting a load on every
// snapshot that replaces the last before it is drawn.
// Prints TAP; screenshots go to tests/artifacts/live-slow-tree-*.png.
import path from 'node:path';
import { BIN, step, check, eq, finish, deadline, launch, testPage, shot, waitCells, startGroup,
	 stopGroup, listeningUrl, tmpdir } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const WAIT_MS = 15000;
const NAME = 'slow';
const SNAPSHOT_MS = 200;
const TREE_DELAY_MS = 1500;
const T = '\t';

deadline(TEST_DEADLINE_MS);
const tmp = tmpdir('live-slow-tree');
const srv = startGroup(path.join(BIN, 'fp-serve'), ['--listen', '127.0.0.1:0', '--dir', tmp, '--live', NAME],
		       { stdin: 'pipe' });
srv.stdin.on('error', () => { /* the server died: reported by the steps */ });

let url, seq = 0, feeder = null;
// snapshot k: stacks app;main;f0..f9 counted k times each
const snapshot = (k) => `C${T}begin${T}fold\n` +
	Array.from({ length: 10 }, (_, i) => `F${T}${k}${T}app;main;f${i}\n`).join('') +
	`C${T}end${T}fold${T}10${T}${10 * k}\n`;
await step('fp-serve --live starts and gets a snapshot every 200 ms', async () => {
	url = await listeningUrl(srv, WAIT_MS, 'fp-serve');
	srv.stdin.write(`G${T}50${T}100\nH${T}0${T}3${T}5\n`);
	feeder = setInterval(() => { srv.stdin.write(snapshot(++seq)); }, SNAPSHOT_MS);
});

const browser = await launch();
const page = await testPage(browser, 'live-slow-tree', WAIT_MS);
let asked = 0;
await page.route('**/live/flamegraph?*', async (route) => {
	asked++;
	await new Promise((r) => setTimeout(r, TREE_DELAY_MS));
	await route.continue();
});

await step('the live page draws the whole capture although each tree takes 1.5 s', async () => {
	await page.goto(url + '#/profile?file=' + NAME);
	await page.waitForSelector('#live-badge:not([hidden])');
	await waitCells(page);
	await page.waitForFunction(() => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total > 0,
				   null, { timeout: 4 * TREE_DELAY_MS + 2000 });
	check(await page.evaluate(() => /^Live flame graph/.test(document.getElementById('flame-title').textContent)),
	      'the title does not say live');
	await shot(page, 'live-slow-tree-01');
});

await step('it keeps up: newer snapshots are drawn, one load at a time', async () => {
	const first = await page.evaluate(() => window.flamepipe.flame.data.root.total);
	await page.waitForFunction((t) => window.flamepipe.flame.data.root.total > t, first,
				   { timeout: 4 * TREE_DELAY_MS + 2000 });
	const n0 = asked, t0 = Date.now();
	await new Promise((r) => setTimeout(r, 3 * TREE_DELAY_MS));
	// at most one load in flight: a load every 1.5 s at most, not one per snapshot
	check(asked - n0 <= Math.ceil((Date.now() - t0) / TREE_DELAY_MS) + 1,
	      `${asked - n0} tree loads in ${Date.now() - t0} ms`);
});

await step('the end of the capture is drawn', async () => {
	clearInterval(feeder);
	srv.stdin.end();
	await page.waitForFunction(() => window.flamepipe.state.heat && window.flamepipe.state.heat.ended);
	const want = 10 * seq;
	await page.waitForFunction((w) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === w,
				   want, { timeout: 4 * TREE_DELAY_MS + 2000 });
	eq(await page.evaluate(() => window.flamepipe.flame.data.root.total), want, 'the last snapshot\'s total');
	eq(page.pageErrors.join('; '), '', 'page errors');
});

await page.close();
await stopGroup(srv, 'SIGTERM');
await finish(0);
