// The filter form: pid, tid, comm, cpu, event, stack include/exclude.

import { loadFlame } from './flameload.js';
import { loadHeatmap } from './heatmap.js';
import { clearControlErrors, showError, st, writeHash } from './state.js';
import { $, FILTER_KEYS, text } from './util.js';

// ---- filters ----------------------------------------------------------------------------------
export function fillFilterForm() {
	var f = $('filters');
	FILTER_KEYS.forEach(function (k) { f.elements[k].value = st.filters[k] || ''; });
	var n = Object.keys(st.filters).length;
	text($('filters-active'), n ? '(' + n + ' active)' : '');
	if (n) $('filters-box').open = true;
}
export function setupFilters() {
	$('filters').addEventListener('submit', function (ev) {
		ev.preventDefault();
		var f = $('filters');
		st.filters = {};
		FILTER_KEYS.forEach(function (k) {
			var v = f.elements[k].value.trim();
			if (v) st.filters[k] = v;
		});
		applyFilters();
	});
	$('filters-reset').addEventListener('click', function () {
		st.filters = {};
		fillFilterForm();
		applyFilters();
	});
}
export function applyFilters() {
	fillFilterForm();
	showError(null);
	clearControlErrors();
	writeHash();
	loadHeatmap();
	loadFlame();
}
