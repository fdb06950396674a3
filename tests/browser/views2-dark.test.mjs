// views2-dark.test.mjs: the page follows the system's dark setting
// (prefers-color-scheme emulated by the browser): the page turns dark;
// every text on screen has a contrast of at least 4.5:1 (WCAG AA) with
// what is behind it, the canvas axes too; the heatmap's empty cells are
// the dark plot background and its colour scale (default and enhanced)
// gets lighter with every count (monotonic), where the light page's gets
// darker; flame graph and differential frame names are readable on their
// frames and the frames stand out from the dark pane; switching the
// setting while the page is open redraws the heatmap.
// Screenshots: tests/artifacts/views2-dark-*.png.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { step, check, eq, finish, deadline, onCleanup, startServe, launch, shot, shootOnFailure,
	 waitCells } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 60000;
const WAIT_MS = 15000;
const FILE = 'multiproc.perf.gz';
const RAMP = 'ramp.perf', RAMP_SECONDS = 24;
const TEXT_MIN = 4.5, FRAME_VS_PANE_MIN = 3;	// WCAG AA text; non-text contrast

deadline(TEST_DEADLINE_MS);
// a capture whose cells hold every count from 1 to 24: second s has s + 1
// samples, all in one slice of the second
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-views2-dark-'));
onCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.copyFileSync(path.join('examples', FILE), path.join(dir, FILE));
let ramp = '';
for (let s = 0; s < RAMP_SECONDS; s++)
	for (let i = 0; i <= s; i++)
		ramp += `ramp 9 [000] ${(500 + s + (s % 10) / 10 + i / 1000).toFixed(6)}:    250000 cpu-clock: \n` +
			`\t    55d0c0de1000 step_${s % 4}+0x10 (/usr/bin/ramp)\n\t    55d0c0de0000 main+0x20 (/usr/bin/ramp)\n\n`;
fs.writeFileSync(path.join(dir, RAMP), ramp);
const browser = await launch();
let srv;
await step('fp-serve starts', async () => {
	srv = await startServe(['--dir', dir]);
});
async function pageAt(width, height, colorScheme) {
	const page = await browser.newPage({ viewport: { width, height }, colorScheme });
	page.pageErrors = [];
	page.on('pageerror', (e) => page.pageErrors.push(e.message));
	page.setDefaultTimeout(WAIT_MS);
	await page.addInitScript(() => {
		// WCAG relative luminance and contrast of CSS colours
		const parse = (c) => {
			const m = /rgba?\(([^)]+)\)/.exec(c);
			if (!m) return null;
			const v = m[1].split(/[ ,/]+/).filter((x) => x).map(Number);
			return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
		};
		const lum = (c) => {
			const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); };
			return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
		};
		const contrast = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
		// what is painted behind an element: its and its ancestors' backgrounds, composited
		const behind = (el) => {
			const layers = [];
			for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
				const c = parse(getComputedStyle(e).backgroundColor);
				if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
			}
			let out = [255, 255, 255];
			for (const c of layers.reverse()) out = out.map((v, k) => v * (1 - c[3]) + c[k] * c[3]);
			return out;
		};
		window.colour = { parse, lum, contrast, behind };
	});
	return page;
}
// every element with its own text, drawn on screen: [{what, fg, bg, ratio}]
const textContrasts = (page) => page.evaluate(() => {
	const out = [];
	for (const e of document.querySelectorAll('body *')) {
		if (e instanceof SVGElement || e.tagName === 'OPTION' || e.tagName === 'SCRIPT') continue;
		const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
		if (!own || !e.getClientRects().length) continue;
		const cs = getComputedStyle(e);
		if (cs.visibility !== 'visible' || Number(cs.opacity) === 0) continue;
		const fg = window.colour.parse(cs.color), bg = window.colour.behind(e);
		out.push({ what: e.tagName + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className : '') +
			   ' "' + e.textContent.trim().slice(0, 30) + '"', ratio: window.colour.contrast(fg, bg), fg: cs.color, bg: bg.map(Math.round).join(',') });
	}
	return out;
});
function noLowContrast(list, what) {
	const bad = list.filter((t) => t.ratio < TEXT_MIN);
	check(list.length > 20, `${what}: only ${list.length} texts found`);
	check(!bad.length, `${what}: texts under ${TEXT_MIN}:1: ` + bad.map((t) => `${t.what} ${t.fg} on ${t.bg} = ${t.ratio.toFixed(2)}`).join('; '));
}
// [count, luminance] of every drawn heatmap cell
const cellLuminance = (page) => page.evaluate(() => {
	const cells = window.flamepipe.state.heat.cells, drawn = window.flamepipe.drawnCells();
	return drawn.map((c, t) => [cells[t], window.colour.lum(c.split(',').map(Number))]);
});
function monotonic(pairs, rising, what) {
	const byCount = new Map();
	for (const [n, l] of pairs) {
		if (byCount.has(n) && Math.abs(byCount.get(n) - l) > 1e-9) throw new Error(`${what}: count ${n} drawn in two colours`);
		byCount.set(n, l);
	}
	const ns = [...byCount.keys()].sort((a, b) => a - b);
	check(ns.length === RAMP_SECONDS + 1, `${what}: ${ns.length} distinct counts`);
	for (let i = 1; i < ns.length; i++) {
		const d = byCount.get(ns[i]) - byCount.get(ns[i - 1]);
		check(rising ? d > 0 : d < 0, `${what}: count ${ns[i - 1]} -> ${ns[i]}: luminance ${byCount.get(ns[i - 1]).toFixed(4)} -> ${byCount.get(ns[i]).toFixed(4)}`);
	}
}
// flame frames: [name contrast on its frame, frame contrast on the pane]
const frameContrasts = (page, sel) => page.evaluate((sel) => {
	const pane = window.colour.behind(document.querySelector(sel).parentElement);
	return [...document.querySelectorAll(sel + ' g.frame')].map((g) => {
		const r = g.querySelector('rect'), t = g.querySelector('text');
		const fill = window.colour.parse(getComputedStyle(r).fill);
		return { text: t ? window.colour.contrast(window.colour.parse(getComputedStyle(t).fill), fill) : null,
			 pane: window.colour.contrast(fill, pane), name: t ? t.textContent : '', fill: getComputedStyle(r).fill };
	});
}, sel);
function framesReadable(fr, what) {
	check(fr.length > 10, `${what}: ${fr.length} frames`);
	const badText = fr.filter((f) => f.text !== null && f.text < TEXT_MIN);
	check(!badText.length, `${what}: frame names under ${TEXT_MIN}:1: ` + badText.slice(0, 5).map((f) => `${f.name} on ${f.fill} ${f.text.toFixed(2)}`).join('; '));
	const badPane = fr.filter((f) => f.pane < FRAME_VS_PANE_MIN);
	check(!badPane.length, `${what}: frames under ${FRAME_VS_PANE_MIN}:1 on the pane: ` + badPane.slice(0, 5).map((f) => `${f.fill} ${f.pane.toFixed(2)}`).join('; '));
}

