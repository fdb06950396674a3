// The call tree view (View: call tree): the flame graph on screen as an
// expandable table, top-down (callers to callees, the flame graph's own
// nodes) or bottom-up (each leaf function, then its callers: the same
// stacks aggregated the other way round), with self and total per row.
// It reads fg.data, the tree the flame graph drew (the server's flame
// graph JSON, or the report's data source offline), so it shows exactly
// the selection, event, filters and processes of the flame graph and
// never fetches. Top-down: self = samples whose stack ends at that row's
// path, total = samples through it. Bottom-up: a first-level row's self
// and total are the samples where that function is the leaf (their sum is
// the selection's samples); a caller row's total is the samples of that
// leaf reached through that call path (self has no meaning there: "-").
// Rows are drawn only for expanded nodes (ROWS_MAX at most), so a tree of
// 100 000 nodes opens as fast as one of ten.

import { byWeight, fg } from './flamegraph.js';
import { st, writeHash } from './state.js';
import { $, clear, el, fmtCount, pct, text } from './util.js';

var ROWS_MAX = 2000;		// rows drawn; the rest is said in the readout
var AUTO_DEPTH_MAX = 30;	// the heaviest path opened on a first view
var SEARCH_DELAY_MS = 150;
var INDENT_EM = 1;

// Per mode: the tree shown, the expanded paths (kept across selections and
// live refreshes), and whether the user expanded or collapsed anything yet.
var ct = {
	data: null,	// fg.data the trees were built from
	trees: { top: null, bottom: null },
	open: { top: new Map(), bottom: new Map() },	// path -> open
	touched: { top: false, bottom: false },
	re: null, bad: '',	// the search
	rows: [],	// the nodes drawn, in order
	focus: '',	// path of the focused row
	clipped: false
};

// ---- the trees --------------------------------------------------------------------
// A tree's node: {name, lib, self, total, kids, parent, depth} and the
// fields of this view (ct*). Top-down is fg.data's own nodes; bottom-up
// inverts them.
// A row's path (names joined by ';', which frame names never contain),
// made when first needed: only drawn rows need one.
function pathOf(n) {
	if (n.ctPath === undefined)
		n.ctPath = n.depth === 0 ? '' : n.depth === 1 ? n.name : pathOf(n.parent) + ';' + n.name;
	return n.ctPath;
}
// Each frame with self samples contributes them along its path read from
// the leaf back to the root's child (the comm, or the event with every
// event counted): the bottom-up tree of the same stacks.
export function bottomUp(d) {
	var root = { name: 'all', lib: '', self: 0, total: 0, kids: [], parent: null, depth: 0, byName: new Map() };
	d.nodes.forEach(function (n) {
		if (n.depth === 0 || !n.self) return;
		var cur = root;
		root.total += n.self;
		for (var a = n; a && a.depth > 0; a = a.parent) {
			var k = cur.byName.get(a.name);
			if (!k) {
				k = { name: a.name, lib: a.lib, self: 0, total: 0, kids: [], parent: cur, depth: cur.depth + 1,
				      byName: new Map() };
				cur.byName.set(a.name, k);
				cur.kids.push(k);
			}
			k.total += n.self;
			if (a === n) k.self += n.self;	// only at the first level: the leaf
			cur = k;
		}
	});
	(function sortAll(n) { n.kids.sort(byWeight); n.kids.forEach(sortAll); })(root);
	return root;
}
function tree(mode) {
	if (ct.data !== fg.data) {
		ct.data = fg.data;
		ct.trees = { top: null, bottom: null };
	}
	if (!ct.data) return null;
	if (!ct.trees[mode]) ct.trees[mode] = mode === 'bottom' ? bottomUp(ct.data) : ct.data.root;
	return ct.trees[mode];
}
// Children by total (heaviest first), whatever order the flame graph uses.
function kids(n) {
	if (!n.ctSorted) n.ctSorted = n.kids.slice().sort(byWeight);
	return n.ctSorted;
}

