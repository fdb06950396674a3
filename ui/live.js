// Live captures: a profile that is still growing. SSE cell, fold, stats and
// end events; the page across the session's life.

import { API, getJSON, qs } from './api.js';
import { baselineBox } from './baseline.js';
import { flameURL, loadFlame } from './flameload.js';
import { drawColumns, drawHeatmap, heatGeom, loadHeatmap, updateHeatTitle } from './heatmap.js';
import { filterParams, setStatus, st } from './state.js';
import { $, LIVE_FILTERED_REFRESH_MS, LIVE_FOLD_REFRESH_MS, LIVE_REDRAW_MS, el, fmtCount, text } from './util.js';

// The server pushes `cells` events ({ncols, maxvalue, cols: {col: [values
// top first]}}), `heatmap` when the geometry changed, `fold` when a new
// snapshot of the whole capture is ready, `stats` (samples, dropped, lost),
// and `end`.
// Range and filter queries are this page's own: they go to /flamegraph/
// like a file's, and the server answers them from the capture's recording,
// per request, so no other viewer and not the running chain sees them.
// The whole unfiltered profile is the chain's snapshot (/live/flamegraph),
// refreshed on `fold` events.
var LIVE_ERRORS_MAX = 5;	// failed reconnections before giving up
var FOLLOW_SLACK_PX = 4;	// "at the newest column" tolerance

function wholeProfile(sel) {
	return (!sel || (sel.from === null && sel.to === null)) && !Object.keys(filterParams()).length;
}
export function liveTree(sel) {
	if (!wholeProfile(sel))
		return getJSON(flameURL(st.file, sel));
	return getJSON(API.liveFlamegraph + '?' + qs({ name: st.file })).then(function (j) {
		return j.tree || { n: 'root', l: '', v: 0, c: [] };
	});
}

export var liveRedraw = null, liveFoldTimer = null, liveFoldLast = 0, liveErrors = 0;
// The whole capture's flame graph, refreshed on `fold` events: one load at
// a time, the next no sooner than LIVE_FOLD_REFRESH_MS after the last one
// started nor than twice its cost (a system-wide capture's tree can take
// seconds to fetch and draw: a load started every second would replace each
// one before it is drawn, and nothing would be shown until the end).
var liveFoldBusy = false, liveFoldPending = false, liveFoldCost = 0;
function liveFoldRefresh() {
	if (liveFoldBusy) { liveFoldPending = true; return; }
	var wait = Math.max(0, liveFoldLast + Math.max(LIVE_FOLD_REFRESH_MS, 2 * liveFoldCost) - Date.now());
	clearTimeout(liveFoldTimer);
	liveFoldTimer = setTimeout(function () {
		var t0 = Date.now();
		liveFoldBusy = true;
		liveFoldPending = false;
		liveFoldLast = t0;
		Promise.resolve(loadFlame()).then(function () {
			liveFoldBusy = false;
			liveFoldCost = Date.now() - t0;
			if (liveFoldPending && st.es) liveFoldRefresh();
		});
	}, wait);
}
// With filters (another event, a comm...) and no range, a running live
// capture's heatmap and flame graph come from its recording: asked again
// every LIVE_FILTERED_REFRESH_MS while it runs (the SSE cells and fold
// events are the chain's: unfiltered).
var filteredTimer = null, filteredBusy = false;
function refreshFiltered() {
	if (filteredBusy || !st.es || !st.heat || !st.heat.live || st.heat.ended || st.cmp || st.pickFile ||
	    !Object.keys(filterParams()).length || (st.sel && (st.sel.from !== null || st.sel.to !== null))) return;
	filteredBusy = true;
	Promise.all([loadHeatmap(), loadFlame()]).then(function () { filteredBusy = false; });
}
export function openLive() {
	closeLive();
	if (typeof EventSource === 'undefined') return;
	var es = new EventSource(API.liveEvents + '?' + qs({ name: st.file }));
	st.es = es;
	baselineBox(st.file);
	liveErrors = 0;
	filteredTimer = setInterval(refreshFiltered, LIVE_FILTERED_REFRESH_MS);
	follow.on = true;
	// `heatmap` opens every connection (and reconnection) and marks a
	// geometry change: the full state is fetched again. Cells events that
	// arrive meanwhile are kept and applied on top of the fetched state
	// (they carry absolute values, so applying one twice is harmless).
	es.addEventListener('heatmap', function () {
		st.liveFetching = true;
		st.liveQueue = [];
		loadHeatmap().then(function () {
			st.liveFetching = false;
			var q = st.liveQueue;
			st.liveQueue = [];
			q.forEach(applyCells);
			st.liveReady = true;
			followNow();
			updateLiveStats();
		});
	});
	es.addEventListener('cells', function (ev) {
		var j = parseEvent(ev);
		if (!j) return;
		if (st.liveFetching) st.liveQueue.push(j);
		else applyCells(j);
	});
	es.addEventListener('fold', function () {
		// a new snapshot of the whole capture: refresh the flame graph
		// when it shows the whole capture, at most once a second; with
		// filters (another event...) both views come from the recording:
		// asked again every LIVE_FILTERED_REFRESH_MS
		if (st.cmp || !wholeProfile(st.sel)) return;
		liveFoldRefresh();
	});
	es.addEventListener('stats', function (ev) {
		var j = parseEvent(ev), h = st.heat;
		if (!j || !h || !h.live || st.pickFile) return;
		if (j.samples !== undefined) h.samples = Number(j.samples) || 0;
		if (j.dropped !== undefined) h.dropped = Number(j.dropped) || 0;
		if (j.lost !== undefined) h.lost = Number(j.lost) || 0;
		if (j.warnings !== undefined) h.warnings = Number(j.warnings) || 0;
		updateHeatTitle();
		updateLiveStats();
	});
	es.addEventListener('end', function () {
		closeLive(true);
		liveEnded();
	});
	// The server went away (or restarts): EventSource retries by itself;
	// a few failures in a row and the page stops and says so.
	es.onerror = function () {
		if (++liveErrors >= LIVE_ERRORS_MAX) {
			closeLive();
			setStatus('live stream lost: the server does not answer');
			return;
		}
		setStatus('live stream interrupted; retrying\u2026');
	};
	es.onopen = function () { liveErrors = 0; setStatus(''); };
}

