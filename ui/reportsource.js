// reportsource.js: the static report's data source for the page
// (render/views.h). The page's modules ask the server's routes
// (/heatmap/, /flamegraph/, /threads/, /flamechart/, /differential/, /elided/,
// /profile/); here each is answered from the samples' timeline the report page
// embeds (<script id="fp_timeline">, docs/fp-render.md), offline, by the
// server's rules (tests/browser/report-parity checks them against fp-serve).
// The timeline has per heatmap cell entries (stack, owner, count) in the
// order of their first sample; an owner is one (pid, tid, cpu, comm, event).
// So an answer is exact per cell: a selection is a run of cells, and the
// flame chart's time order is per cell (a cell's stacks in the order they
// first ran in it). Filters follow fp-range's syntax; include/exclude are
// PCRE2 patterns translated to JavaScript (pcreToJS: what differs is said
// on the page).
// Tables keyed by names (comms, events, frame paths) have no prototype
// (Object.create(null)): a comm named constructor is a key like any other.

import { setSource } from './api.js';
import { ROWS_CHOICES, ROWS_DEFAULT } from './util.js';

var NS_PER_SEC = 1e9;
var ENTRY = 3;			// stack, owner, count
var THREADS_MAX = 200;		// /threads/ lists the heaviest this many of each (web/owners.c)
var OWNER = 5;			// pid, tid, cpu, comm label, event label; with cgroups
				// (tl.owner_fields 7) their path's and container name's labels, -1 none
// a frame's libtype: the server's (web/tree.c), which knows kernel, JIT and
// inlined frames by their annotation and calls every other frame user
var LIB = { k: 'kernel', u: 'user', j: 'jit', i: 'inlined', x: 'user' };
// the annotation of a libtype's frames in the server's folded text
var ANNOT = Object.assign(Object.create(null), { kernel: '_[k]', jit: '_[j]', inlined: '_[i]' });
// A frame as the server's folded text has it: the server's trees name,
// order and compare frames by this (strlen, strlen2, strlen_[k]).
function annotated(name, lib) { var a = ANNOT[lib]; return a === undefined ? name : name + a; }
var CHART_TAG = { k: '_[k]', j: '_[j]', i: '_[i]', u: '_[w]' };	// chart.js reads them
var LIST_ERROR = 'expected a comma-separated list of decimal integers, or -';
var TIME_ERROR = 'times must be decimal seconds like 12 or 12.345';

function refuse(what, why) {
	var e = new Error('400: ' + what + ': ' + why);
	e.status = 400;
	throw e;
}