// ---- search ---------------------------------------------------------------------------
// The flame graph's search rules: a regex, case-insensitive unless "case"
// is ticked. Each node is marked: ctMatch, and ctBelow (a match below it).
// Nested matches count once in the samples matched, as in the flame graph.
function mark(root) {
	var total = 0, count = 0, re = ct.re;
	(function walk(n, under) {
		n.ctMatch = !!(re && n.depth > 0 && re.test(n.name));
		if (n.ctMatch && !under) total += n.total;
		if (n.ctMatch) count++;
		n.ctBelow = false;
		for (var i = 0; i < n.kids.length; i++) {
			var k = n.kids[i];
			walk(k, under || n.ctMatch);
			if (k.ctMatch || k.ctBelow) n.ctBelow = true;
		}
	})(root, false);
	return { samples: total, nodes: count };
}
function filtering() { return !!ct.re && $('ct-filter').checked; }

// ---- drawing ------------------------------------------------------------------------
// What the user opened or closed wins; else a search opens the way to
// every match.
function isOpen(mode, n) {
	var o = ct.open[mode].get(pathOf(n));
	if (o !== undefined) return o;
	return n.depth === 0 || (!!ct.re && n.ctBelow);
}
// The rows: every node whose ancestors are all open; filtered, only the
// nodes on a path through a match (and the subtrees of matches).
function visibleRows(mode, root) {
	var out = [], filter = filtering();
	ct.clipped = false;
	(function walk(n, underMatch) {
		var ks = kids(n);
		for (var i = 0; i < ks.length; i++) {
			var k = ks[i];
			if (filter && !k.ctMatch && !k.ctBelow && !underMatch) continue;
			if (out.length >= ROWS_MAX) { ct.clipped = true; return; }
			out.push(k);
			if (isOpen(mode, k)) walk(k, underMatch || k.ctMatch);
		}
	})(root, false);
	return out;
}
function autoOpen(mode, root) {
	var n = root;
	for (var i = 0; i < AUTO_DEPTH_MAX; i++) {
		var k = kids(n)[0];
		if (!k || !k.kids.length) break;
		ct.open[mode].set(pathOf(k), true);
		n = k;
	}
}
function row(mode, n, total) {
	var tr = el('tr', n.ctMatch ? 'match' : '');
	var hasKids = n.kids.length > 0, open = hasKids && isOpen(mode, n);
	tr.setAttribute('data-path', pathOf(n));
	tr.setAttribute('aria-level', n.depth);
	if (hasKids) tr.setAttribute('aria-expanded', open ? 'true' : 'false');
	tr.tabIndex = pathOf(n) === ct.focus ? 0 : -1;
	var fn = el('td', 'fn');
	fn.style.paddingLeft = (0.3 + (n.depth - 1) * INDENT_EM) + 'em';
	fn.appendChild(el('span', 'ct-tw', hasKids ? (open ? '\u25be' : '\u25b8') : ''));
	var name = el('span', 'ct-name' + (n.lib ? ' ct-' + n.lib : ''), n.name);
	fn.appendChild(name);
	tr.appendChild(fn);
	var selfShown = mode === 'top' || n.depth === 1;
	tr.appendChild(el('td', 'num', selfShown ? fmtCount(n.self) : '\u2013'));
	tr.appendChild(el('td', 'num', selfShown ? pct(n.self, total) : ''));
	tr.appendChild(el('td', 'num', fmtCount(n.total)));
	var tp = el('td', 'num ct-pct');
	var bar = el('span', 'ct-bar');
	bar.style.width = (total ? 100 * n.total / total : 0).toFixed(1) + '%';
	tp.appendChild(bar);
	tp.appendChild(el('span', 'ct-pv', pct(n.total, total)));
	tr.appendChild(tp);
	return tr;
}
function draw() {
	var mode = st.ctMode, root = tree(mode);
	var tb = $('ct-table').tBodies[0];
	var hadFocus = tb.contains(document.activeElement);
	clear(tb);
	$('ct-top').classList.toggle('on', mode === 'top');
	$('ct-bottom').classList.toggle('on', mode === 'bottom');
	$('ct-top').setAttribute('aria-pressed', mode === 'top');
	$('ct-bottom').setAttribute('aria-pressed', mode === 'bottom');
	if (!root || !root.total) {
		ct.rows = [];
		text($('ct-count'), root ? 'No samples in this selection' : '');
		return;
	}
	if (!ct.touched[mode]) autoOpen(mode, root);
	var m = mark(root);
	ct.rows = visibleRows(mode, root);
	if (!ct.rows.some(function (n) { return pathOf(n) === ct.focus; })) ct.focus = ct.rows.length ? pathOf(ct.rows[0]) : '';
	var frag = document.createDocumentFragment();
	ct.rows.forEach(function (n) { frag.appendChild(row(mode, n, root.total)); });
	tb.appendChild(frag);
	var s = fmtCount(root.total) + ' samples' + (mode === 'bottom' ? ', ' + fmtCount(root.kids.length) + ' leaf functions' : '');
	if (ct.bad) s += '; bad regex: ' + ct.bad;
	else if (ct.re) s += '; matched: ' + fmtCount(m.nodes) + ' rows, ' + pct(m.samples, root.total) + ' (' + fmtCount(m.samples) + ' samples)';
	if (ct.clipped) s += '; the first ' + fmtCount(ROWS_MAX) + ' rows are shown (collapse or search to see others)';
	text($('ct-count'), s);
	var c = $('ct-count');
	c.setAttribute('data-matched', ct.re ? m.samples : '');
	c.setAttribute('data-total', root.total);
	if (hadFocus) focusRow(ct.focus);
}