// The capture ended: said once, no more retries, no LIVE badge; the page
// stays on the recording, where filters now apply to the heatmap too.
export function liveEnded() {
	var h = st.heat;
	if (h) h.ended = true;
	$('live-badge').hidden = true;
	var jump = $('live-now');
	if (jump) jump.hidden = true;
	var heat = Object.keys(st.filters).length ? loadHeatmap() : Promise.resolve(scheduleLiveRedraw());
	var flame = !st.cmp && wholeProfile(st.sel) ? loadFlame() : Promise.resolve();
	updateLiveStats();
	// said once, after the reloads (they clear the status line)
	Promise.all([heat, flame]).then(function () {
		updateLiveStats();
		setStatus('capture ended: ranges, filters and compare now read its recording');
	});
}

export function applyCells(j) {
	var h = st.heat;
	if (!h || st.pickFile || !h.live || h.filtered) return;
	// a cut axis (heatmap.js colmap): cells events name real seconds, not
	// drawn columns; the heatmap is the one loaded (reload to update)
	if (h.colmap) return;
	var ncols = Math.max(h.ncols, Number(j.ncols) || 0);
	if (ncols > h.ncols) {
		for (var i = h.ncols * h.rows; i < ncols * h.rows; i++) h.cells.push(0);
		h.ncols = ncols;
	}
	var cols = j.cols || {};
	for (var k in cols) {
		var c = Number(k), vals = cols[k];
		if (!(c >= 0 && c < h.ncols)) continue;
		for (var r = 0; r < h.rows && r < vals.length; r++)
			h.cells[c * h.rows + (h.rows - 1 - r)] = Number(vals[r]) || 0;
		liveDirty[c] = true;
	}
	h.max = 0; h.total = 0;
	for (var q = 0; q < h.cells.length; q++) {
		if (h.cells[q] > h.max) h.max = h.cells[q];
		h.total += h.cells[q];
	}
	scheduleLiveRedraw();
}
export function parseEvent(ev) { try { return JSON.parse(ev.data); } catch (e) { return null; } }
// Same geometry and colour scale: only the changed columns are recoloured;
// otherwise (new columns, new maximum) the grid is drawn again.
export var liveDirty = {};
export function scheduleLiveRedraw() {
	if (liveRedraw) return;
	liveRedraw = setTimeout(function () {
		liveRedraw = null;
		var h = st.heat, g = heatGeom, dirty = liveDirty;
		liveDirty = {};
		if (!h || !g || g.ncols !== h.ncols || g.rows !== h.rows || g.max !== h.max ||
		    g.enhanced !== st.enhanced) {
			drawHeatmap();
		} else {
			var ctx = $('heatmap').getContext('2d');
			for (var k in dirty) drawColumns(ctx, Number(k), Number(k) + 1);
			updateHeatTitle();
		}
		followNow();
		updateLiveStats();
	}, LIVE_REDRAW_MS);
}