const page = await pageAt(1366, 768, 'dark');
shootOnFailure(page, 'views2-dark');
await step('with a dark system setting the page is dark', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE }));
	await waitCells(page);
	await page.waitForFunction(() => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total > 0);
	const bg = await page.evaluate(() => window.colour.lum(window.colour.behind(document.body)));
	check(bg < 0.05, 'page background luminance ' + bg);
	await shot(page, 'views2-dark-01-1366x768');
});

await step('every text on the page has a contrast of at least 4.5:1, the canvas axes too', async () => {
	await page.click('#threads-box summary');
	await page.click('#filters-box summary');
	await page.waitForSelector('#threads input');
	noLowContrast(await textContrasts(page), 'dark page');
	const axes = await page.evaluate(() => {
		const v = (n) => getComputedStyle(document.documentElement).getPropertyValue(n).trim();
		const rgb = (c) => { const d = document.createElement('div'); d.style.color = c; document.body.appendChild(d); const r = getComputedStyle(d).color; d.remove(); return window.colour.parse(r); };
		return ['--axis', '--fg'].map((n) => [n, window.colour.contrast(rgb(v(n)), rgb(v('--plot-bg')))]);
	});
	for (const [n, r] of axes) check(r >= TEXT_MIN, `canvas text ${n} on --plot-bg: ${r.toFixed(2)}`);
	await page.keyboard.press('?');
	noLowContrast(await textContrasts(page), 'dark help overlay');
	await shot(page, 'views2-dark-02-help', false);
	await page.keyboard.press('Escape');
});

await step('dark heatmap: empty cells are the plot background; lighter with every count (default and enhanced)', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: RAMP, rows: '10' }));
	await page.waitForFunction((n) => window.flamepipe.state.heat && window.flamepipe.state.heat.file === n && window.flamepipe.drawnCells().length > 0, RAMP);
	const pairs = await cellLuminance(page);
	const plot = await page.evaluate(() => window.colour.lum(window.colour.parse(getComputedStyle(document.getElementById('heat-wrap')).backgroundColor)));
	const empty = pairs.filter((p) => p[0] === 0);
	check(empty.length > 0, 'no empty cells');
	for (const [, l] of empty) check(Math.abs(l - plot) < 0.002, `empty cell luminance ${l} vs plot ${plot}`);
	monotonic(pairs, true, 'dark default scale');
	const max = pairs.reduce((m, p) => (p[0] > m[0] ? p : m));
	check(max[1] - plot > 0.15, 'the largest cell barely stands out: ' + max[1]);
	await page.check('#enhanced');
	await page.waitForFunction(() => window.flamepipe.state.enhanced);
	monotonic(await cellLuminance(page), true, 'dark enhanced scale');
	const legend = await page.$$eval('#legend .swatch', (s) => s.map((e) => window.colour.lum(window.colour.parse(getComputedStyle(e).backgroundColor))));
	for (let i = 1; i < legend.length; i++) check(legend[i] > legend[i - 1], 'legend swatches not lighter left to right: ' + legend.join());
	await shot(page, 'views2-dark-03-enhanced');
	await page.uncheck('#enhanced');
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE }));
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.state.file === n && window.flamepipe.flame.data.root.total > 1000, FILE);
});

