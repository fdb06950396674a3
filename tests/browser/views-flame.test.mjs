// views-flame.test.mjs: the flame graph views of the page on a real capture
// (examples/multiproc.perf.gz, several processes and threads):
// left-heavy order (children by weight) by default, alphabetical as an
// option; the sandwich view, whose table (self, total per function) equals
// what the server's folded file gives, with the callers and callees graphs
// of a function. Screenshots: tests/artifacts/views-flame-*.png.
import { step, check, eq, finish, shot, waitCells, servedPage, waitFlame } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const WAIT_MS = 15000;
const FILE = 'multiproc.perf.gz';

const { srv, page } = await servedPage('views-flame', TEST_DEADLINE_MS, { waitMs: WAIT_MS });

// The folded file of the whole profile, as the server gives it: per
// function, self = samples where it is the leaf, total = samples with it
// anywhere on the stack (once per stack). Annotations _[k] are the tree's l.
let folded;
async function foldedTable() {
	const r = await fetch(srv.url + 'folded?' + new URLSearchParams({ filename: FILE }));
	const text = await r.text();
	const m = new Map();
	let total = 0;
	for (const line of text.split('\n')) {
		if (!line) continue;
		const sp = line.lastIndexOf(' ');
		const n = Number(line.slice(sp + 1));
		const frames = line.slice(0, sp).split(';').map((f) => f.replace(/_\[[kjiw]\]$/, ''));
		total += n;
		const seen = new Set();
		frames.forEach((f, i) => {
			if (!m.has(f)) m.set(f, { self: 0, total: 0 });
			const e = m.get(f);
			if (i === frames.length - 1) e.self += n;
			if (!seen.has(f)) { seen.add(f); e.total += n; }
		});
	}
	return { m, total };
}

await step('the whole profile opens; children are ordered by weight (left-heavy) by default', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE }));
	await waitCells(page);
	await waitFlame(page);
	eq(await page.inputValue('#order'), 'weight', 'default order');
	const bad = await page.evaluate(() => {
		const out = [];
		for (const n of window.flamepipe.flame.data.nodes)
			for (let i = 1; i < n.kids.length; i++) {
				const a = n.kids[i - 1], b = n.kids[i];
				if (a.total < b.total) out.push(`${n.name}: ${a.name} (${a.total}) before ${b.name} (${b.total})`);
				if (a.x + a.total !== b.x) out.push(`${b.name} not right after ${a.name}`);
			}
		return out;
	});
	eq(bad.join('; '), '', 'left-heavy order');
	// what is drawn: the root's children left to right, heaviest first
	const xs = await page.evaluate(() => {
		const d = window.flamepipe.flame.data;
		return d.root.kids.map((k) => {
			const g = document.querySelector(`#flame g.frame[data-i="${d.nodes.indexOf(k)}"] rect`);
			return g ? { x: +g.getAttribute('x'), total: k.total } : null;
		}).filter(Boolean);
	});
	check(xs.length >= 2, 'fewer than two comms drawn');
	for (let i = 1; i < xs.length; i++)
		check(xs[i - 1].x < xs[i].x && xs[i - 1].total >= xs[i].total, 'drawn order is not by weight: ' + JSON.stringify(xs));
	await shot(page, 'views-flame-01-left-heavy');
});

await step('alphabetical order lays the same tree out by name (kept in the URL)', async () => {
	const total = await page.evaluate(() => window.flamepipe.flame.data.root.total);
	await page.selectOption('#order', 'name');
	const bad = await page.evaluate(() => {
		const out = [];
		for (const n of window.flamepipe.flame.data.nodes)
			for (let i = 1; i < n.kids.length; i++)
				if (!(n.kids[i - 1].name < n.kids[i].name)) out.push(n.kids[i - 1].name + ' >= ' + n.kids[i].name);
		return out;
	});
	eq(bad.join('; '), '', 'alphabetical order');
	eq(await page.evaluate(() => window.flamepipe.flame.data.root.total), total, 'total after relayout');
	check((await page.evaluate(() => location.hash)).includes('order=name'), 'order not in the URL');
	await shot(page, 'views-flame-02-alphabetical');
	await page.selectOption('#order', 'weight');
});

let rows;
await step('sandwich: the function table equals the folded file (self, total, every function)', async () => {
	folded = await foldedTable();
	await page.selectOption('#fview', 'sandwich');
	await page.waitForSelector('#sw-table tbody tr');
	rows = await page.evaluate(() => window.flamepipe.sandwich());
	eq(rows.length, folded.m.size, 'functions in the table');
	for (const r of rows) {
		const f = folded.m.get(r.name);
		check(f, 'function not in the folded file: ' + r.name);
		if (f.self !== r.self || f.total !== r.total)
			throw new Error(`${r.name}: page self ${r.self} total ${r.total}, folded self ${f.self} total ${f.total}`);
	}
	eq(rows.reduce((s, r) => s + r.self, 0), folded.total, 'sum of self = folded total');
	for (let i = 1; i < rows.length; i++) check(rows[i - 1].total >= rows[i].total, 'table not sorted by total');
	const shown = await page.$$eval('#sw-table tbody tr', (trs) => trs.length);
	check(shown > 0, 'no table rows');
	check(await page.isHidden('#flame-wrap'), 'flame graph still shown in the sandwich view');
	await shot(page, 'views-flame-03-sandwich');
});

await step('sandwich: picking a function draws its callers and callees, each totalling its samples', async () => {
	// the heaviest function that is not a comm (a frame with callers)
	const pick = rows.find((r) => r.name === 'run_for') || rows[5];
	await page.fill('#sw-search', pick.name);
	await page.click(`#sw-table tbody tr[data-name="${pick.name}"]`);
	await page.waitForSelector('#sw-graphs:not([hidden])');
	const t = await page.evaluate(() => ({
		callers: document.getElementById('sw-callers').sandwich.root.total,
		callees: document.getElementById('sw-callees').sandwich.root.total,
		callerFrames: document.querySelectorAll('#sw-callers g.frame').length,
		calleeFrames: document.querySelectorAll('#sw-callees g.frame').length
	}));
	eq(t.callers, pick.total, 'callers graph total');
	eq(t.callees, pick.total, 'callees graph total');
	check(t.callerFrames > 1 && t.calleeFrames >= 1, 'graphs not drawn: ' + JSON.stringify(t));
	check((await page.evaluate(() => location.hash)).includes('fv=sandwich'), 'view not in the URL');
	await shot(page, 'views-flame-04-sandwich-picked');
});

await step('no script errors on the page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