// ---- the embedded data -------------------------------------------------------------
export function prepare(tl) {
	var d = { tl: tl, rows: tl.rows, ncols: tl.ncols || 0, colmap: tl.colmap || null,
		  cut: tl.cut || 0, cell: [], stack: [], owner: [], count: [], stride: tl.owner_fields || OWNER };
	for (var i = 0; i < tl.cells.length;) {
		var t = tl.cells[i] * tl.rows + tl.cells[i + 1], k = tl.cells[i + 2];
		for (var j = 0; j < k; j++) {
			var o = i + 3 + ENTRY * j;
			d.cell.push(t);
			d.stack.push(tl.cells[o]);
			d.owner.push(tl.cells[o + 1]);
			d.count.push(tl.cells[o + 2]);
		}
		i += 3 + ENTRY * k;
	}
	// the events: in fp-bucket's order (perf's -e order when the capture
	// says it, so the first is perf report's first, as on the server), then
	// any others by their first sample
	d.events = [];
	d.eventSamples = Object.create(null);
	for (var e = 0; e < d.cell.length; e++) {
		var ev = tl.labels[tl.owners[d.stride * d.owner[e] + 4]];
		if (!(ev in d.eventSamples)) { d.eventSamples[ev] = 0; d.events.push(ev); }
		d.eventSamples[ev] += d.count[e];
	}
	var order = (tl.capture_events || []).map(function (x) { return x.name; });
	var rank = function (ev) { var i = order.indexOf(ev); return i < 0 ? order.length : i; };
	d.events = d.events.map(function (ev, i) { return [rank(ev), i, ev]; })
		.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; }).map(function (x) { return x[2]; });
	return d;
}
// The stacks as folded strings (include/exclude match them) or as the
// flame chart's (kind tags), made when a query first needs them: on a
// system-wide capture they are millions of names joined, which start-up
// does not need.
function stackStrings(d, which) {
	var key = which === 'tagged' ? 'taggedStacks' : 'foldedStacks', tl = d.tl;
	if (!d[key])
		d[key] = tl.stacks.map(function (ids) {
			return ids.map(function (n) {
				return tl.names[n] + (which === 'tagged' ? CHART_TAG[tl.kinds.charAt(n)] || '' : '');
			}).join(';');
		});
	return d[key];
}
// Without the timeline (too large for the page, fp-render's note says
// why): the heatmap as heatmap.json has it and the whole capture's folded
// stacks (fp_folded, may be absent too). Only the whole, unfiltered
// capture can be answered; its tree is built by tree() as any other.
var FOLDED_KIND = /_\[([kji])\]$/;
export function prepareWhole(hj, foldedEl) {
	var names = [], index = Object.create(null), kinds = [], stacks = [], counts = Object.create(null);
	var text = foldedEl ? JSON.parse(foldedEl.textContent) : null;
	(text || '').split('\n').forEach(function (line) {
		var sp = line.lastIndexOf(' ');
		if (sp <= 0) return;
		var ids = line.slice(0, sp).split(';').map(function (f) {
			var m = FOLDED_KIND.exec(f), k = m ? m[1] : ' ', nm = m ? f.slice(0, -m[0].length) : f;
			if (!((k + nm) in index)) { index[k + nm] = names.length; names.push(nm); kinds.push(k); }
			return index[k + nm];
		});
		counts[stacks.length] = (counts[stacks.length] || 0) + Number(line.slice(sp + 1));
		stacks.push(ids);
	});
	return { whole: true, hj: hj, rows: hj.rows.length, folded: text !== null, counts: counts,
		 tl: { names: names, kinds: kinds.join(''), stacks: stacks, base_sec: hj.base_sec } };
}
var WHOLE_KEYS = ['start', 'end', 'pid', 'tid', 'cpu', 'comm', 'include', 'exclude', 'event', 'allevents'];
function wholeOnly(what) {
	var e = new Error('400: ' + what + ': this report does not hold the samples\' timeline (the note above ' +
		'the heatmap says why), only the whole capture: `flamepipe report CAPTURE -o DIR --from S --to S` ' +
		'(or with filters), or flamepipe serve, draws it');
	e.status = 400;
	throw e;
}
function wholeAnswer(d, path, p) {
	WHOLE_KEYS.forEach(function (k) { var v = p.get(k); if (v !== null && v !== '' && v !== '-') wholeOnly(k); });
	if (path === '/heatmap/') {
		var j = {}, n = 0;
		for (var k in d.hj) j[k] = d.hj[k];
		d.hj.values.forEach(function (col) { col.forEach(function (v) { n += v; }); });
		j.rows_per_second = d.rows;
		j.start_sec = d.hj.base_sec;
		j.samples = n;
		j.counted = n;
		j.idle = 0;
		j.warnings = 0;
		j.filtered = false;
		j.all_events = false;
		j.events = [];
		return j;
	}
	if (path === '/flamegraph/' && d.folded) return walk(tree(d, d.counts, false), sortOnly);
	if (path === '/flamegraph/')
		throw Object.assign(new Error('404: the folded stacks are not in this page either (too large): ' +
			'flame.svg next to it is the whole capture\'s flame graph'), { status: 404 });
	return wholeOnly(path);
}
function ownerField(d, o, f) { return d.tl.owners[d.stride * o + f]; }
// A sample's container name and cgroup path ('' without one).
function containerOf(d, o) { return d.stride > OWNER && ownerField(d, o, 6) >= 0 ? label(d, o, 6) : ''; }
function cgroupOf(d, o) { return d.stride > OWNER && ownerField(d, o, 5) >= 0 ? label(d, o, 5) : ''; }
function label(d, o, f) { return d.tl.labels[ownerField(d, o, f)]; }

// Where cell t starts, in ns since base_sec (a cut axis: colmap's second).
function cellStartNs(d, t) {
	var c = Math.floor(t / d.rows), r = t - c * d.rows;
	var sec = d.colmap ? d.colmap[c] : c;
	return sec * NS_PER_SEC + Math.ceil(r * NS_PER_SEC / d.rows);
}

