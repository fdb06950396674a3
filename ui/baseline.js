// The live flame graph against a baseline: a small box under the flame
// graph's controls while a capture is live. The baseline is a range of this
// capture ("0-10": seconds on the heatmap axis) or a capture in the served
// directory (its file name, optionally "name 0-10"); every second the page
// asks /live/flamegraph?baseline=... for the last `window` seconds and
// lists the functions (or stacks) whose share grew and shrank most, in
// percentage points (shares, not counts: the server's render/baseline.c,
// the engine of `flamepipe live --baseline --alert`). While it compares,
// and no range or compare is selected, the flame graph is the live
// differential: the window drawn, each frame coloured by its change of
// share from the baseline (red more, blue less); stop gives the live
// flame graph back.

import { API, getJSON, qs } from './api.js';
import { loadFlame } from './flameload.js';
import { fg } from './flamegraph.js';
import { st } from './state.js';
import { $, el, text } from './util.js';

var BASELINE_REFRESH_MS = 1000;
var box = null, timer = null, busy = false, query = null, label = '';

// The flame graph is this box's (flameload.js leaves it alone meanwhile).
export function baselineDrawing() {
	return query !== null && !st.sel && !st.cmp;
}

// "0-10" | "FILE" | "FILE 0-10" -> the request's parameters, or an Error.
function parseBaseline(s, file) {
	var m = /^(?:(\S+)\s+)?(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)$/.exec(s.trim());
	var p = { name: file };
	if (m) {
		if (m[1]) p.baseline = m[1];
		p.baselineStart = m[2];
		p.baselineEnd = m[3];
	} else if (/^\S+$/.test(s.trim())) {
		p.baseline = s.trim();
	} else {
		return new Error('baseline: a range FROM-TO (seconds), a file name, or "FILE FROM-TO"');
	}
	return p;
}

function rows(table, list, sign) {
	list.forEach(function (k) {
		var tr = el('tr', sign > 0 ? 'grew' : 'shrank');
		tr.appendChild(el('td', 'num', (k.points > 0 ? '+' : '') + k.points.toFixed(1)));
		tr.appendChild(el('td', 'num', k.now.toFixed(1) + '%'));
		tr.appendChild(el('td', 'num', k.base.toFixed(1) + '%'));
		tr.appendChild(el('td', 'name', k.name));
		table.appendChild(tr);
	});
}

function show(j) {
	var out = box.querySelector('.baseline-out');
	var b = j.baseline, t = el('table');
	out.textContent = '';
	var head = el('tr');
	['points', 'now', 'baseline', b.by].forEach(function (h) { head.appendChild(el('th', '', h)); });
	t.appendChild(head);
	rows(t, b.grew, 1);
	rows(t, b.shrank, -1);
	out.appendChild(el('div', 'hint', b.now_samples + ' samples now against ' + b.samples +
			   ' in the baseline' + (j.ended ? ' (capture ended)' : '')));
	out.appendChild(t);
	if (baselineDrawing()) {
		fg.set(j.tree, { diff: true });
		text($('flame-title'), 'Live differential: the last ' + query.window + ' s against ' + label +
		     ' by share; red = a bigger share now, blue = smaller');
	}
}

function refresh() {
	if (busy || !query) return;
	busy = true;
	getJSON(API.liveFlamegraph + '?' + qs(query)).then(function (j) {
		busy = false;
		show(j);
		if (j.ended) stop();
	}, function (e) {
		busy = false;
		text(box.querySelector('.baseline-out'), e.message);
		stop();
	});
}

// Polling stops (the capture ended, or an error): the last answer stays.
function stop() {
	if (timer) clearInterval(timer);
	timer = null;
	if (box) text(box.querySelector('button'), 'compare');
}

// The user's stop: the live flame graph comes back.
function release() {
	var was = baselineDrawing();
	stop();
	query = null;
	if (was) loadFlame();
}

function start(file) {
	var f = box.querySelector('form');
	var p = parseBaseline(f.elements.baseline.value, file);
	if (p instanceof Error) { text(box.querySelector('.baseline-out'), p.message); return; }
	p.window = f.elements.window.value;
	p.by = f.elements.by.value;
	query = p;
	label = f.elements.baseline.value.trim();
	text(box.querySelector('button'), 'stop');
	refresh();
	timer = setInterval(refresh, BASELINE_REFRESH_MS);
}

// Called when a live capture is opened (file: its name) and closed (null).
export function baselineBox(file) {
	stop();
	query = null;	// another capture: its flame graph is loaded by the caller
	if (box) { box.remove(); box = null; }
	var anchor = $('flame-controls');
	if (!file || !anchor) return;
	box = el('details', 'baseline-box');
	box.id = 'baseline-box';
	box.appendChild(el('summary', '', 'baseline'));
	var f = el('form');
	f.innerHTML = '<label>against <input name="baseline" size="16" placeholder="0-10 or FILE"></label> ' +
		'<label>last <input name="window" size="3" value="5"> s</label> ' +
		'<label>by <select name="by"><option>function</option><option>stack</option></select></label> ' +
		'<button type="submit">compare</button>';
	f.addEventListener('submit', function (ev) {
		ev.preventDefault();
		if (timer) release(); else start(file);
	});
	box.appendChild(f);
	box.appendChild(el('div', 'baseline-out'));
	anchor.after(box);
}
