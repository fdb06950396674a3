// The toolbar: rows, colours, whole profile, stepping, keyboard.

import { endPicking } from './compare.js';
import { fg } from './flamegraph.js';
import { loadFlame } from './flameload.js';
import { drawHeatmap, heatEndNs, loadHeatmap, selChanged } from './heatmap.js';
import { st, writeHash } from './state.js';
import { $ } from './util.js';

// ---- toolbar -----------------------------------------------------------------------------------------
export function setupToolbar() {
	$('rows').addEventListener('change', function () {
		st.rows = Number($('rows').value);
		st.pending = null;
		writeHash();
		loadHeatmap();
	});
	$('enhanced').addEventListener('change', function () {
		st.enhanced = $('enhanced').checked;
		writeHash();
		drawHeatmap();
	});
	$('whole').addEventListener('click', function () {
		st.sel = null; st.cmp = null; st.pending = null;
		endPicking();
		writeHash();
		selChanged();
		loadFlame();
	});
	// Stop comparing: back to the first selection's own flame graph.
	$('stop-cmp').addEventListener('click', function () {
		st.pending = null; st.cmp = null;
		endPicking();
		writeHash();
		selChanged();
		loadFlame();
	});
	$('step-back').addEventListener('click', function () { stepSelection(-1); });
	$('step-fwd').addEventListener('click', function () { stepSelection(1); });
	document.addEventListener('keydown', function (ev) {
		if (st.view !== 'profile' || /^(INPUT|SELECT|TEXTAREA)$/.test(ev.target.tagName)) return;
		if (ev.key === 'Escape' && (st.pending !== null || st.picking)) {
			st.pending = null;
			endPicking();
			selChanged();
		} else if (ev.key === '[') {
			stepSelection(-1);
		} else if (ev.key === ']') {
			stepSelection(1);
		}
	});
	// the canvases take their colours from the theme: redraw when it changes
	if (window.matchMedia)
		window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', function () {
			if (st.view === 'profile') { drawHeatmap(); fg.render(true); }
		});
	var resizeTimer = null;
	window.addEventListener('resize', function () {
		clearTimeout(resizeTimer);
		resizeTimer = setTimeout(function () {
			if (st.view === 'profile') { drawHeatmap(); fg.render(); }
		}, 150);
	});
}

// Steps through time: the selection moves by its own length, so a user can
// walk a capture window by window and watch the flame graph change.
export function stepSelection(dir) {
	var h = st.heat, sel = st.sel;
	if (!h || !sel || sel.from === null || sel.to === null) return;
	var len = sel.to - sel.from, from = sel.from + dir * len;
	var endNs = heatEndNs(h);
	if (from < 0 || from >= endNs) return;
	st.sel = { from: from, to: from + len };
	writeHash();
	selChanged();
	loadFlame();
}
export function updateStepper() {
	var h = st.heat, sel = st.sel;
	var ok = !!(h && sel && sel.from !== null && sel.to !== null);
	$('step-back').disabled = !ok || sel.from - (sel.to - sel.from) < 0;
	$('step-fwd').disabled = !ok || sel.to >= heatEndNs(h);
}