// ---- the query: filters, event set, range -----------------------------------------
function intList(p, key) {
	var v = p.get(key);
	if (v === null || v === '' || v === '-') return null;
	var out = {};
	v.split(',').forEach(function (x) {
		if (!/^-?\d+$/.test(x)) refuse(key, LIST_ERROR);
		out[Number(x)] = true;
	});
	return out;
}
function nameList(p, key) {
	var v = p.get(key);
	if (v === null || v === '' || v === '-') return null;
	return v.split(',').filter(function (x) { return x !== ''; });
}
// ---- include/exclude: the server's PCRE2 rules (fifo/fp_regex.h) in JavaScript ----
// fp-range matches byte-wise, so here both the stacks and the pattern are
// byte strings (one char per UTF-8 byte): '.', classes and literals then
// match bytes as PCRE2 does. The pattern is translated where the two
// languages differ ('.', \s, \S, a class opening with ']') and refused
// where JavaScript has no equal (PCRE2-only syntax, which the server
// accepts): the page says so (REGEX_DIFFERENCES).
var REGEX_PATTERN_MAX = 4096, REGEX_NEST_MAX = 64;
var PCRE_SPACE = '\\t\\n\\v\\f\\r ';
var PCRE_ONLY_ESCAPE = /[AZzGQEKhHvVRNXgpPCuLlUF]/;
var JS_GROUP = /^\?(:|=|!|<=|<!|<[A-Za-z_]\w*>)/;
export var REGEX_DIFFERENCES = 'Offline, include, exclude and container follow the server\'s PCRE2 rules (byte-wise, ' +
	'the same 4096-byte and 64-parenthesis limits) with these exceptions: PCRE2-only syntax is refused ' +
	'here (possessive a++, atomic and other (?\u2026) groups but (?: (?= (?! (?<= (?<! (?<name>, inline flags, ' +
	'\\A \\Z \\z \\G \\Q\u2026\\E \\K \\h \\v \\R \\g \\p, POSIX [:classes:], recursion); a lookbehind of varying ' +
	'length is accepted here only; and the server\'s bound on backtracking steps does not apply here.';
export function bytes(s) { return unescape(encodeURIComponent(s)); }
export function pcreToJS(v, key) {
	var src = bytes(v), out = '', depth = 0, inClass = false, classStart = false, quant = false;
	if (src.length > REGEX_PATTERN_MAX) refuse(key, 'bad regex: longer than ' + REGEX_PATTERN_MAX + ' bytes');
	var unsupported = function (what) { refuse(key, 'bad regex: ' + what + ' is PCRE2 syntax this offline page does not have (flamepipe serve does)'); };
	for (var i = 0; i < src.length; i++) {
		var c = src[i], wasQuant = quant;
		quant = false;
		if (c === '\\') {
			var e = src[++i];
			if (e === undefined) refuse(key, 'bad regex: \\ at end of pattern');
			if (PCRE_ONLY_ESCAPE.test(e)) unsupported('\\' + e);
			if (e === 's') out += inClass ? PCRE_SPACE : '[' + PCRE_SPACE + ']';
			else if (e === 'S' && inClass) unsupported('\\S inside brackets');
			else if (e === 'S') out += '[^' + PCRE_SPACE + ']';
			else out += '\\' + e;
			classStart = false;
			continue;
		}
		if (inClass) {
			if (c === '[' && src[i + 1] === ':') unsupported('a POSIX class [:name:]');
			if (c === ']' && !classStart) inClass = false;
			out += c === ']' && classStart ? '\\]' : c;
			classStart = c === '^' && src[i - 1] === '[' && classStart;
			continue;
		}
		if (c === '[') { inClass = classStart = true; out += c; continue; }
		if (c === '(') {
			if (src[i + 1] === '?' && !JS_GROUP.test(src.slice(i + 1))) unsupported('the group (' + src.slice(i + 1, i + 3));
			if (++depth > REGEX_NEST_MAX) refuse(key, 'bad regex: more than ' + REGEX_NEST_MAX + ' nested parentheses');
		} else if (c === ')') depth--;
		else if (c === '+' && wasQuant) unsupported('a possessive quantifier');
		quant = c === '*' || c === '+' || c === '?' || c === '}';
		if (c === '?' && wasQuant) quant = false;	// lazy: a++? is not possessive
		out += c === '.' ? '[^\\n]' : c;
	}
	try { return new RegExp(out); } catch (e) { return refuse(key, 'bad regex: ' + e.message); }
}
function regex(p, key) {
	var v = p.get(key);
	if (v === null || v === '' || v === '-') return null;
	return pcreToJS(v, key);
}
// The differences, under the filters form.
function filterNote() {
	var form = document.getElementById('filters');
	if (!form) return;
	var note = document.createElement('p');
	note.id = 'regex-note';
	note.className = 'hint';
	note.textContent = REGEX_DIFFERENCES;
	form.parentNode.insertBefore(note, form.nextSibling);
}
function seconds(p, key) {
	var v = p.get(key);
	if (v === null || v === '') return null;
	if (!/^\d+(\.\d+)?$/.test(v)) refuse(key, TIME_ERROR);
	var s = v.split('.');
	return Number(s[0]) * NS_PER_SEC + Number(((s[1] || '') + '000000000').slice(0, 9));
}
// `cpu-clock` also names `cpu-clock:ppp` (perf's modifiers), as fp-range.
function eventMatches(names, ev) {
	return names.some(function (n) { return ev === n || ev.indexOf(n + ':') === 0; });
}

