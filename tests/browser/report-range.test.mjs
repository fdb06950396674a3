// report-range.test.mjs: the report's page (ui/, offline from file://)
// draws the flame graph of a selected heatmap range from the embedded
// samples' timeline: checked against `flamepipe report --from S --to E`,
// the page's total and every stack's count equal that report's
// stacks.folded. Without the timeline (--timeline-max 0) the page says
// so, still draws the whole capture and refuses a range with the command
// to run. Hostile frame names stay text. Screenshots:
// tests/artifacts/report-range-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { step, check, eq, deadline, launch, report, openReport, clickViewsCell, viewsShot,
	 endClean, run, tmpdir } from './report-lib.mjs';

deadline(120000);
const CAPTURE = 'examples/demo-clockloop.perf.gz';
const whole = report(CAPTURE, [], 'range-whole');
const browser = await launch();
const dialogs = [];

// `stack count` lines of a folded file as a Map, frames without their
// kind annotation (the page shows names; the kind only colours).
function foldedMap(text) {
	const m = new Map();
	for (const l of text.split('\n')) {
		const i = l.lastIndexOf(' ');
		if (i <= 0) continue;
		const k = l.slice(0, i).split(';').map((f) => f.replace(/_\[[kwij]\]$/, '')).join(';');
		m.set(k, (m.get(k) || 0) + Number(l.slice(i + 1)));
	}
	return m;
}
const sum = (m) => [...m.values()].reduce((a, b) => a + b, 0);
// The drawn tree's stacks: each node's path with its self count.
const drawnFolded = (page) => page.evaluate(() => {
	const out = [];
	for (const n of window.flamepipe.flame.data.nodes) {
		if (!n.self || !n.parent) continue;
		const names = [];
		for (let p = n; p.parent; p = p.parent) names.unshift(p.name);
		out.push(names.join(';') + ' ' + n.self);
	}
	return out.join('\n');
});

const page = await openReport(browser, whole);
page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
const rows = await page.evaluate(() => window.flamepipe.state.rows);

// Selects cells a..b (cell = col * rows + row, either click order) and
// compares the drawn graph with a --from/--to report of the page's range.
async function selectAndCompare(a, b, name) {
	await clickViewsCell(page, b);
	await clickViewsCell(page, a);
	await page.waitForFunction(() => window.flamepipe.state.sel && window.flamepipe.state.sel.to !== null);
	const sel = await page.evaluate(() => window.flamepipe.state.sel);
	const from = (sel.from / 1e9).toFixed(3), to = (sel.to / 1e9).toFixed(3);
	const out = report(CAPTURE, ['--from', from, '--to', to], name);
	const want = foldedMap(fs.readFileSync(path.join(out, 'stacks.folded'), 'utf8'));
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n, sum(want))
		.catch(async () => { throw new Error(`total ${await page.evaluate(() => window.flamepipe.flame.data.root.total)}, want ${sum(want)}`); });
	const got = foldedMap(await drawnFolded(page));
	check(sum(want) > 0, 'the selection has samples');
	eq(got.size, want.size, 'stacks');
	for (const [k, v] of want) eq(got.get(k), v, `count of ${k}`);
	return { from, to };
}

await step('two clicks draw the range\'s graph; every stack = a --from/--to report', async () => {
	await selectAndCompare(2 * rows + 10, 5 * rows + 40, 'range-a');
	await viewsShot(page, 'report-range-01-selected');
});

await step('a range inside one column and one spanning two bursts agree as well', async () => {
	await selectAndCompare(7 * rows + 5, 7 * rows + 30, 'range-b');
	await selectAndCompare(3 * rows, 12 * rows + rows - 1, 'range-c');
});

let notl;
await step('--timeline-max 0: the note, the whole capture\'s graph, a range refused with the command', async () => {
	const out = report(CAPTURE, ['--render-arg', '--timeline-max=0'], 'range-notl');
	notl = await openReport(browser, out);
	check((await notl.textContent('#timeline_note')).includes('--timeline-max 0'), 'note');
	const folded = foldedMap(fs.readFileSync(path.join(out, 'stacks.folded'), 'utf8'));
	eq(await notl.evaluate(() => window.flamepipe.flame.data.root.total), sum(folded), 'whole graph total');
	eq(await notl.evaluate(() => window.flamepipe.state.heat.total), sum(folded), 'heatmap total');
	await clickViewsCell(notl, 9 * rows + 40);
	await clickViewsCell(notl, 6 * rows + 10);
	await notl.waitForSelector('#error:not([hidden])');
	check((await notl.textContent('#error')).includes('--from S --to S'), 'error names the command: ' + await notl.textContent('#error'));
	notl.problems = notl.problems.filter((p) => !p.includes('400'));
	await viewsShot(notl, 'report-range-02-no-timeline');
});

let xss;
await step('hostile names: the graph shows them as text and runs nothing', async () => {
	const out = path.join(tmpdir('report-range-xss'), 'out');
	run('flamepipe', ['report', '-q', '--keep-idle', 'tests/data/xss.perf', '-o', out]);
	xss = await openReport(browser, out);
	xss.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
	const names = await xss.evaluate(() => window.flamepipe.flame.data.nodes.map((n) => n.name));
	check(names.includes('<script>alert(1)</script>'), 'the <script> name: ' + names.join(' | '));
	check(names.some((n) => n.startsWith('x]]>y<!--z-')), ']]> and <!-- as names');
	const titles = await xss.evaluate(() => [...document.querySelectorAll('#flame title')].map((t) => t.textContent));
	check(titles.some((t) => t.startsWith('<script>alert(1)</script>')), 'as text in the frames\' titles');
	eq(dialogs.length, 0, 'dialogs ' + dialogs.join('; '));
	eq(await xss.evaluate(() => [...document.scripts].filter((s) => s.type !== 'application/json' &&
		s.textContent.includes('alert(1)')).length), 0, 'script elements running a name');
	const folded = foldedMap(fs.readFileSync(path.join(out, 'stacks.folded'), 'utf8'));
	eq(await xss.evaluate(() => window.flamepipe.flame.data.root.total), sum(folded), 'whole capture total');
	await viewsShot(xss, 'report-range-03-xss');
});

await endClean(page, notl, xss);
