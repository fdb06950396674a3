// serve-ui.test.mjs: the fp-serve web page in headless chromium.
// File list -> heatmap -> two clicks -> flame graph -> search -> rows ->
// compare; and a capture full of HTML in its names never runs any of it.
// Prints TAP; screenshots go to tests/artifacts/serve-*.png.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TOP, step, check, eq, finish, onCleanup, startServe, shot, getJSON, treeTotal,
	 treeMatched, clickCell, hoverCell, waitCells, drawnCells, highlighted, servedPage, testPage,
	 waitFlame, tmpdir } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 55000;
const WAIT_MS = 15000;		// one UI step (a flame graph is a stage chain run)
const FILE = 'demo-clockloop.perf.gz';
const ROWS = 50;
const SEARCH = 'clock_gettime';
const WHITE = '255,255,255';

const { browser, srv, page, api } = await servedPage('serve-ui', TEST_DEADLINE_MS, {
	waitMs: WAIT_MS, stepName: 'fp-serve --dir examples starts on a free loopback port',
	started: (srv) => check(srv.url.startsWith('http://127.0.0.1:'), 'not on loopback: ' + srv.url)
});
const requested = [];
page.on('request', (r) => requested.push(r.url()));

await step('the file list shows the bundled captures and an upload form', async () => {
	await page.goto(srv.url);
	await page.waitForSelector('a.file-link');
	const names = await page.$$eval('a.file-link', (as) => as.map((a) => a.textContent));
	check(names.includes(FILE), `${FILE} not in the list: ${names.join(', ')}`);
	check(names.includes('multiproc.perf.gz'), 'multiproc.perf.gz not in the list');
	check(!names.some((n) => n.split('/').some((s) => s.startsWith('.'))), 'a dotfile is listed');
	check(await page.isVisible('form#upload input[type=file]'), 'no upload form');
	await shot(page, 'serve-01-list');
});

let heat, ncols;
await step(`opening ${FILE} shows its heatmap (cells match /heatmap/)`, async () => {
	await page.getByRole('link', { name: FILE, exact: true }).click();
	await waitCells(page);
	heat = await api('heatmap/', { filename: FILE, rows: ROWS });
	ncols = heat.values.length;
	const drawn = await drawnCells(page);
	check(drawn.length > 0, 'no heatmap cells');
	eq(drawn.length, ncols * ROWS, 'cells drawn');
	// what the user sees: a cell is coloured exactly when /heatmap/ counts samples in it
	for (let t = 0; t < drawn.length; t++) {
		const c = Math.floor(t / ROWS), v = heat.values[c][ROWS - 1 - (t % ROWS)];
		if ((drawn[t] !== WHITE) !== (v > 0))
			throw new Error(`cell ${t} (second ${c}, row ${t % ROWS}) drawn ${drawn[t]} for count ${v}`);
	}
	// hovering shows second, ms and count
	const busyCell = drawn.findIndex((x) => x !== WHITE);
	await hoverCell(page, busyCell);
	const tip = await page.textContent('#tooltip');
	const bc = Math.floor(busyCell / ROWS), br = busyCell % ROWS;
	check(tip.includes('second ' + bc) && tip.includes('ms ' + br * 1000 / ROWS + '\u2013') &&
	      tip.includes('count ' + heat.values[bc][ROWS - 1 - br]), 'tooltip: ' + tip);
	// the whole-profile flame graph is shown beside it
	await page.waitForSelector('#flame g.frame');
	const total = await page.evaluate(() => window.flamepipe.flame.data.root.total);
	eq(total, heat.counted ?? heat.values.flat().reduce((a, b) => a + b, 0), 'whole-profile flame graph samples vs heatmap');
	await shot(page, 'serve-02-heatmap');
});