// An event the capture has and this report left out is asked for: said,
// not answered with nothing (the server, which reads the capture, has it).
function leftOut(d, q) {
	var out = (d.tl.capture_events || []).filter(function (e) {
		return d.events.indexOf(e.name) < 0 && eventMatches(q.evnames, e.name);
	});
	if (out.length && !d.events.some(function (ev) { return q.counted[ev]; }))
		refuse('event', out.map(function (e) { return e.name; }).join(', ') + ' is not in this report, which holds ' +
		       d.events.join(', ') + ' only: flamepipe report --all-events keeps every event');
}
// The query's test of an entry: which events count, the owners and stacks
// that pass, the range. With pid/tid picked, q.owners passes only them.
function query(d, p) {
	var q = { all: p.get('allevents') === '1', evnames: nameList(p, 'event') };
	if (q.all && q.evnames) refuse('allevents', 'allevents=1 and event exclude each other');
	var pid = intList(p, 'pid'), tid = intList(p, 'tid'), cpu = intList(p, 'cpu');
	var comm = nameList(p, 'comm'), inc = regex(p, 'include'), exc = regex(p, 'exclude');
	// fp-range's container filter: the name or path, or a regex of the
	// whole of either (JavaScript's regex syntax here, PCRE2's there)
	var cont = p.get('container'), contRe = null;
	if (cont && d.stride === OWNER) refuse('container', 'this capture has no cgroups (perf record --all-cgroups)');
	if (cont) {
		contRe = pcreToJS('^(?:' + cont + ')$', 'container');	// the server's rules, byte-wise
	}
	q.from = seconds(p, 'start');
	q.to = seconds(p, 'end');
	q.counted = Object.create(null);
	d.events.forEach(function (ev, i) {
		q.counted[ev] = q.all || (q.evnames ? eventMatches(q.evnames, ev) : i === 0);
	});
	if (q.evnames) leftOut(d, q);
	var no = d.tl.owners.length / d.stride;
	q.owner = new Array(no);
	for (var o = 0; o < no; o++)
		q.owner[o] = q.counted[label(d, o, 4)] && (!pid || pid[ownerField(d, o, 0)]) &&
			(!tid || tid[ownerField(d, o, 1)]) && (!cpu || cpu[ownerField(d, o, 2)]) &&
			(!comm || comm.indexOf(label(d, o, 3)) >= 0) &&
			(!cont || containerPasses(d, o, cont, contRe));
	if ((inc || exc) && !d.bytes) d.bytes = stackStrings(d, 'folded').map(bytes);
	q.stack = inc || exc ? d.bytes.map(function (b) { return (!inc || inc.test(b)) && !(exc && exc.test(b)); }) : null;
	q.filtered = !!(pid || tid || cpu || comm || inc || exc || q.evnames || cont);
	return q;
}
function containerPasses(d, o, cont, re) {
	var name = containerOf(d, o), path = cgroupOf(d, o);
	return name === cont || path === cont || re.test(bytes(name)) || (path !== '' && re.test(bytes(path)));
}
function passes(d, q, e) { return q.owner[d.owner[e]] && (!q.stack || q.stack[d.stack[e]]); }
function inRange(d, q, e) {
	if (q.from === null && q.to === null) return true;
	var t = cellStartNs(d, d.cell[e]);
	return (q.from === null || t >= q.from) && (q.to === null || t < q.to);
}

