// views2-panzoom.test.mjs: wheel zoom and drag pan of the flame graph and
// the flame chart (ui/panzoom.js), as in speedscope: the wheel zooms
// continuously around the pointer (the sample under the pointer stays
// under it; not a step to a frame), the zoom is bounded (never narrower
// than one sample, never wider than the graph), a drag pans by exactly
// the distance dragged and is not a click, a double-click and Escape
// reset, + - Shift+arrows and 0 do it from the keyboard; the flame chart
// does the same. On a profile of 4,000 distinct stacks (made by the
// test) a drawing while the wheel moves leaves out the frames narrower
// than a pixel, which are drawn when it stops (its time is printed, not
// checked: a loaded machine decides it).
// Screenshots: tests/artifacts/views2-panzoom-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { step, check, eq, finish, shot, waitCells, servedPage, tmpdir } from './serve-lib.mjs';

const TEST_DEADLINE_MS = 90000;
const WAIT_MS = 15000;
const FILE = 'multiproc.perf.gz';
const ZOOM_PER_WHEEL_PX = 0.0025;	// ui/panzoom.js
const EPS = 1e-6;
const BIG_STACKS = 4000;	// a moving drawing took about 20 ms, the full one 230 ms (unloaded)
const FRAME_MOVING_MIN_PX = 1, FRAME_MIN_PX = 0.1;	// ui/util.js

const dir = tmpdir('views2-panzoom');
fs.copyFileSync(path.join('examples', FILE), path.join(dir, FILE));
// 4,000 samples, each its own stack of 12 frames (a wide, deep graph)
let big = '';
for (let i = 0; i < BIG_STACKS; i++) {
	big += `bigapp 77 [000] ${(100 + i / 1000).toFixed(6)}:    1000000 cpu-clock: \n`;
	for (let d = 11; d >= 0; d--)
		big += `\t    55d0c0de${String(d).padStart(4, '0')} f${d}_${d < 4 ? i % (d * 7 + 3) : i % (d * 50 + 1)}+0x10 (/usr/bin/bigapp)\n`;
	big += '\n';
}
fs.writeFileSync(path.join(dir, 'big.perf'), big);

const { srv, page } = await servedPage('views2-panzoom', TEST_DEADLINE_MS, { dir, waitMs: WAIT_MS, stepName: 'fp-serve starts' });
const fview = () => page.evaluate(() => window.flamepipe.flameView());
const box = (sel) => page.evaluate((sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height }; }, sel);
// the sample (x in graph units) under a px offset of a view
const unitAt = (v, px) => v.range[0] + px / v.W * (v.range[1] - v.range[0]);
const width = (v) => v.range[1] - v.range[0];
// Waits until the view's start is near want: a drag's moves may reach
// the page a frame after the last one was sent (Chrome aligns pointer
// events to frames), so the view may pass through the ones before.
async function waitStart(fn, want, tol) {
	await page.waitForFunction(([fn, want, tol]) => Math.abs(window.flamepipe[fn]().range[0] - want) < tol,
				   [fn, want, tol], { timeout: WAIT_MS }).catch(() => {});
}
async function waitRange(fn, old) {
	await page.waitForFunction(([fn, old]) => {
		const v = window.flamepipe[fn]();
		return v && (v.range[0] !== old[0] || v.range[1] !== old[1]);
	}, [fn, old]);
}

let v0, svg;
await step('the whole profile is drawn, its view is the whole graph', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE }));
	await waitCells(page);
	await page.waitForFunction(() => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total > 0);
	v0 = await fview();
	eq(v0.range[0], 0, 'view start');
	eq(v0.range[1], v0.total, 'view end');
	eq(v0.moved, false, 'moved');
	svg = await box('#flame');
});

await step('the wheel zooms continuously around the pointer, not to a frame', async () => {
	// the pointer on a whole px (MouseEvent coordinates are rounded)
	const X = Math.round(svg.x + svg.w * 0.3), px = X - svg.x, y = svg.y + svg.h - 10;
	await page.mouse.move(X, y);
	let v = v0;
	const widths = [];
	for (const dy of [-100, -20, -20, -20]) {
		const u = unitAt(v, px);
		await page.mouse.wheel(0, dy);
		await waitRange('flameView', v.range);
		const nv = await fview();
		const want = width(v) * Math.exp(dy * ZOOM_PER_WHEEL_PX);
		check(Math.abs(width(nv) - want) < EPS * v0.total, `width ${width(nv)}, want ${want}`);
		check(Math.abs(unitAt(nv, px) - u) <= width(v) / v.W, `the sample under the pointer moved by more than 1 px: ${u} -> ${unitAt(nv, px)}`);
		widths.push(width(nv));
		v = nv;
	}
	eq(new Set(widths).size, widths.length, 'every wheel event gives a new width (continuous)');
	eq(await page.evaluate(() => window.flamepipe.flame.zoomed), null, 'a frame was zoomed to');
	eq(v.moved, true, 'moved');
	check(!(await page.isDisabled('#reset-zoom')), 'Reset zoom stays disabled after a wheel zoom');
	await shot(page, 'views2-panzoom-01-wheel');
	// wheeled back out by the same amount: the whole graph again
	await page.mouse.wheel(0, 160);
	await waitRange('flameView', v.range);
	const back = await fview();
	check(Math.abs(back.range[0]) < EPS * v0.total && Math.abs(back.range[1] - v0.total) < EPS * v0.total,
	      'wheeling out by as much did not give the whole graph: ' + back.range);
});