await step('enhanced colours recolour the non-empty cells only, and back', async () => {
	const plain = await drawnCells(page);
	await page.check('#enhanced');
	await page.waitForFunction(() => location.hash.includes('enhanced=1'));
	const enh = await drawnCells(page);
	let changed = 0;
	for (let t = 0; t < plain.length; t++) {
		if (plain[t] === WHITE) eq(enh[t], WHITE, `empty cell ${t} in enhanced mode`);
		else if (enh[t] !== plain[t]) changed++;
		check(enh[t] !== WHITE || plain[t] === WHITE, `cell ${t} lost its colour`);
	}
	check(changed > 0, 'enhanced mode changed no colour');
	await shot(page, 'serve-02b-enhanced');
	await page.uncheck('#enhanced');
	await page.waitForFunction(() => !location.hash.includes('enhanced=1'));
	eq((await drawnCells(page)).join(';'), plain.join(';'), 'colours after leaving enhanced mode');
});

await step('the keyboard selects a range too (arrows, Enter)', async () => {
	await page.mouse.move(0, 0);
	await page.focus('#heat-overlay');
	await page.keyboard.press('ArrowUp');
	await page.keyboard.press('ArrowDown');	// cell 0: second 0, first row
	await page.keyboard.press('Enter');
	for (let i = 0; i < 2; i++) await page.keyboard.press('ArrowRight');
	await page.keyboard.press('ArrowDown');	// last row of second 1
	check((await page.textContent('#tooltip')).includes('second 1'), 'tooltip does not follow the keyboard cursor');
	await page.keyboard.press('Enter');
	await page.waitForFunction(() => /[?&]start=0&end=2(&|$)/.test(location.hash));
	const want = treeTotal(await api('flamegraph/', { filename: FILE, start: '0', end: '2' }));
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n &&
				   /Flame graph: 0 s/.test(document.getElementById('flame-title').textContent), want);
});

// The busiest band of columns: the range the clicks select.
const colSum = heat.values.map((col) => col.reduce((a, b) => a + b, 0));
const busiest = colSum.indexOf(Math.max(...colSum));
let b0 = busiest;
while (b0 > 0 && colSum[b0 - 1] > 0) b0--;
// cell t = col * rows + row; row 0 is the start of the second (bottom)
const startCell = b0 * ROWS + 10, endCell = Math.min(ncols - 1, b0 + 3) * ROWS + 30;
const cellSum = (t0, t1) => {
	let s = 0;
	for (let t = t0; t <= t1; t++) {
		const c = Math.floor(t / ROWS), r = t % ROWS;
		s += heat.values[c][ROWS - 1 - r];
	}
	return s;
};
// The first column of another band at least half as busy as the busiest.
const otherBand = () => {
	let e = b0;
	while (e < ncols && colSum[e] > 0) e++;
	for (let c = e; c + 3 <= ncols; c++) if (colSum[c] * 2 >= colSum[busiest]) return c;
	for (let c = 0; c + 3 < b0; c++) if (colSum[c] * 2 >= colSum[busiest]) return c;
	throw new Error('the capture has only one busy band');
};
const secOf = (t) => { const v = Math.floor(t / ROWS) + (t % ROWS) / ROWS; return String(+v.toFixed(9)); };
const start = secOf(startCell), end = secOf(endCell + 1);
let tree;

await step('clicking an end cell then a start cell selects that range in time order', async () => {
	await clickCell(page, endCell);
	await clickCell(page, startCell);
	await page.waitForFunction(([s, e]) => location.hash.includes('start=' + s) && location.hash.includes('end=' + e), [start, end]);
	const sel = await highlighted(page);
	eq(sel.length, endCell - startCell + 1, 'highlighted cells');
	eq(Math.min(...sel), startCell, 'first highlighted cell');
	eq(Math.max(...sel), endCell, 'last highlighted cell');
});

await step(`the flame graph of [${start}, ${end}) appears beside the heatmap`, async () => {
	await page.waitForFunction(() => /Flame graph: \d/.test(document.getElementById('flame-title').textContent));
	await page.waitForSelector('#flame g.frame');
	tree = await api('flamegraph/', { filename: FILE, start, end });
	const total = await page.evaluate(() => window.flamepipe.flame.data.root.total);
	eq(total, treeTotal(tree), 'samples in the page vs /flamegraph/');
	eq(total, cellSum(startCell, endCell), 'samples in the flame graph vs the selected heatmap cells');
	check(total > 0, 'the busiest band has no samples');
	const box = await page.locator('#flame').boundingBox(), hbox = await page.locator('#heatmap').boundingBox();
	check(box && hbox && box.width > 200, 'flame graph not visible');
	await shot(page, 'serve-03-range');
});