// ---- the answers ----------------------------------------------------------------------
function heatmap(d, p) {
	var q = query(d, p), rows = d.rows, ncols = d.ncols;
	var values = [], max = 0, counted = 0, samples = 0, c, r;
	for (c = 0; c < ncols; c++) values.push(new Array(rows).fill(0));
	for (var e = 0; e < d.cell.length; e++) {
		samples += d.count[e];
		if (!passes(d, q, e)) continue;
		c = Math.floor(d.cell[e] / rows);
		r = d.cell[e] - c * rows;
		if (c >= ncols) continue;
		var v = values[c][rows - 1 - r] += d.count[e];	// top (end of the second) first
		if (v > max) max = v;
		counted += d.count[e];
	}
	// each row's start in ms as render/heatmap.h writes it: 3 decimals,
	// truncated (the exact quotient is never within 1e-3 of the next integer)
	var ms = [];
	for (r = rows - 1; r >= 0; r--) ms.push(Math.floor(r * 1e6 / rows) / 1000);
	var cols = d.colmap ? d.colmap.slice() : values.map(function (x, i) { return i; });
	// the server's fields, in its order (render's FlameScope keys, then fp-serve's)
	var j = { columns: cols, rows: ms, values: values, maxvalue: max, base_sec: d.tl.base_sec };
	if (d.colmap) j.cut = d.cut;
	j.rows_per_second = rows;
	j.start_sec = d.tl.base_sec;
	j.samples = samples;
	j.counted = counted;
	j.idle = 0;
	j.warnings = 0;
	j.filtered = q.filtered;
	j.all_events = q.all;
	j.events = d.events.map(function (ev) { return { name: ev, samples: d.eventSamples[ev], counted: q.counted[ev] }; });
	return j;
}

