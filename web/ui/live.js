// Live captures: SSE cell and fold events, the chain's selection.

import { API, getJSON, qs } from './api.js';
import { loadFlame } from './flameload.js';
import { drawColumns, drawHeatmap, heatGeom, loadHeatmap, updateHeatTitle } from './heatmap.js';
import { filterParams, selectionParams, setStatus, showError, st } from './state.js';
import { $, LIVE_FOLD_REFRESH_MS, LIVE_REDRAW_MS, merge, secToNs } from './util.js';

// ---- live captures --------------------------------------------------------------------------------
// The server pushes `cells` events ({ncols, maxvalue, cols: {col: [values
// top first]}}), `heatmap` when the geometry changed, `fold` when a new
// flame graph snapshot is ready, and `end`.
// A live capture has one selection, held by fp-range in the running chain:
// a new selection is written to its control FIFO (POST /live/range), and
// the flame graph is the chain's latest fold snapshot (GET /live/flamegraph).
// `reselect` false only re-reads the snapshot (after a `fold` event).
export var liveSnap = null;	// range and sequence number of the last live snapshot
export function liveTree(sel, reselect) {
	var name = st.file;
	var pick = reselect
		? getJSON(API.liveRange + '?' + qs(merge({ name: name }, selectionParams(sel), filterParams())),
			  { method: 'POST' }).catch(function (e) {
			// 409: the chain has no control FIFO; show what it has
			if (e.status === 409) { showError('live range selection unavailable: ' + e.message); return null; }
			throw e;
		})
		: Promise.resolve(null);
	return pick.then(function () {
		return getJSON(API.liveFlamegraph + '?' + qs({ name: name }));
	}).then(function (j) {
		liveSnap = { from: secToNs(j.from), to: secToNs(j.to), seq: j.seq };
		return j.tree || { n: 'root', l: '', v: 0, c: [] };
	});
}
export var liveRedraw = null, liveFoldTimer = null, liveFoldLast = 0;
export function openLive() {
	closeLive();
	if (typeof EventSource === 'undefined') return;
	var es = new EventSource(API.liveEvents + '?' + qs({ name: st.file }));
	st.es = es;
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
		});
	});
	es.addEventListener('cells', function (ev) {
		var j = parseEvent(ev);
		if (!j) return;
		if (st.liveFetching) st.liveQueue.push(j);
		else applyCells(j);
	});
	es.addEventListener('fold', function () {
		// a new snapshot of the selected range: refresh the flame graph,
		// at most once a second
		if (st.cmp) return;
		var wait = Math.max(0, liveFoldLast + LIVE_FOLD_REFRESH_MS - Date.now());
		clearTimeout(liveFoldTimer);
		liveFoldTimer = setTimeout(function () { liveFoldLast = Date.now(); loadFlame({ snapshotOnly: true }); }, wait);
	});
	es.addEventListener('stats', function (ev) {
		var j = parseEvent(ev), h = st.heat;
		if (!j || !h || !h.live || st.pickFile) return;
		if (j.samples !== undefined) h.samples = Number(j.samples) || 0;
		if (j.dropped !== undefined) h.dropped = Number(j.dropped) || 0;
		if (j.warnings !== undefined) h.warnings = Number(j.warnings) || 0;
		updateHeatTitle();
	});
	es.addEventListener('end', function () {
		if (st.heat) { st.heat.ended = true; scheduleLiveRedraw(); }
		setStatus('capture ended');
		closeLive();
	});
	es.onerror = function () { setStatus('live stream interrupted; retrying\u2026'); };
	es.onopen = function () { setStatus(''); };
}
export function applyCells(j) {
	var h = st.heat;
	if (!h || st.pickFile || !h.live) return;
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
			return;
		}
		var ctx = $('heatmap').getContext('2d');
		for (var k in dirty) drawColumns(ctx, Number(k), Number(k) + 1);
		updateHeatTitle();
	}, LIVE_REDRAW_MS);
}
export function closeLive() {
	if (st.es) { st.es.close(); st.es = null; }
	st.liveFetching = false;
	st.liveQueue = [];
	st.liveReady = false;
	liveSnap = null;
	clearTimeout(liveFoldTimer);
}
