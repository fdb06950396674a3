// The flame chart: the selection's samples in time order (/flamechart/),
// left to right, each sample one unit wide, runs of one stack merged and
// a frame joined across consecutive samples that share it and its callers
// (flamegraph.pl --flamechart, speedscope's "time order"). Shows when
// bursts of one function happen inside the range, which a flame graph
// (sorted, merged) cannot.

import { API, getJSON, qs } from './api.js';
import { frameColor, frameGroup } from './flamegraph.js';
import { panZoom, spanPx } from './panzoom.js';
import { filterParams, gen, selectionParams, showRequestError, st } from './state.js';
import { $, FRAME_H, FRAME_MOVING_MIN_PX, clear, fmtCount, merge, nsToSec, text } from './util.js';

var CHART_MIN_W = 300;
var CHART_MIN_FRAME_PX = 0.3;	// narrower frames are not drawn
var frames = [];	// drawn: {name, depth, x, w (samples), t (ns of the first sample)}

// Frames of runs [{t, n, stack}] joined across consecutive runs.
export function chartFrames(runs) {
	var out = [], open = [], x = 0;
	function close(from, end) {
		for (var d = open.length - 1; d >= from; d--) {
			var f = open[d];
			out.push({ name: f.name, lib: f.lib, depth: d, x: f.x, w: end - f.x, t: f.t });
		}
		open.length = from;
	}
	runs.forEach(function (r) {
		var names = r.stack.split(';'), d = 0;
		while (d < open.length && d < names.length && open[d].raw === names[d]) d++;
		close(d, x);
		for (; d < names.length; d++) {
			var raw = names[d], m = /_\[([kjiw])\]$/.exec(raw);
			open.push({ raw: raw, name: m ? raw.slice(0, -4) : raw,
				    lib: m ? { k: 'kernel', j: 'jit', i: 'inlined', w: 'user' }[m[1]] : '', x: x, t: r.t });
		}
		x += r.n;
	});
	close(0, x);
	out.sort(function (a, b) { return a.depth - b.depth || a.x - b.x; });
	return { frames: out, total: x };
}

var drawn = null;	// {total, start_ns, end_ns} of the chart on screen
var view = null;	// panzoom.js state of #chart

function draw(j) {
	var c = chartFrames(j.runs || []);
	frames = c.frames;
	drawn = { total: c.total, start_ns: j.start_ns || 0, end_ns: j.end_ns || 0 };
	if (view) view.forget();
	text($('chart-title'), 'Flame chart: ' + fmtCount(c.total) + ' samples in time order, ' +
	     nsToSec(drawn.start_ns) + ' s to ' + nsToSec(drawn.end_ns) + ' s (perf time)');
	paint(false);
}
// Draws the frames in the visible range (the whole chart, or where the
// wheel and drags moved it).
function paint(keepScroll, moving) {
	var minPx = moving ? FRAME_MOVING_MIN_PX : CHART_MIN_FRAME_PX;
	var svg = $('chart');
	clear(svg);
	var W = Math.max(CHART_MIN_W, $('chart-wrap').clientWidth - 2);
	var depth = frames.reduce(function (m, f) { return Math.max(m, f.depth + 1); }, 0);
	var H = Math.max(1, depth) * FRAME_H + FRAME_H;
	svg.setAttribute('width', W);
	svg.setAttribute('height', H);
	if (!drawn || !drawn.total) return;
	var r = view ? view.range() : [0, drawn.total], frag = document.createDocumentFragment();
	frames.forEach(function (f, i) {
		var b = spanPx(f.x, f.w, r, W);
		if (!b || b.w < minPx) return;
		// root at the bottom, or with Icicle at the top (speedscope's chart)
		var y = st.icicle ? FRAME_H / 2 + f.depth * FRAME_H : H - (f.depth + 2) * FRAME_H;
		frag.appendChild(frameGroup(i, b.x, y, b.w, frameColor({ name: f.name, lib: f.lib, depth: f.depth + 1 }, null), f.name,
					    f.name + ' (' + fmtCount(f.w) + ' samples from ' + nsToSec(f.t) + ' s)'));
	});
	svg.appendChild(frag);
	if (keepScroll) return;
	var wrap = $('chart-wrap');
	wrap.scrollTop = st.icicle ? 0 : wrap.scrollHeight;
}
// Wheel zoom, drag pan and double-click reset of the chart (panzoom.js);
// clicking a frame zooms the view to its span.
export function setupChart() {
	var svg = $('chart');
	svg.setAttribute('tabindex', '0');	// + - Shift+arrows 0 (panzoom.js)
	view = panZoom({
		el: svg, wrap: $('chart-wrap'),
		extent: function () { return drawn && drawn.total ? [0, drawn.total] : null; },
		home: function () { return [0, drawn.total]; },
		draw: function (moving) { paint(true, moving); }
	});
	svg.addEventListener('click', function (ev) {
		var t = ev.target.closest && ev.target.closest('g.frame');
		if (!t) return;
		var f = frames[Number(t.getAttribute('data-i'))];
		view.zoomTo(f.x, f.x + f.w);
	});
	$('icicle').addEventListener('change', function () { if (drawn) paint(false); });
	document.addEventListener('keydown', function (ev) {
		if (ev.key === 'Escape' && st.fview === 'chart' && view.moved() &&
		    !/^(INPUT|SELECT|TEXTAREA)$/.test(ev.target.tagName)) view.reset();
	});
}
// The visible range of the chart in samples, and its width in px (tests).
export function chartView() {
	return view && drawn ? { range: view.range(), total: drawn.total, W: Number($('chart').getAttribute('width')) } : null;
}

// Loads and draws the chart of the current selection (when shown).
export function updateChart() {
	var on = st.view === 'profile' && st.fview === 'chart';
	$('chart-box').hidden = !on;
	if (!on) return;
	$('flame-wrap').hidden = true;
	if (st.live) { text($('chart-title'), 'The flame chart needs a finished capture.'); return; }
	var g = gen.flame, sel = st.sel || { from: null, to: null };
	text($('chart-title'), 'loading the flame chart\u2026');
	getJSON(API.flamechart + '?' + qs(merge({ filename: st.file }, selectionParams(sel), filterParams())))
		.then(function (j) { if (g === gen.flame) draw(j); })
		.catch(function (e) { text($('chart-title'), 'Flame chart: ' + e.message.replace(/^\d+: /, '')); showRequestError('flame chart', e); });
}
export function drawnChart() { return frames.slice(); }