await step('the zoom is bounded: one sample fills the pane at most, the whole graph at least', async () => {
	const px = Math.round(svg.w * 0.9);
	await page.mouse.move(svg.x + px, svg.y + svg.h - 10);
	for (let i = 0; i < 20; i++) await page.mouse.wheel(0, -1000);
	await page.waitForFunction(() => { const v = window.flamepipe.flameView(); return v.range[1] - v.range[0] <= 1 + 1e-9; });
	const v = await fview();
	eq(width(v), 1, 'narrowest view (samples)');
	check(v.range[0] >= 0 && v.range[1] <= v.total, 'view outside the graph: ' + v.range);
	const drawnIn = await page.evaluate(() => Array.from(document.querySelectorAll('#flame g.frame rect')).every((r) => {
		const x = Number(r.getAttribute('x')), w = Number(r.getAttribute('width'));
		return x >= 0 && x + w <= Number(document.getElementById('flame').getAttribute('width')) + 1e-6;
	}));
	check(drawnIn, 'a frame is drawn outside the pane');
	for (let i = 0; i < 20; i++) await page.mouse.wheel(0, 1000);
	await page.waitForFunction(() => { const v = window.flamepipe.flameView(); return v.range[0] === 0 && v.range[1] === v.total; });
});

await step('a drag pans by the distance dragged and is not a click (no frame zoom)', async () => {
	const cx = svg.x + svg.w / 2, y = svg.y + svg.h - 10;
	await page.mouse.move(cx, y);
	await page.mouse.wheel(0, -400);
	await page.waitForFunction((t) => { const v = window.flamepipe.flameView(); return v.range[1] - v.range[0] < t / 2; }, v0.total);
	const v = await fview();
	await page.mouse.move(cx, y);
	await page.mouse.down();
	for (let i = 1; i <= 10; i++) await page.mouse.move(cx - 20 * i, y);
	await page.mouse.up();
	const want = v.range[0] + 200 * width(v) / v.W;
	await waitStart('flameView', want, EPS * v0.total);
	const nv = await fview();
	check(Math.abs(nv.range[0] - want) < EPS * v0.total, `view start after the drag: ${nv.range[0]}, want ${want}`);
	check(Math.abs(width(nv) - width(v)) < EPS * v0.total, 'a drag changed the zoom');
	eq(await page.evaluate(() => window.flamepipe.flame.zoomed), null, 'the drag zoomed to a frame');
	await shot(page, 'views2-panzoom-02-drag');
	// dragged far to the right: the view stops at the graph's start
	for (let k = 0; k < 3; k++) {
		await page.mouse.move(svg.x + 5, y);
		await page.mouse.down();
		for (let i = 1; i <= 10; i++) await page.mouse.move(svg.x + 5 + (svg.w - 10) * i / 10, y);
		await page.mouse.up();
	}
	await page.waitForFunction(() => window.flamepipe.flameView().range[0] === 0);
});

await step('a double-click resets the view; so does Escape', async () => {
	await page.dblclick('#flame', { position: { x: svg.w / 2, y: svg.h - 10 } });
	await page.waitForFunction(() => { const v = window.flamepipe.flameView(); return !v.moved && v.range[0] === 0 && v.range[1] === v.total; });
	eq(await page.evaluate(() => window.flamepipe.flame.zoomed), null, 'zoomed after the double-click');
	await page.mouse.move(svg.x + svg.w / 3, svg.y + svg.h - 10);
	await page.mouse.wheel(0, -300);
	await page.waitForFunction(() => window.flamepipe.flameView().moved);
	await page.keyboard.press('Escape');
	await page.waitForFunction(() => { const v = window.flamepipe.flameView(); return !v.moved && v.range[1] === v.total; });
});

