// The subsecond-offset heatmap: fetch, canvas drawing, overlay, clicks.

import { API, getJSON, qs } from './api.js';
import { endPicking } from './compare.js';
import { loadFlame } from './flameload.js';
import { filterParams, gen, setStatus, showError, showRequestError, st, writeHash } from './state.js';
import { fillEventPicker, fmtWeight } from './events.js';
import { HEAT_ENHANCED_LIGHT, heatEnhancedRGB } from './heatscale.js';
import { updateStepper } from './toolbar.js';
import { $, AXIS_LABEL_MIN_PX, CANVAS_MAX_PX, CELL_H_MAX, CELL_H_MIN, CELL_W_MAX, CELL_W_MIN, HEAT_MARGIN, HEAT_PLOT_HEIGHT, LIVE_FILTERED_REFRESH_MS, NS_PER_SEC, ROWS_CHOICES, cellOfNs, cellStartNs, clamp, clear, darkTheme, el, fmtCount, fmtMs, fmtRange, merge, nsToSec, pct, text } from './util.js';

// ---- heatmap ------------------------------------------------------------------------
// st.heat: {file, rows, ncols, base, cells (cell[col*rows+row], row 0 = start
// of the second), max, total, colmap, cut, json}
// A cut axis (the server's "cut":N, render/heatmap.h): only the seconds with
// samples are drawn, drawn column c is second colmap[c] ("columns"), and
// cell indexes are drawn indexes; colmap is null on a whole axis.
export function heatFromJSON(file, j) {
	var rows = j.rows_per_second || (j.rows ? j.rows.length : 0);
	var ncols = j.values ? j.values.length : 0;
	var cells = new Array(ncols * rows).fill(0);
	var max = 0, total = 0;
	for (var c = 0; c < ncols; c++) {
		var col = j.values[c] || [];
		// values[col] lists the column top (end of the second) first
		for (var i = 0; i < rows && i < col.length; i++) {
			var v = Number(col[i]) || 0;
			cells[c * rows + (rows - 1 - i)] = v;
			if (v > max) max = v;
			total += v;
		}
	}
	var colmap = j.cut && Array.isArray(j.columns) && j.columns.length === ncols ?
		j.columns.map(Number) : null;
	return { file: file, rows: rows, ncols: ncols, base: j.start_sec, cells: cells,
		 colmap: colmap, cut: colmap ? Number(j.cut) : 0,
		 max: j.maxvalue !== undefined ? Math.max(j.maxvalue, max) : max, total: total,
		 samples: j.samples, idle: j.idle, live: !!j.live, ended: !!j.ended,
		 filtered: !!j.filtered, allEvents: !!j.all_events,
		 events: Array.isArray(j.events) ? j.events : [],
		 eventNames: Array.isArray(j.event_names) ? j.event_names.map(String) : [], warnings: Number(j.warnings) || 0, dropped: Number(j.dropped) || 0,
		 lost: Number(j.lost) || 0, recording: j.recording || null };
}
export function heatFile() { return st.pickFile || st.file; }

