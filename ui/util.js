// Constants, DOM helpers and exact time arithmetic shared by every module.

// ---- constants ---------------------------------------------------------------
export var SVGNS = 'http://www.w3.org/2000/svg';
export var NS_PER_SEC = 1e9;
export var ROWS_CHOICES = [10, 25, 49, 50, 99, 100];
export var ROWS_DEFAULT = 50;
export var FILTER_KEYS = ['pid', 'tid', 'comm', 'cpu', 'event', 'include', 'exclude', 'container'];
export var HEAT_MARGIN = { left: 52, right: 8, top: 8, bottom: 34 };
export var HEAT_PLOT_HEIGHT = 420;	// px for all rows of a column, before rounding
export var CELL_W_MIN = 3, CELL_W_MAX = 24;
export var CELL_H_MIN = 4, CELL_H_MAX = 40;
export var CANVAS_MAX_PX = 16384;	// wider canvases fail in some browsers
export var AXIS_LABEL_MIN_PX = 34;	// x labels at least this far apart
export var FRAME_H = 16;		// flame graph: px per frame
export var FRAME_MIN_PX = 0.1;		// narrower frames are not drawn
export var FRAME_MOVING_MIN_PX = 1;	// nor narrower ones while a zoom or pan moves (panzoom.js)
export var FONT_PX = 12, CHAR_W = 0.59 * 12;
export var FLAME_PAD = { top: 4, bottom: 4 };
export var SEARCH_COLOR = 'rgb(230,0,230)';
export var LIVE_REDRAW_MS = 250;	// coalesce SSE cell events
export var LIVE_FOLD_REFRESH_MS = 1000;	// at most one flame graph refresh per second
export var LIVE_FILTERED_REFRESH_MS = 2000;	// live with filters: views from the recording, this often

// ---- small helpers ---------------------------------------------------------------
export function $(id) { return document.getElementById(id); }
export function svgEl(name, attrs) {
	var e = document.createElementNS(SVGNS, name);
	if (attrs)
		for (var k in attrs)
			e.setAttribute(k, attrs[k]);
	return e;
}
export function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
export function text(e, s) { e.textContent = s; return e; }
export function el(name, cls, s) {
	var e = document.createElement(name);
	if (cls) e.className = cls;
	if (s !== undefined) e.textContent = s;
	return e;
}
export function clamp(v, lo, hi) { return v < lo ? lo : v > hi ? hi : v; }
export function fmtCount(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
export function pct(n, total) { return total > 0 ? (100 * n / total).toFixed(2) + '%' : '0%'; }

// Seconds on the heatmap axis are exact: integer nanoseconds in, decimal
// strings out ("12.02" not 12.020000000000001), so a range boundary falls
// exactly on a cell boundary.
export function nsToSec(ns) {
	var s = Math.floor(ns / NS_PER_SEC), f = ns - s * NS_PER_SEC;
	if (f === 0) return String(s);
	return (s + '.' + String(f).padStart(9, '0')).replace(/0+$/, '');
}
export function secToNs(str) {
	if (str === null || str === undefined || !/^\d+(\.\d*)?$/.test(str)) return null;
	var p = str.split('.');
	var frac = ((p[1] || '') + '000000000').slice(0, 9);
	return Number(p[0]) * NS_PER_SEC + Number(frac);
}
// Start of cell t = col * rows + row: samples with offset >= ceil(row*1e9/rows)
// fall in this row (the bucketer uses floor(offset * rows / 1e9)).
export function cellStartNs(t, rows) {
	var c = Math.floor(t / rows), r = t - c * rows;
	return c * NS_PER_SEC + Math.ceil(r * NS_PER_SEC / rows);
}
export function cellOfNs(ns, rows) {
	var c = Math.floor(ns / NS_PER_SEC);
	var r = Math.floor((ns - c * NS_PER_SEC) * rows / NS_PER_SEC);
	return c * rows + r;
}
export function fmtRange(a, b) {
	return (a === null ? 'start' : nsToSec(a) + ' s') + ' \u2013 ' + (b === null ? 'end' : nsToSec(b) + ' s');
}
// FNV-1a over UTF-16 units: the same name always gets the same shade.
export function hashName(s) {
	var h = 0x811c9dc5;
	for (var i = 0; i < s.length; i++) {
		h ^= s.charCodeAt(i);
		h = Math.imul(h, 0x01000193) >>> 0;
	}
	return h;
}

// Whether the page is dark (it follows the system: prefers-color-scheme).
var darkQuery = typeof window !== 'undefined' && window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
export function darkTheme() { return !!(darkQuery && darkQuery.matches); }

// Whether white text reads better than black on the colour "rgb(r,g,b)"
// (WCAG contrast: the relative luminance is below 0.179).
export var INK_LUMINANCE = 0.179;
export function darkFill(rgb) {
	var m = /(\d+)\D+(\d+)\D+(\d+)/.exec(rgb);
	if (!m) return false;
	var c = [m[1], m[2], m[3]].map(function (v) {
		v = Number(v) / 255;
		return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
	});
	return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2] < INK_LUMINANCE;
}

export function fmtMs(ms) { return (Math.round(ms * 100) / 100).toString(); }

export function merge() {
	var o = {};
	for (var i = 0; i < arguments.length; i++)
		for (var k in arguments[i]) o[k] = arguments[i][k];
	return o;
}
// compareFilename, compareStart, ... (FlameScope's spelling)
export function prefixed(prefix, p) {
	var o = {};
	for (var k in p) o[prefix + k.charAt(0).toUpperCase() + k.slice(1)] = p[k];
	return o;
}
