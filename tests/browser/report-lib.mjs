// report-lib.mjs: shared parts of the static report's tests
// (report-*.test.mjs): a report made by `flamepipe report`, its index.html
// opened from file:// with every request recorded: ui/'s page, the one
// fp-serve serves, running on the data the report embeds (render/views.h).
// page.views is the page itself (the tests' name for where the views run).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, TOP, ARTIFACTS, step, eq, finish } from './tap-lib.mjs';
import { run, tmpdir } from './render-lib.mjs';

export { step, check, eq, finish, deadline, onCleanup, launch } from './tap-lib.mjs';
export { run, tmpdir, readFolded } from './render-lib.mjs';

const WAIT_MS = 15000;

// `flamepipe report CAPTURE -o DIR ARGS...`; returns DIR.
export function report(capture, args = [], name = 'report') {
	const dir = path.join(tmpdir(name), 'out');
	run('flamepipe', ['report', path.resolve(TOP, capture), '-o', dir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
	return dir;
}

// A page with its console errors, page errors and requests recorded.
export async function openReport(browser, dir, viewport = { width: 1366, height: 900 }) {
	const page = await browser.newPage({ viewport });
	page.setDefaultTimeout(WAIT_MS);
	page.problems = [];
	page.requests = [];
	page.on('pageerror', (e) => page.problems.push('page error: ' + e.message));
	page.on('console', (m) => { if (m.type() === 'error') page.problems.push('console: ' + m.text()); });
	page.on('request', (r) => page.requests.push(r.url()));
	await page.goto(pathToFileURL(path.join(dir, 'index.html')).href);
	await page.waitForFunction(() => window.flamepipe && window.flamepipe.state.heat &&
		window.flamepipe.flame.data && window.flamepipe.drawnCells().length > 0);
	page.views = page.mainFrame();
	return page;
}
// What the views show: the heatmap's and the flame graph's totals.
export function totals(frame) {
	return frame.evaluate(() => ({ heat: window.flamepipe.state.heat.total,
				      flame: window.flamepipe.flame.data ? window.flamepipe.flame.data.root.total : null }));
}
export async function waitTotals(frame, want) {
	await frame.waitForFunction((w) => {
		const f = window.flamepipe;
		return f.state.heat && f.flame.data && f.state.heat.total === w && f.flame.data.root.total === w;
	}, want).catch(async () => { throw new Error('totals ' + JSON.stringify(await totals(frame)) + ', want ' + want); });
}
// Clicks heatmap cell t (col * rows + row) inside the views' frame.
export async function clickViewsCell(page, t) {
	const ov = page.views.locator('#heat-overlay');
	await ov.scrollIntoViewIfNeeded();
	const p = await page.views.evaluate((t) => {
		const c = window.flamepipe.cellCenter(t), r = document.getElementById('heat-overlay').getBoundingClientRect();
		return { x: c.x - r.left, y: c.y - r.top };
	}, t);
	await ov.click({ position: p });
}
// The centre of the root's child frame NAME in the views, in the page's
// coordinates (for the mouse).
export function rootFramePoint(frame, name) {
	return frame.evaluate((name) => {
		const d = window.flamepipe.flame.data, i = d.nodes.findIndex((n) => n.depth === 1 && n.name === name);
		const r = document.querySelector(`#flame g.frame[data-i="${i}"] rect`).getBoundingClientRect();
		return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
	}, name);
}
// Requests other than the page's own file:// files and the views' blob: modules.
export function networkRequests(page) {
	return page.requests.filter((u) => !/^(file|blob|data|about):/.test(u));
}
export async function viewsShot(page, name) {
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	await page.screenshot({ path: path.join(ARTIFACTS, name + '.png') });
}
// Per function of a folded file: self (leaf) and total (anywhere on the
// stack, once per stack) samples, as a sandwich table counts them.
export function functionTotals(file) {
	const fns = new Map();
	let total = 0;
	for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
		const m = /^(.*) (\d+)$/.exec(line);
		if (!m) continue;
		const n = Number(m[2]), frames = m[1].split(';');
		total += n;
		new Set(frames).forEach((f) => {
			const e = fns.get(f) || { self: 0, total: 0 };
			e.total += n;
			fns.set(f, e);
		});
		fns.get(frames[frames.length - 1]).self += n;
	}
	return { fns, total };
}
export { BIN, TOP };

// Frames whose children break `order` ('weight': heaviest first, laid
// out edge to edge; 'name': by name), as "parent: a then b" strings.
export function orderProblems(frame, order) {
	return frame.evaluate((order) => window.flamepipe.flame.data.nodes.flatMap((n) =>
		n.kids.slice(1).map((b, i) => [n.kids[i], b]).filter(([a, b]) => (order === 'weight' ?
			a.total < b.total || a.x + a.total !== b.x : !(a.name < b.name)))
			.map(([a, b]) => `${n.name}: ${a.name} (${a.total}) then ${b.name} (${b.total})`)), order);
}
// Sets the processes picked in the views' picker to exactly `pids`.
export async function pickProcesses(frame, pids) {
	const now = await frame.$$eval('#threads input[data-kind=pid]', (cs) => cs.map((c) => [Number(c.value), c.checked]));
	for (const [pid, on] of now)
		if (pids.includes(pid) !== on)
			await frame.setChecked(`#threads input[data-kind=pid][value="${pid}"]`, !on);
}
// The sandwich table's rows that differ from functionTotals(): "name: ...".
export function tableMismatches(rows, fns) {
	const seen = new Set(rows.map((r) => r.name));
	return rows.filter((r) => !fns.has(r.name) || fns.get(r.name).self !== r.self || fns.get(r.name).total !== r.total)
		.map((r) => `${r.name}: table ${r.self}/${r.total}, folded ${JSON.stringify(fns.get(r.name))}`)
		.concat([...fns.keys()].filter((f) => !seen.has(f)).map((f) => f + ': not in the table'));
}

// The last step of every report test: no console or page error and no
// request off the machine on any of the pages; then the TAP plan.
export async function endClean(...pages) {
	await step('no console or page errors, no network requests', async () => {
		for (const p of pages) {
			eq(p.problems.join('; '), '', 'errors');
			eq(networkRequests(p).join(' '), '', 'network requests');
		}
	});
	await finish(0);
}
