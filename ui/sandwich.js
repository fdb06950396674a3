// The sandwich view (as speedscope's): a searchable table of every function
// of the flame graph on screen with its self and total samples, and for
// the function picked, the merged graph of its callers (above it) and of
// its callees (below it). Built from the tree already loaded: no fetch.
// total = samples with the function anywhere on the stack, counted once
// per sample (recursion is not counted twice); self = samples where it is
// the leaf. The sum of every self is the graph's total.

import { updateCallTree } from './calltree.js';
import { updateChart } from './chart.js';
import { buildNodes, fg, frameColor, frameGroup } from './flamegraph.js';
import { st, writeHash } from './state.js';
import { $, FRAME_H, clear, el, fmtCount, pct, text } from './util.js';

var TABLE_ROWS_MAX = 500;	// rows drawn (the search narrows the rest)
var GRAPH_MIN_W = 300;

var sw = { rows: [], total: 0, byName: null, data: null };

function outermost(n, name) {
	for (var a = n.parent; a && a.depth > 0; a = a.parent)
		if (a.name === name) return false;
	return true;
}
// [{name, self, total}] of a buildNodes() graph; frames at depth 0 (the
// root) are not functions.
export function functionTable(data) {
	var m = new Map();
	data.nodes.forEach(function (n) {
		if (n.depth === 0) return;
		var f = m.get(n.name);
		if (!f) m.set(n.name, f = { name: n.name, self: 0, total: 0, nodes: [] });
		f.self += n.self;
		if (outermost(n, n.name)) { f.total += n.total; f.nodes.push(n); }
	});
	return Array.from(m.values()).sort(function (a, b) {
		return b.total - a.total || b.self - a.self || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
	});
}
function kid(t, name, lib) {
	for (var i = 0; i < t.c.length; i++) if (t.c[i].n === name) return t.c[i];
	var k = { n: name, l: lib || '', v: 0, c: [] };
	t.c.push(k);
	return k;
}
// Callers: from the function down to the comm, each outermost occurrence
// weighted by its total (drawn with the function at the bottom).
export function callersTree(f) {
	var root = { n: 'root', l: '', v: 0, c: [] };
	var top = kid(root, f.name, f.nodes[0] && f.nodes[0].lib);
	f.nodes.forEach(function (n) {
		var cur = top;
		for (var a = n.parent; a && a.depth > 0; a = a.parent) cur = kid(cur, a.name, a.lib);
		cur.v += n.total;
	});
	return root;
}
// Callees: every outermost occurrence's subtree merged under the function.
export function calleesTree(f) {
	var root = { n: 'root', l: '', v: 0, c: [] };
	var top = kid(root, f.name, f.nodes[0] && f.nodes[0].lib);
	function merge(dst, src) {
		dst.v += src.self;
		src.kids.forEach(function (k) { merge(kid(dst, k.name, k.lib), k); });
	}
	f.nodes.forEach(function (n) { merge(top, n); });
	return root;
}

// A static flame graph of tree in svg: the function (depth 1) at the
// bottom, or at the top when `down`.
function drawGraph(svg, tree, down) {
	clear(svg);
	var d = buildNodes(tree, st.order);
	var W = Math.max(GRAPH_MIN_W, $('sandwich').clientWidth - 2);
	var depth = d.maxDepth;	// the root ("all") is not drawn
	var H = Math.max(1, depth) * FRAME_H;
	svg.setAttribute('width', W);
	svg.setAttribute('height', H);
	var total = d.root.total;
	if (!total) return;
	var scale = W / total, frag = document.createDocumentFragment();
	d.nodes.forEach(function (n, idx) {
		if (n.depth === 0) return;
		var w = n.total * scale;
		if (w < 0.5) return;
		var x = n.x * scale, y = down ? (n.depth - 1) * FRAME_H : H - n.depth * FRAME_H;
		frag.appendChild(frameGroup(idx, x, y, w, frameColor(n, null), n.name,
					    n.name + ' (' + fmtCount(n.total) + ' samples, ' + pct(n.total, total) + ')'));
	});
	svg.appendChild(frag);
	svg.sandwich = d;
}

function drawTable() {
	var tb = $('sw-table').tBodies[0];
	clear(tb);
	var q = $('sw-search').value.toLowerCase();
	var shown = 0, matched = 0;
	for (var i = 0; i < sw.rows.length; i++) {
		var f = sw.rows[i];
		if (q && f.name.toLowerCase().indexOf(q) < 0) continue;
		matched++;
		if (shown >= TABLE_ROWS_MAX) continue;
		shown++;
		var tr = el('tr', f.name === st.sandwich ? 'on' : '');
		tr.setAttribute('data-name', f.name);
		tr.appendChild(el('td', 'fn', f.name));
		tr.appendChild(el('td', 'num', fmtCount(f.self)));
		tr.appendChild(el('td', 'num', pct(f.self, sw.total)));
		tr.appendChild(el('td', 'num', fmtCount(f.total)));
		tr.appendChild(el('td', 'num', pct(f.total, sw.total)));
		tb.appendChild(tr);
	}
	text($('sw-count'), fmtCount(matched) + ' of ' + fmtCount(sw.rows.length) + ' functions' +
	     (matched > shown ? ' (first ' + shown + ' shown)' : '') + ', ' + fmtCount(sw.total) + ' samples');
}

function drawSelected() {
	var f = st.sandwich ? sw.byName.get(st.sandwich) : null;
	$('sw-graphs').hidden = !f;
	if (!f) return;
	text($('sw-callers-title'), 'Callers of ' + f.name + ' (' + fmtCount(f.total) + ' samples, ' + pct(f.total, sw.total) + ')');
	text($('sw-callees-title'), 'Callees of ' + f.name + ' (self ' + fmtCount(f.self) + ')');
	drawGraph($('sw-callers'), callersTree(f), false);
	drawGraph($('sw-callees'), calleesTree(f), true);
}

// Rebuilds the view from the flame graph on screen (after every load).
export function updateSandwich() {
	var on = st.view === 'profile' && st.fview === 'sandwich';
	$('sandwich').hidden = !on;
	$('flame-wrap').hidden = st.fview !== 'flame';
	updateChart();
	updateCallTree();
	if (!on) return;
	var d = fg.data;
	sw.rows = d ? functionTable(d) : [];
	sw.total = d ? d.root.total : 0;
	sw.byName = new Map(sw.rows.map(function (f) { return [f.name, f]; }));
	if (st.sandwich && !sw.byName.has(st.sandwich)) { st.sandwich = ''; writeHash(); }
	drawTable();
	drawSelected();
}

export function setupSandwich() {
	$('sw-search').addEventListener('input', drawTable);
	$('sw-table').addEventListener('click', function (ev) {
		var tr = ev.target.closest && ev.target.closest('tr[data-name]');
		if (!tr) return;
		st.sandwich = tr.getAttribute('data-name');
		writeHash();
		drawTable();
		drawSelected();
	});
	$('fview').addEventListener('change', function () {
		st.fview = $('fview').value;
		writeHash();
		fg.render();
		updateSandwich();
	});
}

// for tests
export function sandwichRows() { return sw.rows.map(function (f) { return { name: f.name, self: f.self, total: f.total }; }); }
