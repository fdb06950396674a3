// report-offcpu.test.mjs: on-CPU and off-CPU time in one static report.
// A capture with cpu-clock samples and off-CPU time (the timed event
// offcpu, fifo/PROTOCOL.md "Off-CPU samples"; perf script text written
// here: 2 s of a cpu-clock sample every 10 ms, and 10 ms blocked in
// wait_here in every 20 ms cell), reported by plain `flamepipe report`:
// the report's own heatmap and flame.svg count cpu-clock, and its views'
// event picker also has offcpu (fp-bucket --pass-timed, fp-fold
// --timed-apart), without naming it as left out; picking it shows the
// blocked time, heatmap and flame graph alike, in time units.
// Screenshots: tests/artifacts/report-offcpu-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { step, check, eq, deadline, launch, tmpdir, report, openReport,
	 viewsShot, waitTotals, endClean } from './report-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const BASE_S = 100, SECONDS = 2, CELL_MS = 20, BLOCKED_NS = 10000000;

deadline(TEST_DEADLINE_MS);
const work = tmpdir('report-offcpu');
const capture = path.join(work, 'offcpu.perf');
const stamp = (ms) => (BASE_S + ms / 1000).toFixed(6);
let text = '';
for (let ms = 0; ms < SECONDS * 1000; ms += 10)
	text += `app  4242 [000]   ${stamp(ms)}:   10000000 cpu-clock: \n` +
		'\t            1111 spin_here+0x1 (/usr/bin/app)\n\t            1000 main+0x10 (/usr/bin/app)\n\n';
for (let ms = 0; ms < SECONDS * 1000; ms += CELL_MS)
	text += `app  4242 [000]   ${stamp(ms + 5)}:   ${BLOCKED_NS} offcpu: \n` +
		'\tffffffff81000000 schedule+0x0 ([kernel.kallsyms])\n' +
		'\t            2222 wait_here+0x1 (/usr/bin/app)\n\t            1000 main+0x10 (/usr/bin/app)\n\n';
fs.writeFileSync(capture, text);
const CPU_SAMPLES = SECONDS * 100, OFF_NS = SECONDS * (1000 / CELL_MS) * BLOCKED_NS;

const browser = await launch();
let page, v, dir;
await step('the report counts cpu-clock: stacks.folded holds its samples only', async () => {
	dir = report(capture, [], 'offcpu');
	const folded = fs.readFileSync(path.join(dir, 'stacks.folded'), 'utf8');
	const total = folded.split('\n').filter(Boolean).reduce((s, l) => s + Number(l.split(' ').pop()), 0);
	eq(total, CPU_SAMPLES, 'stacks.folded total');
	check(!folded.includes('wait_here'), 'off-CPU stacks in stacks.folded');
	page = await openReport(browser, dir);
	v = page.views;
	await waitTotals(v, CPU_SAMPLES);
});

await step('the picker has offcpu beside cpu-clock, and no note calls it left out', async () => {
	const opts = await v.$$eval('#event-pick option', (os) => os.map((o) => o.getAttribute('data-name') || o.value));
	check(opts.includes('offcpu') && opts[0] === 'cpu-clock', 'options: ' + opts.join(','));
	const note = await v.$('#event-note');
	check(!note || !(await note.textContent()).includes('offcpu'), 'offcpu named as not in the report');
});

await step('picking offcpu: heatmap and flame graph total the blocked ns, said as time', async () => {
	await v.selectOption('#event-pick', 'offcpu');
	await waitTotals(v, OFF_NS);
	const ro = await v.textContent('#sel-readout');
	check(ro.includes('1.00 s blocked') && !ro.includes('samples'), 'readout: ' + ro);
	await viewsShot(page, 'report-offcpu-01-offcpu');
	eq(page.problems.join('; '), '', 'errors');
});

await endClean(page);
