// Compare mode: picking a second range or file, and the four tabs.

import { DIFF_NEW, DIFF_UNCHANGED, diffColor, fg } from './flamegraph.js';
import { loadFlame, trees } from './flameload.js';
import { loadHeatmap, selChanged, updateHeatInfo } from './heatmap.js';
import { st, writeHash } from './state.js';
import { $, clear, el, fmtCount, fmtRange, text } from './util.js';

// ---- compare mode ------------------------------------------------------------------------
export function fillCompareFiles() {
	var s = $('compare-file');
	clear(s);
	st.files.forEach(function (f) {
		var o = el('option', '', f.filename + (f.live ? ' (live)' : ''));
		o.value = f.filename;
		s.appendChild(o);
	});
	s.value = st.file;
}
export function startPicking() {
	st.picking = true;
	st.pending = null;
	$('compare-box').hidden = false;
	text($('compare-msg'), 'Choose the second range: click two cells, or pick another file.');
	$('compare-file').value = st.pickFile || st.file;
	updateHeatInfo();
}
export function hideCompareBox() { $('compare-box').hidden = true; }
export function endPicking() {
	st.picking = false;
	hideCompareBox();
	if (st.pickFile) {
		st.pickFile = null;
		loadHeatmap();
	}
}
export function setupCompare() {
	$('compare').addEventListener('click', startPicking);
	$('compare-cancel').addEventListener('click', function () {
		st.pending = null;
		endPicking();
		selChanged();
	});
	$('compare-file').addEventListener('change', function () {
		var f = $('compare-file').value;
		st.pickFile = f === st.file ? null : f;
		st.pending = null;
		loadHeatmap().then(updateHeatInfo);
	});
	$('compare-whole').addEventListener('click', function () {
		st.cmp = { file: $('compare-file').value, from: null, to: null };
		st.tab = 'diff';
		endPicking();
		writeHash();
		selChanged();
		loadFlame();
	});
	$('flip').addEventListener('click', function () {
		st.flip = !st.flip;
		writeHash();
		showTab();
	});
	var tabs = $('flame-tabs');
	tabs.addEventListener('click', function (ev) {
		var t = ev.target.getAttribute && ev.target.getAttribute('data-tab');
		if (!t) return;
		st.tab = t;
		showTab();
	});
}

function treeSamples(t) {
	if (!t) return 0;
	var kids = t.c || t.children || [];
	var n = Number(t.v !== undefined ? t.v : t.value) || 0;
	for (var i = 0; i < kids.length; i++) n += treeSamples(kids[i]);
	return n;
}
// The colour scale of the differential: blue (less) .. grey .. red (more),
// in self samples after scaling both sides to the same total.
var LEGEND_STEPS = 5;
function drawDiffLegend(max) {
	var lg = $('diff-legend');
	clear(lg);
	lg.appendChild(el('span', '', '\u2212' + fmtCount(max || 0) + ' '));
	for (var i = -LEGEND_STEPS; i <= LEGEND_STEPS; i++) {
		var sw = el('span', 'swatch');
		sw.style.background = diffColor(Math.round((max || 0) * i / LEGEND_STEPS), max || 0);
		sw.title = (i > 0 ? '+' : '') + Math.round((max || 0) * i / LEGEND_STEPS);
		lg.appendChild(sw);
	}
	lg.appendChild(el('span', '', ' +' + fmtCount(max || 0) + ' self samples (scaled); '));
	var nw = el('span', 'swatch');
	nw.style.background = DIFF_NEW;
	lg.appendChild(nw);
	lg.appendChild(el('span', '', ' new; '));
	var un = el('span', 'swatch');
	un.style.background = DIFF_UNCHANGED;
	lg.appendChild(un);
	lg.appendChild(el('span', '', ' unchanged'));
}
export function showTab() {
	var tabs = $('flame-tabs').querySelectorAll('button');
	for (var i = 0; i < tabs.length; i++)
		tabs[i].classList.toggle('on', tabs[i].getAttribute('data-tab') === st.tab);
	var sel = st.sel || { from: null, to: null }, c = st.cmp;
	var aName = st.file + ' ' + (st.sel ? fmtRange(sel.from, sel.to) : 'whole');
	var bName = c.file + ' ' + (c.from === null && c.to === null ? 'whole' : fmtRange(c.from, c.to));
	var t = $('flame-title');
	var na = treeSamples(trees.a), nb = treeSamples(trees.b);
	$('diff-legend').hidden = st.tab !== 'diff';
	$('flip').hidden = st.tab !== 'diff';
	if (st.tab === 'diff') {
		// the graph drawn is "this", coloured by its change from "other"
		var thisName = st.flip ? 'first' : 'second', otherName = st.flip ? 'second' : 'first';
		text(t, 'Differential: ' + thisName + ' (' + (st.flip ? aName : bName) + ', ' + fmtCount(st.flip ? na : nb) +
		     ' samples) vs ' + otherName + ' (' + (st.flip ? bName : aName) + ', ' + fmtCount(st.flip ? nb : na) +
		     ' samples); red = more in ' + thisName + ', blue = less, orange = only in ' + thisName);
		$('flip').classList.toggle('on', st.flip);
		fg.set(st.flip ? trees.flip : trees.diff, { diff: true, base: st.flip ? trees.b : trees.a });
		drawDiffLegend(fg.diffMax);
	} else if (st.tab === 'elided') {
		text(t, 'Elided frames: in first (' + aName + ') but not in second (' + bName + ')');
		fg.set(trees.elided);
	} else if (st.tab === 'b') {
		text(t, 'Second: ' + bName);
		fg.set(trees.b);
	} else {
		text(t, 'First: ' + aName);
		fg.set(trees.a);
	}
}
