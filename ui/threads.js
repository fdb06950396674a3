// Per-process and per-thread views: a picker of the heaviest processes
// and threads (samples and share, from /threads/) that filters both views
// to the ones checked, and "small multiples": one heatmap strip per
// process, or per thread, on the heatmap's time axis, so a burst shows
// whose it is.

import { API, getJSON, qs } from './api.js';
import { applyFilters } from './filters.js';
import { heatGeom, heatRGB } from './heatmap.js';
import { gen, showRequestError, st } from './state.js';
import { $, clear, el, fmtCount, merge, pct, text } from './util.js';

var PICKER_ROWS = 12;		// processes and threads listed
var STRIPS_MAX = 8;		// small multiples: heaviest processes or threads drawn
var STRIP_ROW_PX = 1;		// px per heatmap row in a strip

var last = null;		// the /threads/ answer on screen
var strips = [];		// [{pid or tid, comm, total, ncols, start_sec, cols: samples per column}] drawn
var stripsRest = null;		// {count, samples} of the ones not drawn

// the event set of the page, without the pid/tid filters the picker sets
function eventParams() {
	var p = {};
	if (st.allEvents) p.allevents = 1;
	if (st.filters.event) p.event = st.filters.event;
	return p;
}
function listOf(key) {
	return (st.filters[key] || '').split(',').filter(function (x) { return x !== ''; });
}

export function loadThreads() {
	if (st.live || !st.file) { $('threads-box').hidden = true; return; }
	$('threads-box').hidden = false;
	var g = gen.view, file = st.file;
	getJSON(API.threads + '?' + qs(merge({ filename: file }, eventParams()))).then(function (j) {
		if (g !== gen.view || file !== st.file) return;
		last = j;
		drawPicker();
		if (st.multiples) drawStrips();
	}).catch(function (e) { showRequestError('processes', e); });
}

function table(title, rows, key, idkey) {
	var box = el('div', 'owners');
	box.appendChild(el('div', 'owners-title', title));
	var checked = listOf(key);
	rows.slice(0, PICKER_ROWS).forEach(function (r) {
		var lab = el('label', 'owner');
		var cb = el('input');
		cb.type = 'checkbox';
		cb.value = String(r[idkey]);
		cb.setAttribute('data-kind', key);
		cb.checked = checked.indexOf(String(r[idkey])) >= 0;
		lab.appendChild(cb);
		lab.appendChild(el('span', 'owner-name', ' ' + r.comm + ' ' + r[idkey] +
				   (idkey === 'tid' && r.pid !== undefined && r.pid !== r.tid ? ' (pid ' + r.pid + ')' : '')));
		lab.appendChild(el('span', 'owner-n', ' ' + fmtCount(r.samples) + ' (' + pct(r.samples, last.total) + ')'));
		box.appendChild(lab);
	});
	return box;
}
function drawPicker() {
	var box = $('threads');
	clear(box);
	if (!last) return;
	box.appendChild(table('Processes (' + fmtCount(last.processes_count) + ')', last.processes, 'pid', 'pid'));
	box.appendChild(table('Threads (' + fmtCount(last.threads_count) + ')', last.threads, 'tid', 'tid'));
	var n = listOf('pid').length + listOf('tid').length;
	text($('threads-active'), n ? '(' + n + ' picked)' : '');
}

