// report-names.test.mjs: the static report's page takes frame names as
// data, never as keys of a JavaScript object: frames named like Object's
// own properties (constructor, __proto__, toString, hasOwnProperty: common
// in JIT-ed JavaScript) are frames like any other in the flame graph, and
// its totals are stacks.folded's.
import fs from 'node:fs';
import path from 'node:path';
import { step, eq, deadline, launch, report, openReport, functionTotals, tmpdir, endClean } from './report-lib.mjs';

const TEST_DEADLINE_MS = 60000;

// perf script text: three stacks (leaf first) through those names
const STACKS = [
	[3, ['toString', 'constructor', 'main']],
	[2, ['hasOwnProperty', '__proto__', 'main']],
	[1, ['constructor', 'main']],
];
function capture() {
	const lines = [];
	let t = 0;
	for (const [n, frames] of STACKS)
		for (let i = 0; i < n; i++, t++) {
			lines.push(`node 100/100 [000] 1.${String(100000 + t * 1000).slice(1)}: 1 cpu-clock: `);
			frames.forEach((f, k) => lines.push(`\t${(0x400000 + k).toString(16).padStart(16)} ${f}+0x1 (/usr/bin/node)`));
			lines.push('');
		}
	const file = path.join(tmpdir('names-capture'), 'names.perf');
	fs.writeFileSync(file, lines.join('\n') + '\n');
	return file;
}

deadline(TEST_DEADLINE_MS);
const dir = report(capture());
const browser = await launch();
let page;

await step('frames named like Object properties are frames: their totals, and the whole\'s', async () => {
	page = await openReport(browser, dir);
	const folded = functionTotals(path.join(dir, 'stacks.folded'));
	eq(folded.total, 6, 'stacks.folded total');
	eq(await page.views.evaluate(() => window.flamepipe.flame.data.root.total), 6, 'flame total');
	const totals = new Map(await page.views.evaluate(() => {
		const t = new Map();
		for (const n of window.flamepipe.flame.data.nodes) t.set(n.name, (t.get(n.name) || 0) + n.total);
		return [...t];
	}));
	eq(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'main'].map((n) => totals.get(n)).join(),
	   '4,2,3,2,6', 'frame totals');
	eq(page.problems.join('; '), '', 'errors');
});

await endClean(page);
