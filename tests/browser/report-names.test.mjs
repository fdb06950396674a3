// report-names.test.mjs: the static report's page takes names as data,
// never as keys of a JavaScript object: frames named like Object's own
// properties (constructor, __proto__, toString, hasOwnProperty: common in
// JIT-ed JavaScript) are frames like any other in the flame graph, and its
// totals are stacks.folded's; processes with those names are threads and
// roots of the compared trees as fp-serve answers them.
import fs from 'node:fs';
import path from 'node:path';
import { step, check, eq, deadline, launch, report, openReport, functionTotals, tmpdir, endClean } from './report-lib.mjs';
import { startServe, getJSON } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 60000;

// perf script text: three stacks (leaf first) through those names, in
// the first second; then, in the second, processes named so (one in the
// second only, one in both, with other counts)
const STACKS = [
	[3, 'node', 100, ['toString', 'constructor', 'main']],
	[2, 'node', 100, ['hasOwnProperty', '__proto__', 'main']],
	[1, 'node', 100, ['constructor', 'main']],
];
const LATER = [
	[3, 'constructor', 200, ['main']],
	[2, 'node', 100, ['constructor', 'main']],
	[2, 'toString', 300, ['main']],
	[1, 'constructor', 400, ['main']],	// renamed: its name is worker
	[2, 'worker', 400, ['main']],
];
function capture() {
	const lines = [];
	const write = (sec, stacks) => {
		let t = 0;
		for (const [n, comm, pid, frames] of stacks)
			for (let i = 0; i < n; i++, t++) {
				lines.push(`${comm} ${pid}/${pid} [000] ${sec}.${String(100000 + t * 1000).slice(1)}: 1 cpu-clock: `);
				frames.forEach((f, k) => lines.push(`\t${(0x400000 + k).toString(16).padStart(16)} ${f}+0x1 (/usr/bin/node)`));
				lines.push('');
			}
	};
	write(1, STACKS);
	write(2, LATER);
	const file = path.join(tmpdir('names-capture'), 'names.perf');
	fs.writeFileSync(file, lines.join('\n') + '\n');
	return file;
}

deadline(TEST_DEADLINE_MS);
const file = capture();
const dir = report(file);
const browser = await launch();
let page;

await step('frames named like Object properties are frames: their totals, and the whole\'s', async () => {
	page = await openReport(browser, dir);
	const folded = functionTotals(path.join(dir, 'stacks.folded'));
	eq(folded.total, 16, 'stacks.folded total');
	eq(await page.views.evaluate(() => window.flamepipe.flame.data.root.total), 16, 'flame total');
	const totals = new Map(await page.views.evaluate(() => {
		const t = new Map();
		for (const n of window.flamepipe.flame.data.nodes) t.set(n.name, (t.get(n.name) || 0) + n.total);
		return [...t];
	}));
	eq(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'main'].map((n) => totals.get(n)).join(),
	   '10,2,5,2,16', 'frame totals (a comm is a frame too)');
	eq(page.problems.join('; '), '', 'errors');
});

let srv;
await step('fp-serve serves the same capture', async () => { srv = await startServe(['--dir', path.dirname(file)]); });

// The page's answer and fp-serve's for one route and parameters.
async function both(route, params) {
	const name = await page.evaluate(() => window.flamepipeReport.name);
	const q = (f) => new URLSearchParams({ filename: f, ...params,
		...(params.compareStart ? { compareFilename: f } : {}) }).toString();
	const mine = await page.views.evaluate((u) => {
		try { return window.flamepipeReport.answer(u); } catch (e) { return { error: e.message }; }
	}, route + '?' + q(name));
	const theirs = await getJSON(srv.url + route.slice(1) + '?' + q(path.basename(file)));
	check(!mine.error, route + ' page: ' + mine.error);
	return [JSON.stringify(mine), JSON.stringify(theirs)];
}

await step('processes named like Object properties are threads as the server counts them', async () => {
	const [mine, theirs] = await both('/threads/', {});
	eq(mine, theirs, '/threads/');
	check(mine.includes('"pid":200,"comm":"constructor","samples":3'), 'the process constructor: ' + mine);
	check(mine.includes('"pid":400,"comm":"worker","samples":3'), 'the process worker: ' + mine);
});

await step('roots named like Object properties compare as the server compares them', async () => {
	// the first second, and the second (range times are from the first)
	for (const [a, b] of [[['1', '2'], ['0', '1']], [['0', '1'], ['1', '2']]])
		for (const route of ['/differential/', '/elided/']) {
			const [mine, theirs] = await both(route, { start: a[0], end: a[1], compareStart: b[0], compareEnd: b[1] });
			check(mine.includes('"children":[{'), `${route} ${a} against ${b}: a tree: ${mine}`);
			eq(mine, theirs, `${route} ${a} against ${b}`);
		}
});

await endClean(page);