// ---- actions ----------------------------------------------------------------------------
function rowOf(path) {
	var trs = $('ct-table').tBodies[0].rows;
	for (var i = 0; i < trs.length; i++) if (trs[i].getAttribute('data-path') === path) return trs[i];
	return null;
}
function focusRow(path) {
	var tr = rowOf(path);
	if (!tr) return;
	var old = $('ct-table').querySelector('tbody tr[tabindex="0"]');
	if (old && old !== tr) old.tabIndex = -1;
	ct.focus = path;
	tr.tabIndex = 0;
	tr.focus();
}
function nodeOf(path) {
	for (var i = 0; i < ct.rows.length; i++) if (pathOf(ct.rows[i]) === path) return ct.rows[i];
	return null;
}
function setOpen(n, open) {
	var mode = st.ctMode;
	ct.touched[mode] = true;
	ct.open[mode].set(pathOf(n), open);
	ct.focus = pathOf(n);
	draw();
	focusRow(pathOf(n));
}
// Opens n's subtree, heaviest first, until ROWS_MAX rows would be drawn.
function openAll(root) {
	var mode = st.ctMode, budget = ROWS_MAX, todo = [root];
	ct.touched[mode] = true;
	while (todo.length && budget > 0) {
		var n = todo.shift();
		if (!n.kids.length) continue;
		if (n.depth > 0) ct.open[mode].set(pathOf(n), true);
		budget -= n.kids.length;
		kids(n).forEach(function (k) { todo.push(k); });
	}
}
function key(ev) {
	var tr = ev.target.closest && ev.target.closest('tr[data-path]');
	if (!tr) return;
	var n = nodeOf(tr.getAttribute('data-path'));
	if (!n) return;
	var i = ct.rows.indexOf(n), open = n.kids.length && isOpen(st.ctMode, n), to = null;
	switch (ev.key) {
	case 'ArrowDown': to = ct.rows[i + 1]; break;
	case 'ArrowUp': to = ct.rows[i - 1]; break;
	case 'Home': to = ct.rows[0]; break;
	case 'End': to = ct.rows[ct.rows.length - 1]; break;
	case 'ArrowRight':
		if (n.kids.length && !open) setOpen(n, true);
		else if (open) to = ct.rows[i + 1];
		break;
	case 'ArrowLeft':
		if (open) setOpen(n, false);
		else if (n.depth > 1) to = n.parent;
		break;
	case 'Enter': case ' ':
		if (n.kids.length) setOpen(n, !open);
		break;
	case '*':
		openAll(n);
		draw();
		focusRow(pathOf(n));
		break;
	default:
		return;
	}
	ev.preventDefault();
	if (to) focusRow(pathOf(to));
}
function setSearch(v) {
	ct.re = null;
	ct.bad = '';
	if (v) {
		try { ct.re = new RegExp(v, $('ct-case').checked ? '' : 'i'); } catch (e) { ct.bad = e.message; }
	}
	// a new search opens the way to its matches, also through rows closed before
	if (ct.re) ['top', 'bottom'].forEach(function (mode) {
		ct.open[mode].forEach(function (o, path) { if (!o) ct.open[mode].delete(path); });
	});
	draw();
}