// The second (since start_sec) drawn column c shows.
export function secOfCol(h, c) { return h.colmap ? h.colmap[c] : c; }
// Where cell t starts, and where it ends, in ns since start_sec.
export function heatCellStartNs(h, t) {
	if (!h.colmap) return cellStartNs(t, h.rows);
	var c = Math.floor(t / h.rows), r = t - c * h.rows;
	if (c >= h.ncols) return heatEndNs(h);
	return h.colmap[c] * NS_PER_SEC + Math.ceil(r * NS_PER_SEC / h.rows);
}
export function heatCellEndNs(h, t) {
	var c = Math.floor(t / h.rows), r = t - c * h.rows;
	return secOfCol(h, c) * NS_PER_SEC + Math.ceil((r + 1) * NS_PER_SEC / h.rows);
}
// The end of the last drawn second.
export function heatEndNs(h) {
	return h.ncols ? (secOfCol(h, h.ncols - 1) + 1) * NS_PER_SEC : 0;
}
// The cell of a time in ns. On a cut axis a time in a gap between drawn
// seconds gives the first cell after it (after: true) or the last before.
export function heatCellOfNs(h, ns, after) {
	if (!h.colmap) return cellOfNs(ns, h.rows);
	var sec = Math.floor(ns / NS_PER_SEC), m = h.colmap;
	var lo = 0, hi = m.length;	// first drawn column >= sec
	while (lo < hi) {
		var mid = (lo + hi) >> 1;
		if (m[mid] < sec) lo = mid + 1; else hi = mid;
	}
	if (lo < m.length && m[lo] === sec)
		return lo * h.rows + (cellOfNs(ns, h.rows) - sec * h.rows);
	return after ? lo * h.rows : lo * h.rows - 1;
}
export function loadHeatmap() {
	var file = heatFile();
	var g = ++gen.heat;
	setStatus('loading heatmap\u2026');
	var f = filterParams();
	// a running live capture's heatmap is the chain's (one event, no
	// filters): a filtered one is asked of its recording (recording=1)
	var rec = st.live && file === st.file && Object.keys(f).length ? { recording: 1 } : {};
	var url = API.heatmap + '?' + qs(merge({ filename: file, rows: st.rows }, f, rec));
	return getJSON(url).then(function (j) {
		if (g !== gen.heat) return;
		setStatus('');
		if (!st.heat || st.heat.file !== file) {
			// another file's grid: what the mouse pointed at is gone
			$('tooltip').hidden = true;
			hoverCell = null;
		}
		st.heat = heatFromJSON(file, j);
		// a live capture's rows come from its bucketer
		if (st.heat.live && ROWS_CHOICES.indexOf(st.heat.rows) >= 0) $('rows').value = String(st.heat.rows);
		fillEventPicker(st.heat);	// first: it says what the counts are (events.js)
		drawHeatmap();
	}).catch(function (e) {
		if (g !== gen.heat) return;
		setStatus('');
		// the last good heatmap of this file stays (another file's goes)
		if (st.heat && st.heat.file !== file) { st.heat = null; drawHeatmap(); }
		showRequestError('heatmap', e);
	});
}

// Colours: white -> red, linear to the largest cell; "enhanced" is
// FlameScope's scale (heatscale.js, heatmap.svg's too) so that small
// counts stand out.
// On a dark page (prefers-color-scheme: dark) both scales run the other
// way in lightness, from the dark plot background (empty) up to bright,
// at the same counts: every step is lighter than the one before
// (luminance rises with the count), so more samples still stand out most.
export var HEAT_LIGHT = { empty: [255, 255, 255], hi: [255, 0, 0], stops: HEAT_ENHANCED_LIGHT };
export var HEAT_DARK = { empty: [34, 35, 38], hi: [255, 72, 48],	// empty = --plot-bg of the dark theme
			 stops: [[34, 35, 38], [132, 30, 84], [204, 52, 52], [244, 132, 40], [252, 234, 140]] };
export function heatScale() { return darkTheme() ? HEAT_DARK : HEAT_LIGHT; }
export function heatRGB(v, max) {
	var sc = heatScale();
	if (!v || !max) return sc.empty.slice();
	var t = clamp(v / max, 0, 1);
	if (!st.enhanced)
		return [0, 1, 2].map(function (k) { return Math.round(sc.empty[k] + (sc.hi[k] - sc.empty[k]) * t); });
	return heatEnhancedRGB(v, max, sc.stops);
}
export function heatColor(v, max) { return 'rgb(' + heatRGB(v, max).join(',') + ')'; }