await step('from the keyboard: + and - zoom around the middle, Shift+arrows pan, 0 resets', async () => {
	await page.focus('#flame');
	await page.keyboard.press('+');
	await page.waitForFunction((t) => Math.abs(window.flamepipe.flameView().range[1] - window.flamepipe.flameView().range[0] - 0.8 * t) < 1e-6 * t, v0.total);
	let v = await fview();
	check(Math.abs(v.range[0] - 0.1 * v0.total) < EPS * v0.total, '+ did not keep the middle: ' + v.range);
	await page.keyboard.press('Shift+ArrowRight');
	await waitRange('flameView', v.range);
	const nv = await fview();
	check(Math.abs(nv.range[0] - (v.range[0] + 0.1 * width(v))) < EPS * v0.total, 'Shift+ArrowRight: ' + nv.range);
	eq(await page.evaluate(() => window.flamepipe.focus()), null, 'Shift+ArrowRight moved the focus frame');
	await page.keyboard.press('-');
	await waitRange('flameView', nv.range);
	await page.keyboard.press('0');
	await page.waitForFunction(() => { const v = window.flamepipe.flameView(); return !v.moved && v.range[0] === 0 && v.range[1] === v.total; });
});

await step('a click still zooms to the frame; the wheel then moves from its span and Escape returns to it', async () => {
	const hit = await page.evaluate(() => {
		const d = window.flamepipe.flame.data;
		const n = d.root.kids.slice().sort((a, b) => b.total - a.total)[0];
		const r = document.querySelector(`#flame g.frame[data-i="${d.nodes.indexOf(n)}"] rect`).getBoundingClientRect();
		return { x: r.left + r.width / 2, y: r.top + r.height / 2, from: n.x, to: n.x + n.total, name: n.name };
	});
	await page.mouse.click(hit.x, hit.y);
	await page.waitForFunction((n) => window.flamepipe.flame.zoomed && window.flamepipe.flame.zoomed.name === n, hit.name);
	let v = await fview();
	eq(v.range.join(), [hit.from, hit.to].join(), 'view of the zoomed frame');
	await page.mouse.move(svg.x + svg.w / 2, svg.y + svg.h - 10);
	await page.mouse.wheel(0, 200);
	await waitRange('flameView', v.range);
	v = await fview();
	check(width(v) > hit.to - hit.from, 'wheeling out of a zoomed frame did not widen the view');
	await page.focus('#flame');
	await page.keyboard.press('Escape');
	await page.waitForFunction((w) => window.flamepipe.flameView().range.join() === w, [hit.from, hit.to].join());
	await page.keyboard.press('Escape');
	await page.waitForFunction(() => !window.flamepipe.flame.zoomed);
});

await step('the flame chart zooms around the pointer, pans by a drag, a click zooms to a frame, a double-click resets', async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: FILE, fv: 'chart', start: '2', end: '3' }));
	await page.waitForFunction(() => window.flamepipe.chart().length > 0 && window.flamepipe.chartView());
	const c = await box('#chart');
	const cv = () => page.evaluate(() => window.flamepipe.chartView());
	let v = await cv();
	eq(v.range.join(), [0, v.total].join(), 'chart view');
	const X = Math.round(c.x + c.w * 0.6), px = X - c.x, y = c.y + c.h - 24;
	await page.mouse.move(X, y);
	const u = unitAt(v, px);
	await page.mouse.wheel(0, -200);
	await waitRange('chartView', v.range);
	let nv = await cv();
	check(Math.abs(width(nv) - v.total * Math.exp(-200 * ZOOM_PER_WHEEL_PX)) < EPS * v.total, 'chart zoom width');
	check(Math.abs(unitAt(nv, px) - u) <= v.total / v.W, 'chart: the sample under the pointer moved by more than 1 px');
	v = nv;
	await page.mouse.down();
	for (let i = 1; i <= 5; i++) await page.mouse.move(X + 20 * i, y);
	await page.mouse.up();
	const want = Math.max(0, v.range[0] - 100 * width(v) / v.W);
	await waitStart('chartView', want, EPS * v.total);
	nv = await cv();
	check(Math.abs(nv.range[0] - want) < EPS * v.total, `chart pan: view start ${nv.range[0]}, want ${want}`);
	await shot(page, 'views2-panzoom-03-chart');
	await page.dblclick('#chart', { position: { x: px, y: c.h - 24 } });
	await page.waitForFunction(() => { const v = window.flamepipe.chartView(); return v.range[0] === 0 && v.range[1] === v.total; });
	const f = await page.evaluate(() => {
		const fr = window.flamepipe.chart().filter((f) => f.depth === 1).sort((a, b) => b.w - a.w)[0];
		const i = window.flamepipe.chart().indexOf(fr);
		const r = document.querySelector(`#chart g.frame[data-i="${i}"] rect`).getBoundingClientRect();
		return { x: r.left + r.width / 2, y: r.top + r.height / 2, from: fr.x, to: fr.x + fr.w };
	});
	await page.mouse.click(f.x, f.y);
	await page.waitForFunction((w) => window.flamepipe.chartView().range.join() === w, [f.from, f.to].join());
});

