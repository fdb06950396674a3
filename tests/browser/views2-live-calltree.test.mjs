// views2-live-calltree.test.mjs: the call tree while a capture is live. A
// live chain (fp-record | fp-bucket | fp-range | fp-fold | fp-serve --live
// --recording) gets a two-event stream from the test (cpu-clock, the
// first event, and page-faults). The call tree follows the live flame
// graph: its total is the samples written so far and grows as more
// arrive, with the rows the user opened still open and the focused row
// still focused after each refresh; bottom-up, each leaf's self is the
// samples written with it; picking page-faults shows exactly those
// samples. Screenshots: tests/artifacts/views2-live-calltree-*.png.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { step, check, eq, finish, deadline, onCleanup, launch, newPage, shot, shootOnFailure,
	 waitCells, BIN, TOP } from './serve-lib.mjs';
import { treeRows, waitTreeTotal } from './calltree-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const WAIT_MS = 15000;
const NAME = 'treelive';

deadline(TEST_DEADLINE_MS);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-views2-live-calltree-'));
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

// cpu-clock samples alternate between two leaves under main;work
const STACKS = { 'cpu-clock': ['main;work;spin', 'main;work;hash'], 'page-faults': ['main;touch'] };
const count = { 'cpu-clock': 0, 'page-faults': 0 }, leaf = {};
function samples(ev, fromSec, toSec, perSec) {
	let out = '';
	for (let s = fromSec; s < toSec; s++)
		for (let i = 0; i < perSec; i++) {
			const t = (5000 + s) * 1e9 + Math.floor(i * 1e9 / perSec) + (ev === 'page-faults' ? 7e6 : 0);
			const st = STACKS[ev][i % STACKS[ev].length], tid = ev === 'cpu-clock' ? 10 : 11;
			out += `S\t${t}\t${tid}\t${tid}\t0\t1\t${ev}\t${ev === 'cpu-clock' ? 'spinner' : 'toucher'}\t${'u'.repeat(st.split(';').length)}\t${st}\n`;
			count[ev]++;
			const l = ev + ':' + st.split(';').pop();
			leaf[l] = (leaf[l] || 0) + 1;
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
	write('%flamepipe\t1\nC\tevents\tcpu-clock\tpage-faults\n' +
	      samples('cpu-clock', 0, 3, 6) + samples('page-faults', 1, 3, 3) + 'C\tflush\n');
});
const page = await newPage(browser, true);
page.setDefaultTimeout(WAIT_MS);
shootOnFailure(page, 'views2-live-calltree');

await step('while live, the call tree totals the samples written so far, equal to the flame graph', async () => {
	await page.goto(url + '#/profile?' + new URLSearchParams({ file: NAME, fv: 'tree' }));
	await waitCells(page);
	await waitTreeTotal(page, count['cpu-clock']);
	eq(await page.evaluate(() => window.flamepipe.flame.data.root.total), count['cpu-clock'], 'flame graph total');
	check(await page.isVisible('#live-badge'), 'no LIVE badge');
});

await step('more samples while live: the tree grows, opened rows stay open, the focused row keeps the focus', async () => {
	await page.click('#ct-collapse');
	await page.focus('#ct-table tbody tr[data-path="spinner"]');
	await page.keyboard.press('ArrowRight');	// spinner
	await page.keyboard.press('ArrowDown');	// main
	await page.keyboard.press('ArrowRight');
	await page.keyboard.press('ArrowDown');	// work
	await page.keyboard.press('ArrowRight');
	const before = (await treeRows(page)).map((r) => r.path);
	eq(before.join(','), 'spinner,spinner;main,spinner;main;work,spinner;main;work;hash,spinner;main;work;spin', 'rows open');
	write(samples('cpu-clock', 3, 5, 6) + 'C\tflush\n');
	await waitTreeTotal(page, count['cpu-clock']);
	eq((await treeRows(page)).map((r) => r.path).join(','), before.join(','), 'rows after the refresh');
	eq(await page.evaluate(() => document.activeElement.getAttribute('data-path')), 'spinner;main;work', 'focused row');
	const rows = await treeRows(page);
	eq(rows.find((r) => r.path === 'spinner;main;work;spin').self, leaf['cpu-clock:spin'], 'spin self');
	await shot(page, 'views2-live-calltree-01-grown');
});

await step('bottom-up while live: each leaf\'s self is the samples written with it', async () => {
	await page.click('#ct-bottom');
	const first = (await treeRows(page)).filter((r) => r.depth === 1);
	eq(first.map((r) => r.name + '=' + r.self).sort().join(','), `hash=${leaf['cpu-clock:hash']},spin=${leaf['cpu-clock:spin']}`, 'leaves');
});

await step('picking page-faults: the tree holds exactly its samples (from the recording)', async () => {
	await page.selectOption('#event-pick', 'page-faults');
	await waitTreeTotal(page, count['page-faults']);
	const first = (await treeRows(page)).filter((r) => r.depth === 1);
	eq(first.map((r) => r.name + '=' + r.self).join(','), `touch=${count['page-faults']}`, 'leaves');
	await shot(page, 'views2-live-calltree-02-page-faults');
});

await step('no script errors on the page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
chain.stdin.end();
await finish(0);