await step(`searching "${SEARCH}" reports the matched samples of /flamegraph/`, async () => {
	await page.fill('#search', SEARCH);
	await page.press('#search', 'Enter');
	await page.waitForFunction(() => document.getElementById('matched').getAttribute('data-matched') !== '');
	const got = +(await page.getAttribute('#matched', 'data-matched'));
	const want = treeMatched(tree, new RegExp(SEARCH, 'i'));
	const total = treeTotal(tree);
	eq(got, want, 'matched samples');
	check(want > 0, `no ${SEARCH} samples in the range`);
	const txt = await page.textContent('#matched');
	check(txt.includes((100 * want / total).toFixed(2) + '%'), `matched text "${txt}" lacks ${(100 * want / total).toFixed(2)}%`);
	check(await page.locator('#flame g.frame.match').count() > 0, 'no frame highlighted');
	check((await page.evaluate(() => location.hash)).includes('s=' + SEARCH), 'search not kept in the URL');
	await shot(page, 'serve-04-search');
});

await step('clicking a frame zooms (kept in the URL); icicle flips the graph; Reset zoom restores it', async () => {
	const frame = page.locator('#flame g.frame.match').first();
	await frame.click();
	await page.waitForFunction(() => !document.getElementById('reset-zoom').disabled);
	const zoomedW = await page.evaluate(() => {
		const r = document.querySelector('#flame g.frame.match rect');
		return +r.getAttribute('width');
	});
	const svgW = await page.evaluate(() => +document.getElementById('flame').getAttribute('width'));
	check(zoomedW > svgW * 0.9, `zoomed frame is ${zoomedW} px of ${svgW}`);
	check(/[#&]z=clockloop%3B|[#&]z=clockloop;/.test(await page.evaluate(() => location.hash)), 'zoom not kept in the URL');
	// icicle: the root frame moves from the bottom to the top
	const rootY = () => page.evaluate(() => +document.querySelector('#flame g.frame[data-i="0"] rect').getAttribute('y'));
	const yFlame = await rootY();
	await page.check('#icicle');
	const yIcicle = await rootY();
	check(yIcicle < yFlame, `icicle root at y=${yIcicle}, flame root at y=${yFlame}`);
	await page.uncheck('#icicle');
	await page.click('#reset-zoom');
	await page.waitForFunction(() => document.getElementById('reset-zoom').disabled && !/[#&]z=/.test(location.hash));
});

await step('the step buttons move the selection by its length through time', async () => {
	const len = Number(end) - Number(start);
	const s2 = String(+(Number(start) + len).toFixed(9)), e2 = String(+(Number(end) + len).toFixed(9));
	await page.click('#step-fwd');
	await page.waitForFunction(([s, e]) => location.hash.includes('start=' + s + '&') && location.hash.includes('end=' + e), [s2, e2]);
	const want = treeTotal(await api('flamegraph/', { filename: FILE, start: s2, end: e2 }));
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n &&
				   /Flame graph: /.test(document.getElementById('flame-title').textContent), want);
	await page.click('#step-back');
	await page.waitForFunction(([s, e]) => location.hash.includes('start=' + s + '&') && location.hash.includes('end=' + e), [start, end]);
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n, treeTotal(tree));
});

await step('switching rows to 100 redraws the grid with 100 rows', async () => {
	const cellH = () => page.evaluate(() => window.flamepipe.cellCenter(0).y - window.flamepipe.cellCenter(1).y);
	const h50 = await cellH();
	await page.selectOption('#rows', '100');
	await waitCells(page, ncols * 100);
	const h100 = await cellH();
	check(h100 < h50, `cell height ${h100} not below ${h50}`);
	const api100 = await api('heatmap/', { filename: FILE, rows: 100 });
	const coloured = (await drawnCells(page)).filter((x) => x !== WHITE).length;
	eq(coloured, api100.values.flat().filter((v) => v > 0).length, 'coloured cells at 100 rows');
	check((await page.evaluate(() => location.hash)).includes('rows=100'), 'rows not in the URL');
	// the selection is a time range: still highlighted at the new resolution
	// (20.2 s -> row 20 of second 20 at 100 rows)
	const sel = await highlighted(page);
	eq(sel[0], Math.round(Number(start) * 100), 'first highlighted cell at 100 rows');
	eq(sel[sel.length - 1], Math.round(Number(end) * 100) - 1, 'last highlighted cell at 100 rows');
	await shot(page, 'serve-05-rows100');
});

await step('compare: a second range gives the differential and elided views', async () => {
	// second range: 3 seconds of another busy band (rows = 100 now)
	const R = 100, c2 = otherBand();
	await page.click('#compare');
	await clickCell(page, c2 * R);
	await clickCell(page, (c2 + 3) * R - 1);
	await page.waitForSelector('#flame-tabs:not([hidden])');
	await page.waitForFunction(() => /^Differential/.test(document.getElementById('flame-title').textContent));
	const cs = String(c2), ce = String(c2 + 3);
	const q = { filename: FILE, start: cs, end: ce, compareFilename: FILE, compareStart: start, compareEnd: end };
	const diff = await api('differential/', q);
	const got = await page.evaluate(() => window.flamepipe.flame.data.root.total);
	eq(got, treeTotal(diff), 'differential samples vs /differential/');
	const hl = new Set(await highlighted(page));
	for (let t = c2 * R; t < (c2 + 3) * R; t++) check(hl.has(t), `second range cell ${t} not highlighted`);
	check(!hl.has((c2 + 3) * R), 'highlight goes past the second range');
	const fills = await page.$$eval('#flame g.frame rect', (rs) => rs.map((r) => r.getAttribute('fill')));
	// red rgb(255,x,x) = more, blue rgb(x,x,255) = less, grey = unchanged
	check(fills.some((f) => /^rgb\(255,(\d+),\1\)$/.test(f) || /^rgb\((\d+),\1,255\)$/.test(f)),
	      'no red or blue frame in the differential graph');
	check(!fills.some((f) => f === 'rgb(250,250,250)'), 'an unchanged frame is near-white, not grey');
	await shot(page, 'serve-06-differential');
	await page.click('[data-tab=elided]');
	await page.waitForFunction(() => /^Elided/.test(document.getElementById('flame-title').textContent));
	const el = await api('elided/', q);
	eq(await page.evaluate(() => window.flamepipe.flame.data.root.total), treeTotal(el), 'elided samples vs /elided/');
	await shot(page, 'serve-07-elided');
});

await step('compare: a range picked in another file\'s heatmap', async () => {
	const OTHER = 'multiproc.perf.gz';
	await page.click('#compare');
	await page.selectOption('#compare-file', OTHER);
	await page.waitForFunction((f) => window.flamepipe.state.heat && window.flamepipe.state.heat.file === f, OTHER);
	const { ncols: n, rows } = await page.evaluate(() => window.flamepipe.state.heat);
	const last = Math.min(n, 3);
	await clickCell(page, 0);
	await clickCell(page, last * rows - 1);
	// back on the first file's heatmap, with the differential beside it
	await page.waitForFunction((f) => window.flamepipe.state.heat && window.flamepipe.state.heat.file === f, FILE);
	await page.waitForFunction((f) => document.getElementById('flame-title').textContent.includes(f), OTHER);
	const diff = await api('differential/', { filename: OTHER, start: '0', end: String(last), compareFilename: FILE, compareStart: start, compareEnd: end });
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n, treeTotal(diff));
	await shot(page, 'serve-08-compare-file');
});

await step('filters (stack include regex, comm) update the flame graph and the URL', async () => {
	await page.click('#whole');
	await page.waitForSelector('#flame-tabs[hidden]', { state: 'attached' });
	await page.waitForFunction(() => /whole profile/.test(document.getElementById('flame-title').textContent));
	if (!(await page.getAttribute('#filters-box', 'open'))) await page.click('#filters-box summary');
	await page.fill('#filters [name=include]', SEARCH);
	await page.fill('#filters [name=comm]', 'clockloop');
	const want = treeTotal(await api('flamegraph/', { filename: FILE, include: SEARCH, comm: 'clockloop' }));
	check(want > 0, 'the filtered API graph is empty');
	await page.click('#filters button[type=submit]');
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n, want);
	const h = await page.evaluate(() => location.hash);
	check(h.includes('include=' + SEARCH) && h.includes('comm=clockloop'), 'filters not in the URL: ' + h);
	// every stack left goes through the regex: the search matches them all
	eq(await page.getAttribute('#matched', 'data-matched'), String(want), 'matched samples under the include filter');
	// the heatmap is filtered too (fp-serve applies the filters to /heatmap/)
	const rows = await page.evaluate(() => window.flamepipe.state.rows);
	const heat = await api('heatmap/', { filename: FILE, rows, include: SEARCH, comm: 'clockloop' });
	check(heat.filtered === true, 'fp-serve did not filter the heatmap');
	await page.waitForFunction((n) => window.flamepipe.state.heat && window.flamepipe.state.heat.filtered &&
		window.flamepipe.state.heat.total === n, heat.counted);
	eq(heat.counted, want, 'filtered heatmap total vs filtered whole-profile flame graph');
	check(!(await page.textContent('#heat-title')).includes('flame graph only'), 'the page still says the heatmap is unfiltered');
	await shot(page, 'serve-09-filters');
	await page.click('#filters-reset');
	await page.waitForFunction(() => !/include=/.test(location.hash));
	await page.waitForFunction(() => window.flamepipe.state.heat && !window.flamepipe.state.heat.filtered);
});