// The counts per stack of the query (in range), with the event as a root
// frame when every event is counted.
function stackCounts(d, q) {
	var out = Object.create(null);
	for (var e = 0; e < d.cell.length; e++) {
		if (!passes(d, q, e) || !inRange(d, q, e)) continue;
		var key = d.stack[e] + (q.all ? '\t' + label(d, d.owner[e], 4) : '');
		out[key] = (out[key] || 0) + d.count[e];
	}
	return out;
}
// The tree of counts {key: n} (stackCounts), FlameScope's shape: short
// keys {n, l, v, c} (/flamegraph/) or long ones {name, libtype, value,
// children} (/differential/, /elided/); children by name, as the server.
// withPath: node.path is the frame path (names joined by ';') for the
// comparisons. A system-wide capture's tree has millions of nodes (4 M in
// 40 s of the bench's mixed load): a child is found among its parent's
// children by name id in typed arrays (a Map for a parent of many), not in
// an object per node, and the nodes hold only what the answer has (V8
// spent most of the page's start-up collecting per-node maps and paths).
function nameIds(d) {
	if (d.nameIds) return d.nameIds;
	// one id per frame as the server tells frames apart: its name and
	// annotation (kernel strlen is not user strlen; user and unknown are
	// alike); tl.names may hold a name once per kind
	var names = d.tl.names, kinds = d.tl.kinds, byName = new Map(), ids = new Array(names.length);
	for (var i = 0; i < names.length; i++) {
		var key = annotated(names[i], LIB[kinds.charAt(i)]);
		var k = byName.get(key);
		if (k === undefined) byName.set(key, k = byName.size);
		ids[i] = k;
	}
	d.nameIds = { ids: ids, count: byName.size };
	return d.nameIds;
}
var FANOUT_SCAN = 16;	// children scanned in a list before a Map takes over
function tree(d, counts, withPath) {
	var tl = d.tl, ni = nameIds(d), labels = new Map(), keys = Object.keys(counts);
	var root = { n: 'root', l: '', v: 0, c: [] }, nodes = [root];
	// node numbers: each node's name id, first child, next sibling (-1
	// none), in typed arrays that grow; a node with many children gets a
	// Map of name id -> child
	var cap = 1 << 16, name = new Int32Array(cap), first = new Int32Array(cap).fill(-1),
	    next = new Int32Array(cap).fill(-1), big = new Map();
	if (withPath) root.path = '';
	function grow() {
		var n2 = new Int32Array(cap * 2), f2 = new Int32Array(cap * 2).fill(-1),
		    x2 = new Int32Array(cap * 2).fill(-1);
		n2.set(name); f2.set(first); x2.set(next);
		name = n2; first = f2; next = x2; cap *= 2;
	}
	function child(at, id, label, lib) {
		var m = big.get(at), c, seen = 0;
		if (m !== undefined) {
			c = m.get(id);
			if (c !== undefined) return c;
		} else {
			for (c = first[at]; c >= 0; c = next[c], seen++)
				if (name[c] === id) return c;
		}
		var parent = nodes[at], node = { n: label, l: lib, v: 0, c: [] };
		if (withPath) {	// the server's path: the folded text, with annotations
			var f = annotated(label, lib);
			node.path = parent.path ? parent.path + ';' + f : f;
		}
		c = nodes.length;
		if (c === cap) grow();
		nodes.push(node);
		parent.c.push(node);
		name[c] = id;
		next[c] = first[at];
		first[at] = c;
		if (m !== undefined) m.set(id, c);
		else if (seen >= FANOUT_SCAN) {
			m = new Map();
			for (var k = first[at]; k >= 0; k = next[k]) m.set(name[k], k);
			big.set(at, m);
		}
		return c;
	}
	for (var k = 0; k < keys.length; k++) {
		var parts = keys[k].split('\t'), at = 0, ids = tl.stacks[Number(parts[0])];
		if (parts.length > 1) {	// the event label (allevents): ids past the names'
			var lid = labels.get(parts[1]);	// ids past the frames' (only labels are there)
			if (lid === undefined) labels.set(parts[1], lid = ni.count + labels.size);
			at = child(at, lid, parts[1], '');
		}
		for (var i = 0; i < ids.length; i++)
			at = child(at, ni.ids[ids[i]], tl.names[ids[i]], LIB[tl.kinds.charAt(ids[i])] || '');
		nodes[at].v += counts[keys[k]];
	}
	return root;
}
// Children in the server's order: by the frame as its folded text has it.
function byName(a, b) {
	var x = annotated(a.n, a.l), y = annotated(b.n, b.l);
	return x < y ? -1 : x > y ? 1 : 0;
}
function walk(root, fn) {
	var todo = [root];
	while (todo.length) {
		var n = todo.pop();
		fn(n);
		if (n.c.length > 1) n.c.sort(byName);
		for (var j = 0; j < n.c.length; j++) todo.push(n.c[j]);
	}
	return root;
}
function sortOnly() {}
function flamegraph(d, p) {
	return walk(tree(d, stackCounts(d, query(d, p)), false), sortOnly);
}
// The compared selection: the same filters, compareStart/compareEnd.
function compared(d, p) {
	var q = new URLSearchParams(p);
	q.delete('start'); q.delete('end');
	if (p.get('compareStart') !== null) q.set('start', p.get('compareStart'));
	if (p.get('compareEnd') !== null) q.set('end', p.get('compareEnd'));
	return stackCounts(d, query(d, q));
}
// Frame path -> self count of a tree (0 for a path that is only a prefix).
function pathSelf(root) {
	var m = Object.create(null);
	walk(root, function (n) { if (n.path) m[n.path] = n.v; });
	return m;
}
function total(counts) { var t = 0; for (var k in counts) t += counts[k]; return t; }
function longNode(n, value, delta) {
	var out = { name: n.n, libtype: n.l, value: value };
	if (delta !== undefined) out.delta = delta;
	out.children = null;	// relabel's; the server's key order
	return out;
}
// The server's rules (web/tree.c): delta = self - round(other's self at
// the path * this total / other total); a path the other lacks keeps its
// self as delta.
function differential(d, p) {
	var ca = stackCounts(d, query(d, p)), cb = compared(d, p);
	var other = pathSelf(tree(d, cb, true)), ta = total(ca), tb = total(cb);
	return relabel(walk(tree(d, ca, true), sortOnly), function (n) {
		var has = n.path in other && tb > 0;
		return longNode(n, n.v, n.path === '' ? 0 : has ? n.v - Math.round(other[n.path] * ta / tb) : n.v);
	});
}
// Elided: the compared selection's tree; a path this selection also has
// gets 0, else its self scaled to this selection's total.
function elided(d, p) {
	var ca = stackCounts(d, query(d, p)), cb = compared(d, p);
	var mine = pathSelf(tree(d, ca, true)), ta = total(ca), tb = total(cb);
	return relabel(walk(tree(d, cb, true), sortOnly), function (n) {
		if (n.path === '') return longNode(n, 0);
		return longNode(n, n.path in mine ? 0 : tb ? Math.round(n.v * ta / tb) : n.v);
	});
}
function relabel(n, fn) {
	var out = fn(n);
	out.children = n.c.map(function (k) { return relabel(k, fn); });
	return out;
}
function threads(d, p) {
	var q = query(d, p), procs = Object.create(null), thr = Object.create(null), conts = Object.create(null), total = 0;
	function add(map, id, comm, n, pid) {
		var x = map[id] || (map[id] = { id: id, pid: pid, samples: 0, comms: Object.create(null) });
		x.samples += n;
		x.comms[comm] = (x.comms[comm] || 0) + n;
	}
	// the comms as the server has them, from fp-fold's root frames (spaces
	// as _): once per owner, not per entry
	var comms = d.serverComms || (d.serverComms = d.tl.labels.map(function (l) { return l.replace(/ /g, '_'); }));
	for (var e = 0; e < d.cell.length; e++) {
		if (!passes(d, q, e) || !inRange(d, q, e)) continue;
		var o = d.owner[e], comm = comms[ownerField(d, o, 3)], n = d.count[e];
		add(procs, ownerField(d, o, 0), comm, n);
		add(thr, ownerField(d, o, 1), comm, n, ownerField(d, o, 0));
		var c = containerOf(d, o);
		conts[c] = (conts[c] || 0) + n;
		total += n;
	}
	// each named by its busiest comm (of equals the first in order, as
	// web/owners.c), heaviest first
	function list(map, key) {
		return Object.keys(map).map(function (k) {
			var x = map[k], best = null;
			for (var c in x.comms)
				if (best === null || x.comms[c] > x.comms[best] || (x.comms[c] === x.comms[best] && c < best))
					best = c;
			var r = {};
			r[key] = x.id;	// the server's key order
			if (x.pid !== undefined) r.pid = x.pid;	// a thread's process
			r.comm = best;
			r.samples = x.samples;
			return r;
		}).sort(function (a, b) { return b.samples - a.samples || a[key] - b[key]; });
	}
	var ps = list(procs, 'pid'), ts = list(thr, 'tid');
	var cs = Object.keys(conts).map(function (k) { return { name: k, samples: conts[k] }; })
		.sort(function (a, b) { return b.samples - a.samples || (a.name < b.name ? -1 : a.name > b.name); });
	return { total: total, processes: ps.slice(0, THREADS_MAX), processes_count: ps.length,
		 threads: ts.slice(0, THREADS_MAX), threads_count: ts.length,
		 containers: cs.slice(0, THREADS_MAX), containers_count: cs.length };
}
function flamechart(d, p) {
	var q = query(d, p), runs = [], total = 0, first = null, last = null, tagged = stackStrings(d, 'tagged');
	for (var e = 0; e < d.cell.length; e++) {
		if (!passes(d, q, e) || !inRange(d, q, e)) continue;
		var t = cellStartNs(d, d.cell[e]), n = d.count[e];
		var stack = (q.all ? label(d, d.owner[e], 4) + ';' : '') + tagged[d.stack[e]];
		if (first === null) first = t;
		last = d.cell[e];
		var prev = runs[runs.length - 1];
		if (prev && prev.stack === stack) prev.n += n;
		else runs.push({ t: t - first, n: n, stack: stack });
		total += n;
	}
	var base = d.tl.base_sec * NS_PER_SEC;
	return { total: total, start_ns: base + (first === null ? 0 : first),
		 end_ns: base + (last === null ? 0 : cellStartNs(d, last + 1)), runs: runs,
		 granularity: 'cell' };
}

