// Containers: a picker of the heaviest containers (samples and share, from
// /threads/'s "containers": each sample's cgroup named as a person knows
// it, docker-<id>, pod-<uid>/<id>, a systemd unit) that filters both views
// to the ones checked (the container filter), and small multiples: one
// heatmap strip per container on the heatmap's time axis. Shown when the
// capture has cgroups (perf record --all-cgroups; flamepipe live asks for
// them), in the file and the live views alike.

import { API, getJSON, qs } from './api.js';
import { applyFilters } from './filters.js';
import { heatGeom } from './heatmap.js';
import { gen, showRequestError, st } from './state.js';
import { stripCanvas } from './threads.js';
import { $, clear, el, fmtCount, merge, pct, text } from './util.js';

var PICKER_ROWS = 12;		// containers listed
var STRIPS_MAX = 8;		// small multiples: heaviest containers drawn
var NO_CGROUP = '(no cgroup)';	// the samples without one ("" from the server)
var LIVE_RETRY_MS = 3000;	// live, no container seen yet: ask again this often

var last = null;		// the /threads/ answer on screen
var strips = [];		// [{name, total, ncols, start_sec, cols}] drawn
var multiples = false;

function eventParams() {
	var p = {};
	if (st.allEvents) p.allevents = 1;
	if (st.filters.event) p.event = st.filters.event;
	return p;
}

// The container filter of a set of names: the name itself, or the names
// as one whole-match regex (fp_container.h: the filter matches the whole
// name), each escaped; pickedOf reads one back.
function escapeRe(s) { return s.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&'); }
function unescapeRe(s) { return s.replace(/\\(.)/g, '$1'); }
export function containerFilterOf(names) {
	if (names.length === 1) return names[0];
	return '(?:' + names.map(escapeRe).join('|') + ')';
}
function pickedOf(value) {
	if (!value) return [];
	var m = /^\(\?:(.*)\)$/.exec(value);
	if (!m) return [value];
	return m[1].split(/(?<!\\)\|/).map(unescapeRe);
}

export function loadContainers() {
	var box = $('containers-box');
	if (!st.file) { box.hidden = true; return; }
	var g = gen.view, file = st.file;
	getJSON(API.threads + '?' + qs(merge({ filename: file }, eventParams()))).then(function (j) {
		if (g !== gen.view || file !== st.file) return;
		var named = (j.containers || []).filter(function (c) { return c.name !== ''; });
		box.hidden = named.length === 0;
		// a live capture may have no sample of a container yet: asked again
		if (st.live && !named.length) setTimeout(function () { if (g === gen.view) loadContainers(); }, LIVE_RETRY_MS);
		last = j;
		drawPicker();
		if (multiples) drawStrips();
	}).catch(function (e) { showRequestError('containers', e); });
}

function drawPicker() {
	var box = $('containers');
	clear(box);
	if (!last) return;
	var picked = pickedOf(st.filters.container);
	var list = el('div', 'owners');
	list.appendChild(el('div', 'owners-title', 'Containers (' + fmtCount(last.containers_count) + ')'));
	last.containers.slice(0, PICKER_ROWS).forEach(function (c) {
		var lab = el('label', 'owner');
		var cb = el('input');
		cb.type = 'checkbox';
		cb.value = c.name;
		cb.setAttribute('data-container', '1');
		cb.checked = c.name !== '' && picked.indexOf(c.name) >= 0;
		cb.disabled = c.name === '';	// no filter selects "no cgroup"
		lab.appendChild(cb);
		lab.appendChild(el('span', 'owner-name', ' ' + (c.name || NO_CGROUP)));
		lab.appendChild(el('span', 'owner-n', ' ' + fmtCount(c.samples) + ' (' + pct(c.samples, last.total) + ')'));
		list.appendChild(lab);
	});
	box.appendChild(list);
	text($('containers-active'), picked.length ? '(' + picked.length + ' picked)' : '');
}

// One strip per container, each its own /heatmap/?container=NAME on the
// unfiltered axis (same columns), all on one colour scale.
function drawStrips() {
	var box = $('cstrips');
	clear(box);
	strips = [];
	if (!last || !st.heat) return;
	var top = last.containers.filter(function (c) { return c.name !== ''; }).slice(0, STRIPS_MAX);
	var g = gen.view, file = st.file, rows = st.rows;
	Promise.all(top.map(function (c) {
		return getJSON(API.heatmap + '?' + qs(merge({ filename: file, rows: rows, container: c.name },
							    eventParams())));
	})).then(function (hs) {
		if (g !== gen.view || file !== st.file || !multiples) return;
		var max = 0;
		hs.forEach(function (h) { if (h.maxvalue > max) max = h.maxvalue; });
		var cw = heatGeom ? heatGeom.cw : 3;
		hs.forEach(function (h, i) {
			var name = top[i].name;
			var row = el('div', 'strip');
			row.appendChild(el('div', 'strip-label', name + ': ' + fmtCount(h.counted) + ' (' + pct(h.counted, last.total) + ')'));
			row.appendChild(stripCanvas(h, max, cw, name));
			box.appendChild(row);
			strips.push({ name: name, total: h.counted, ncols: h.values.length, start_sec: h.start_sec,
				      cols: h.values.map(function (col) { return col.reduce(function (a, v) { return a + v; }, 0); }) });
		});
		var named = last.containers.filter(function (c) { return c.name !== ''; });
		if (named.length > top.length)
			box.appendChild(el('div', 'strip-label', 'other ' + fmtCount(named.length - top.length) + ' containers'));
	}).catch(function (e) { showRequestError('container small multiples', e); });
}

export function setupContainers() {
	$('containers').addEventListener('change', function (ev) {
		if (!ev.target.getAttribute || !ev.target.getAttribute('data-container')) return;
		var names = Array.prototype.map.call(
			$('containers').querySelectorAll('input[data-container]:checked'), function (x) { return x.value; });
		if (names.length) st.filters.container = containerFilterOf(names);
		else delete st.filters.container;
		applyFilters();
		drawPicker();
	});
	// opened: the list as it is now (a live capture's grows)
	$('containers-box').addEventListener('toggle', function () {
		if ($('containers-box').open && st.live) loadContainers();
	});
	$('cmultiples').addEventListener('click', function () {
		multiples = !multiples;
		$('cmultiples').classList.toggle('on', multiples);
		$('cstrips').hidden = !multiples;
		if (multiples) drawStrips();
	});
}
export function drawnContainerStrips() { return strips.slice(); }