await step('dark flame graph: frame names readable on their frames (faded ancestors of a zoom too), frames stand out from the pane', async () => {
	framesReadable(await frameContrasts(page, '#flame'), 'flame graph');
	await page.fill('#search', 'hash');
	await page.waitForFunction(() => document.querySelectorAll('#flame g.frame.match').length > 0);
	framesReadable(await frameContrasts(page, '#flame'), 'flame graph with search matches');
	await page.fill('#search', '');
	// zoomed: the ancestors are drawn faded (half transparent) over the pane
	await page.evaluate(() => { const d = window.flamepipe.flame.data; window.flamepipe.flame.zoom(d.root.kids[0].kids[0]); });
	const faded = await page.evaluate(() => {
		const pane = window.colour.behind(document.getElementById('flame-wrap'));
		return [...document.querySelectorAll('#flame g.frame.faded')].filter((g) => g.querySelector('text')).map((g) => {
			const f = window.colour.parse(getComputedStyle(g.querySelector('rect')).fill);
			const a = Number(getComputedStyle(g.querySelector('rect')).opacity);
			const seen = pane.map((v, k) => v * (1 - a) + f[k] * a);
			return window.colour.contrast(window.colour.parse(getComputedStyle(g.querySelector('text')).fill), seen);
		});
	});
	check(faded.length > 0, 'no faded frame with a name');
	check(faded.every((r) => r >= TEXT_MIN), 'faded frame names under 4.5:1: ' + faded.map((r) => r.toFixed(2)).join());
	await page.evaluate(() => window.flamepipe.flame.zoom(null));
});

await step('dark differential: frame names readable on grey, red, blue and orange frames', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE, start: '1', end: '3', cfile: FILE, cstart: '3', cend: '6' }));
	await page.waitForSelector('#flame-tabs:not([hidden])');
	await page.waitForFunction(() => window.flamepipe.flame.diff && document.querySelectorAll('#flame g.frame').length > 10);
	const fr = await frameContrasts(page, '#flame');
	framesReadable(fr, 'differential');
	check(new Set(fr.map((f) => f.fill)).size > 3, 'the differential has one colour');
	await shot(page, 'views2-dark-04-differential');
});

await step('light page: the heatmap gets darker with every count; texts and differential frame names readable; a switch to dark redraws', async () => {
	const light = await pageAt(1366, 768, 'light');
	shootOnFailure(light, 'views2-dark-light');
	await light.goto(srv.url + '#/profile?' + new URLSearchParams({ file: RAMP, rows: '10' }));
	await waitCells(light);
	monotonic(await cellLuminance(light), false, 'light default scale');
	noLowContrast(await textContrasts(light), 'light page');
	await shot(light, 'views2-dark-05-light');
	// the system setting changes while the page is open: the heatmap follows
	await light.emulateMedia({ colorScheme: 'dark' });
	await light.waitForFunction(() => window.flamepipe.drawnCells().every((c, t) => window.flamepipe.state.heat.cells[t] || c !== '255,255,255'));
	monotonic(await cellLuminance(light), true, 'after switching to dark');
	await light.emulateMedia({ colorScheme: 'light' });
	await light.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE, start: '1', end: '3', cfile: FILE, cstart: '3', cend: '6' }));
	await light.waitForFunction(() => window.flamepipe.flame.diff && document.querySelectorAll('#flame g.frame').length > 10);
	const fr = await frameContrasts(light, '#flame');
	const bad = fr.filter((f) => f.text !== null && f.text < TEXT_MIN);
	check(!bad.length, 'light differential: frame names under 4.5:1: ' + bad.slice(0, 5).map((f) => `${f.name} on ${f.fill}`).join('; '));
	eq(light.pageErrors.join('; '), '', 'page errors (light page)');
});

await step('dark at 390 px wide: texts readable, nothing wider than the screen', async () => {
	const phone = await pageAt(390, 844, 'dark');
	shootOnFailure(phone, 'views2-dark-phone');
	await phone.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE }));
	await waitCells(phone);
	await phone.waitForFunction(() => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total > 0);
	noLowContrast(await textContrasts(phone), 'dark page at 390 px');
	eq(await phone.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, 'page wider than the screen');
	await shot(phone, 'views2-dark-06-390px');
	eq(phone.pageErrors.join('; '), '', 'page errors (phone)');
});

await step('no script errors on the page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
