// reportsource.js: the static report's data source for the web page's
// views (render/views.h). web/ui's modules ask the server's routes
// (/heatmap/, /flamegraph/, /threads/, /flamechart/, /differential/, /elided/,
// /profile/); here each is answered from the samples' timeline the report page
// embeds (<script id="fp_timeline">, docs/fp-render.md), offline, by the
// server's rules (tests/browser/report-parity checks them against fp-serve).
// The timeline has per heatmap cell entries (stack, owner, count) in the
// order of their first sample; an owner is one (pid, tid, cpu, comm, event).
// So an answer is exact per cell: a selection is a run of cells, and the
// flame chart's time order is per cell (a cell's stacks in the order they
// first ran in it). Filters follow fp-range's syntax; include/exclude are
// JavaScript regular expressions here (PCRE2 on the server).

import { setSource } from './api.js';
import { ROWS_CHOICES, ROWS_DEFAULT } from './util.js';

var NS_PER_SEC = 1e9;
var ENTRY = 3;			// stack, owner, count
var OWNER = 5;			// pid, tid, cpu, comm label, event label; with cgroups
				// (tl.owner_fields 7) their path's and container name's labels, -1 none
var LIB = { k: 'kernel', u: 'user', j: 'jit', i: 'inlined', x: 'unknown' };
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
	// stacks as folded strings, and as the flame chart's (kind tags)
	d.folded = tl.stacks.map(function (ids) { return ids.map(function (n) { return tl.names[n]; }).join(';'); });
	d.tagged = tl.stacks.map(function (ids) {
		return ids.map(function (n) { return tl.names[n] + (CHART_TAG[tl.kinds.charAt(n)] || ''); }).join(';');
	});
	// the events: in fp-bucket's order (perf's -e order when the capture
	// says it, so the first is perf report's first, as on the server), then
	// any others by their first sample
	d.events = [];
	d.eventSamples = {};
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
function regex(p, key) {
	var v = p.get(key);
	if (v === null || v === '' || v === '-') return null;
	try { return new RegExp(v); } catch (e) { return refuse(key, 'bad regex: ' + e.message); }
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
		try { contRe = new RegExp('^(?:' + cont + ')$'); } catch (e) { refuse('container', 'bad regex: ' + e.message); }
	}
	q.from = seconds(p, 'start');
	q.to = seconds(p, 'end');
	q.counted = {};
	d.events.forEach(function (ev, i) {
		q.counted[ev] = q.all || (q.evnames ? eventMatches(q.evnames, ev) : i === 0);
	});
	var no = d.tl.owners.length / d.stride;
	q.owner = new Array(no);
	for (var o = 0; o < no; o++)
		q.owner[o] = q.counted[label(d, o, 4)] && (!pid || pid[ownerField(d, o, 0)]) &&
			(!tid || tid[ownerField(d, o, 1)]) && (!cpu || cpu[ownerField(d, o, 2)]) &&
			(!comm || comm.indexOf(label(d, o, 3)) >= 0) &&
			(!cont || containerPasses(d, o, cont, contRe));
	q.stack = d.folded.map(function (s) { return (!inc || inc.test(s)) && !(exc && exc.test(s)); });
	q.filtered = !!(pid || tid || cpu || comm || inc || exc || q.evnames || cont);
	return q;
}
function containerPasses(d, o, cont, re) {
	var name = containerOf(d, o), path = cgroupOf(d, o);
	return name === cont || path === cont || re.test(name) || (path !== '' && re.test(path));
}
function passes(d, q, e) { return q.owner[d.owner[e]] && q.stack[d.stack[e]]; }
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
	var out = {};
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
// node.path is the frame path (names joined by ';') for the comparisons.
function tree(d, counts) {
	var tl = d.tl, root = { n: 'root', l: '', v: 0, c: [], kids: {}, path: '' };
	function child(node, name, lib) {
		var k = node.kids[name];
		if (!k) {
			k = node.kids[name] = { n: name, l: lib, v: 0, c: [], kids: {},
						path: node.path ? node.path + ';' + name : name };
			node.c.push(k);
		}
		return k;
	}
	for (var key in counts) {
		var parts = key.split('\t'), node = root, ids = tl.stacks[Number(parts[0])];
		if (parts.length > 1) node = child(node, parts[1], '');
		for (var i = 0; i < ids.length; i++)
			node = child(node, tl.names[ids[i]], LIB[tl.kinds.charAt(ids[i])] || '');
		node.v += counts[key];
	}
	return root;
}
function walk(root, fn) {
	var todo = [root];
	while (todo.length) {
		var n = todo.pop();
		fn(n);
		n.c.sort(function (a, b) { return a.n < b.n ? -1 : a.n > b.n ? 1 : 0; });
		for (var j = 0; j < n.c.length; j++) todo.push(n.c[j]);
	}
	return root;
}
function shortNode(n) { delete n.kids; delete n.path; }
function flamegraph(d, p) {
	return walk(tree(d, stackCounts(d, query(d, p))), shortNode);
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
	var m = {};
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
	var other = pathSelf(tree(d, cb)), ta = total(ca), tb = total(cb);
	return relabel(walk(tree(d, ca), function () {}), function (n) {
		var has = n.path in other && tb > 0;
		return longNode(n, n.v, n.path === '' ? 0 : has ? n.v - Math.round(other[n.path] * ta / tb) : n.v);
	});
}
// Elided: the compared selection's tree; a path this selection also has
// gets 0, else its self scaled to this selection's total.
function elided(d, p) {
	var ca = stackCounts(d, query(d, p)), cb = compared(d, p);
	var mine = pathSelf(tree(d, ca)), ta = total(ca), tb = total(cb);
	return relabel(walk(tree(d, cb), function () {}), function (n) {
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
	var q = query(d, p), procs = {}, thr = {}, conts = {}, total = 0;
	function add(map, id, comm, n, pid) {
		var x = map[id] || (map[id] = { id: id, pid: pid, samples: 0, comms: {} });
		x.samples += n;
		x.comms[comm] = (x.comms[comm] || 0) + n;
	}
	for (var e = 0; e < d.cell.length; e++) {
		if (!passes(d, q, e) || !inRange(d, q, e)) continue;
		var o = d.owner[e], comm = label(d, o, 3), n = d.count[e];
		add(procs, ownerField(d, o, 0), comm, n);
		add(thr, ownerField(d, o, 1), comm, n, ownerField(d, o, 0));
		var c = containerOf(d, o);
		conts[c] = (conts[c] || 0) + n;
		total += n;
	}
	// each named by its busiest comm, heaviest first
	function list(map, key) {
		return Object.keys(map).map(function (k) {
			var x = map[k], best = null;
			for (var c in x.comms) if (best === null || x.comms[c] > x.comms[best]) best = c;
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
	return { total: total, processes: ps, processes_count: ps.length, threads: ts, threads_count: ts.length,
		 containers: cs, containers_count: cs.length };
}
function flamechart(d, p) {
	var q = query(d, p), runs = [], total = 0, first = null, last = null;
	for (var e = 0; e < d.cell.length; e++) {
		if (!passes(d, q, e) || !inRange(d, q, e)) continue;
		var t = cellStartNs(d, d.cell[e]), n = d.count[e];
		var stack = (q.all ? label(d, d.owner[e], 4) + ';' : '') + d.tagged[d.stack[e]];
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
	var f = ROUTES[path];
	if (!f) {
		var e = new Error('404: ' + path + ' is not in this static report (flamepipe serve has it)');
		e.status = 404;
		throw e;
	}
	['filename', 'compareFilename'].forEach(function (k) {
		if (p.get(k) !== null && p.get(k) !== name) refuse(k, 'this report holds ' + name + ' only');
	});
	return f(d, p);
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

// The views' state (their address, about:srcdoc#/profile?...) is kept in
// the report's address as views=..., beside the report's own range=a,b,
// so a reload or a shared link reopens it.
var STATE_KEY = 'views=';
function hashParts(doc) {
	return doc.defaultView.location.hash.replace(/^#/, '').split('&').filter(function (x) { return x; });
}
function keptState(doc) {
	if (doc === document) return null;
	var p = hashParts(doc).filter(function (x) { return x.indexOf(STATE_KEY) === 0; })[0];
	var v = p ? decodeURIComponent(p.slice(STATE_KEY.length)) : '';
	return /^\/profile\?/.test(v) ? v : null;
}
function keepState(doc) {
	if (doc === document) return;
	var replace = history.replaceState;
	history.replaceState = function (state, title, url) {
		replace.call(history, state, title, url);
		var parts = hashParts(doc).filter(function (x) { return x.indexOf(STATE_KEY) !== 0; });
		parts.push(STATE_KEY + encodeURIComponent(location.hash.replace(/^#/, '')));
		doc.defaultView.history.replaceState(null, '', '#' + parts.join('&'));
	};
}

// Plugs the source in and starts the page on the report's profile.
export function start() {
	var doc = window.parent && window.parent !== window ? window.parent.document : document;
	var tl = JSON.parse(doc.getElementById('fp_timeline').textContent);
	var name = doc.title || 'report';
	var d = prepare(tl);
	setSource(function (url) { return answer(d, name, url); });
	window.flamepipeReport = { data: d, answer: function (url) { return answer(d, name, url); } };
	// the heatmap's rows are the report's (its cells are bucketed once;
	// the answers carry them, the address names one of the page's choices)
	var h = { file: name };
	if (tl.rows !== ROWS_DEFAULT && ROWS_CHOICES.indexOf(tl.rows) >= 0) h.rows = tl.rows;
	eventNote(tl.capture_events || []);
	selectedNote(tl.selected || '');
	var note = document.createElement('p');
	note.id = 'chart-note';
	note.className = 'hint';
	note.textContent = 'In this static report the time order is per heatmap cell (' +
		Math.round(1000 / tl.rows * 100) / 100 + ' ms): the stacks of one cell are in the order they first ran in it.';
	var title = document.getElementById('chart-title');
	if (title) title.parentNode.insertBefore(note, title.nextSibling);
	var kept = keptState(doc);
	if (kept) history.replaceState(null, '', '#' + kept);
	else if (!/^#\/profile\?/.test(location.hash))
		history.replaceState(null, '', '#/profile?' + new URLSearchParams(h));
	keepState(doc);
	return import('./app.js');
}
