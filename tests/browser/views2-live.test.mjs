// views2-live.test.mjs: the event picker and the event filter while a
// capture is live. A live chain (fp-record | fp-bucket | fp-range |
// fp-fold | fp-serve --live --recording) gets a two-event stream from the
// test: cpu-clock (the first event, the chain's heatmap) and page-faults.
// While it runs the picker lists both events in the source's order;
// picking page-faults shows, in the heatmap and the flame graph, exactly
// the page-faults samples written so far (from the recording, not an
// empty view), the title says where they come from, and both views grow
// when more page faults arrive while the capture runs; picking cpu-clock
// again gives the chain's live heatmap. Screenshots: tests/artifacts/views2-live-*.png.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { step, check, eq, finish, deadline, onCleanup, launch, newPage, shot, shootOnFailure,
	 waitCells, BIN, TOP } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const WAIT_MS = 15000;
const NAME = 'twolive';

deadline(TEST_DEADLINE_MS);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-views2-live-'));
onCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.mkdirSync(path.join(dir, 'prof'));
const rec = path.join(dir, 'rec.fp.gz');
const b = (p) => path.join(BIN, p);
const chain = spawn('sh', ['-c',
	`"${b('fp-record')}" --output "${rec}" --flush-interval 100 | "${b('fp-bucket')}" --rows 10 | ` +
	`"${b('fp-range')}" --history 0 | "${b('fp-fold')}" --interval 100 --all-events | ` +
	`"${b('fp-serve')}" --dir "${path.join(dir, 'prof')}" --listen 127.0.0.1:0 --live ${NAME} --recording "${rec}"`],
	{ cwd: TOP, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
onCleanup(() => { try { process.kill(-chain.pid, 'SIGTERM'); } catch (e) { /* gone */ } });
let errText = '';
chain.stderr.on('data', (d) => { errText += d; });

const count = { 'cpu-clock': 0, 'page-faults': 0 };
function samples(ev, fromSec, toSec, perSec) {
	let out = '';
	for (let s = fromSec; s < toSec; s++)
		for (let i = 0; i < perSec; i++) {
			const t = (5000 + s) * 1e9 + Math.floor(i * 1e9 / perSec) + (ev === 'page-faults' ? 7e6 : 0);
			out += `S\t${t}\t${ev === 'cpu-clock' ? 10 : 11}\t${ev === 'cpu-clock' ? 10 : 11}\t0\t1\t${ev}\t` +
				`${ev === 'cpu-clock' ? 'spinner' : 'toucher'}\tuu\tmain;${ev === 'cpu-clock' ? 'spin' : 'touch'}\n`;
			count[ev]++;
		}
	return out;
}
function write(text) { chain.stdin.write(text); }

const browser = await launch();
let url;
await step('a live chain with a two-event stream starts', async () => {
	url = await new Promise((resolve, reject) => {
		let out = '';
		const t = setTimeout(() => reject(new Error('no address; stderr: ' + errText)), 10000);
		chain.stdout.on('data', (d) => {
			out += d;
			const m = out.match(/listening on (http:\/\/[^\s]+?)\/?\s/);
			if (m) { clearTimeout(t); resolve(m[1] + '/'); }
		});
	});
	// cpu-clock in seconds 0..3, page faults from second 1 on (the page-faults
	// heatmap starts in another second than the chain's)
	write('%flamepipe\t1\nC\tevents\tcpu-clock\tpage-faults\n' +
	      samples('cpu-clock', 0, 4, 5) + samples('page-faults', 1, 4, 3) + 'C\tflush\n');
});
const page = await newPage(browser, true);
page.setDefaultTimeout(WAIT_MS);
shootOnFailure(page, 'views2-live');
const views = () => page.evaluate(() => ({
	heat: window.flamepipe.state.heat && window.flamepipe.state.heat.total,
	filtered: window.flamepipe.state.heat && window.flamepipe.state.heat.filtered,
	flame: window.flamepipe.flame.data ? window.flamepipe.flame.data.root.total : null
}));

await step('while live, the event picker lists both events in the source\'s order, the first counted', async () => {
	await page.goto(url + '#/profile?' + new URLSearchParams({ file: NAME }));
	await waitCells(page);
	await page.waitForFunction((n) => window.flamepipe.state.heat.total === n, count['cpu-clock']);
	check(await page.isVisible('#live-badge'), 'no LIVE badge');
	const opts = await page.$$eval('#event-pick option', (os) => os.map((o) => [o.value, o.getAttribute('data-name')]));
	eq(opts.slice(0, 2).map((o) => o[1]).join(), 'cpu-clock,page-faults', 'events listed');
	eq(await page.isDisabled('#event-pick'), false, 'picker disabled');
	eq(await page.inputValue('#event-pick'), '', 'the first (default) event picked');
});

await step('picking page-faults while live shows exactly its samples in both views, from the recording', async () => {
	await page.selectOption('#event-pick', 'page-faults');
	await page.waitForFunction((n) => {
		const h = window.flamepipe.state.heat, f = window.flamepipe.flame.data;
		return h && h.filtered && h.total === n && f && f.root.total === n;
	}, count['page-faults']);
	const title = await page.textContent('#heat-title');
	check(/live, filtered from its recording/.test(title), 'the title does not say where the counts come from: ' + title);
	check(!/filters apply to the flame graph only/.test(title), 'title: ' + title);
	check(decodeURIComponent(await page.evaluate(() => location.hash)).includes('event=page-faults'), 'event not in the URL');
	await shot(page, 'views2-live-01-page-faults');
});

await step('more page faults while the capture runs: both views grow to the new count', async () => {
	write(samples('page-faults', 4, 7, 4) + samples('cpu-clock', 4, 5, 5) + 'C\tflush\n');
	await page.waitForFunction((n) => {
		const h = window.flamepipe.state.heat, f = window.flamepipe.flame.data;
		return h && h.filtered && h.total === n && f && f.root.total === n;
	}, count['page-faults'], { timeout: 12000 });
	check(await page.isVisible('#live-badge'), 'the capture is no longer live');
	await shot(page, 'views2-live-02-grown');
});

await step('picking cpu-clock again gives the chain\'s live heatmap', async () => {
	await page.selectOption('#event-pick', '');
	await page.waitForFunction((n) => {
		const h = window.flamepipe.state.heat, f = window.flamepipe.flame.data;
		return h && !h.filtered && h.total === n && f && f.root.total === n;
	}, count['cpu-clock']);
});

await step('no script errors on the page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
chain.stdin.end();
await finish(0);
