// The interactive flame graph in #flame: tree building, colours, zoom, search.

import { fmtWeight } from './events.js';
import { panZoom, spanPx } from './panzoom.js';
import { updateSandwich } from './sandwich.js';
import { st, writeHash } from './state.js';
import { $, CHAR_W, FLAME_PAD, FRAME_H, FRAME_MIN_PX, FRAME_MOVING_MIN_PX, SEARCH_COLOR, clamp, clear, darkFill, darkTheme, el, fmtCount, hashName, pct, svgEl, text } from './util.js';

// ---- flame graphs ---------------------------------------------------------------------------
// Trees are FlameScope's: {n: name, l: libtype, v: self samples, c: [children]}
// (differential nodes add d). They become flat node arrays with inclusive
// totals and x offsets in samples, so zoom and search never re-fetch.
// FlameScope's /differential/ and /elided/ use long keys (name, libtype,
// value, delta, children); /flamegraph/ the short ones.
// One tree has one form, told by its root. A system-wide capture's tree
// has millions of nodes: each is read in place (an object of its fields
// per node, and a pair per node on the stack, were most of the page's
// garbage at start-up), and a node is made with every field it will get,
// so none grows a second store.
function graphNode(name, lib, self, d, depth, parent) {
	return { name: name, lib: lib, self: self, d: d, depth: depth, parent: parent, kids: [], total: 0, x: 0,
		 match: false, inMatch: false, isNew: false };
}
export function buildNodes(tree, order) {
	var short = tree.n !== undefined || tree.c !== undefined;
	var nodes = [];
	var root = graphNode('all', '', Number(short ? tree.v : tree.value) || 0, short ? tree.d : tree.delta, 0, null);
	nodes.push(root);
	var srcs = [tree], dsts = [root];
	while (srcs.length) {
		var src = srcs.pop(), dst = dsts.pop(), kids = (short ? src.c : src.children) || [];
		for (var i = 0; i < kids.length; i++) {
			var k = kids[i];
			var n = short ? graphNode(String(k.n), k.l || '', Number(k.v) || 0, k.d, dst.depth + 1, dst)
				: graphNode(String(k.name), k.libtype || '', Number(k.value) || 0, k.delta, dst.depth + 1, dst);
			dst.kids.push(n);
			nodes.push(n);
			srcs.push(k);
			dsts.push(n);
		}
	}
	// totals bottom-up: children come after their parent in `nodes`
	for (var j = nodes.length - 1; j >= 0; j--) {
		var m = nodes[j];
		m.total = m.self;
		for (var q = 0; q < m.kids.length; q++) m.total += m.kids[q].total;
	}
	if (order !== 'name')
		for (var s = 0; s < nodes.length; s++)
			if (nodes[s].kids.length > 1) nodes[s].kids.sort(byWeight);
	var maxDepth = 0;
	for (var z = 0; z < nodes.length; z++) {
		var p = nodes[z], x = p.x || 0;
		if (p.depth === 0) p.x = 0;
		if (p.depth > maxDepth) maxDepth = p.depth;
		for (var w = 0; w < p.kids.length; w++) {
			p.kids[w].x = x;
			x += p.kids[w].total;
		}
	}
	return { nodes: nodes, root: root, maxDepth: maxDepth };
}
export function byWeight(a, b) {
	return b.total - a.total || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
// Frame names never contain ';' (the reader replaces it), so a path of
// names joined by ';' names one node.
export function nodePath(n) {
	var names = [];
	for (; n && n.parent; n = n.parent) names.unshift(n.name);
	return names.join(';');
}
export function findPath(root, path) {
	var n = root, names = path.split(';');
	for (var i = 0; i < names.length && n; i++) {
		var want = names[i], next = null;
		for (var k = 0; k < n.kids.length; k++)
			if (n.kids[k].name === want) { next = n.kids[k]; break; }
		n = next;
	}
	return n;
}
// Differential colours: grey = unchanged, red = more in the graph drawn
// than in the one compared with, blue = less (intensity = |change| /
// largest change), orange = a frame the other side does not have at all.
export var DIFF_UNCHANGED = 'rgb(190,190,190)';
export var DIFF_NEW = 'rgb(255,160,30)';
var DIFF_LIGHT = 215;	// channel value of the faintest red/blue
// the strongest blue's red and green: pure blue on a light page; on a dark
// one lighter, so that it stands out from the pane (3:1)
var DIFF_BLUE_DEEPEST = { light: 0, dark: 90 };
export function diffColor(d, diffMax) {
	if (d === null) return DIFF_NEW;
	if (!d || !diffMax) return DIFF_UNCHANGED;
	var i = clamp(Math.abs(d) / diffMax, 0, 1), o = Math.round(DIFF_LIGHT * (1 - i));
	if (d > 0) return 'rgb(255,' + o + ',' + o + ')';
	var deep = darkTheme() ? DIFF_BLUE_DEEPEST.dark : DIFF_BLUE_DEEPEST.light;
	o = Math.round(deep + (DIFF_LIGHT - deep) * (1 - i));
	return 'rgb(' + o + ',' + o + ',255)';
}
export function frameColor(n, diffMax) {
	if (diffMax !== null) return diffColor(n.isNew ? null : Number(n.d) || 0, diffMax);
	var v = (hashName(n.name) % 1000) / 1000, v2 = ((hashName(n.name) >>> 10) % 1000) / 1000;
	var r, g, b;
	if (n.depth === 0) { r = g = b = 200 + Math.round(30 * v); }
	else if (n.lib === 'kernel') { r = 220 + 35 * v; g = 130 + 60 * v2; b = 0 + 40 * v; }
	else if (n.lib === 'jit') { r = 50 + 60 * v; g = 200 + 55 * v2; b = 50 + 60 * v; }
	else if (n.lib === 'inlined') { r = 40 + 60 * v; g = 190 + 60 * v2; b = 190 + 60 * v2; }
	else if (n.name.indexOf('::') >= 0) { r = 190 + 50 * v; g = 190 + 50 * v; b = 50 + 40 * v2; }
	else { r = 205 + 50 * v; g = 50 + 120 * v2; b = 40 + 40 * v; }
	return 'rgb(' + Math.round(r) + ',' + Math.round(g) + ',' + Math.round(b) + ')';
}

// One frame drawn: <g class="frame" data-i=idx> with a <title> (tip), the
// box and the name cut to the box; white names on dark boxes (class
// ink-light), black on light ones. Used by every flame drawing of the page.
export function frameGroup(idx, x, y, w, fill, name, tip) {
	var g = svgEl('g', { 'class': 'frame' + (darkFill(fill) ? ' ink-light' : ''), 'data-i': idx });
	var t = svgEl('title');
	t.textContent = tip;
	g.appendChild(t);
	g.appendChild(svgEl('rect', { x: x, y: y, width: Math.max(0, w - 0.5), height: FRAME_H - 1, rx: 2, ry: 2, fill: fill }));
	var chars = Math.floor((w - 6) / CHAR_W);
	if (chars >= 3) {
		var tx = svgEl('text', { x: x + 3, y: y + FRAME_H - 4 });
		tx.textContent = name.length <= chars ? name : name.slice(0, chars - 2) + '..';
		g.appendChild(tx);
	}
	return g;
}

// One interactive flame graph in #flame.
export var fg = {
	data: null, diff: false, diffMax: null, zoomed: null, title: '',
	matched: null,	// {samples, total} of the last search
	set: function (tree, opts) {
		this.tree = tree;
		this.opts = opts;
		this.data = tree ? buildNodes(tree, st.order) : null;
		this.diff = !!(opts && opts.diff);
		this.diffMax = null;
		if (this.data && this.diff) {
			var m = 0;
			// a frame path the other side lacks is new (orange), not "more"
			var base = opts.base ? buildNodes(opts.base, 'name').root : null;
			this.data.nodes.forEach(function (n) {
				n.isNew = !!(base && n.depth > 0 && !findPath(base, nodePath(n)));
				var a = n.isNew ? 0 : Math.abs(Number(n.d) || 0);
				if (a > m) m = a;
			});
			this.diffMax = m;
		}
		// the zoom follows the frame path into the new graph, if it is there
		this.zoomed = this.data && st.zoom ? findPath(this.data.root, st.zoom) : null;
		if (this.view) this.view.forget();	// a new graph opens on the zoomed frame
		if (st.zoom && !this.zoomed && this.data) { st.zoom = ''; writeHash(); }
		this.render();	// no node has .match yet: search() marks them
		this.search(st.search);
		updateSandwich();
	},
	tree: null, opts: null,
	relayout: function () { this.set(this.tree, this.opts); },
	// Draws the graph in the visible range (panzoom.js: the zoomed frame's
	// span, or where the wheel and drags moved it). keepScroll: a pan or
	// zoom redraw that must not move the pane back to the root; moving: a
	// frame of a wheel zoom or drag, drawn without the frames narrower
	// than FRAME_MOVING_MIN_PX (tens of thousands of slivers take 200 ms to
	// draw, the frames wider than a pixel a few ms); the full drawing
	// follows when the movement stops.
	render: function (keepScroll, moving) {
		var minPx = moving ? FRAME_MOVING_MIN_PX : FRAME_MIN_PX;
		var svg = $('flame');
		clear(svg);
		var d = this.data;
		$('reset-zoom').disabled = !this.zoomed && !(this.view && this.view.moved());
		var W = Math.max(300, $('flame-wrap').clientWidth - 2);
		if (!d || d.root.total === 0) {
			svg.setAttribute('width', W); svg.setAttribute('height', 40);
			var t = svgEl('text', { x: W / 2, y: 24, 'text-anchor': 'middle', 'class': 'empty' });
			t.textContent = d ? 'No samples in this selection' : '';
			svg.appendChild(t);
			return;
		}
		var z = this.zoomed || d.root;
		var r = this.view ? this.view.range() : [z.x, z.x + z.total];
		var H = (d.maxDepth + 1) * FRAME_H + FLAME_PAD.top + FLAME_PAD.bottom;
		svg.setAttribute('width', W);
		svg.setAttribute('height', H);
		svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
		var g = svgEl('g', { id: 'frames' });
		var frag = document.createDocumentFragment();
		var ancestors = new Set();
		for (var a = z.parent; a; a = a.parent) ancestors.add(a);
		var self = this;
		d.nodes.forEach(function (n, idx) {
			var b = spanPx(n.x, n.total, r, W);
			if (!b || b.w < minPx) return;
			var y = st.icicle ? FLAME_PAD.top + n.depth * FRAME_H
					  : H - FLAME_PAD.bottom - (n.depth + 1) * FRAME_H;
			var fill = n.match ? SEARCH_COLOR : frameColor(n, self.diff ? self.diffMax : null);
			var fr = frameGroup(idx, b.x, y, b.w, fill, n.name, self.label(n));
			if (ancestors.has(n)) fr.classList.add('faded');
			if (n.match) fr.classList.add('match');
			frag.appendChild(fr);
		});
		g.appendChild(frag);
		svg.appendChild(g);
		if (this.onRender) this.onRender();
		if (keepScroll) return;
		// the root (bottom row of a flame graph) in view in the bounded pane
		var wrap = $('flame-wrap');
		if (!st.icicle) wrap.scrollTop = wrap.scrollHeight;
		else wrap.scrollTop = 0;
	},
	label: function (n) {
		var total = this.data.root.total;
		var s = n.name + ' (' + fmtWeight(n.total) + ', ' + pct(n.total, total) + ')';
		if (this.diff) {
			var d = Number(n.d) || 0;
			s += n.isNew ? ', new (not in the other side)' : ', self change ' + (d > 0 ? '+' : '') + d;
		}
		return s;
	},
	node: function (ev) {
		var t = ev.target;
		while (t && t !== document && !(t.getAttribute && t.getAttribute('data-i') !== null)) t = t.parentNode;
		if (!t || t === document || !this.data) return null;
		return this.data.nodes[Number(t.getAttribute('data-i'))];
	},
	view: null,	// panzoom.js state of #flame (setupFlame)
	onRender: null,	// called after each drawing (flamekeys.js outlines its focus)
	zoom: function (n) {
		this.zoomed = n && n !== this.data.root ? n : null;
		if (this.view) this.view.forget();
		st.zoom = this.zoomed ? nodePath(this.zoomed) : '';
		writeHash();
		this.render();
	},
	// Marks frames whose name matches; counts the samples of matching
	// frames that have no matching ancestor (so nested matches count once).
	search: function (term) {
		this.matched = null;
		var re = null;
		if (term) {
			try { re = new RegExp(term, st.searchCase ? '' : 'i'); }
			catch (e) { text($('matched'), 'bad regex: ' + e.message); return; }
		}
		if (this.data) {
			var hit = 0;
			this.data.nodes.forEach(function (n) {
				n.match = !!(re && n.depth > 0 && re.test(n.name));
				n.inMatch = n.match || (n.parent ? n.parent.inMatch : false);
				if (n.match && !(n.parent && n.parent.inMatch)) hit += n.total;
			});
			if (re) this.matched = { samples: hit, total: this.data.root.total };
		}
		this.highlight();
		var m = $('matched');
		if (this.matched)
			text(m, 'Matched: ' + pct(this.matched.samples, this.matched.total) + ' (' +
			     fmtCount(this.matched.samples) + ' of ' + fmtCount(this.matched.total) + ' samples)');
		else
			text(m, '');
		m.setAttribute('data-matched', this.matched ? this.matched.samples : '');
		m.setAttribute('data-total', this.matched ? this.matched.total : '');
	},
	highlight: function () {
		if (!this.data) return;
		var nodes = this.data.nodes, self = this;
		var frames = $('flame').querySelectorAll('g.frame');
		for (var i = 0; i < frames.length; i++) {
			var n = nodes[Number(frames[i].getAttribute('data-i'))];
			var fill = n.match ? SEARCH_COLOR : frameColor(n, self.diff ? self.diffMax : null);
			frames[i].querySelector('rect').setAttribute('fill', fill);
			frames[i].classList.toggle('match', !!n.match);
			frames[i].classList.toggle('ink-light', darkFill(fill));
		}
	}
};
export function setupFlame() {
	var svg = $('flame'), details = $('flame-details');
	// wheel zoom around the pointer, drag pan, double-click resets (panzoom.js)
	fg.view = panZoom({
		el: svg, wrap: $('flame-wrap'),
		extent: function () { return fg.data && fg.data.root.total ? [0, fg.data.root.total] : null; },
		home: function () { var z = fg.zoomed || fg.data.root; return [z.x, z.x + z.total]; },
		draw: function (moving) { fg.render(true, moving); },
		onReset: function () { fg.zoom(null); }
	});
	svg.addEventListener('click', function (ev) {
		var n = fg.node(ev);
		if (n) fg.zoom(n);
	});
	var tip = $('tooltip');
	svg.addEventListener('mousemove', function (ev) {
		var n = fg.node(ev);
		text(details, n ? 'Function: ' + fg.label(n) : '');
		if (!n) { tip.hidden = true; return; }
		clear(tip);
		tip.appendChild(el('div', 'tip-name', n.name));
		var total = fg.data.root.total;
		tip.appendChild(el('div', '', fmtWeight(n.total) + ', ' + pct(n.total, total) +
				   (n.self ? ' (' + fmtCount(n.self) + ' self)' : '')));
		if (fg.diff) {
			var d = Number(n.d) || 0;
			tip.appendChild(el('div', '', n.isNew ? 'new: not in the other side' : 'self change ' + (d > 0 ? '+' : '') + d + ' (scaled to equal totals)'));
		}
		tip.hidden = false;
		// keep the box inside the window on the right-hand side
		var x = ev.pageX + 14;
		if (ev.clientX + 14 + tip.offsetWidth > window.innerWidth) x = ev.pageX - 14 - tip.offsetWidth;
		tip.style.left = Math.max(0, x) + 'px';
		tip.style.top = (ev.pageY + 14) + 'px';
	});
	svg.addEventListener('mouseleave', function () { text(details, ''); tip.hidden = true; });
	$('reset-zoom').addEventListener('click', function () { fg.zoom(null); });
	$('order').addEventListener('change', function () {
		st.order = $('order').value === 'name' ? 'name' : 'weight';
		writeHash();
		// the same tree, laid out again (no fetch)
		fg.relayout();
	});
	$('icicle').addEventListener('change', function () {
		st.icicle = $('icicle').checked;
		writeHash();
		fg.render();
	});
	var timer = null;
	$('search').addEventListener('input', function () {
		clearTimeout(timer);
		timer = setTimeout(function () {
			st.search = $('search').value;
			writeHash();
			fg.search(st.search);
		}, 150);
	});
	$('search').addEventListener('keydown', function (ev) {
		if (ev.key === 'Enter') {
			clearTimeout(timer);
			st.search = $('search').value;
			writeHash();
			fg.search(st.search);
		}
	});
	$('search-case').addEventListener('change', function () {
		st.searchCase = $('search-case').checked;
		fg.search(st.search);
	});
	document.addEventListener('keydown', function (ev) {
		// Ctrl-F / F3 focus the search box, as in flamegraph.pl
		if (st.view === 'profile' && (ev.key === 'F3' || (ev.ctrlKey && ev.key === 'f'))) {
			ev.preventDefault();
			$(st.fview === 'tree' ? 'ct-search' : 'search').focus();
		}
	});
}
