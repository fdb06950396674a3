// views-events.test.mjs: one event at a time in the page. A capture made
// here with two events (perf record -e cpu-clock -e page-faults): for each
// event chosen in the page's event picker, the heatmap total = the flame
// graph total = an independent count of that event's samples in the perf
// script text; "all events, each as root" counts both, one root frame per
// event. The cpu-clock samples come a second after the last page fault, so
// a heatmap on the first event's axis would miss them.
// Skips (ok # skip) without perf or the permission to use it.
// Screenshots: tests/artifacts/views-events-*.png.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { step, check, eq, finish, deadline, startServe, launch, shot, waitCells, testPage, tmpdir } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const WAIT_MS = 15000;
const FILE = 'two.perf';

deadline(TEST_DEADLINE_MS);
const dir = tmpdir('views-events');

// perf script's header lines: "comm pid [cpu] time: period event: ..."
function countEvents(text) {
	const n = new Map();
	for (const line of text.split('\n')) {
		if (!line || /^[\s#]/.test(line)) continue;
		const f = line.trim().split(/\s+/);
		const i = f.findIndex((w) => /^\d+\.\d+:$/.test(w));
		if (i < 0 || i + 2 >= f.length) continue;
		const e = f[i + 2].replace(/:$/, '');
		n.set(e, (n.get(e) || 0) + 1);
	}
	return n;
}

let counts;
try {
	const data = path.join(dir, 'two.data');
	execFileSync('perf', ['record', '-q', '-e', 'cpu-clock', '-e', 'page-faults', '-g', '-F', '999', '-o', data,
			      '--', 'sh', '-c', 'seq 1 200000 | sort -r >/dev/null; sleep 1; i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'],
		     { stdio: ['ignore', 'ignore', 'pipe'] });
	const text = execFileSync('perf', ['script', '-i', data], { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
	fs.mkdirSync(path.join(dir, 'prof'));
	fs.writeFileSync(path.join(dir, 'prof', FILE), text);
	counts = countEvents(text);
} catch (e) {
	console.log('ok 1 - two-event capture # skip perf record failed: ' + String(e.message).split('\n')[0]);
	await finish(0);
}

const browser = await launch();
let srv;
await step('a capture with two events, each with samples', async () => {
	check(counts.size === 2 && counts.get('cpu-clock') > 50 && counts.get('page-faults') > 0,
	      'counts: ' + JSON.stringify([...counts]));
	srv = await startServe(['--dir', path.join(dir, 'prof')]);
});
const page = await testPage(browser, 'views-events', WAIT_MS);

const totals = () => page.evaluate(() => ({
	heat: window.flamepipe.state.heat && window.flamepipe.state.heat.total,
	flame: window.flamepipe.flame.data && window.flamepipe.flame.data.root.total,
	roots: window.flamepipe.flame.data ? window.flamepipe.flame.data.root.kids.map((k) => k.name) : [],
	picked: document.getElementById('event-pick').value
}));
async function waitTotals(want) {
	await page.waitForFunction((w) => {
		const f = window.flamepipe;
		return f.state.heat && f.flame.data && f.state.heat.total === w && f.flame.data.root.total === w;
	}, want).catch(async () => { throw new Error('totals ' + JSON.stringify(await totals()) + ', want ' + want); });
}

let first;
await step('opening it: the picker lists both events; both views count the first one', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE }));
	await waitCells(page);
	const opts = await page.$$eval('#event-pick option', (os) => os.map((o) => o.getAttribute('data-name') || o.value));
	eq(opts.length, 3, 'picker options (two events and "all")');
	first = opts[0];
	check(counts.has(first), 'first option is not an event of the capture: ' + first);
	await waitTotals(counts.get(first));
	const title = await page.textContent('#heat-title');
	check(title.includes('event ' + first), 'heatmap title does not name the event: ' + title);
	await shot(page, 'views-events-01-first');
});

for (const ev of ['cpu-clock', 'page-faults']) {
	await step(`picking ${ev}: heatmap total = flame graph total = ${counts.get(ev)} (perf script count)`, async () => {
		const value = ev === first ? '' : ev;
		await page.selectOption('#event-pick', value);
		await waitTotals(counts.get(ev));
		const h = await page.evaluate(() => location.hash);
		if (value) check(h.includes('event=' + ev), 'event not in the URL: ' + h);
		await shot(page, 'views-events-02-' + ev);
	});
}

await step('all events, each as root: both counted, one root frame per event', async () => {
	await page.selectOption('#event-pick', '*all');
	const all = counts.get('cpu-clock') + counts.get('page-faults');
	await waitTotals(all);
	const t = await totals();
	eq(t.roots.slice().sort().join(','), 'cpu-clock,page-faults', 'root frames');
	check((await page.evaluate(() => location.hash)).includes('allevents=1'), 'allevents not in the URL');
	await shot(page, 'views-events-03-all');
});

await step('reloading the URL keeps the event choice', async () => {
	await page.reload();
	await waitTotals(counts.get('cpu-clock') + counts.get('page-faults'));
	eq((await totals()).picked, '*all', 'picker after reload');
});

await step('no script errors on the page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