// The grid is drawn on a canvas (a 10-minute capture at 100 rows is 60,000
// cells: far too many DOM elements); a second canvas on top holds the
// selections, the pending click and the hover box, so moving the mouse or
// selecting never repaints the cells.
export var heatGeom = null;	// {x0, y0, cw, ch, pw, ph, W, H, rows, ncols, max, enhanced}
// A colour of the page's theme (app.css custom properties), for canvases.
export function cssVar(name, fallback) {
	var v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
	return v || fallback;
}
export function canvasSize(cv, W, H) {
	var dpr = window.devicePixelRatio || 1;
	cv.width = Math.round(W * dpr);
	cv.height = Math.round(H * dpr);
	cv.style.width = W + 'px';
	cv.style.height = H + 'px';
	var ctx = cv.getContext('2d');
	ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
	return ctx;
}
export function drawHeatmap() {
	var cv = $('heatmap'), ov = $('heat-overlay');
	var h = st.heat;
	if (!h || !h.rows || !h.ncols) {
		canvasSize(cv, 0, 0);
		canvasSize(ov, 0, 0);
		canvasSize($('heat-yaxis'), 0, 0);
		heatGeom = null;
		updateHeatTitle();
		text($('heat-info'), h ? 'No samples.' : '');
		clear($('legend'));
		return;
	}
	var wrap = $('heat-wrap');
	var avail = Math.max(200, wrap.clientWidth - HEAT_MARGIN.left - HEAT_MARGIN.right - 2);
	// narrow cells for long captures, so the canvas stays under the
	// browsers' size limit (1 px per second beyond 4.5 hours is clipped)
	var wmin = Math.max(1, Math.min(CELL_W_MIN, Math.floor(CANVAS_MAX_PX / h.ncols)));
	var cw = clamp(Math.floor(avail / h.ncols), wmin, CELL_W_MAX);
	var ch = clamp(Math.floor(HEAT_PLOT_HEIGHT / h.rows), CELL_H_MIN, CELL_H_MAX);
	var pw = cw * h.ncols, ph = ch * h.rows;
	var g = heatGeom = {
		x0: HEAT_MARGIN.left, y0: HEAT_MARGIN.top, cw: cw, ch: ch, pw: pw, ph: ph,
		W: HEAT_MARGIN.left + pw + HEAT_MARGIN.right, H: HEAT_MARGIN.top + ph + HEAT_MARGIN.bottom,
		rows: h.rows, ncols: h.ncols, max: h.max, enhanced: st.enhanced
	};
	var ctx = canvasSize(cv, g.W, g.H);
	canvasSize(ov, g.W, g.H);
	ctx.fillStyle = cssVar('--plot-bg', '#fafafa');
	ctx.fillRect(0, 0, g.W, g.H);
	ctx.strokeStyle = cssVar('--plot-line', '#ccc');
	ctx.lineWidth = 1;
	ctx.strokeRect(g.x0 - 0.5, g.y0 - 0.5, pw + 1, ph + 1);
	drawColumns(ctx, 0, h.ncols);
	drawAxes(ctx, h, g);
	// down to the plot's bottom edge only: the x labels below stay visible
	var yaH = g.y0 + g.ph + 4;
	var ya = canvasSize($('heat-yaxis'), g.x0, yaH);
	ya.fillStyle = cssVar('--plot-bg', '#fafafa');
	ya.fillRect(0, 0, g.x0, yaH);
	drawYAxis(ya, g);
	ov.setAttribute('aria-label', 'heatmap of ' + h.file + ': ' + h.ncols + ' seconds by ' + h.rows +
			' rows; click a start cell and an end cell to select a range');
	drawOverlay();
	updateHeatTitle();
	updateHeatInfo();
	updateStepper();
	$('stop-cmp').hidden = !st.cmp;
	drawLegend();
}
// Paints columns [c0, c1) with the current colour scale: one pixel per cell
// on an offscreen canvas, scaled up without smoothing (60,000 cells in a
// few milliseconds, where a fillRect per cell takes half a second).
export var cellsCanvas = null;
export function drawColumns(ctx, c0, c1) {
	var h = st.heat, g = heatGeom;
	if (!cellsCanvas || cellsCanvas.width !== h.ncols || cellsCanvas.height !== h.rows) {
		cellsCanvas = document.createElement('canvas');
		cellsCanvas.width = h.ncols;
		cellsCanvas.height = h.rows;
	}
	var n = c1 - c0;
	if (n <= 0) return;
	var octx = cellsCanvas.getContext('2d');
	var img = octx.createImageData(n, h.rows), px = img.data;
	var colors = new Map();
	for (var c = c0; c < c1; c++) {
		for (var r = 0; r < h.rows; r++) {
			var v = h.cells[c * h.rows + r];
			var col = colors.get(v);
			if (col === undefined) colors.set(v, col = heatRGB(v, h.max));
			var i = ((h.rows - 1 - r) * n + (c - c0)) * 4;
			px[i] = col[0]; px[i + 1] = col[1]; px[i + 2] = col[2]; px[i + 3] = 255;
		}
	}
	octx.putImageData(img, c0, 0);
	ctx.imageSmoothingEnabled = false;
	ctx.drawImage(cellsCanvas, c0, 0, n, h.rows, g.x0 + c0 * g.cw, g.y0, n * g.cw, g.ph);
}
// Cell t's box: x, y (top left), w, h in canvas pixels.
export function cellBox(t) {
	var g = heatGeom, c = Math.floor(t / g.rows), r = t - c * g.rows;
	return { x: g.x0 + c * g.cw, y: g.y0 + (g.rows - 1 - r) * g.ch, w: g.cw, h: g.ch };
}
// A selection [a, b] of cells "snakes" in time order: the rest of the first
// column from the start cell up, whole middle columns, the bottom of the
// last column up to the end cell: at most three rectangles.
export function snakeRects(a, b) {
	var g = heatGeom, rows = g.rows;
	var ca = Math.floor(a / rows), cb = Math.floor(b / rows), ra = a - ca * rows, rb = b - cb * rows;
	var top = g.y0, bottom = g.y0 + g.ph;
	var out = [];
	function colRect(c, r0, r1) {	// rows r0..r1 inclusive of column c
		out.push({ x: g.x0 + c * g.cw, y: bottom - (r1 + 1) * g.ch, w: g.cw, h: (r1 - r0 + 1) * g.ch });
	}
	if (ca === cb) { colRect(ca, ra, rb); return out; }
	// full first and last columns join the middle block: one outline
	var m0 = ra === 0 ? ca : ca + 1, m1 = rb === rows - 1 ? cb : cb - 1;
	if (m0 === ca + 1) colRect(ca, ra, rows - 1);
	if (m1 >= m0) out.push({ x: g.x0 + m0 * g.cw, y: top, w: (m1 - m0 + 1) * g.cw, h: g.ph });
	if (m1 !== cb) colRect(cb, 0, rb);
	return out;
}
export var hoverCell = null;
export function drawOverlay() {
	var ov = $('heat-overlay'), g = heatGeom, h = st.heat;
	if (!g || !h) return;
	var ctx = ov.getContext('2d');
	ctx.clearRect(0, 0, g.W, g.H);
	function paint(range, fill, stroke) {
		if (!range) return;
		snakeRects(range[0], range[1]).forEach(function (r) {
			ctx.fillStyle = fill;
			ctx.fillRect(r.x, r.y, r.w, r.h);
			ctx.strokeStyle = stroke;
			ctx.lineWidth = 1.5;
			ctx.strokeRect(r.x + 0.75, r.y + 0.75, r.w - 1.5, r.h - 1.5);
		});
	}
	paint(selectedCells(h, st.sel, st.file), 'rgba(31,78,216,0.22)', 'rgba(31,78,216,0.9)');
	paint(selectedCells(h, st.cmp, st.cmp && st.cmp.file), 'rgba(26,158,58,0.22)', 'rgba(26,158,58,0.9)');
	if (st.pending !== null) {
		var p = cellBox(st.pending);
		ctx.strokeStyle = '#1f4ed8';
		ctx.lineWidth = 2;
		ctx.strokeRect(p.x - 1, p.y - 1, p.w + 2, p.h + 2);
	}
	if (hoverCell !== null && hoverCell < g.ncols * g.rows) {
		var b = cellBox(hoverCell);
		ctx.strokeStyle = '#000';
		ctx.lineWidth = 1;
		ctx.strokeRect(b.x - 0.5, b.y - 0.5, b.w + 1, b.h + 1);
	}
}
// Selection state changed: only the overlay and the texts change.
export function selChanged() {
	$('stop-cmp').hidden = !st.cmp;
	drawOverlay();
	updateHeatInfo();
	updateStepper();
}
export function updateHeatTitle() {
	var h = st.heat;
	var title = $('heat-title');
	clear(title);
	if (!h) return;
	title.appendChild(el('strong', '', h.file));
	title.appendChild(document.createTextNode(
		'  ' + h.ncols + ' s' + (h.colmap ? ' with samples (' + fmtCount(h.cut) + ' empty seconds cut)' : '') +
		' \u00d7 ' + h.rows + ' rows, ' + fmtWeight(h.total) +
		(h.filtered ? ' matching the filters' : '') + eventLabel(h) +
		(h.idle ? ' (' + fmtCount(h.idle) + ' idle dropped)' : '') + ', max cell ' + fmtWeight(h.max) +
		(h.live ? (h.ended ? ' \u2014 capture ended' : h.filtered ? ' \u2014 live, filtered from its recording (updated every ' +
			(LIVE_FILTERED_REFRESH_MS / 1000) + ' s)' : ' \u2014 live') : '') +
		// a server that cannot filter the heatmap says nothing: tell the user
		(Object.keys(st.filters).length && !h.filtered ? ' (filters apply to the flame graph only)' : '')));
	// counts the user must not miss: bad input lines, samples a live
	// reader dropped because the chain fell behind (perf is never blocked)
	if (h.warnings)
		title.appendChild(el('span', 'warn', ' ' + fmtCount(h.warnings) + ' bad input line' + (h.warnings === 1 ? '' : 's') + ' skipped'));
	if (h.dropped)
		title.appendChild(el('span', 'warn', ' ' + fmtCount(h.dropped) + ' samples dropped: the live chain fell behind'));
	// a live recording that retention trimmed: say which window it kept
	if (h.recording && h.recording.retention_dropped)
		title.appendChild(el('span', 'warn', ' retention kept the newest ' + h.ncols + ' s: the oldest ' +
			fmtCount(h.recording.retention_dropped) + ' samples (' + h.recording.dropped_seconds + ' s) were dropped'));
	// damaged batches of a recording: skipped, every other batch shown
	if (h.recording && (h.recording.damaged_batches || h.recording.damaged_regions))
		title.appendChild(el('span', 'warn damaged', ' damaged recording: ' +
			fmtCount(h.recording.damaged_batches) + ' batch' + (h.recording.damaged_batches === 1 ? '' : 'es') +
			' (' + fmtCount(h.recording.damaged_samples) + ' samples) skipped in ' +
			fmtCount(h.recording.damaged_regions || h.recording.damaged_batches) + ' place' +
			((h.recording.damaged_regions || h.recording.damaged_batches) === 1 ? '' : 's') + '; the rest is shown'));
}
// ", event cpu-clock", ", all events": which event the counts are of.
export function eventLabel(h) {
	if (h.allEvents) return h.events.length > 1 ? ', all events' : '';
	var c = h.events.filter(function (e) { return e.counted; }).map(function (e) { return e.name; });
	return c.length ? ', event ' + c.join(', ') : '';
}
// The cells of a selection: [first, last] indices, or null.
export function selectedCells(h, sel, file) {
	if (!sel || file !== h.file) return null;
	var n = h.ncols * h.rows;
	if (n === 0) return null;
	// whole profile selections are not highlighted: nothing was clicked
	if (sel.from === null && sel.to === null) return null;
	var a = sel.from === null ? 0 : heatCellOfNs(h, sel.from, true);
	var b = sel.to === null ? n - 1 : heatCellOfNs(h, sel.to - 1, false);
	if (a >= n || b < a) return null;
	return [a, Math.min(b, n - 1)];
}
export function niceStep(minStep) {
	var steps = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600];
	for (var i = 0; i < steps.length; i++) if (steps[i] >= minStep) return steps[i];
	return Math.ceil(minStep / 3600) * 3600;
}
export function drawAxes(ctx, h, g) {
	ctx.strokeStyle = cssVar('--axis-line', '#888');
	ctx.fillStyle = cssVar('--axis', '#444');
	ctx.lineWidth = 1;
	ctx.font = '10px system-ui, sans-serif';
	ctx.textAlign = 'center';
	ctx.textBaseline = 'alphabetic';
	var step = niceStep(Math.ceil(AXIS_LABEL_MIN_PX / g.cw));
	var yb = g.y0 + g.ph;
	ctx.beginPath();
	for (var c = 0; c <= h.ncols; c += step) {
		var x = g.x0 + c * g.cw;
		ctx.moveTo(x + 0.5, yb); ctx.lineTo(x + 0.5, yb + 4);
		ctx.fillText(String(c < h.ncols ? secOfCol(h, c) : secOfCol(h, h.ncols - 1) + 1), x, yb + 15);
	}
	ctx.stroke();
	if (h.colmap) {	// a cut axis: a mark where empty seconds were left out
		ctx.beginPath();
		for (var k = 1; k < h.ncols; k++) {
			if (h.colmap[k] === h.colmap[k - 1] + 1) continue;
			var xg = g.x0 + k * g.cw;
			ctx.moveTo(xg - 2.5, yb + 8); ctx.lineTo(xg + 0.5, yb + 2);
			ctx.moveTo(xg + 0.5, yb + 8); ctx.lineTo(xg + 3.5, yb + 2);
		}
		ctx.stroke();
	}
	drawYAxis(ctx, g);
	ctx.fillStyle = cssVar('--fg', '#222');
	ctx.font = '11px system-ui, sans-serif';
	ctx.textAlign = 'center';
	ctx.fillText(h.colmap ? 'second (only the ' + h.ncols + ' seconds with samples: ' + h.cut +
		' empty seconds left out)' : 'second', g.x0 + g.pw / 2, yb + 29);
}
// y: millisecond offset within the second, 0 at the bottom. Drawn on the
// grid and on #heat-yaxis, which stays at the left edge when a long
// capture scrolls sideways (position: sticky).
function drawYAxis(ctx, g) {
	var yb = g.y0 + g.ph;
	ctx.strokeStyle = cssVar('--axis-line', '#888');
	ctx.fillStyle = cssVar('--axis', '#444');
	ctx.lineWidth = 1;
	ctx.font = '10px system-ui, sans-serif';
	ctx.beginPath();
	var msStep = g.ph >= 300 ? 100 : 200;
	ctx.textAlign = 'right';
	for (var ms = 0; ms <= 1000; ms += msStep) {
		var y = Math.round(yb - ms / 1000 * g.ph) + 0.5;
		ctx.moveTo(g.x0 - 4, y); ctx.lineTo(g.x0, y);
		ctx.fillText(String(ms), g.x0 - 6, y + 3.5);
	}
	ctx.stroke();
	ctx.fillStyle = cssVar('--fg', '#222');
	ctx.font = '11px system-ui, sans-serif';
	ctx.textAlign = 'center';
	ctx.save();
	ctx.translate(12, g.y0 + g.ph / 2);
	ctx.rotate(-Math.PI / 2);
	ctx.fillText('ms', 0, 0);
	ctx.restore();
}
export function drawLegend() {
	var lg = $('legend');
	clear(lg);
	var h = st.heat;
	if (!h || !h.max) return;
	lg.appendChild(el('span', '', '0 '));
	var steps = 10;
	for (var i = 0; i <= steps; i++) {
		var sw = el('span', 'swatch');
		sw.style.background = heatColor(i === 0 ? 0 : Math.max(1, h.max * i / steps), h.max);
		lg.appendChild(sw);
	}
	lg.appendChild(el('span', '', ' ' + fmtWeight(h.max) + ' per cell'));
}
export function updateHeatInfo() {
	var info = $('heat-info');
	var h = st.heat;
	if (!h) { text(info, ''); return; }
	var msg;
	if (st.pending !== null)
		msg = (st.picking ? 'Second range: ' : '') + 'start ' + nsToSec(heatCellStartNs(h, st.pending)) + ' s selected; click the end cell (Esc cancels).';
	else if (st.picking)
		msg = 'Compare: click the start cell, then the end cell of the second range' + (st.pickFile ? ' in ' + st.pickFile : '') + '.';
	else
		msg = 'Click a start cell, then an end cell, to see the flame graph of that range.';
	text(info, msg);
	updateSelReadout();
}
// The selection's length and sample count, always on screen (#sel-readout).
export function selectionCount(h, sel, file) {
	var r = selectedCells(h, sel, file);
	if (!r) return null;
	var n = 0;
	for (var t = r[0]; t <= r[1]; t++) n += h.cells[t];
	return n;
}
export function updateSelReadout() {
	var out = $('sel-readout'), h = st.heat, sel = st.sel;
	if (!h || !sel || sel.from === null || sel.to === null) {
		text(out, h ? 'Selection: whole profile, ' + fmtWeight(h.total) : '');
		out.removeAttribute('data-samples');
		return;
	}
	var n = selectionCount(h, sel, st.file);
	text(out, 'Selection: ' + fmtRange(sel.from, sel.to) + ' (' + nsToSec(sel.to - sel.from) + ' s), ' +
	     (n === null ? '?' : fmtWeight(n) + ' (' + pct(n, h.total) + ')'));
	out.setAttribute('data-samples', n === null ? '' : String(n));
}
// The cell under a mouse event, or null.
export function cellFromEvent(ev) {
	var g = heatGeom;
	if (!g) return null;
	var rect = $('heat-overlay').getBoundingClientRect();
	var x = ev.clientX - rect.left - g.x0, y = ev.clientY - rect.top - g.y0;
	if (x < 0 || y < 0 || x >= g.pw || y >= g.ph) return null;
	var c = Math.floor(x / g.cw), r = g.rows - 1 - Math.floor(y / g.ch);
	return c * g.rows + r;
}
export function setupHeatmap() {
	var ov = $('heat-overlay'), tip = $('tooltip');
	ov.addEventListener('mousemove', function (ev) {
		var t = cellFromEvent(ev);
		var h = st.heat;
		if (t !== hoverCell) { hoverCell = t; drawOverlay(); }
		if (t === null || !h) { tip.hidden = true; return; }
		showCellTip(t, ev.pageX, ev.pageY);
	});
	ov.addEventListener('mouseleave', function () {
		tip.hidden = true;
		if (hoverCell !== null) { hoverCell = null; drawOverlay(); }
	});
	ov.addEventListener('click', function (ev) {
		var t = cellFromEvent(ev);
		if (t === null || !st.heat) return;
		clickCell(t);
	});
	// Keyboard: arrows move a cursor cell (up = later in the second),
	// Enter or Space clicks it; the tooltip shows the cursor's cell.
	ov.addEventListener('keydown', function (ev) {
		var h = st.heat;
		if (!h || !h.ncols) return;
		var n = h.ncols * h.rows;
		var t = hoverCell === null ? 0 : hoverCell;
		var move = { ArrowUp: 1, ArrowDown: -1, ArrowRight: h.rows, ArrowLeft: -h.rows }[ev.key];
		if (move !== undefined) {
			t = clamp(t + move, 0, n - 1);
		} else if (ev.key === 'Enter' || ev.key === ' ') {
			if (hoverCell !== null) clickCell(hoverCell);
			ev.preventDefault();
			return;
		} else {
			return;
		}
		ev.preventDefault();
		hoverCell = t;
		drawOverlay();
		var b = cellBox(t), r = ov.getBoundingClientRect();
		showCellTip(t, r.left + window.scrollX + b.x + b.w, r.top + window.scrollY + b.y + b.h);
	});
	ov.addEventListener('blur', function () { tip.hidden = true; });
}
export function showCellTip(t, pageX, pageY) {
	var h = st.heat, tip = $('tooltip');
	var c = Math.floor(t / h.rows), r = t - c * h.rows;
	var ms0 = r * 1000 / h.rows, ms1 = (r + 1) * 1000 / h.rows;
	clear(tip);
	var sec = secOfCol(h, c);
	tip.appendChild(el('div', '', 'second ' + sec + (h.base !== undefined ? ' (perf time ' + (h.base + sec) + ')' : '')));
	tip.appendChild(el('div', '', 'ms ' + fmtMs(ms0) + '\u2013' + fmtMs(ms1)));
	tip.appendChild(el('div', '', 'count ' + h.cells[t]));
	tip.hidden = false;
	tip.style.left = (pageX + 14) + 'px';
	tip.style.top = (pageY + 14) + 'px';
}

export function clickCell(t) {
	var h = st.heat;
	if (st.pending === null) {
		st.pending = t;
		selChanged();
		return;
	}
	var a = st.pending, b = t;
	if (b < a) { var x = a; a = b; b = x; }	// reversed clicks: swap
	st.pending = null;
	var range = { from: heatCellStartNs(h, a), to: heatCellEndNs(h, b) };
	if (st.picking) {
		st.cmp = { file: heatFile(), from: range.from, to: range.to };
		st.tab = 'diff';
		endPicking();
	} else {
		st.sel = range;
	}
	writeHash();
	selChanged();
	loadFlame();
}

export function sampleCanvas(cv, alpha) {
	var g = heatGeom;
	if (!g) return [];
	var dpr = cv.width / g.W;
	var img = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
	var out = new Array(g.ncols * g.rows);
	for (var t = 0; t < out.length; t++) {
		var b = cellBox(t);
		var px = Math.floor((b.x + b.w / 2) * dpr), py = Math.floor((b.y + b.h / 2) * dpr);
		var i = (py * cv.width + px) * 4;
		out[t] = alpha ? img[i + 3] : img[i] + ',' + img[i + 1] + ',' + img[i + 2];
	}
	return out;
}
