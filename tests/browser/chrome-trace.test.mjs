// chrome-trace.test.mjs: a real Chrome trace-event file as flamepipe input.
// Headless chromium (playwright-core) records a trace with V8's CPU
// profiler category while the page spins in a function with a name no
// other code has; `flamepipe report` reads the trace (fp-chrome, chosen by
// content): the flame graph and the heatmap count exactly the samples of
// the trace's ProfileChunk events, under the renderer thread's name.
import fs from 'node:fs';
import path from 'node:path';
import { step, check, eq, finish, deadline, run, tmpdir, launch } from './render-lib.mjs';

deadline(90000);
const dir = tmpdir('chrome-trace');
const trace = path.join(dir, 'trace.json');
const HOT = 'fp_chrome_trace_hot';
let samples = 0;

await step('chromium records a trace with the V8 CPU profiler while the page spins', async () => {
	const browser = await launch();
	const page = await browser.newPage();
	await page.setContent(`<html><body><script>function ${HOT}(n) { let x = 0; ` +
		'for (let i = 0; i < n; i++) x += Math.sqrt(i); return x; }</script></body></html>');
	await browser.startTracing(page, { categories: ['disabled-by-default-v8.cpu_profiler', 'v8'] });
	await page.evaluate((hot) => {
		const end = Date.now() + 1200;
		let s = 0;
		while (Date.now() < end) s += window[hot](50000);
		return s;
	}, HOT);
	fs.writeFileSync(trace, await browser.stopTracing());
	const doc = JSON.parse(fs.readFileSync(trace, 'utf8'));
	for (const e of doc.traceEvents || doc)
		if (e.name === 'ProfileChunk' && e.args?.data?.cpuProfile?.samples)
			samples += e.args.data.cpuProfile.samples.length;
	check(samples > 100, `only ${samples} samples in the trace`);
});

await step('report on the trace: flame graph and heatmap totals = the trace\'s samples', async () => {
	const out = path.join(dir, 'out');
	run('flamepipe', ['report', '-q', trace, '-o', out]);
	const folded = fs.readFileSync(path.join(out, 'stacks.folded'), 'utf8').trim().split('\n');
	const total = folded.reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
	eq(total, samples, 'stacks.folded total');
	const tsv = fs.readFileSync(path.join(out, 'heatmap.tsv'), 'utf8').trim().split('\n').slice(1);
	eq(tsv.reduce((a, l) => a + Number(l.split('\t')[2]), 0), samples, 'heatmap.tsv total');
	const hot = folded.filter((l) => l.startsWith('CrRendererMain;') && l.includes(`;${HOT} `))
		.reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
	check(hot > samples / 2, `${HOT} under CrRendererMain in ${hot} of ${samples} samples`);
});

await finish(0);