// ---- following the newest second --------------------------------------------------------
// While live, the heatmap keeps its newest column in view unless the user
// scrolled back; "Jump to now" brings it back and follows again.
var follow = { on: true, programmatic: false, bound: false };
function atNewest(w) { return w.scrollLeft + w.clientWidth >= w.scrollWidth - FOLLOW_SLACK_PX; }
function liveRunning() { return st.live && st.heat && st.heat.live && !st.heat.ended && !st.pickFile; }
function jumpButton() {
	var b = $('live-now');
	if (b) return b;
	b = el('button', '', 'Jump to now');
	b.id = 'live-now';
	b.type = 'button';
	b.hidden = true;
	b.title = 'show the newest second and follow it again';
	b.addEventListener('click', function () { follow.on = true; followNow(); });
	$('heat-wrap').parentNode.insertBefore(b, $('heat-wrap'));
	return b;
}
function bindScroll() {
	if (follow.bound) return;
	follow.bound = true;
	$('heat-wrap').addEventListener('scroll', function () {
		if (follow.programmatic) { follow.programmatic = false; return; }
		if (!liveRunning()) return;
		follow.on = atNewest($('heat-wrap'));
		jumpButton().hidden = follow.on;
	});
}
export function followNow() {
	bindScroll();
	var w = $('heat-wrap'), b = jumpButton();
	if (!liveRunning()) { b.hidden = true; return; }
	b.hidden = follow.on;
	if (follow.on && !atNewest(w)) {
		follow.programmatic = true;
		w.scrollLeft = w.scrollWidth;
	}
}

// ---- duration, rate, lost, dropped ----------------------------------------------------------
function liveStatsBox() {
	var d = $('live-stats');
	if (d) return d;
	d = el('div', '', '');
	d.id = 'live-stats';
	$('heat-title').parentNode.insertBefore(d, $('heat-title').nextSibling);
	return d;
}
export function updateLiveStats() {
	var h = st.heat, d = liveStatsBox();
	if (!st.live || !h || !h.live || st.pickFile) { d.hidden = true; return; }
	d.hidden = false;
	var samples = Number(h.samples) || 0, dropped = Number(h.dropped) || 0;
	var all = samples + dropped, secs = h.ncols || 0;
	text(d, (h.ended ? 'Capture ended: ' : 'Live: ') + secs + ' s, ' + fmtCount(samples) +
	     ' samples read (' + (secs ? (samples / secs).toFixed(1) : '0') + '/s), ' +
	     fmtCount(dropped) + ' dropped (' + (all ? (100 * dropped / all).toFixed(1) : '0.0') +
	     '%), ' + fmtCount(Number(h.lost) || 0) + ' lost by perf' +
	     (h.idle ? ', ' + fmtCount(h.idle) + ' idle' : '') +
	     (h.recording ? (h.recording.retention_dropped
		? '; its recording dropped the oldest ' + fmtCount(h.recording.retention_dropped) +
		  ' samples (' + h.recording.dropped_seconds + ' s) by retention'
		: '; recorded in full') : ''));
	d.setAttribute('data-samples', String(samples));
	d.setAttribute('data-dropped', String(dropped));
	d.setAttribute('data-lost', String(Number(h.lost) || 0));
}

// keepBaseline: the capture ended, its baseline box stays (its last answer)
export function closeLive(keepBaseline) {
	if (!keepBaseline) baselineBox(null);
	if (st.es) { st.es.close(); st.es = null; }
	st.liveFetching = false;
	st.liveQueue = [];
	st.liveReady = false;
	clearTimeout(liveFoldTimer);
	liveFoldPending = false;
	clearInterval(filteredTimer);
	filteredTimer = null;
}
