// Fetching the flame graph(s) of the current selection and compare state.

import { API, getJSON, qs } from './api.js';
import { showTab } from './compare.js';
import { fg } from './flamegraph.js';
import { baselineDrawing } from './baseline.js';
import { liveTree } from './live.js';
import { filterParams, gen, selectionParams, setStatus, showError, showRequestError, st } from './state.js';
import { $, fmtRange, merge, prefixed, text } from './util.js';

// Fetches the flame graph(s) for the current selection and compare state.
export var trees = { a: null, b: null, diff: null, elided: null };
export function flameURL(file, sel) {
	return API.flamegraph + '?' + qs(merge({ filename: file }, selectionParams(sel), filterParams()));
}
export function svgURL(file, sel) {
	return API.svg + '?' + qs(merge({ filename: file }, selectionParams(sel), filterParams()));
}
export function loadFlame(opts) {
	var g = ++gen.flame;
	var sel = st.sel || { from: null, to: null };
	setStatus('loading flame graph\u2026');
	var link = $('svg-link');
	link.href = svgURL(st.file, sel);
	// a live capture: its whole profile is the chain's snapshot, ranges
	// and filters come from its recording (live.js)
	if (st.live && baselineDrawing()) { setStatus(''); return Promise.resolve(); }	// baseline.js draws
	var first = st.live ? liveTree(sel) : getJSON(flameURL(st.file, sel));
	if (!st.cmp) {
		$('flame-tabs').hidden = true;
		return first.then(function (tree) {
			if (g !== gen.flame) return;
			setStatus('');
			trees = { a: tree, b: null, diff: null, elided: null };
			var what = st.sel ? fmtRange(sel.from, sel.to) : (st.live ? 'whole capture' : 'whole profile');
			var running = st.live && !(st.heat && st.heat.ended);
			var filtered = Object.keys(st.filters).length ? ', ' + Object.keys(st.filters).map(function (k) { return k + '=' + st.filters[k]; }).join(', ') : '';
			text($('flame-title'), (running ? 'Live flame graph: ' : 'Flame graph: ') + what + filtered);
			fg.set(tree);
		}).catch(function (e) {
			if (g !== gen.flame) return;
			setStatus('');
			// the last good flame graph stays on screen
			showRequestError('flame graph', e);
		});
	}
	// Compare: the differential graph draws the second selection (B) with
	// each frame coloured by its change from the first (A): the server's
	// filename is B, compareFilename A. The elided view is A's frames that
	// B does not have (they cannot appear in B's shape).
	var c = st.cmp;
	var both = qs(merge({ filename: c.file }, selectionParams(c), filterParams(),
			    prefixed('compare', merge({ filename: st.file }, selectionParams(sel)))));
	// Flip: the first range drawn, coloured by its change from the second
	var flipped = qs(merge({ filename: st.file }, selectionParams(sel), filterParams(),
			       prefixed('compare', merge({ filename: c.file }, selectionParams(c)))));
	return Promise.all([
		first,
		getJSON(flameURL(c.file, c)),
		getJSON(API.differential + '?' + both),
		getJSON(API.elided + '?' + both),
		getJSON(API.differential + '?' + flipped)
	]).then(function (r) {
		if (g !== gen.flame) return;
		setStatus('');
		trees = { a: r[0], b: r[1], diff: r[2], elided: r[3], flip: r[4] };
		$('flame-tabs').hidden = false;
		link.href = API.svg + '?' + both + '&diff=1';
		showTab();
	}).catch(function (e) {
		if (g !== gen.flame) return;
		setStatus('');
		showRequestError('compare', e);
	});
}
