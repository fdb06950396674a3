// Compare mode: picking a second range or file, and the four tabs.

import { fg } from './flamegraph.js';
import { loadFlame, trees } from './flameload.js';
import { loadHeatmap, selChanged, updateHeatInfo } from './heatmap.js';
import { st, writeHash } from './state.js';
import { $, clear, el, fmtRange, text } from './util.js';

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
	if (st.live && !st.pickFile) {
		// the live chain holds one selection at a time: the second range
		// comes from a finished capture
		var other = st.files.filter(function (f) { return !f.live; })[0];
		text($('compare-msg'), 'A live capture is compared with a finished one: pick the file and its range.');
		if (other) {
			st.pickFile = other.filename;
			loadHeatmap().then(updateHeatInfo);
		}
	}
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
	var tabs = $('flame-tabs');
	tabs.addEventListener('click', function (ev) {
		var t = ev.target.getAttribute && ev.target.getAttribute('data-tab');
		if (!t) return;
		st.tab = t;
		showTab();
	});
}

export function showTab() {
	var tabs = $('flame-tabs').querySelectorAll('button');
	for (var i = 0; i < tabs.length; i++)
		tabs[i].classList.toggle('on', tabs[i].getAttribute('data-tab') === st.tab);
	var sel = st.sel || { from: null, to: null }, c = st.cmp;
	var aName = st.file + ' ' + (st.sel ? fmtRange(sel.from, sel.to) : 'whole');
	var bName = c.file + ' ' + (c.from === null && c.to === null ? 'whole' : fmtRange(c.from, c.to));
	var t = $('flame-title');
	if (st.tab === 'diff') {
		text(t, 'Differential: second (' + bName + ') vs first (' + aName + '); red = more in second, blue = less');
		fg.set(trees.diff, { diff: true });
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