// the brief's check: a comm filter makes the heatmap count that comm only,
// on the same columns (second 0 = the capture's first second, not comm's)
await step('a comm filter changes the heatmap to that comm\'s samples, columns aligned', async () => {
	const rows = await page.evaluate(() => window.flamepipe.state.rows);
	const all = await api('heatmap/', { filename: FILE, rows });
	const stream = execFileSync('sh', ['-c',
		`"${TOP}/bin/fp-read" -q "${TOP}/examples/${FILE}" | "${TOP}/bin/fp-range" --comm clockloop | "${TOP}/bin/fp-bucket" --rows ${rows}`],
		{ encoding: 'utf8', maxBuffer: 64 << 20 });
	const counted = Number((/^I\tbucket\t.*\tcounted=(\d+)/m.exec(stream) || [])[1]);
	check(counted > 0 && counted < all.counted, `clockloop count ${counted} of ${all.counted}`);
	// (the box may still be open: "open" is an empty attribute)
	if (!(await page.$eval('#filters-box', (d) => d.open))) await page.click('#filters-box summary');
	await page.fill('#filters [name=comm]', 'clockloop');
	await page.click('#filters button[type=submit]');
	await page.waitForFunction((n) => window.flamepipe.state.heat && window.flamepipe.state.heat.filtered &&
		window.flamepipe.state.heat.total === n, counted);
	const h = await page.evaluate(() => {
		const x = window.flamepipe.state.heat;
		return { ncols: x.ncols, base: x.base, rows: x.rows };
	});
	eq(h.ncols, all.values.length, 'filtered heatmap columns vs unfiltered');
	eq(h.base, all.start_sec, 'filtered heatmap start second vs unfiltered');
	// what is drawn: coloured exactly where the comm has samples, and only
	// where the unfiltered heatmap has samples too
	const f = await api('heatmap/', { filename: FILE, rows, comm: 'clockloop' });
	await waitCells(page, all.values.length * rows);
	const drawn = await drawnCells(page);
	for (let t = 0; t < drawn.length; t++) {
		const c = Math.floor(t / rows), i = rows - 1 - (t % rows);
		const v = f.values[c][i];
		if ((drawn[t] !== WHITE) !== (v > 0))
			throw new Error(`cell ${t} (second ${c}) drawn ${drawn[t]} for filtered count ${v}`);
		if (v > all.values[c][i])
			throw new Error(`cell ${t}: filtered ${v} > unfiltered ${all.values[c][i]}`);
	}
	const title = await page.textContent('#heat-title');
	check(!title.includes('flame graph only') && title.includes(counted + ' samples matching the filters'),
	      'heatmap title: ' + title);
	await shot(page, 'serve-09b-comm-filter');
	await page.click('#filters-reset');
	await page.waitForFunction(() => window.flamepipe.state.heat && !window.flamepipe.state.heat.filtered &&
		!/comm=/.test(location.hash));
});

