// Page state, the URL hash that holds it, the status line and the error banner.

import { qs } from './api.js';
import { $, FILTER_KEYS, ROWS_DEFAULT, nsToSec, text } from './util.js';

export function showError(msg) {
	var e = $('error');
	if (!msg) { e.hidden = true; text(e, ''); return; }
	text(e, msg);
	e.hidden = false;
}
// A failed request keeps the last good views on screen; what was wrong is
// said next to the control that caused it when the server names it (a 400
// "include: ..." is the filter form's), else in the banner.
var CONTROL_ERRORS = { filters: 'filters-error', event: 'filters-error' };
export function showRequestError(what, e) {
	var m = /^400: (\w+): /.exec(e.message || '');
	var spot = null;
	if (m && FILTER_KEYS.indexOf(m[1]) >= 0) spot = CONTROL_ERRORS.filters;
	else if (m && m[1] === 'allevents') spot = CONTROL_ERRORS.event;
	if (!spot) { showError(what + ': ' + e.message); return; }
	var s = $(spot);
	text(s, e.message.replace(/^400: /, '') + ' \u2014 the views still show the last good result');
	s.hidden = false;
	if (spot === CONTROL_ERRORS.filters) $('filters-box').open = true;
}
export function clearControlErrors() {
	var s = $(CONTROL_ERRORS.filters);
	s.hidden = true;
	text(s, '');
}
export function setStatus(msg) { text($('status'), msg || ''); }

// ---- state and URL ---------------------------------------------------------------
// The hash holds everything needed to come back to a view:
//   #/                          file list
//   #/profile?file=F&rows=50&start=S&end=E&pid=..&s=REGEX&cfile=F2&cstart=..&cend=..
export var st = {
	view: null,
	file: null, rows: ROWS_DEFAULT, enhanced: false,
	filters: {},
	allEvents: false,
	order: 'weight',	// flame graph children: 'weight' (left-heavy) or 'name'
	flip: false,		// differential drawn the other way round
	fview: 'flame',		// flame pane: 'flame' graph, 'sandwich', 'tree' or 'chart'
	ctMode: 'top',		// the call tree: 'top'-down or 'bottom'-up
	sandwich: '',		// the function picked in the sandwich view
	multiples: false,	// small multiples: false, 'pid' (a heatmap strip per process) or 'tid' (per thread)
	sel: null,		// {from, to} ns on the heatmap axis, to exclusive
	pending: null,		// first clicked cell index, waiting for the second
	cmp: null,		// {file, from, to} second selection, or null
	picking: false,		// next two clicks choose the second range
	pickFile: null,		// heatmap shown while picking in another file
	heat: null,		// heatmap in use (see loadHeatmap)
	search: '', searchCase: false, icicle: false, tab: 'diff',
	zoom: '',		// zoomed frame as "comm;frame;...", kept across selections
	files: [],
	live: false, es: null,
	liveFetching: false, liveQueue: [], liveReady: false	// see openLive
};
export var gen = { heat: 0, flame: 0, view: 0 };	// drop responses of superseded requests

export function parseHash() {
	var h = location.hash.replace(/^#/, '') || '/';
	var q = h.indexOf('?');
	return { path: q < 0 ? h : h.slice(0, q), params: new URLSearchParams(q < 0 ? '' : h.slice(q + 1)) };
}
export function writeHash() {
	if (st.view !== 'profile') return;
	var p = { file: st.file };
	if (st.rows !== ROWS_DEFAULT) p.rows = st.rows;
	if (st.enhanced) p.enhanced = 1;
	if (st.sel) {
		if (st.sel.from !== null) p.start = nsToSec(st.sel.from);
		if (st.sel.to !== null) p.end = nsToSec(st.sel.to);
	}
	FILTER_KEYS.forEach(function (k) { if (st.filters[k]) p[k] = st.filters[k]; });
	if (st.cmp) {
		p.cfile = st.cmp.file;
		if (st.cmp.from !== null) p.cstart = nsToSec(st.cmp.from);
		if (st.cmp.to !== null) p.cend = nsToSec(st.cmp.to);
		if (st.cmp.from === null && st.cmp.to === null) p.cwhole = 1;
	}
	if (st.allEvents) p.allevents = 1;
	if (st.order !== 'weight') p.order = st.order;
	if (st.flip) p.flip = 1;
	if (st.fview !== 'flame') p.fv = st.fview;
	if (st.sandwich) p.sw = st.sandwich;
	if (st.ctMode !== 'top') p.ct = st.ctMode;
	if (st.search) p.s = st.search;
	if (st.icicle) p.icicle = 1;
	if (st.zoom) p.z = st.zoom;
	history.replaceState(null, '', '#/profile?' + qs(p));
}

export function selectionParams(sel) {
	var p = {};
	if (sel && sel.from !== null) p.start = nsToSec(sel.from);
	if (sel && sel.to !== null) p.end = nsToSec(sel.to);
	return p;
}
export function filterParams() {
	var p = {};
	FILTER_KEYS.forEach(function (k) { if (st.filters[k]) p[k] = st.filters[k]; });
	if (st.allEvents) p.allevents = 1;
	return p;
}