// One strip per process (st.multiples 'pid') or thread ('tid'), each its
// own /heatmap/?pid=P (tid=T) on the unfiltered axis (same columns),
// drawn with the column width of the big heatmap, all on one colour scale.
function drawStrips() {
	var box = $('strips');
	clear(box);
	strips = [];
	stripsRest = null;
	if (!last || !st.heat) return;
	var key = st.multiples === 'tid' ? 'tid' : 'pid';
	var list = key === 'tid' ? last.threads : last.processes;
	var count = key === 'tid' ? last.threads_count : last.processes_count;
	var top = list.slice(0, STRIPS_MAX);
	var g = gen.view, file = st.file, rows = st.rows;
	Promise.all(top.map(function (p) {
		var q = { filename: file, rows: rows };
		q[key] = p[key];
		return getJSON(API.heatmap + '?' + qs(merge(q, eventParams())));
	})).then(function (hs) {
		if (g !== gen.view || file !== st.file || (st.multiples === 'tid' ? 'tid' : 'pid') !== key) return;
		var max = 0;
		hs.forEach(function (h) { if (h.maxvalue > max) max = h.maxvalue; });
		var cw = heatGeom ? heatGeom.cw : 3;
		hs.forEach(function (h, i) {
			var p = top[i];
			var name = p.comm + ' ' + (key === 'tid' ? 'thread ' + p.tid + (p.pid !== undefined ? ' of ' + p.pid : '') : p.pid);
			var row = el('div', 'strip');
			row.appendChild(el('div', 'strip-label', name + ': ' + fmtCount(h.counted) + ' (' + pct(h.counted, last.total) + ')'));
			row.appendChild(stripCanvas(h, max, cw, name));
			box.appendChild(row);
			var s = { comm: p.comm, total: h.counted, ncols: h.values.length, start_sec: h.start_sec,
				  cols: h.values.map(function (col) { return col.reduce(function (a, v) { return a + v; }, 0); }) };
			s[key] = p[key];
			strips.push(s);
		});
		var rest = last.total - strips.reduce(function (s, x) { return s + x.total; }, 0);
		if (count > top.length) {
			stripsRest = { count: count - top.length, samples: rest };
			box.appendChild(el('div', 'strip-label', 'other ' + fmtCount(count - top.length) +
					   (key === 'tid' ? ' threads: ' : ' processes: ') + fmtCount(rest) + ' samples'));
		}
	}).catch(function (e) { showRequestError('small multiples', e); });
}
export function stripCanvas(h, max, cw, name) {
	var ncols = h.values.length, nrows = h.rows_per_second;
	var cv = el('canvas');
	cv.width = Math.max(1, ncols * cw);
	cv.height = nrows * STRIP_ROW_PX;
	var ctx = cv.getContext('2d');
	var img = ctx.createImageData(cv.width, cv.height), px = img.data;
	for (var c = 0; c < ncols; c++)
		for (var r = 0; r < nrows; r++) {
			var rgb = heatRGB(h.values[c][r], max);	// values[c] lists the top first
			for (var x = c * cw; x < (c + 1) * cw; x++)
				for (var y = r * STRIP_ROW_PX; y < (r + 1) * STRIP_ROW_PX; y++) {
					var k = (y * cv.width + x) * 4;
					px[k] = rgb[0]; px[k + 1] = rgb[1]; px[k + 2] = rgb[2]; px[k + 3] = 255;
				}
		}
	ctx.putImageData(img, 0, 0);
	cv.title = name;
	return cv;
}

export function setupThreads() {
	$('threads').addEventListener('change', function (ev) {
		var kind = ev.target.getAttribute && ev.target.getAttribute('data-kind');
		if (!kind) return;
		var ids = Array.prototype.map.call(
			$('threads').querySelectorAll('input[data-kind=' + kind + ']:checked'), function (x) { return x.value; });
		if (ids.length) st.filters[kind] = ids.join(',');
		else delete st.filters[kind];
		applyFilters();
		drawPicker();
	});
	$('multiples').addEventListener('click', function () {
		st.multiples = st.multiples ? false : $('multiples-by').value === 'tid' ? 'tid' : 'pid';
		showStrips();
	});
	$('multiples-by').addEventListener('change', function () {
		if (!st.multiples) return;
		st.multiples = $('multiples-by').value === 'tid' ? 'tid' : 'pid';
		showStrips();
	});
}
function showStrips() {
	$('multiples').classList.toggle('on', !!st.multiples);
	$('strips').hidden = !st.multiples;
	if (st.multiples) drawStrips();
}
export function drawnStrips() { return strips.slice(); }
export function stripsOther() { return stripsRest; }