// Draws the view when it is the one shown (after every flame graph load,
// and when the view is picked).
export function updateCallTree() {
	var on = st.view === 'profile' && st.fview === 'tree';
	$('calltree').hidden = !on;
	if (on) draw();
}
export function setupCallTree() {
	['top', 'bottom'].forEach(function (mode) {
		$('ct-' + mode).addEventListener('click', function () {
			st.ctMode = mode;
			writeHash();
			draw();
		});
	});
	$('ct-expand').addEventListener('click', function () {
		var root = tree(st.ctMode);
		if (root) { openAll(root); draw(); }
	});
	$('ct-collapse').addEventListener('click', function () {
		var open = ct.open[st.ctMode];
		open.clear();
		// what a search opened closes too
		ct.rows.forEach(function (n) { if (n.kids.length) open.set(pathOf(n), false); });
		ct.touched[st.ctMode] = true;
		draw();
	});
	var timer = null;
	$('ct-search').addEventListener('input', function () {
		clearTimeout(timer);
		timer = setTimeout(function () { setSearch($('ct-search').value); }, SEARCH_DELAY_MS);
	});
	$('ct-search').addEventListener('keydown', function (ev) {
		if (ev.key === 'Enter') { clearTimeout(timer); setSearch($('ct-search').value); }
		else if (ev.key === 'ArrowDown' && ct.rows.length) { ev.preventDefault(); focusRow(pathOf(ct.rows[0])); }
	});
	$('ct-case').addEventListener('change', function () { setSearch($('ct-search').value); });
	$('ct-filter').addEventListener('change', draw);
	var tb = $('ct-table').tBodies[0];
	tb.addEventListener('keydown', key);
	tb.addEventListener('click', function (ev) {
		var tr = ev.target.closest && ev.target.closest('tr[data-path]');
		var n = tr && nodeOf(tr.getAttribute('data-path'));
		if (!n) return;
		if (n.kids.length) setOpen(n, !isOpen(st.ctMode, n));
		else focusRow(pathOf(n));
	});
}

// For tests: the rows drawn, and every node of the mode's tree.
export function callTreeRows() {
	return ct.rows.map(function (n) {
		return { path: pathOf(n), name: n.name, depth: n.depth, self: n.self, total: n.total,
			 open: n.kids.length ? isOpen(st.ctMode, n) : null, match: !!n.ctMatch };
	});
}
export function callTreeNodes(mode) {
	var root = tree(mode || st.ctMode), out = [];
	if (!root) return null;
	(function walk(n) {
		if (n.depth > 0) out.push({ path: pathOf(n), depth: n.depth, self: n.self, total: n.total });
		n.kids.forEach(walk);
	})(root);
	return { total: root.total, nodes: out };
}
