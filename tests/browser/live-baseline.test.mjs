// live-baseline.test.mjs: the live page's baseline box. `flamepipe live
// --http` profiles a workload that spins in one function, then another
// (tests/helper/switch-phases); the box compares the last seconds with the
// first 2 s of the capture, and the new function must lead what grew while
// the capture runs. Needs perf (skips, saying why, without it).
// Prints TAP; screenshots go to tests/artifacts/live-baseline-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { BIN, TOP, step, check, eq, finish, deadline, launch, shot, waitCells, testPage, startGroup,
	 stopGroup, listeningUrl, skipUnlessPerf, tmpdir } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const WAIT_MS = 15000;
const NAME = 'wl-baseline';
const SWITCH = path.join(TOP, process.env.FP_BUILD || 'build', 'tests', 'switch-phases');
const NEW = 'fp_baseline_test_new';
const SHOWN_WITHIN_MS = 10000;	// generous: the machine is shared

deadline(TEST_DEADLINE_MS);
skipUnlessPerf('live baseline');
const dir = tmpdir('live-baseline');
const mark = path.join(dir, 'mark');

let live, url;
await step('flamepipe live --http on a workload that switches functions', async () => {
	// --exit-at-end: one Ctrl-C ends the session (without it the page
	// stays up after the capture until a second one)
	live = startGroup(path.join(BIN, 'flamepipe'), ['live', '-F', '199', '-g', '--http', '127.0.0.1:0',
							'--exit-at-end', '--no-term', '--name', NAME, '--', SWITCH, '4', '12', mark],
			  { cleanupSignal: 'SIGINT' });
	url = await listeningUrl(live, WAIT_MS, 'flamepipe live');
});

const browser = await launch();
const page = await testPage(browser, 'live-baseline', WAIT_MS);

await step('the live page has a baseline box', async () => {
	await page.goto(url);
	await page.getByRole('link', { name: NAME, exact: true }).click();
	await page.waitForSelector('#live-badge:not([hidden])');
	await waitCells(page);
	await page.waitForSelector('#baseline-box');
});

await step(`against the first 2 s, the new function leads what grew after the switch (within ${SHOWN_WITHIN_MS / 1000} s)`, async () => {
	await page.click('#baseline-box summary');
	await page.fill('#baseline-box input[name=baseline]', '0-2');
	await page.fill('#baseline-box input[name=window]', '1');
	await page.click('#baseline-box button');
	const t0 = Date.now();
	while (!fs.existsSync(mark) && Date.now() - t0 < WAIT_MS)
		await new Promise((r) => setTimeout(r, 50));
	check(fs.existsSync(mark), 'the workload never switched');
	const switched = Date.now();
	// first in what grew, by more than 20 points (the last second is
	// partly before the switch at first)
	await page.waitForFunction((f) => {
		const r = document.querySelector('#baseline-box tr.grew');
		return r && r.cells[3].textContent === f && parseFloat(r.cells[0].textContent) > 20;
	}, NEW, { timeout: SHOWN_WITHIN_MS });
	const row = await page.evaluate(() => [...document.querySelector('#baseline-box tr.grew').cells].map((t) => t.textContent));
	console.log(`# ${NEW} led what grew ${Date.now() - switched} ms after the switch: ${row.join(' ')}`);
	check(parseFloat(row[0]) > 20, 'points: ' + row[0]);
	eq(row[2], '0.0%', 'share in the baseline');
	check(live.exitCode === null, 'the capture had already ended');
	await shot(page, 'live-baseline-01-grew');
});

await step('meanwhile the flame graph is the live differential: the new function red (a bigger share)', async () => {
	await page.waitForFunction((f) => {
		const d = window.flamepipe.flame.data;
		return /^Live differential/.test(document.getElementById('flame-title').textContent) &&
			d && d.nodes.some((n) => n.name === f && Number(n.d) > 0);
	}, NEW, { timeout: WAIT_MS });
	check(await page.evaluate(() => window.flamepipe.flame.diff), 'the flame graph is not differential');
});

await step('stop gives the live flame graph back', async () => {
	await page.click('#baseline-box button');
	await page.waitForFunction(() => /^(Live flame graph|Flame graph)/.test(document.getElementById('flame-title').textContent),
				   null, { timeout: WAIT_MS });
	check(!(await page.evaluate(() => window.flamepipe.flame.diff)), 'still differential');
});

await step('Ctrl-C ends the capture cleanly', async () => {
	await stopGroup(live, 'SIGINT');
	eq(live.exitCode, 0, 'flamepipe live exit code (stderr: ' + live.err.slice(-300) + ')');
});

await step('no script errors on the live page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