await step('a refused file name shows the server\'s error, not a blank page', async () => {
	await page.goto(srv.url + '#/profile?file=' + encodeURIComponent('../Makefile'));
	await page.waitForSelector('#error:not([hidden])');
	const msg = await page.textContent('#error');
	check(/\b40[034]\b/.test(msg), 'error banner lacks the 4xx status: ' + msg);
	check(await page.isVisible('#toolbar'), 'the page is gone');
	await shot(page, 'serve-10-error');
	await page.click('#home');
	await page.waitForSelector('a.file-link');
	check(await page.isHidden('#error'), 'the error stays after going back to the list');
});

await step('no script errors on the page, and nothing loaded from another host', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
	const foreign = requested.filter((u) => !u.startsWith(srv.url) && !u.startsWith('data:'));
	eq(foreign.join(' '), '', 'requests to other hosts');
	check(requested.length > 10, 'too few requests recorded');
});

// ---- names full of HTML stay text --------------------------------------------------------------
const xssDir = tmpdir('xss');
const XSS_NAME = '<img src=x onerror=window.__xss=3>.perf';
{
	const given = path.join(TOP, 'tests', 'data', 'xss.perf');
	let text = '';
	for (let i = 0; i < 60; i++) {
		const comm = i % 2 ? '<svg onload=window.__xss=2>' : 'victim';
		text += `${comm} 1234/1234 [000] ${(100 + i * 0.05).toFixed(6)}: 10101010 cpu-clock:ppp: \n` +
			'\tffffffff81000000 <script>alert(1)</script>+0x10 ([kernel.kallsyms])\n' +
			'\t0000000000401000 <img src=x onerror=window.__xss=1>+0x5 (/usr/bin/evil)\n' +
			'\t0000000000401100 main+0x5 (/usr/bin/evil)\n\n';
	}
	fs.writeFileSync(path.join(xssDir, 'xss.perf'), text);
	fs.writeFileSync(path.join(xssDir, 'bad-lines.perf'), text + 'this is not perf output <b>at all</b>\n\n');
	fs.writeFileSync(path.join(xssDir, XSS_NAME), text);
	if (fs.existsSync(given)) fs.copyFileSync(given, path.join(xssDir, 'render-xss.perf'));
}
let xsrv;
const xpage = await testPage(browser, 'serve-ui-xss', WAIT_MS, false);
await xpage.addInitScript(() => { window.__xss = undefined; });
const noXss = async (where) => {
	const r = await xpage.evaluate(() => ({
		xss: window.__xss,
		scripts: document.scripts.length,
		handlers: document.querySelectorAll('[onload],[onerror]').length,
		imgs: document.querySelectorAll('img').length
	}));
	eq(r.xss, undefined, `window.__xss after ${where}`);
	eq(xpage.dialogs.length, 0, `dialogs after ${where}`);
	eq(r.scripts, 1, `<script> elements after ${where}`);
	eq(r.handlers, 0, `elements with onload/onerror after ${where}`);
	eq(r.imgs, 0, `<img> elements after ${where}`);
};
await step('a file named like an <img> tag is listed as text', async () => {
	xsrv = await startServe(['--dir', xssDir]);
	await xpage.goto(xsrv.url);
	await xpage.waitForSelector('a.file-link');
	const names = await xpage.$$eval('a.file-link', (as) => as.map((a) => a.textContent));
	check(names.includes(XSS_NAME), 'payload file name not shown literally: ' + names.join(', '));
	await noXss('the file list');
});
await step('the upload form stores a capture and lists it', async () => {
	const up = path.join(xssDir, '..', path.basename(xssDir) + '-up.perf');
	fs.copyFileSync(path.join(xssDir, 'xss.perf'), up);
	onCleanup(() => fs.rmSync(up, { force: true }));
	await xpage.setInputFiles('#upload-file', up);
	await xpage.click('#upload button[type=submit]');
	await xpage.waitForFunction(() => /uploaded as/.test(document.getElementById('upload-status').textContent));
	const want = 'uploads/' + path.basename(up);
	await xpage.waitForFunction((w) => [...document.querySelectorAll('a.file-link')].some((a) => a.textContent === w), want);
	check(fs.existsSync(path.join(xssDir, want)), want + ' not written into DIR');
	await noXss('the upload');
});
await step('<script> symbols and <svg onload> comms stay text in the heatmap and flame graph', async () => {
	await xpage.getByRole('link', { name: XSS_NAME, exact: true }).click();
	await waitCells(xpage);
	await xpage.waitForSelector('#flame g.frame');
	const titles = await xpage.$$eval('#flame g.frame title', (ts) => ts.map((t) => t.textContent));
	check(titles.some((t) => t.startsWith('<script>alert')), 'no literal <script> frame: ' + titles.join(' | '));
	check(titles.some((t) => t.includes('<svg')), 'no literal <svg> comm frame');
	check((await xpage.textContent('#crumb')).includes(XSS_NAME), 'file name not shown literally');
	await xpage.fill('#search', '<script>');
	await xpage.press('#search', 'Enter');
	await xpage.waitForFunction(() => +document.getElementById('matched').getAttribute('data-matched') > 0);
	// hover: the details line shows the name as text
	await xpage.locator('#flame g.frame.match').first().hover();
	check((await xpage.textContent('#flame-details')).includes('<script>alert'), 'details line lacks the literal name');
	check((await xpage.textContent('#tooltip')).includes('<script>alert'), 'tooltip lacks the literal name');
	await noXss('the heatmap page');
	await shot(xpage, 'serve-11-xss');
});
await step('the differential view of the payload capture stays text', async () => {
	await xpage.click('#compare');
	await xpage.selectOption('#compare-file', 'xss.perf');
	await xpage.click('#compare-whole');
	await xpage.waitForSelector('#flame-tabs:not([hidden])');
	await xpage.waitForSelector('#flame g.frame');
	for (const tab of ['elided', 'b', 'a', 'diff']) {
		await xpage.click(`[data-tab=${tab}]`);
		await xpage.waitForTimeout(50);
	}
	await noXss('the compare views');
	await xpage.locator('#svg-link').getAttribute('href');
});
if (fs.existsSync(path.join(xssDir, 'render-xss.perf'))) {
	await step('tests/data/xss.perf (HTML, XML and JS metacharacters) shows every name literally', async () => {
		await xpage.goto(xsrv.url + '#/profile?file=render-xss.perf');
		await waitCells(xpage);
		await waitFlame(xpage);
		const names = await xpage.evaluate(() => window.flamepipe.flame.data.nodes.map((n) => n.name));
		for (const want of ['<script>alert(1)</script>', 'evil&co', 'quote"s', 'std::map<int, std::string>::find', '<b>bold</b>&nbsp:'])
			check(names.includes(want), `name ${want} not in the page's flame graph: ${names.join(' | ')}`);
		const titles = await xpage.$$eval('#flame g.frame title', (ts) => ts.map((t) => t.textContent));
		check(titles.some((t) => t.startsWith('<b>bold</b>&nbsp: (')), 'frame title not literal');
		await noXss('tests/data/xss.perf');
	});
}
await step('bad input lines are counted in the heatmap title', async () => {
	await xpage.goto(xsrv.url + '#/profile?file=bad-lines.perf');
	await waitCells(xpage);
	const h = await getJSON(xsrv.url + 'heatmap/?filename=bad-lines.perf');
	check(h.warnings > 0, '/heatmap/ counts no warning for a bad line');
	await xpage.waitForFunction(() => /bad input line/.test(document.getElementById('heat-title').textContent));
	check((await xpage.textContent('#heat-title .warn')).includes(String(h.warnings) + ' bad input line'), 'warning count differs from /heatmap/');
	await noXss('a capture with bad lines');
});
await step('the server\'s SVG flame graph of the payload capture runs none of it', async () => {
	await xpage.goto(xsrv.url + 'svg/flamegraph?' + new URLSearchParams({ filename: 'xss.perf' }));
	await xpage.waitForTimeout(300);
	const x = await xpage.evaluate(() => window.__xss);
	eq(x, undefined, 'window.__xss in the SVG');
	eq(xpage.dialogs.length, 0, 'dialogs in the SVG');
	await shot(xpage, 'serve-12-xss-svg', false);
});
await step('no script errors on the payload pages', async () => {
	eq(xpage.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
