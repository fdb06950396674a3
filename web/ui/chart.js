// The flame chart: the selection's samples in time order (/flamechart/),
// left to right, each sample one unit wide, runs of one stack merged and
// a frame joined across consecutive samples that share it and its callers
// (flamegraph.pl --flamechart, speedscope's "time order"). Shows when
// bursts of one function happen inside the range, which a flame graph
// (sorted, merged) cannot.

import { API, getJSON, qs } from './api.js';
import { frameColor } from './flamegraph.js';
import { filterParams, gen, selectionParams, showRequestError, st } from './state.js';
import { $, CHAR_W, FRAME_H, clear, fmtCount, merge, nsToSec, svgEl, text } from './util.js';

var CHART_MIN_W = 300;
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

function draw(j) {
	var svg = $('chart');
	clear(svg);
	var c = chartFrames(j.runs || []);
	frames = c.frames;
	var W = Math.max(CHART_MIN_W, $('chart-wrap').clientWidth - 2);
	var depth = frames.reduce(function (m, f) { return Math.max(m, f.depth + 1); }, 0);
	var H = Math.max(1, depth) * FRAME_H + FRAME_H;
	svg.setAttribute('width', W);
	svg.setAttribute('height', H);
	text($('chart-title'), 'Flame chart: ' + fmtCount(c.total) + ' samples in time order, ' +
	     nsToSec(j.start_ns || 0) + ' s to ' + nsToSec(j.end_ns || 0) + ' s (perf time)');
	if (!c.total) return;
	var scale = W / c.total, frag = document.createDocumentFragment();
	frames.forEach(function (f, i) {
		var w = f.w * scale;
		if (w < 0.3) return;
		var x = f.x * scale, y = H - (f.depth + 2) * FRAME_H;
		var g = svgEl('g', { 'class': 'frame', 'data-i': i });
		var t = svgEl('title');
		t.textContent = f.name + ' (' + fmtCount(f.w) + ' samples from ' + nsToSec(f.t) + ' s)';
		g.appendChild(t);
		g.appendChild(svgEl('rect', { x: x, y: y, width: Math.max(0, w - 0.5), height: FRAME_H - 1, rx: 2, ry: 2,
					      fill: frameColor({ name: f.name, lib: f.lib, depth: f.depth + 1 }, null) }));
		var chars = Math.floor((w - 6) / CHAR_W);
		if (chars >= 3) {
			var tx = svgEl('text', { x: x + 3, y: y + FRAME_H - 4 });
			tx.textContent = f.name.length <= chars ? f.name : f.name.slice(0, chars - 2) + '..';
			g.appendChild(tx);
		}
		frag.appendChild(g);
	});
	svg.appendChild(frag);
	var wrap = $('chart-wrap');
	wrap.scrollTop = wrap.scrollHeight;
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