var ROUTES = { '/heatmap/': heatmap, '/flamegraph/': flamegraph, '/threads/': threads, '/flamechart/': flamechart,
	       '/differential/': differential, '/elided/': elided };

export function answer(d, name, url) {
	var q = url.indexOf('?'), path = q < 0 ? url : url.slice(0, q);
	var p = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
	if (path === '/profile/')
		return [{ filename: name, type: 'report', format: 'flamepipe report (offline)', size: 0 }];
	var f = Object.prototype.hasOwnProperty.call(ROUTES, path) ? ROUTES[path] : null;
	if (!f) {
		var e = new Error('404: ' + path + ' is not in this static report (flamepipe serve has it)');
		e.status = 404;
		throw e;
	}
	['filename', 'compareFilename'].forEach(function (k) {
		if (p.get(k) !== null && p.get(k) !== name) refuse(k, 'this report holds ' + name + ' only');
	});
	return d.whole ? wholeAnswer(d, path, p) : f(d, p);
}

// The capture's events the report left out (fp-bucket keeps the first
// one unless --event or --all-events), named next to the event picker.
function eventNote(events) {
	var out = events.filter(function (e) { return !e.counted; });
	var pick = document.getElementById('event-pick');
	if (!out.length || !pick) return;
	var note = document.createElement('span');
	note.id = 'event-note';
	note.className = 'hint';
	note.textContent = ' The capture also has ' + out.map(function (e) { return e.name + ' (' + e.samples + ' samples)'; })
		.join(', ') + ', not in this report: flamepipe report --all-events keeps every event for this picker.';
	pick.parentNode.parentNode.insertBefore(note, pick.parentNode.nextSibling);
}

