// In-page flame graph of a heatmap selection (index.html with a timeline).
// The renderer embeds the samples' timeline as JSON in
// a JSON script element with id fp_timeline (timeline.h: names,
// colours, stacks as name ids, per heatmap cell the (stack, count) pairs)
// and this script after it. heatmap.js sends "fp-range" {a, b, from, to}
// (cell indexes col*rows+row, inclusive) on a selection and "fp-whole" on
// "Whole profile"; a selection sums its cells, builds the tree and draws
// it as SVG here: click to zoom, regex search with Matched %, tooltips.
(function () {
"use strict";
var data_el = document.getElementById("fp_timeline");
var box = document.getElementById("rangeflame");
if (!data_el || !box) return;
var tl = JSON.parse(data_el.textContent);
var HTML = document.documentElement.namespaceURI || "http://www.w3.org/1999/xhtml";
var NS = "http://www.w3.org/2000/svg";
// fp-render's flame graph options (--width, --height, --fontsize,
// --inverted, --minwidth, --search-color), within sane limits.
function opt(v, lo, hi, dflt) { return typeof v === "number" && v >= lo && v <= hi ? v : dflt; }
var WIDTH = opt(tl.width, 100, 100000, 1200), FH = opt(tl.frameheight, 2, 1000, 16);
var FONT = opt(tl.fontsize, 1, 1000, 12), FONTW = 0.59, XPAD = 10;
var MINW = opt(tl.minwidth, 0, 1e9, 0.1), MINW_PCT = tl.minwidth_pct === 1;
var INVERTED = tl.inverted === 1;
var SEARCH_COLOR = typeof tl.searchcolor === "string" ? tl.searchcolor : "rgb(230,0,230)";
var frame = document.getElementById("flameframe");
var caption = document.getElementById("flame_caption");
var caption0 = caption ? caption.textContent : "";
var state = null;	// { root, from, to, zoom, re }

// Where each cell's entries (stack, owner, count) start in tl.cells:
// [index, offset, entries].
var ENTRY = 3;
var cells = [];
for (var i = 0; i < tl.cells.length;) {
	var k = tl.cells[i + 2];
	cells.push([tl.cells[i] * tl.rows + tl.cells[i + 1], i + 3, k]);
	i += 3 + ENTRY * k;
}

function el(tag, attrs, text) {
	var e = document.createElementNS(tag === "svg" || tag === "g" || tag === "rect" ||
		tag === "text" || tag === "title" ? NS : HTML, tag);
	for (var a in attrs) e.setAttribute(a, attrs[a]);
	if (text !== undefined) e.textContent = text;
	return e;
}

// Controls above the graph.
var back = el("a", { id: "rf_back", href: "#" }, "flame.svg");
var reset = el("button", { id: "rf_reset", type: "button" }, "Reset Zoom");
var search = el("input", { id: "rf_search", type: "text", size: "30",
	placeholder: "search (regular expression)" });
var ic = el("input", { id: "rf_ic", type: "checkbox" });
var matched = el("span", { id: "rf_matched" }, "");
var details = el("div", { id: "rf_details" }, "\u00a0");
var p1 = el("p"), p2 = el("p");
p1.appendChild(document.createTextNode("Drawn in this page from the samples it embeds " +
	"(click a frame to zoom) \u2014 back to "));
p1.appendChild(back);
p2.appendChild(reset); p2.appendChild(document.createTextNode(" Search: "));
p2.appendChild(search); p2.appendChild(ic);
p2.appendChild(document.createTextNode("ignore case "));
p2.appendChild(matched);
var holder = el("div", { id: "rf_graph" });
box.appendChild(p1); box.appendChild(p2); box.appendChild(holder); box.appendChild(details);

// The static hint is replaced: this page draws the range itself.
var hint = document.getElementById("range_hint");
if (hint) hint.parentNode.removeChild(hint);

// Off-CPU time (the timed events offcpu and wakeup, in ns) is in the
// timeline for the views' event picker; this graph counts what flame.svg
// counts, so it leaves them out unless the capture's first event is one.
var STRIDE = tl.owner_fields || 5;
var FIRST = tl.capture_events && tl.capture_events.length ? tl.capture_events[0].name : null;
function apart(owner) {
	var ev = tl.labels[tl.owners[STRIDE * owner + 4]];
	return (ev === "offcpu" || ev === "wakeup") && ev !== FIRST;
}

// Sums the stack counts of cells a..b into {id: count}.
function range_counts(a, b) {
	var counts = {}, total = 0;
	for (var i = 0; i < cells.length; i++) {
		var c = cells[i];
		if (c[0] < a || c[0] > b) continue;
		for (var j = 0; j < c[2]; j++) {
			if (apart(tl.cells[c[1] + ENTRY * j + 1])) continue;
			var id = tl.cells[c[1] + ENTRY * j], n = tl.cells[c[1] + ENTRY * j + 2];
			counts[id] = (counts[id] || 0) + n;
			total += n;
		}
	}
	return { counts: counts, total: total };
}

function stack_name(id) {
	return tl.stacks[id].map(function (f) { return tl.names[f]; }).join(";");
}

function by_name(p, q) {
	var a = tl.names[p.name], b = tl.names[q.name];
	return a < b ? -1 : a > b ? 1 : 0;
}

// The tree: children merged by name, sorted by name, x and w in samples.
function build(counts) {
	var root = { name: -1, w: 0, kids: {}, parent: null, depth: 0 }, maxd = 0;
	for (var id in counts) {
		var n = counts[id], node = root, fr = tl.stacks[id];
		root.w += n;
		for (var f = 0; f < fr.length; f++) {
			var kid = node.kids[fr[f]];
			if (!kid)
				kid = node.kids[fr[f]] = { name: fr[f], w: 0, kids: {}, parent: node,
					depth: node.depth + 1 };
			kid.w += n;
			node = kid;
		}
	}
	var todo = [[root, 0]];
	while (todo.length) {
		var t = todo.pop(), node = t[0], x = t[1];
		node.x = x;
		if (node.depth > maxd) maxd = node.depth;
		var list = Object.keys(node.kids).map(function (k) { return node.kids[k]; });
		list.sort(by_name);
		node.list = list;
		for (var i = 0; i < list.length; i++) {
			todo.push([list[i], x]);
			x += list[i].w;
		}
	}
	root.maxd = maxd;
	return root;
}

function name_of(node) { return node.name < 0 ? "all" : tl.names[node.name]; }
function fmt(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
function pct(part, whole) { return whole ? (100 * part / whole).toFixed(2) : "0.00"; }
function info(node) {
	return name_of(node) + " (" + fmt(node.w) + " " + tl.countname + ", " +
		(node.parent ? pct(node.w, state.root.w) : "100") + "%)";
}
function is_ancestor(a, node) {
	for (var p = node; p; p = p.parent) if (p === a) return true;
	return false;
}

function draw() {
	var root = state.root, z = state.zoom || root;
	var avail = WIDTH - 2 * XPAD, scale = avail / z.w;
	var ypad1 = FONT * 3, ypad2 = FONT * 2 + 10;
	var minw = MINW_PCT ? MINW * avail / 100 * root.w / z.w : MINW;
	var height = (root.maxd + 1) * FH + ypad1 + ypad2;
	var svg = el("svg", { id: "rf_svg", width: WIDTH, height: height,
		viewBox: "0 0 " + WIDTH + " " + height, "font-family": "Verdana, sans-serif",
		"font-size": FONT });
	var frames = el("g", { id: "rf_frames" });
	var count = 0;
	var todo = [root];
	while (todo.length) {
		var node = todo.pop();
		var anc = node !== z && is_ancestor(node, z);
		var inside = is_ancestor(z, node);
		if (!anc && !inside) continue;
		var x = anc ? 0 : (node.x - z.x) * scale, w = anc ? avail : node.w * scale;
		if (w < minw) continue;
		var y = INVERTED ? ypad1 + node.depth * FH : height - ypad2 - (node.depth + 1) * FH + 1;
		var hit = state.re && node.parent && state.re.test(name_of(node));
		var g = el("g", { "class": anc ? "rf_parent" : "rf_frame", "data-x": node.x,
			"data-w": node.w });
		if (anc) g.setAttribute("opacity", "0.5");
		g.appendChild(el("title", {}, info(node)));
		g.appendChild(el("rect", { x: (XPAD + x).toFixed(2), y: y, width: w.toFixed(2),
			height: FH - 1, rx: 2, ry: 2,
			fill: hit ? SEARCH_COLOR : node.parent ? tl.colors[node.name] : tl.all_color }));
		var chars = Math.floor((w - 3) / (FONT * FONTW)), label = name_of(node);
		if (chars >= 3) {
			if (label.length > chars) label = label.substr(0, chars - 2) + "..";
			g.appendChild(el("text", { x: (XPAD + x + 3).toFixed(2),
				y: (y + (FH - 1) / 2 + FONT * 0.35).toFixed(2) }, label));
		}
		g.fp_node = node;
		frames.appendChild(g);
		for (var i = node.list.length - 1; i >= 0; i--) todo.push(node.list[i]);
	}
	svg.appendChild(frames);
	while (holder.firstChild) holder.removeChild(holder.firstChild);
	holder.appendChild(svg);
	reset.disabled = !state.zoom;
	// Matched %: the samples whose stack has a match (nested matches once).
	if (state.re) {
		count = matched_samples(root);
		matched.textContent = "Matched: " + (count === root.w ? "100" :
			(100 * count / root.w).toFixed(1)) + "%";
		matched.setAttribute("data-samples", count);
	} else {
		matched.textContent = "";
		matched.removeAttribute("data-samples");
	}
}

function matched_samples(node) {
	if (node.parent && state.re.test(name_of(node))) return node.w;
	var n = 0;
	for (var i = 0; i < node.list.length; i++) n += matched_samples(node.list[i]);
	return n;
}

function show_range(a, b, from, to) {
	var r = range_counts(a, b);
	state = { root: build(r.counts), zoom: null, re: state ? state.re : null,
		from: from, to: to, counts: r.counts };
	var lines = [];
	for (var id in r.counts) lines.push(stack_name(id) + " " + r.counts[id]);
	lines.sort();
	window.fp_range_folded = lines;	// for tests and the console
	box.setAttribute("data-total", r.total);
	box.setAttribute("data-from", from);
	box.setAttribute("data-to", to);
	var text = "Flame graph of [" + from + ", " + to + ") s (" + fmt(r.total) + " " +
		tl.countname + ")";
	if (caption) caption.textContent = text;
	if (frame) frame.style.display = "none";
	box.style.display = "";
	draw();
}

function show_file() {
	box.style.display = "none";
	if (frame) frame.style.display = "";
	if (caption) caption.textContent = caption0;
}

document.addEventListener("fp-range", function (evt) {
	var d = evt.detail;
	show_range(d.a, d.b, d.from, d.to);
}, false);
document.addEventListener("fp-whole", show_file, false);
back.addEventListener("click", function (evt) { evt.preventDefault(); show_file(); }, false);
reset.addEventListener("click", function () { state.zoom = null; draw(); }, false);
holder.addEventListener("click", function (evt) {
	for (var t = evt.target; t && t !== holder; t = t.parentNode) {
		if (t.fp_node) {
			state.zoom = t.fp_node.parent ? t.fp_node : null;
			draw();
			return;
		}
	}
}, false);
holder.addEventListener("mouseover", function (evt) {
	for (var t = evt.target; t && t !== holder; t = t.parentNode)
		if (t.fp_node) { details.textContent = "Function: " + info(t.fp_node); return; }
}, false);
function apply_search() {
	if (!state) return;
	var term = search.value;
	state.re = null;
	if (term) {
		try { state.re = new RegExp(term, ic.checked ? "i" : ""); }
		catch (e) { matched.textContent = "Bad regexp: " + e.message; draw_keep(); return; }
	}
	draw();
}
function draw_keep() { var t = matched.textContent; draw(); matched.textContent = t; }
search.addEventListener("input", apply_search, false);
ic.addEventListener("change", apply_search, false);
})();
