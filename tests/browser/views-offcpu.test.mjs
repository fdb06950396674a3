// views-offcpu.test.mjs: the event picker on a capture with on-CPU samples
// and off-CPU time (the timed event offcpu, fifo/PROTOCOL.md "Off-CPU
// samples"): cpu-clock first, counted as samples; picking offcpu shows the
// blocked time, heatmap and flame graph alike, and the page says it in
// time, not samples. The capture is perf script text written here: 2 s of
// a cpu-clock sample every 10 ms in spin_here and, every 20 ms cell, 10 ms
// blocked in wait_here as an offcpu sample of period 10000000 ns (what
// fp-perfdata writes for a thread blocked half the time).
// Screenshots: tests/artifacts/views-offcpu-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { step, check, eq, finish, shot, waitCells, waitFlame, servedPage } from './serve-lib.mjs';
import { tmpdir } from './tap-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const FILE = 'offcpu.perf';
const BASE_S = 100, SECONDS = 2, CELL_MS = 20, BLOCKED_NS = 10000000;

const dir = tmpdir('views-offcpu');
let text = '';
const stamp = (ms) => (BASE_S + ms / 1000).toFixed(6);
for (let ms = 0; ms < SECONDS * 1000; ms += 10)
	text += `app  4242 [000]   ${stamp(ms)}:   10000000 cpu-clock: \n` +
		'\t            1111 spin_here+0x1 (/usr/bin/app)\n\t            1000 main+0x10 (/usr/bin/app)\n\n';
for (let ms = 0; ms < SECONDS * 1000; ms += CELL_MS)
	text += `app  4242 [000]   ${stamp(ms + 5)}:   ${BLOCKED_NS} offcpu: \n` +
		'\tffffffff81000000 schedule+0x0 ([kernel.kallsyms])\n' +
		'\t            2222 wait_here+0x1 (/usr/bin/app)\n\t            1000 main+0x10 (/usr/bin/app)\n\n';
fs.writeFileSync(path.join(dir, FILE), text, { mode: 0o644 });
fs.chmodSync(dir, 0o755);	// fp-serve started as root serves as nobody
const CPU_SAMPLES = SECONDS * 100, OFF_NS = SECONDS * (1000 / CELL_MS) * BLOCKED_NS;

const { srv, page } = await servedPage('views-offcpu', TEST_DEADLINE_MS, { dir });

await step('cpu-clock is counted first, in samples', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE }));
	await waitCells(page);
	await waitFlame(page);
	eq(await page.evaluate(() => window.flamepipe.state.heat.total), CPU_SAMPLES, 'heatmap total');
	const sel = await page.textContent('#sel-readout');
	check(sel.includes(`${CPU_SAMPLES} samples`), 'readout: ' + sel);
	const names = await page.$$eval('#event-pick option', (os) => os.map((o) => o.getAttribute('data-name') || o.value));
	check(names.includes('offcpu'), 'offcpu in the picker: ' + names.join(','));
});

await step('picking offcpu: the heatmap and flame graph hold the blocked nanoseconds', async () => {
	await page.selectOption('#event-pick', 'offcpu');
	await page.waitForFunction((n) => window.flamepipe.state.heat.total === n &&
		window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n, OFF_NS);
	await shot(page, 'views-offcpu-01-offcpu');
});

await step('the page says blocked time, not samples, for offcpu', async () => {
	const sel = await page.textContent('#sel-readout');
	check(sel.includes('1.00 s blocked') && !sel.includes('samples'), 'readout: ' + sel);
	const legend = await page.textContent('#legend');
	check(legend.includes('10.00 ms blocked per cell') || legend.includes('10 ms blocked per cell'), 'legend: ' + legend);
});

await finish();
