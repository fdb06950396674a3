// report-events.test.mjs: one event at a time in the static report. A
// capture made here with two events (perf record -e cpu-clock -e
// page-faults), reported with --all-events so the page holds both: the
// views' event picker lists both, opens on perf's first -e (as perf report
// and the server, whatever event the first sample has), and for each event
// the heatmap total = the flame graph total = perf's own count of that
// event (perf script -F event); "all events, each as root" has one root
// frame per event. The default report (no --all-events) holds the first
// event only, and its views count exactly that and name the other event
// (with perf's count) and --all-events.
// Skips (ok # skip) without perf or the permission to use it.
// Screenshots: tests/artifacts/report-events-*.png.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { BIN, step, check, eq, finish, deadline, launch, tmpdir, report, openReport,
	 viewsShot, waitTotals, endClean } from './report-lib.mjs';

const TEST_DEADLINE_MS = 90000;
const EVENTS = ['cpu-clock', 'page-faults'];

deadline(TEST_DEADLINE_MS);
const work = tmpdir('report-events');
const capture = path.join(work, 'two.perf');
const perCount = new Map();
try {
	const data = path.join(work, 'two.data');
	execFileSync('perf', ['record', '-q', ...EVENTS.flatMap((e) => ['-e', e]), '-g', '-F', '499', '-o', data, '--',
			      'sh', '-c', 'seq 1 300000 | sort -n >/dev/null; awk "BEGIN { for (i = 0; i < 3000000; i++) s += i }"'],
		     { stdio: ['ignore', 'ignore', 'pipe'] });
	// --header: the capture names its events in perf's -e order (fp-read's C events)
	execFileSync('sh', ['-c', 'perf script --header -i "$1" >"$2"', 'sh', data, capture], { stdio: 'ignore' });
	const names = execFileSync('perf', ['script', '-i', data, '-F', 'event'], { maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'ignore'] });
	for (const w of names.toString().split(/\s+/).filter(Boolean)) {
		const e = w.replace(/:$/, '');
		perCount.set(e, (perCount.get(e) || 0) + 1);
	}
} catch (e) {
	console.log('ok 1 - two-event capture # skip perf record failed: ' + String(e.message).split('\n')[0]);
	await finish(0);
}

const browser = await launch();
let page, v;
await step('a report with --all-events of a capture with two events', async () => {
	check(EVENTS.every((e) => perCount.get(e) > 0), 'perf counts: ' + JSON.stringify([...perCount]));
	page = await openReport(browser, report(capture, ['--all-events'], 'all'));
	v = page.views;
});

let first;
await step('the picker lists both events and opens on the first: both views count it', async () => {
	const opts = await v.$$eval('#event-pick option', (os) => os.map((o) => o.getAttribute('data-name') || o.value));
	eq(opts.length, 3, 'options (two events and all)');
	first = opts[0];
	eq(first.replace(/:.*/, ''), EVENTS[0], 'first option (perf\'s first -e)');
	await waitTotals(v, perCount.get(first));
	await viewsShot(page, 'report-events-01-first');
});

for (const ev of EVENTS) {
	await step(`${ev}: heatmap total = flame graph total = perf's count`, async () => {
		await v.selectOption('#event-pick', ev === first ? '' : ev);
		await waitTotals(v, perCount.get(ev));
		const t = await v.textContent('#heat-title');
		check(t.includes(ev), 'heatmap title does not name ' + ev + ': ' + t);
		await viewsShot(page, 'report-events-02-' + ev);
	});
}

await step('all events, each as root: both counted, one root frame per event', async () => {
	await v.selectOption('#event-pick', '*all');
	await waitTotals(v, EVENTS.reduce((s, e) => s + perCount.get(e), 0));
	const roots = await v.evaluate(() => window.flamepipe.flame.data.root.kids.map((k) => k.name.replace(/:.*/, '')).sort());
	eq(roots.join(','), EVENTS.join(','), 'root frames');
});

await step('the default report (first event only): its views count that event', async () => {
	const p = await openReport(browser, report(capture, [], 'default'));
	const opts = await p.views.$$eval('#event-pick option', (os) => os.length);
	eq(opts, 1, 'options');
	await waitTotals(p.views, perCount.get(first));
	const other = EVENTS.find((e) => e !== first);
	const note = await p.views.textContent('#event-note');
	check(note.includes(`${other} (${perCount.get(other)} samples)`) && note.includes('--all-events'),
	      'the left-out event is not named: ' + note);
	check(!(await page.views.$('#event-note')), 'the --all-events report names an event as left out');
	// asked for by name (a link from fp-serve's view): said, not an empty graph
	const err = await p.views.evaluate((ev) => {
		try { return JSON.stringify(window.flamepipeReport.answer('/flamegraph/?event=' + ev)); } catch (e) { return e.message; }
	}, other);
	check(err.startsWith(`400: event: ${other} is not in this report`) && err.includes('--all-events'), 'the left-out event asked for: ' + err);
	eq(p.problems.join('; '), '', 'errors');
	await p.close();
});

await step('a capture whose first sample is of its second event: the picker still opens on the first -e', async () => {
	const out = path.join(work, 'ord');
	const S = (t, ev) => `S\t${t}\t1\t1\t0\t1\t${ev}\tapp\tu\tmain\n`;
	const stream = 'C\tevents\tcpu-clock\tpage-faults\n' + S(1e9, 'page-faults') + S(1.1e9, 'cpu-clock') + S(1.2e9, 'cpu-clock');
	execFileSync('sh', ['-c', 'fp-bucket --all-events | fp-fold --pass-samples --all-events | fp-render --outdir "$1"', 'sh', out],
		     { input: stream, env: { ...process.env, PATH: BIN + ':' + process.env.PATH }, stdio: ['pipe', 'ignore', 'ignore'] });
	const p = await openReport(browser, out);
	eq(await p.views.$eval('#event-pick option', (o) => o.getAttribute('data-name')), 'cpu-clock', 'first option');
	await waitTotals(p.views, 2);
	eq(p.problems.join('; '), '', 'errors');
	await p.close();
});

await endClean(page);