await step('Icicle puts the flame chart\'s root row at the top, as the flame graph\'s', async () => {
	const rows = () => page.evaluate(() => {
		const y = (d) => { const f = window.flamepipe.chart().findIndex((f) => f.depth === d);
			return Number(document.querySelector(`#chart g.frame[data-i="${f}"] rect`).getAttribute('y')); };
		return [y(0), y(1)];
	});
	const [r0, r1] = await rows();
	check(r0 > r1, `root row ${r0} not below its callees ${r1}`);
	await page.check('#icicle');
	await page.waitForFunction(() => { const f = window.flamepipe.chart().findIndex((f) => f.depth === 0);
		return Number(document.querySelector(`#chart g.frame[data-i="${f}"] rect`).getAttribute('y')) < 16; });
	const [i0, i1] = await rows();
	check(i0 < i1, `icicle: root row ${i0} not above its callees ${i1}`);
	await shot(page, 'views2-panzoom-04-chart-icicle');
	await page.uncheck('#icicle');
});

await step(`while the wheel zooms a ${BIG_STACKS}-stack graph, a drawing leaves out the frames narrower than a pixel; all of them are drawn when it stops`, async () => {
	await page.goto(srv.url + '#/profile?' + new URLSearchParams({ file: 'big.perf' }));
	await page.waitForFunction((n) => window.flamepipe.flame.data && window.flamepipe.flame.data.root.total === n, BIG_STACKS);
	const b = await box('#flame');
	const nodes = await page.evaluate(() => window.flamepipe.flame.data.nodes.length);
	await page.mouse.move(b.x + b.w * 0.4, b.y + b.h - 10);
	// each drawing of the flame graph: moving or settled, its time, the
	// frames it drew, and the frames at least 1 and 0.1 px wide in its view
	await page.evaluate(([movingPx, minPx]) => {
		const fg = window.flamepipe.flame, render = fg.render;
		const wider = (v, px) => fg.data.nodes.filter((n) => {
			const s = v.W / (v.range[1] - v.range[0]);
			const x0 = Math.max((n.x - v.range[0]) * s, 0), x1 = Math.min((n.x + n.total - v.range[0]) * s, v.W);
			return x1 > 0 && x0 < v.W && x1 - x0 >= px;
		}).length;
		window.drawings = [];
		fg.render = function (keep, moving) {
			const t0 = performance.now();
			render.call(fg, keep, moving);
			const ms = performance.now() - t0, v = window.flamepipe.flameView();
			window.drawings.push({ moving: !!moving, ms, drawn: document.querySelectorAll('#flame g.frame').length,
					       pixel: wider(v, movingPx), all: wider(v, minPx) });
		};
	}, [FRAME_MOVING_MIN_PX, FRAME_MIN_PX]);
	for (let i = 0; i < 12; i++) {
		const old = (await fview()).range;
		await page.mouse.wheel(0, i < 8 ? -120 : 120);
		await waitRange('flameView', old);
	}
	const all = await page.evaluate(() => window.drawings);
	const moving = all.filter((d) => d.moving), times = moving.map((d) => d.ms).sort((x, y) => x - y);
	check(moving.length >= 12, 'moving drawings: ' + moving.length);
	console.log(`# ${nodes} nodes: a drawing while the wheel zooms: median ${times[times.length >> 1].toFixed(1)} ms, max ${times[times.length - 1].toFixed(1)} ms (${times.length}); settled: ${all.filter((d) => !d.moving).map((d) => d.ms.toFixed(0)).join(', ')} ms`);
	for (const d of moving)
		eq(d.drawn, d.pixel, 'a moving drawing: the frames at least a pixel wide');
	check(moving.some((d) => d.pixel < d.all), 'some moving drawing left slivers out: ' + JSON.stringify(moving));
	// once the wheel stops, every frame at least FRAME_MIN_PX wide is drawn again
	await page.waitForFunction(() => {
		const fg = window.flamepipe.flame, v = window.flamepipe.flameView(), s = v.W / (v.range[1] - v.range[0]);
		const want = fg.data.nodes.filter((n) => Math.min(n.x + n.total, v.range[1]) - Math.max(n.x, v.range[0]) >= 0.1 / s).length;
		return document.querySelectorAll('#flame g.frame').length === want;
	});
	await shot(page, 'views2-panzoom-05-big');
});

await step('no script errors on the page', async () => {
	eq(page.pageErrors.join('; '), '', 'page errors');
});
await finish(0);