// A report of a range or filters holds only their samples (fp-range
// passed no others): said above the heatmap.
function selectedNote(what) {
	var head = document.getElementById('heat-pane');
	if (!what || !head) return;
	var note = document.createElement('p');
	note.id = 'selected-note';
	note.className = 'hint';
	note.textContent = 'This report holds only the samples of ' + what + ': the views show those.';
	head.insertBefore(note, head.firstChild);
}

// Plugs the source in and starts the page on the report's profile.
export function start() {
	var name = document.title || 'report';
	var el = document.getElementById('fp_timeline');
	var tl = el ? JSON.parse(el.textContent) : null;
	var d = tl ? prepare(tl) : prepareWhole(JSON.parse(document.getElementById('fp_heatmap').textContent),
					       document.getElementById('fp_folded'));
	setSource(function (url) { return answer(d, name, url); });
	window.flamepipeReport = { data: d, name: name, answer: function (url) { return answer(d, name, url); } };
	// the heatmap's rows are the report's (its cells are bucketed once;
	// the answers carry them, the address names one of the page's choices)
	var h = { file: name };
	if (d.rows !== ROWS_DEFAULT && ROWS_CHOICES.indexOf(d.rows) >= 0) h.rows = d.rows;
	if (tl) {
		// events whose samples the timeline holds are in the picker (off-CPU
		// time beside the counted event: fp-fold --timed-apart)
		eventNote((tl.capture_events || []).filter(function (e) { return d.events.indexOf(e.name) < 0; }));
		selectedNote(tl.selected || '');
		var note = document.createElement('p');
		note.id = 'chart-note';
		note.className = 'hint';
		note.textContent = 'In this static report the time order is per heatmap cell (' +
			Math.round(1000 / tl.rows * 100) / 100 + ' ms): the stacks of one cell are in the order they first ran in it.';
		var title = document.getElementById('chart-title');
		if (title) title.parentNode.insertBefore(note, title.nextSibling);
		filterNote();
	}
	// why the page holds no timeline (fp-render's note): above the heatmap
	var why = document.getElementById('timeline_note'), pane = document.getElementById('heat-pane');
	if (why && pane && !tl) pane.insertBefore(why, pane.firstChild);
	if (!/^#\/profile\?/.test(location.hash))
		history.replaceState(null, '', '#/profile?' + new URLSearchParams(h));
	return import('./app.js');
}
