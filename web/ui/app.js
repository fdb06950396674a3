// flamepipe web UI: file list, subsecond-offset heatmap, flame graphs.
// Plain JS, no framework, no network resources other than this server.
// Every name from the data goes into the page with textContent or
// setAttribute, never innerHTML, so a symbol like <script> stays text.
'use strict';
(function () {

// ---- constants ---------------------------------------------------------------
var SVGNS = 'http://www.w3.org/2000/svg';
var NS_PER_SEC = 1e9;
var ROWS_CHOICES = [10, 25, 49, 50, 99, 100];
var ROWS_DEFAULT = 50;
var FILTER_KEYS = ['pid', 'tid', 'comm', 'cpu', 'event', 'include', 'exclude'];
var HEAT_MARGIN = { left: 52, right: 8, top: 8, bottom: 34 };
var HEAT_PLOT_HEIGHT = 420;	// px for all rows of a column, before rounding
var CELL_W_MIN = 3, CELL_W_MAX = 24;
var CELL_H_MIN = 4, CELL_H_MAX = 40;
var CANVAS_MAX_PX = 16384;	// wider canvases fail in some browsers
var AXIS_LABEL_MIN_PX = 34;	// x labels at least this far apart
var FRAME_H = 16;		// flame graph: px per frame
var FRAME_MIN_PX = 0.1;		// narrower frames are not drawn
var FONT_PX = 12, CHAR_W = 0.59 * 12;
var FLAME_PAD = { top: 4, bottom: 4 };
var SEARCH_COLOR = 'rgb(230,0,230)';
var LIVE_REDRAW_MS = 250;	// coalesce SSE cell events
var LIVE_FOLD_REFRESH_MS = 1000;	// at most one flame graph refresh per second
var API = {
	profiles: '/profile/',
	heatmap: '/heatmap/',
	flamegraph: '/flamegraph/',
	differential: '/differential/',
	elided: '/elided/',
	upload: '/upload',
	liveEvents: '/live/events',
	liveRange: '/live/range',
	liveFlamegraph: '/live/flamegraph',
	svg: '/svg/flamegraph'
};

// ---- small helpers ---------------------------------------------------------------
function $(id) { return document.getElementById(id); }
function svgEl(name, attrs) {
	var e = document.createElementNS(SVGNS, name);
	if (attrs)
		for (var k in attrs)
			e.setAttribute(k, attrs[k]);
	return e;
}
function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
function text(e, s) { e.textContent = s; return e; }
function el(name, cls, s) {
	var e = document.createElement(name);
	if (cls) e.className = cls;
	if (s !== undefined) e.textContent = s;
	return e;
}
function clamp(v, lo, hi) { return v < lo ? lo : v > hi ? hi : v; }
function fmtCount(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
function pct(n, total) { return total > 0 ? (100 * n / total).toFixed(2) + '%' : '0%'; }

// Seconds on the heatmap axis are exact: integer nanoseconds in, decimal
// strings out ("12.02" not 12.020000000000001), so a range boundary falls
// exactly on a cell boundary.
function nsToSec(ns) {
	var s = Math.floor(ns / NS_PER_SEC), f = ns - s * NS_PER_SEC;
	if (f === 0) return String(s);
	return (s + '.' + String(f).padStart(9, '0')).replace(/0+$/, '');
}
function secToNs(str) {
	if (str === null || str === undefined || !/^\d+(\.\d*)?$/.test(str)) return null;
	var p = str.split('.');
	var frac = ((p[1] || '') + '000000000').slice(0, 9);
	return Number(p[0]) * NS_PER_SEC + Number(frac);
}
// Start of cell t = col * rows + row: samples with offset >= ceil(row*1e9/rows)
// fall in this row (the bucketer uses floor(offset * rows / 1e9)).
function cellStartNs(t, rows) {
	var c = Math.floor(t / rows), r = t - c * rows;
	return c * NS_PER_SEC + Math.ceil(r * NS_PER_SEC / rows);
}
function cellOfNs(ns, rows) {
	var c = Math.floor(ns / NS_PER_SEC);
	var r = Math.floor((ns - c * NS_PER_SEC) * rows / NS_PER_SEC);
	return c * rows + r;
}
function fmtRange(a, b) {
	return (a === null ? 'start' : nsToSec(a) + ' s') + ' \u2013 ' + (b === null ? 'end' : nsToSec(b) + ' s');
}
// FNV-1a over UTF-16 units: the same name always gets the same shade.
function hashName(s) {
	var h = 0x811c9dc5;
	for (var i = 0; i < s.length; i++) {
		h ^= s.charCodeAt(i);
		h = Math.imul(h, 0x01000193) >>> 0;
	}
	return h;
}

// ---- HTTP ---------------------------------------------------------------------
function qs(params) {
	var u = new URLSearchParams();
	for (var k in params)
		if (params[k] !== null && params[k] !== undefined && params[k] !== '')
			u.set(k, params[k]);
	return u.toString();
}
function getJSON(url, opts) {
	return fetch(url, opts).then(function (r) {
		return r.text().then(function (body) {
			var j = null;
			try { j = JSON.parse(body); } catch (e) { /* not JSON */ }
			if (!r.ok) {
				var msg = j && (j.error || j.message) ? (j.error || j.message) : body.slice(0, 200);
				var err = new Error(r.status + ': ' + msg);
				err.status = r.status;
				throw err;
			}
			if (j === null) throw new Error('bad JSON from ' + url.split('?')[0]);
			return j;
		});
	});
}
function showError(msg) {
	var e = $('error');
	if (!msg) { e.hidden = true; text(e, ''); return; }
	text(e, msg);
	e.hidden = false;
}
function setStatus(msg) { text($('status'), msg || ''); }

// ---- state and URL ---------------------------------------------------------------
// The hash holds everything needed to come back to a view:
//   #/                          file list
//   #/profile?file=F&rows=50&start=S&end=E&pid=..&s=REGEX&cfile=F2&cstart=..&cend=..
var st = {
	view: null,
	file: null, rows: ROWS_DEFAULT, enhanced: false,
	filters: {},
	sel: null,		// {from, to} ns on the heatmap axis, to exclusive
	pending: null,		// first clicked cell index, waiting for the second
	cmp: null,		// {file, from, to} second selection, or null
	picking: false,		// next two clicks choose the second range
	pickFile: null,		// heatmap shown while picking in another file
	heat: null,		// heatmap in use (see loadHeatmap)
	search: '', searchCase: false, icicle: false, tab: 'diff',
	zoom: '',		// zoomed frame as "comm;frame;...", kept across selections
	files: [],
	live: false, es: null,
	liveFetching: false, liveQueue: [], liveReady: false	// see openLive
};
var gen = { heat: 0, flame: 0, view: 0 };	// drop responses of superseded requests

function parseHash() {
	var h = location.hash.replace(/^#/, '') || '/';
	var q = h.indexOf('?');
	return { path: q < 0 ? h : h.slice(0, q), params: new URLSearchParams(q < 0 ? '' : h.slice(q + 1)) };
}
function writeHash() {
	if (st.view !== 'profile') return;
	var p = { file: st.file };
	if (st.rows !== ROWS_DEFAULT) p.rows = st.rows;
	if (st.enhanced) p.enhanced = 1;
	if (st.sel) {
		if (st.sel.from !== null) p.start = nsToSec(st.sel.from);
		if (st.sel.to !== null) p.end = nsToSec(st.sel.to);
	}
	FILTER_KEYS.forEach(function (k) { if (st.filters[k]) p[k] = st.filters[k]; });
	if (st.cmp) {
		p.cfile = st.cmp.file;
		if (st.cmp.from !== null) p.cstart = nsToSec(st.cmp.from);
		if (st.cmp.to !== null) p.cend = nsToSec(st.cmp.to);
		if (st.cmp.from === null && st.cmp.to === null) p.cwhole = 1;
	}
	if (st.search) p.s = st.search;
	if (st.icicle) p.icicle = 1;
	if (st.zoom) p.z = st.zoom;
	history.replaceState(null, '', '#/profile?' + qs(p));
}

function route() {
	var h = parseHash();
	gen.view++;
	closeLive();
	showError(null);
	if (h.path === '/profile' && h.params.get('file')) {
		openProfile(h.params);
	} else {
		showList();
	}
}

// ---- file list ------------------------------------------------------------------
function normalizeProfiles(j) {
	// FlameScope returns a list of {filename, type, ...}; accept plain
	// strings and {files:[...]} too.
	var list = Array.isArray(j) ? j : (j && Array.isArray(j.files) ? j.files : []);
	return list.map(function (f) {
		if (typeof f === 'string') return { filename: f, type: '' };
		var o = {};
		for (var k in f) o[k] = f[k];
		o.filename = String(f.filename !== undefined ? f.filename : f.name);
		o.live = !!(f.live || f.type === 'live');
		return o;
	}).filter(function (f) { return f.filename && f.filename !== 'undefined'; });
}
function loadProfiles() {
	return getJSON(API.profiles).then(function (j) {
		st.files = normalizeProfiles(j);
		st.files.sort(function (a, b) {
			if (a.live !== b.live) return a.live ? -1 : 1;
			return a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0;
		});
		return st.files;
	});
}
function profileHref(name) { return '#/profile?' + qs({ file: name }); }
function showList() {
	st.view = 'list';
	$('profile-view').hidden = true;
	$('list-view').hidden = false;
	text($('crumb'), '');
	document.title = 'flamepipe';
	setStatus('loading file list\u2026');
	loadProfiles().then(function (files) {
		setStatus('');
		var tb = $('files').tBodies[0];
		clear(tb);
		files.forEach(function (f) {
			var tr = el('tr', f.live ? 'file live-file' : 'file');
			var td = el('td');
			var a = el('a', 'file-link', f.filename);
			a.href = profileHref(f.filename);
			td.appendChild(a);
			if (f.live) td.appendChild(el('span', 'live', 'LIVE'));
			tr.appendChild(td);
			tr.appendChild(el('td', '', f.live ? 'live capture' : (f.type || '')));
			tr.appendChild(el('td', 'num', f.size !== undefined ? fmtCount(f.size) : ''));
			var m = f.mtime !== undefined ? f.mtime : f.modified;
			tr.appendChild(el('td', '', typeof m === 'number' ? new Date(m * 1000).toISOString().replace('T', ' ').slice(0, 19) : (m || '')));
			tb.appendChild(tr);
		});
		$('files-empty').hidden = files.length > 0;
	}).catch(function (e) { setStatus(''); showError('file list: ' + e.message); });
}

function setupUpload() {
	$('upload').addEventListener('submit', function (ev) {
		ev.preventDefault();
		var f = $('upload-file').files[0];
		if (!f) return;
		var fd = new FormData();
		fd.append('file', f, f.name);
		text($('upload-status'), 'uploading\u2026');
		getJSON(API.upload, { method: 'POST', body: fd }).then(function (j) {
			var name = (j && (j.filename || j.name)) || f.name;
			text($('upload-status'), 'uploaded as ' + name);
			$('upload').reset();
			showList();
		}).catch(function (e) { text($('upload-status'), 'upload failed: ' + e.message); });
	});
}

// ---- profile page ------------------------------------------------------------------
function openProfile(params) {
	var file = params.get('file');
	var sameFile = st.view === 'profile' && st.file === file;
	st.view = 'profile';
	st.file = file;
	var rows = Number(params.get('rows'));
	st.rows = ROWS_CHOICES.indexOf(rows) >= 0 ? rows : ROWS_DEFAULT;
	st.enhanced = params.get('enhanced') === '1';
	st.filters = {};
	FILTER_KEYS.forEach(function (k) { if (params.get(k)) st.filters[k] = params.get(k); });
	var a = secToNs(params.get('start')), b = secToNs(params.get('end'));
	st.sel = a !== null || b !== null ? { from: a, to: b } : null;
	var cf = params.get('cfile');
	st.cmp = cf ? { file: cf, from: secToNs(params.get('cstart')), to: secToNs(params.get('cend')) } : null;
	st.search = params.get('s') || '';
	st.icicle = params.get('icicle') === '1';
	st.zoom = params.get('z') || '';
	st.pending = null; st.picking = false; st.pickFile = null;
	if (!sameFile) st.tab = 'diff';

	$('list-view').hidden = true;
	$('profile-view').hidden = false;
	var crumb = $('crumb');
	clear(crumb);
	crumb.appendChild(el('span', 'sep', ' / '));
	crumb.appendChild(el('span', 'crumb-file', file));
	document.title = 'flamepipe: ' + file;
	$('rows').value = String(st.rows);
	$('enhanced').checked = st.enhanced;
	$('search').value = st.search;
	$('icicle').checked = st.icicle;
	fillFilterForm();
	hideCompareBox();
	if (!sameFile) {
		// nothing of the previous file stays on screen while this one loads
		st.heat = null;
		drawHeatmap();
		fg.set(null);
		text($('flame-title'), '');
	}

	// The file list says whether this is a live capture.
	var view = gen.view;
	loadProfiles().catch(function () { return []; }).then(function (files) {
		if (view !== gen.view) return;	// the user went elsewhere meanwhile
		var f = files.filter(function (x) { return x.filename === file; })[0];
		st.live = !!(f && f.live);
		$('live-badge').hidden = !st.live;
		$('rows').disabled = st.live;	// the live bucketer fixes the rows
		fillCompareFiles();
		loadHeatmap().then(function () {
			if (st.live) openLive();
		});
		// Opening a live page shows the chain's current snapshot; only a
		// selection in the URL is written to the chain.
		var fresh = !st.sel && !Object.keys(st.filters).length;
		loadFlame(st.live && fresh ? { snapshotOnly: true } : undefined);
	});
}

function selectionParams(sel) {
	var p = {};
	if (sel && sel.from !== null) p.start = nsToSec(sel.from);
	if (sel && sel.to !== null) p.end = nsToSec(sel.to);
	return p;
}
function filterParams() {
	var p = {};
	FILTER_KEYS.forEach(function (k) { if (st.filters[k]) p[k] = st.filters[k]; });
	return p;
}
function merge() {
	var o = {};
	for (var i = 0; i < arguments.length; i++)
		for (var k in arguments[i]) o[k] = arguments[i][k];
	return o;
}

// ---- heatmap ------------------------------------------------------------------------
// st.heat: {file, rows, ncols, base, cells (cell[col*rows+row], row 0 = start
// of the second), max, total, json}
function heatFromJSON(file, j) {
	var rows = j.rows_per_second || (j.rows ? j.rows.length : 0);
	var ncols = j.values ? j.values.length : 0;
	var cells = new Array(ncols * rows).fill(0);
	var max = 0, total = 0;
	for (var c = 0; c < ncols; c++) {
		var col = j.values[c] || [];
		// values[col] lists the column top (end of the second) first
		for (var i = 0; i < rows && i < col.length; i++) {
			var v = Number(col[i]) || 0;
			cells[c * rows + (rows - 1 - i)] = v;
			if (v > max) max = v;
			total += v;
		}
	}
	return { file: file, rows: rows, ncols: ncols, base: j.start_sec, cells: cells,
		 max: j.maxvalue !== undefined ? Math.max(j.maxvalue, max) : max, total: total,
		 samples: j.samples, idle: j.idle, live: !!j.live, ended: !!j.ended,
		 filtered: !!j.filtered, warnings: Number(j.warnings) || 0, dropped: Number(j.dropped) || 0 };
}
function heatFile() { return st.pickFile || st.file; }
function loadHeatmap() {
	var file = heatFile();
	var g = ++gen.heat;
	setStatus('loading heatmap\u2026');
	var url = API.heatmap + '?' + qs(merge({ filename: file, rows: st.rows }, filterParams()));
	return getJSON(url).then(function (j) {
		if (g !== gen.heat) return;
		setStatus('');
		if (!st.heat || st.heat.file !== file) {
			// another file's grid: what the mouse pointed at is gone
			$('tooltip').hidden = true;
			hoverCell = null;
		}
		st.heat = heatFromJSON(file, j);
		// a live capture's rows come from its bucketer
		if (st.heat.live && ROWS_CHOICES.indexOf(st.heat.rows) >= 0) $('rows').value = String(st.heat.rows);
		drawHeatmap();
	}).catch(function (e) {
		if (g !== gen.heat) return;
		setStatus('');
		st.heat = null;
		drawHeatmap();
		showError('heatmap: ' + e.message);
	});
}

// Colours: white -> red, linear to the largest cell; "enhanced" goes through
// yellow and orange on a square-root scale so that small counts stand out.
var ENHANCED_STOPS = [[255, 255, 204], [254, 217, 118], [253, 141, 60], [227, 26, 28], [128, 0, 38]];
function heatRGB(v, max) {
	if (!v || !max) return [255, 255, 255];
	var t = clamp(v / max, 0, 1);
	if (!st.enhanced) {
		var gb = Math.round(255 * (1 - t));
		return [255, gb, gb];
	}
	var s = Math.sqrt(t) * (ENHANCED_STOPS.length - 1);
	var i = Math.min(Math.floor(s), ENHANCED_STOPS.length - 2), f = s - i;
	var a = ENHANCED_STOPS[i], b = ENHANCED_STOPS[i + 1];
	return [0, 1, 2].map(function (k) { return Math.round(a[k] + (b[k] - a[k]) * f); });
}
function heatColor(v, max) { return 'rgb(' + heatRGB(v, max).join(',') + ')'; }

// The grid is drawn on a canvas (a 10-minute capture at 100 rows is 60,000
// cells: far too many DOM elements); a second canvas on top holds the
// selections, the pending click and the hover box, so moving the mouse or
// selecting never repaints the cells.
var heatGeom = null;	// {x0, y0, cw, ch, pw, ph, W, H, rows, ncols, max, enhanced}
function canvasSize(cv, W, H) {
	var dpr = window.devicePixelRatio || 1;
	cv.width = Math.round(W * dpr);
	cv.height = Math.round(H * dpr);
	cv.style.width = W + 'px';
	cv.style.height = H + 'px';
	var ctx = cv.getContext('2d');
	ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
	return ctx;
}
function drawHeatmap() {
	var cv = $('heatmap'), ov = $('heat-overlay');
	var h = st.heat;
	if (!h || !h.rows || !h.ncols) {
		canvasSize(cv, 0, 0);
		canvasSize(ov, 0, 0);
		heatGeom = null;
		updateHeatTitle();
		text($('heat-info'), h ? 'No samples.' : '');
		clear($('legend'));
		return;
	}
	var wrap = $('heat-wrap');
	var avail = Math.max(200, wrap.clientWidth - HEAT_MARGIN.left - HEAT_MARGIN.right - 2);
	// narrow cells for long captures, so the canvas stays under the
	// browsers' size limit (1 px per second beyond 4.5 hours is clipped)
	var wmin = Math.max(1, Math.min(CELL_W_MIN, Math.floor(CANVAS_MAX_PX / h.ncols)));
	var cw = clamp(Math.floor(avail / h.ncols), wmin, CELL_W_MAX);
	var ch = clamp(Math.floor(HEAT_PLOT_HEIGHT / h.rows), CELL_H_MIN, CELL_H_MAX);
	var pw = cw * h.ncols, ph = ch * h.rows;
	var g = heatGeom = {
		x0: HEAT_MARGIN.left, y0: HEAT_MARGIN.top, cw: cw, ch: ch, pw: pw, ph: ph,
		W: HEAT_MARGIN.left + pw + HEAT_MARGIN.right, H: HEAT_MARGIN.top + ph + HEAT_MARGIN.bottom,
		rows: h.rows, ncols: h.ncols, max: h.max, enhanced: st.enhanced
	};
	var ctx = canvasSize(cv, g.W, g.H);
	canvasSize(ov, g.W, g.H);
	ctx.fillStyle = '#fafafa';
	ctx.fillRect(0, 0, g.W, g.H);
	ctx.strokeStyle = '#ccc';
	ctx.lineWidth = 1;
	ctx.strokeRect(g.x0 - 0.5, g.y0 - 0.5, pw + 1, ph + 1);
	drawColumns(ctx, 0, h.ncols);
	drawAxes(ctx, h, g);
	ov.setAttribute('aria-label', 'heatmap of ' + h.file + ': ' + h.ncols + ' seconds by ' + h.rows +
			' rows; click a start cell and an end cell to select a range');
	drawOverlay();
	updateHeatTitle();
	updateHeatInfo();
	updateStepper();
	$('stop-cmp').hidden = !st.cmp;
	drawLegend();
}
// Paints columns [c0, c1) with the current colour scale: one pixel per cell
// on an offscreen canvas, scaled up without smoothing (60,000 cells in a
// few milliseconds, where a fillRect per cell takes half a second).
var cellsCanvas = null;
function drawColumns(ctx, c0, c1) {
	var h = st.heat, g = heatGeom;
	if (!cellsCanvas || cellsCanvas.width !== h.ncols || cellsCanvas.height !== h.rows) {
		cellsCanvas = document.createElement('canvas');
		cellsCanvas.width = h.ncols;
		cellsCanvas.height = h.rows;
	}
	var n = c1 - c0;
	if (n <= 0) return;
	var octx = cellsCanvas.getContext('2d');
	var img = octx.createImageData(n, h.rows), px = img.data;
	var colors = new Map();
	for (var c = c0; c < c1; c++) {
		for (var r = 0; r < h.rows; r++) {
			var v = h.cells[c * h.rows + r];
			var col = colors.get(v);
			if (col === undefined) colors.set(v, col = heatRGB(v, h.max));
			var i = ((h.rows - 1 - r) * n + (c - c0)) * 4;
			px[i] = col[0]; px[i + 1] = col[1]; px[i + 2] = col[2]; px[i + 3] = 255;
		}
	}
	octx.putImageData(img, c0, 0);
	ctx.imageSmoothingEnabled = false;
	ctx.drawImage(cellsCanvas, c0, 0, n, h.rows, g.x0 + c0 * g.cw, g.y0, n * g.cw, g.ph);
}
// Cell t's box: x, y (top left), w, h in canvas pixels.
function cellBox(t) {
	var g = heatGeom, c = Math.floor(t / g.rows), r = t - c * g.rows;
	return { x: g.x0 + c * g.cw, y: g.y0 + (g.rows - 1 - r) * g.ch, w: g.cw, h: g.ch };
}
// A selection [a, b] of cells "snakes" in time order: the rest of the first
// column from the start cell up, whole middle columns, the bottom of the
// last column up to the end cell: at most three rectangles.
function snakeRects(a, b) {
	var g = heatGeom, rows = g.rows;
	var ca = Math.floor(a / rows), cb = Math.floor(b / rows), ra = a - ca * rows, rb = b - cb * rows;
	var top = g.y0, bottom = g.y0 + g.ph;
	var out = [];
	function colRect(c, r0, r1) {	// rows r0..r1 inclusive of column c
		out.push({ x: g.x0 + c * g.cw, y: bottom - (r1 + 1) * g.ch, w: g.cw, h: (r1 - r0 + 1) * g.ch });
	}
	if (ca === cb) { colRect(ca, ra, rb); return out; }
	// full first and last columns join the middle block: one outline
	var m0 = ra === 0 ? ca : ca + 1, m1 = rb === rows - 1 ? cb : cb - 1;
	if (m0 === ca + 1) colRect(ca, ra, rows - 1);
	if (m1 >= m0) out.push({ x: g.x0 + m0 * g.cw, y: top, w: (m1 - m0 + 1) * g.cw, h: g.ph });
	if (m1 !== cb) colRect(cb, 0, rb);
	return out;
}
var hoverCell = null;
function drawOverlay() {
	var ov = $('heat-overlay'), g = heatGeom, h = st.heat;
	if (!g || !h) return;
	var ctx = ov.getContext('2d');
	ctx.clearRect(0, 0, g.W, g.H);
	function paint(range, fill, stroke) {
		if (!range) return;
		snakeRects(range[0], range[1]).forEach(function (r) {
			ctx.fillStyle = fill;
			ctx.fillRect(r.x, r.y, r.w, r.h);
			ctx.strokeStyle = stroke;
			ctx.lineWidth = 1.5;
			ctx.strokeRect(r.x + 0.75, r.y + 0.75, r.w - 1.5, r.h - 1.5);
		});
	}
	paint(selectedCells(h, st.sel, st.file), 'rgba(31,78,216,0.22)', 'rgba(31,78,216,0.9)');
	paint(selectedCells(h, st.cmp, st.cmp && st.cmp.file), 'rgba(26,158,58,0.22)', 'rgba(26,158,58,0.9)');
	if (st.pending !== null) {
		var p = cellBox(st.pending);
		ctx.strokeStyle = '#1f4ed8';
		ctx.lineWidth = 2;
		ctx.strokeRect(p.x - 1, p.y - 1, p.w + 2, p.h + 2);
	}
	if (hoverCell !== null && hoverCell < g.ncols * g.rows) {
		var b = cellBox(hoverCell);
		ctx.strokeStyle = '#000';
		ctx.lineWidth = 1;
		ctx.strokeRect(b.x - 0.5, b.y - 0.5, b.w + 1, b.h + 1);
	}
}
// Selection state changed: only the overlay and the texts change.
function selChanged() {
	$('stop-cmp').hidden = !st.cmp;
	drawOverlay();
	updateHeatInfo();
	updateStepper();
}
function updateHeatTitle() {
	var h = st.heat;
	var title = $('heat-title');
	clear(title);
	if (!h) return;
	title.appendChild(el('strong', '', h.file));
	title.appendChild(document.createTextNode(
		'  ' + h.ncols + ' s \u00d7 ' + h.rows + ' rows, ' + fmtCount(h.total) + ' samples' +
		(h.filtered ? ' matching the filters' : '') +
		(h.idle ? ' (' + fmtCount(h.idle) + ' idle dropped)' : '') + ', max cell ' + h.max +
		(h.live ? (h.ended ? ' \u2014 capture ended' : ' \u2014 live') : '') +
		// a server that cannot filter the heatmap says nothing: tell the user
		(Object.keys(st.filters).length && !h.filtered ? ' (filters apply to the flame graph only)' : '')));
	// counts the user must not miss: bad input lines, samples a live
	// reader dropped because the chain fell behind (perf is never blocked)
	if (h.warnings)
		title.appendChild(el('span', 'warn', ' ' + fmtCount(h.warnings) + ' bad input line' + (h.warnings === 1 ? '' : 's') + ' skipped'));
	if (h.dropped)
		title.appendChild(el('span', 'warn', ' ' + fmtCount(h.dropped) + ' samples dropped: the live chain fell behind'));
}
// The cells of a selection: [first, last] indices, or null.
function selectedCells(h, sel, file) {
	if (!sel || file !== h.file) return null;
	var n = h.ncols * h.rows;
	if (n === 0) return null;
	// whole profile selections are not highlighted: nothing was clicked
	if (sel.from === null && sel.to === null) return null;
	var a = sel.from === null ? 0 : cellOfNs(sel.from, h.rows);
	var b = sel.to === null ? n - 1 : cellOfNs(sel.to - 1, h.rows);
	if (a >= n) return null;
	return [a, Math.min(b, n - 1)];
}
function niceStep(minStep) {
	var steps = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600];
	for (var i = 0; i < steps.length; i++) if (steps[i] >= minStep) return steps[i];
	return Math.ceil(minStep / 3600) * 3600;
}
function drawAxes(ctx, h, g) {
	ctx.strokeStyle = '#888';
	ctx.fillStyle = '#444';
	ctx.lineWidth = 1;
	ctx.font = '10px system-ui, sans-serif';
	ctx.textAlign = 'center';
	ctx.textBaseline = 'alphabetic';
	var step = niceStep(Math.ceil(AXIS_LABEL_MIN_PX / g.cw));
	var yb = g.y0 + g.ph;
	ctx.beginPath();
	for (var c = 0; c <= h.ncols; c += step) {
		var x = g.x0 + c * g.cw;
		ctx.moveTo(x + 0.5, yb); ctx.lineTo(x + 0.5, yb + 4);
		ctx.fillText(String(c), x, yb + 15);
	}
	// y: millisecond offset within the second, 0 at the bottom
	var msStep = g.ph >= 300 ? 100 : 200;
	ctx.textAlign = 'right';
	for (var ms = 0; ms <= 1000; ms += msStep) {
		var y = Math.round(yb - ms / 1000 * g.ph) + 0.5;
		ctx.moveTo(g.x0 - 4, y); ctx.lineTo(g.x0, y);
		ctx.fillText(String(ms), g.x0 - 6, y + 3.5);
	}
	ctx.stroke();
	ctx.fillStyle = '#222';
	ctx.font = '11px system-ui, sans-serif';
	ctx.textAlign = 'center';
	ctx.fillText('second', g.x0 + g.pw / 2, yb + 29);
	ctx.save();
	ctx.translate(12, g.y0 + g.ph / 2);
	ctx.rotate(-Math.PI / 2);
	ctx.fillText('ms', 0, 0);
	ctx.restore();
}
function drawLegend() {
	var lg = $('legend');
	clear(lg);
	var h = st.heat;
	if (!h || !h.max) return;
	lg.appendChild(el('span', '', '0 '));
	var steps = 10;
	for (var i = 0; i <= steps; i++) {
		var sw = el('span', 'swatch');
		sw.style.background = heatColor(i === 0 ? 0 : Math.max(1, h.max * i / steps), h.max);
		lg.appendChild(sw);
	}
	lg.appendChild(el('span', '', ' ' + h.max + ' samples per cell'));
}
function updateHeatInfo() {
	var info = $('heat-info');
	var h = st.heat;
	if (!h) { text(info, ''); return; }
	var msg;
	if (st.pending !== null)
		msg = (st.picking ? 'Second range: ' : '') + 'start ' + nsToSec(cellStartNs(st.pending, h.rows)) + ' s selected; click the end cell (Esc cancels).';
	else if (st.picking)
		msg = 'Compare: click the start cell, then the end cell of the second range' + (st.pickFile ? ' in ' + st.pickFile : '') + '.';
	else
		msg = 'Click a start cell, then an end cell, to see the flame graph of that range.';
	text(info, msg);
}
// The cell under a mouse event, or null.
function cellFromEvent(ev) {
	var g = heatGeom;
	if (!g) return null;
	var rect = $('heat-overlay').getBoundingClientRect();
	var x = ev.clientX - rect.left - g.x0, y = ev.clientY - rect.top - g.y0;
	if (x < 0 || y < 0 || x >= g.pw || y >= g.ph) return null;
	var c = Math.floor(x / g.cw), r = g.rows - 1 - Math.floor(y / g.ch);
	return c * g.rows + r;
}
function setupHeatmap() {
	var ov = $('heat-overlay'), tip = $('tooltip');
	ov.addEventListener('mousemove', function (ev) {
		var t = cellFromEvent(ev);
		var h = st.heat;
		if (t !== hoverCell) { hoverCell = t; drawOverlay(); }
		if (t === null || !h) { tip.hidden = true; return; }
		showCellTip(t, ev.pageX, ev.pageY);
	});
	ov.addEventListener('mouseleave', function () {
		tip.hidden = true;
		if (hoverCell !== null) { hoverCell = null; drawOverlay(); }
	});
	ov.addEventListener('click', function (ev) {
		var t = cellFromEvent(ev);
		if (t === null || !st.heat) return;
		clickCell(t);
	});
	// Keyboard: arrows move a cursor cell (up = later in the second),
	// Enter or Space clicks it; the tooltip shows the cursor's cell.
	ov.addEventListener('keydown', function (ev) {
		var h = st.heat;
		if (!h || !h.ncols) return;
		var n = h.ncols * h.rows;
		var t = hoverCell === null ? 0 : hoverCell;
		var move = { ArrowUp: 1, ArrowDown: -1, ArrowRight: h.rows, ArrowLeft: -h.rows }[ev.key];
		if (move !== undefined) {
			t = clamp(t + move, 0, n - 1);
		} else if (ev.key === 'Enter' || ev.key === ' ') {
			if (hoverCell !== null) clickCell(hoverCell);
			ev.preventDefault();
			return;
		} else {
			return;
		}
		ev.preventDefault();
		hoverCell = t;
		drawOverlay();
		var b = cellBox(t), r = ov.getBoundingClientRect();
		showCellTip(t, r.left + window.scrollX + b.x + b.w, r.top + window.scrollY + b.y + b.h);
	});
	ov.addEventListener('blur', function () { tip.hidden = true; });
}
function showCellTip(t, pageX, pageY) {
	var h = st.heat, tip = $('tooltip');
	var c = Math.floor(t / h.rows), r = t - c * h.rows;
	var ms0 = r * 1000 / h.rows, ms1 = (r + 1) * 1000 / h.rows;
	clear(tip);
	tip.appendChild(el('div', '', 'second ' + c + (h.base !== undefined ? ' (perf time ' + (h.base + c) + ')' : '')));
	tip.appendChild(el('div', '', 'ms ' + fmtMs(ms0) + '\u2013' + fmtMs(ms1)));
	tip.appendChild(el('div', '', 'count ' + h.cells[t]));
	tip.hidden = false;
	tip.style.left = (pageX + 14) + 'px';
	tip.style.top = (pageY + 14) + 'px';
}
function fmtMs(ms) { return (Math.round(ms * 100) / 100).toString(); }

function clickCell(t) {
	var h = st.heat;
	if (st.pending === null) {
		st.pending = t;
		selChanged();
		return;
	}
	var a = st.pending, b = t;
	if (b < a) { var x = a; a = b; b = x; }	// reversed clicks: swap
	st.pending = null;
	var range = { from: cellStartNs(a, h.rows), to: cellStartNs(b + 1, h.rows) };
	if (st.picking) {
		st.cmp = { file: heatFile(), from: range.from, to: range.to };
		st.tab = 'diff';
		endPicking();
	} else {
		st.sel = range;
	}
	writeHash();
	selChanged();
	loadFlame();
}

// ---- compare mode ------------------------------------------------------------------------
function fillCompareFiles() {
	var s = $('compare-file');
	clear(s);
	st.files.forEach(function (f) {
		var o = el('option', '', f.filename + (f.live ? ' (live)' : ''));
		o.value = f.filename;
		s.appendChild(o);
	});
	s.value = st.file;
}
function startPicking() {
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
function hideCompareBox() { $('compare-box').hidden = true; }
function endPicking() {
	st.picking = false;
	hideCompareBox();
	if (st.pickFile) {
		st.pickFile = null;
		loadHeatmap();
	}
}
function setupCompare() {
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

// ---- flame graphs ---------------------------------------------------------------------------
// Trees are FlameScope's: {n: name, l: libtype, v: self samples, c: [children]}
// (differential nodes add d). They become flat node arrays with inclusive
// totals and x offsets in samples, so zoom and search never re-fetch.
// FlameScope's /differential/ and /elided/ use long keys (name, libtype,
// value, delta, children); /flamegraph/ the short ones.
function nodeFields(k) {
	if (k.n !== undefined || k.c !== undefined)
		return { name: k.n, lib: k.l, self: k.v, d: k.d, kids: k.c };
	return { name: k.name, lib: k.libtype, self: k.value, d: k.delta, kids: k.children };
}
function buildNodes(tree) {
	var nodes = [];
	var rf = nodeFields(tree);
	var root = { name: 'all', lib: '', self: Number(rf.self) || 0, d: rf.d, depth: 0, parent: null, kids: [] };
	nodes.push(root);
	var stack = [[tree, root]];
	while (stack.length) {
		var top = stack.pop(), src = top[0], dst = top[1];
		var kids = nodeFields(src).kids || [];
		for (var i = 0; i < kids.length; i++) {
			var k = kids[i], f = nodeFields(k);
			var n = { name: String(f.name), lib: f.lib || '', self: Number(f.self) || 0, d: f.d,
				  depth: dst.depth + 1, parent: dst, kids: [] };
			dst.kids.push(n);
			nodes.push(n);
			stack.push([k, n]);
		}
	}
	// totals bottom-up: children come after their parent in `nodes`
	for (var j = nodes.length - 1; j >= 0; j--) {
		var m = nodes[j];
		m.total = m.self;
		for (var q = 0; q < m.kids.length; q++) m.total += m.kids[q].total;
	}
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
// Frame names never contain ';' (the reader replaces it), so a path of
// names joined by ';' names one node.
function nodePath(n) {
	var names = [];
	for (; n && n.parent; n = n.parent) names.unshift(n.name);
	return names.join(';');
}
function findPath(root, path) {
	var n = root, names = path.split(';');
	for (var i = 0; i < names.length && n; i++) {
		var want = names[i], next = null;
		for (var k = 0; k < n.kids.length; k++)
			if (n.kids[k].name === want) { next = n.kids[k]; break; }
		n = next;
	}
	return n;
}
function frameColor(n, diffMax) {
	if (diffMax !== null) {
		var d = Number(n.d) || 0;
		if (!d || !diffMax) return 'rgb(250,250,250)';
		var i = clamp(Math.abs(d) / diffMax, 0, 1), o = Math.round(250 * (1 - i));
		return d > 0 ? 'rgb(250,' + o + ',' + o + ')' : 'rgb(' + o + ',' + o + ',250)';
	}
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

// One interactive flame graph in #flame.
var fg = {
	data: null, diff: false, diffMax: null, zoomed: null, title: '',
	matched: null,	// {samples, total} of the last search
	set: function (tree, opts) {
		this.data = tree ? buildNodes(tree) : null;
		this.diff = !!(opts && opts.diff);
		this.diffMax = null;
		if (this.data && this.diff) {
			var m = 0;
			this.data.nodes.forEach(function (n) { var a = Math.abs(Number(n.d) || 0); if (a > m) m = a; });
			this.diffMax = m;
		}
		// the zoom follows the frame path into the new graph, if it is there
		this.zoomed = this.data && st.zoom ? findPath(this.data.root, st.zoom) : null;
		if (st.zoom && !this.zoomed && this.data) { st.zoom = ''; writeHash(); }
		this.render();	// no node has .match yet: search() marks them
		this.search(st.search);
	},
	render: function () {
		var svg = $('flame');
		clear(svg);
		var d = this.data;
		$('reset-zoom').disabled = !this.zoomed;
		var W = Math.max(300, $('flame-wrap').clientWidth - 2);
		if (!d || d.root.total === 0) {
			svg.setAttribute('width', W); svg.setAttribute('height', 40);
			var t = svgEl('text', { x: W / 2, y: 24, 'text-anchor': 'middle', 'class': 'empty' });
			t.textContent = d ? 'No samples in this selection' : '';
			svg.appendChild(t);
			return;
		}
		var z = this.zoomed || d.root;
		var scale = W / z.total, zx = z.x;
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
			var x, w;
			if (ancestors.has(n)) { x = 0; w = W; }
			else {
				if (n.x + n.total <= zx || n.x >= zx + z.total) return;
				x = (n.x - zx) * scale; w = n.total * scale;
				if (w < FRAME_MIN_PX) return;
			}
			var y = st.icicle ? FLAME_PAD.top + n.depth * FRAME_H
					  : H - FLAME_PAD.bottom - (n.depth + 1) * FRAME_H;
			var fr = svgEl('g', { 'class': 'frame' + (ancestors.has(n) ? ' faded' : ''), 'data-i': idx });
			var title = svgEl('title');
			title.textContent = self.label(n);
			fr.appendChild(title);
			fr.appendChild(svgEl('rect', { x: x, y: y, width: Math.max(0, w - 0.5), height: FRAME_H - 1,
						       rx: 2, ry: 2, fill: n.match ? SEARCH_COLOR : frameColor(n, self.diff ? self.diffMax : null) }));
			if (n.match) fr.classList.add('match');
			var chars = Math.floor((w - 6) / CHAR_W);
			if (chars >= 3) {
				var tx = svgEl('text', { x: x + 3, y: y + FRAME_H - 4 });
				tx.textContent = n.name.length <= chars ? n.name : n.name.slice(0, chars - 2) + '..';
				fr.appendChild(tx);
			}
			frag.appendChild(fr);
		});
		g.appendChild(frag);
		svg.appendChild(g);
	},
	label: function (n) {
		var total = this.data.root.total;
		var s = n.name + ' (' + fmtCount(n.total) + ' samples, ' + pct(n.total, total) + ')';
		if (this.diff) {
			var d = Number(n.d) || 0;
			s += ', self change ' + (d > 0 ? '+' : '') + d;
		}
		return s;
	},
	node: function (ev) {
		var t = ev.target;
		while (t && t !== document && !(t.getAttribute && t.getAttribute('data-i') !== null)) t = t.parentNode;
		if (!t || t === document || !this.data) return null;
		return this.data.nodes[Number(t.getAttribute('data-i'))];
	},
	zoom: function (n) {
		this.zoomed = n && n !== this.data.root ? n : null;
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
			var r = frames[i].querySelector('rect');
			r.setAttribute('fill', n.match ? SEARCH_COLOR : frameColor(n, self.diff ? self.diffMax : null));
			frames[i].classList.toggle('match', !!n.match);
		}
	}
};
function setupFlame() {
	var svg = $('flame'), details = $('flame-details');
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
		tip.appendChild(el('div', '', fmtCount(n.total) + ' samples, ' + pct(n.total, total) +
				   (n.self ? ' (' + fmtCount(n.self) + ' self)' : '')));
		if (fg.diff) {
			var d = Number(n.d) || 0;
			tip.appendChild(el('div', '', 'self change ' + (d > 0 ? '+' : '') + d + ' (scaled to equal totals)'));
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
			$('search').focus();
		}
	});
}

// Fetches the flame graph(s) for the current selection and compare state.
var trees = { a: null, b: null, diff: null, elided: null };
function flameURL(file, sel) {
	return API.flamegraph + '?' + qs(merge({ filename: file }, selectionParams(sel), filterParams()));
}
function svgURL(file, sel) {
	return API.svg + '?' + qs(merge({ filename: file }, selectionParams(sel), filterParams()));
}
// A live capture has one selection, held by fp-range in the running chain:
// a new selection is written to its control FIFO (POST /live/range), and
// the flame graph is the chain's latest fold snapshot (GET /live/flamegraph).
// `reselect` false only re-reads the snapshot (after a `fold` event).
var liveSnap = null;	// range and sequence number of the last live snapshot
function liveTree(sel, reselect) {
	var name = st.file;
	var pick = reselect
		? getJSON(API.liveRange + '?' + qs(merge({ name: name }, selectionParams(sel), filterParams())),
			  { method: 'POST' }).catch(function (e) {
			// 409: the chain has no control FIFO; show what it has
			if (e.status === 409) { showError('live range selection unavailable: ' + e.message); return null; }
			throw e;
		})
		: Promise.resolve(null);
	return pick.then(function () {
		return getJSON(API.liveFlamegraph + '?' + qs({ name: name }));
	}).then(function (j) {
		liveSnap = { from: secToNs(j.from), to: secToNs(j.to), seq: j.seq };
		return j.tree || { n: 'root', l: '', v: 0, c: [] };
	});
}
function loadFlame(opts) {
	var g = ++gen.flame;
	var sel = st.sel || { from: null, to: null };
	var reselect = !(opts && opts.snapshotOnly);
	setStatus('loading flame graph\u2026');
	var link = $('svg-link');
	link.href = svgURL(st.file, sel);
	link.hidden = st.live;
	var first = st.live ? liveTree(sel, reselect) : getJSON(flameURL(st.file, sel));
	if (!st.cmp) {
		$('flame-tabs').hidden = true;
		return first.then(function (tree) {
			if (g !== gen.flame) return;
			setStatus('');
			trees = { a: tree, b: null, diff: null, elided: null };
			var what = st.sel ? fmtRange(sel.from, sel.to) : 'whole profile';
			if (st.live && liveSnap) {
				// the chain's selection is shared: say what the snapshot holds
				var snapWhole = liveSnap.from === null && liveSnap.to === null;
				what = snapWhole ? 'whole capture' : fmtRange(liveSnap.from, liveSnap.to);
				var mine = st.sel ? (liveSnap.from === sel.from && liveSnap.to === sel.to) : snapWhole;
				if (!mine) what += ' (selected elsewhere)';
			}
			text($('flame-title'), (st.live ? 'Live flame graph: ' : 'Flame graph: ') + what);
			fg.set(tree);
		}).catch(function (e) {
			if (g !== gen.flame) return;
			setStatus('');
			fg.set(null);
			showError('flame graph: ' + e.message);
		});
	}
	// Compare: the differential graph draws the second selection (B) with
	// each frame coloured by its change from the first (A): the server's
	// filename is B, compareFilename A. The elided view is A's frames that
	// B does not have (they cannot appear in B's shape).
	var c = st.cmp;
	var both = qs(merge({ filename: c.file }, selectionParams(c), filterParams(),
			    prefixed('compare', merge({ filename: st.file }, selectionParams(sel)))));
	return Promise.all([
		first,
		getJSON(flameURL(c.file, c)),
		getJSON(API.differential + '?' + both),
		getJSON(API.elided + '?' + both)
	]).then(function (r) {
		if (g !== gen.flame) return;
		setStatus('');
		trees = { a: r[0], b: r[1], diff: r[2], elided: r[3] };
		$('flame-tabs').hidden = false;
		link.href = API.svg + '?' + both + '&diff=1';
		showTab();
	}).catch(function (e) {
		if (g !== gen.flame) return;
		setStatus('');
		fg.set(null);
		showError('compare: ' + e.message);
	});
}
// compareFilename, compareStart, ... (FlameScope's spelling)
function prefixed(prefix, p) {
	var o = {};
	for (var k in p) o[prefix + k.charAt(0).toUpperCase() + k.slice(1)] = p[k];
	return o;
}
function showTab() {
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

// ---- filters ----------------------------------------------------------------------------------
function fillFilterForm() {
	var f = $('filters');
	FILTER_KEYS.forEach(function (k) { f.elements[k].value = st.filters[k] || ''; });
	var n = Object.keys(st.filters).length;
	text($('filters-active'), n ? '(' + n + ' active)' : '');
	if (n) $('filters-box').open = true;
}
function setupFilters() {
	$('filters').addEventListener('submit', function (ev) {
		ev.preventDefault();
		var f = $('filters');
		st.filters = {};
		FILTER_KEYS.forEach(function (k) {
			var v = f.elements[k].value.trim();
			if (v) st.filters[k] = v;
		});
		applyFilters();
	});
	$('filters-reset').addEventListener('click', function () {
		st.filters = {};
		fillFilterForm();
		applyFilters();
	});
}
function applyFilters() {
	fillFilterForm();
	showError(null);
	writeHash();
	loadHeatmap();
	loadFlame();
}

// ---- live captures --------------------------------------------------------------------------------
// The server pushes `cells` events ({ncols, maxvalue, cols: {col: [values
// top first]}}), `heatmap` when the geometry changed, `fold` when a new
// flame graph snapshot is ready, and `end`.
var liveRedraw = null, liveFoldTimer = null, liveFoldLast = 0;
function openLive() {
	closeLive();
	if (typeof EventSource === 'undefined') return;
	var es = new EventSource(API.liveEvents + '?' + qs({ name: st.file }));
	st.es = es;
	// `heatmap` opens every connection (and reconnection) and marks a
	// geometry change: the full state is fetched again. Cells events that
	// arrive meanwhile are kept and applied on top of the fetched state
	// (they carry absolute values, so applying one twice is harmless).
	es.addEventListener('heatmap', function () {
		st.liveFetching = true;
		st.liveQueue = [];
		loadHeatmap().then(function () {
			st.liveFetching = false;
			var q = st.liveQueue;
			st.liveQueue = [];
			q.forEach(applyCells);
			st.liveReady = true;
		});
	});
	es.addEventListener('cells', function (ev) {
		var j = parseEvent(ev);
		if (!j) return;
		if (st.liveFetching) st.liveQueue.push(j);
		else applyCells(j);
	});
	es.addEventListener('fold', function () {
		// a new snapshot of the selected range: refresh the flame graph,
		// at most once a second
		if (st.cmp) return;
		var wait = Math.max(0, liveFoldLast + LIVE_FOLD_REFRESH_MS - Date.now());
		clearTimeout(liveFoldTimer);
		liveFoldTimer = setTimeout(function () { liveFoldLast = Date.now(); loadFlame({ snapshotOnly: true }); }, wait);
	});
	es.addEventListener('stats', function (ev) {
		var j = parseEvent(ev), h = st.heat;
		if (!j || !h || !h.live || st.pickFile) return;
		if (j.samples !== undefined) h.samples = Number(j.samples) || 0;
		if (j.dropped !== undefined) h.dropped = Number(j.dropped) || 0;
		if (j.warnings !== undefined) h.warnings = Number(j.warnings) || 0;
		updateHeatTitle();
	});
	es.addEventListener('end', function () {
		if (st.heat) { st.heat.ended = true; scheduleLiveRedraw(); }
		setStatus('capture ended');
		closeLive();
	});
	es.onerror = function () { setStatus('live stream interrupted; retrying\u2026'); };
	es.onopen = function () { setStatus(''); };
}
function applyCells(j) {
	var h = st.heat;
	if (!h || st.pickFile || !h.live) return;
	var ncols = Math.max(h.ncols, Number(j.ncols) || 0);
	if (ncols > h.ncols) {
		for (var i = h.ncols * h.rows; i < ncols * h.rows; i++) h.cells.push(0);
		h.ncols = ncols;
	}
	var cols = j.cols || {};
	for (var k in cols) {
		var c = Number(k), vals = cols[k];
		if (!(c >= 0 && c < h.ncols)) continue;
		for (var r = 0; r < h.rows && r < vals.length; r++)
			h.cells[c * h.rows + (h.rows - 1 - r)] = Number(vals[r]) || 0;
		liveDirty[c] = true;
	}
	h.max = 0; h.total = 0;
	for (var q = 0; q < h.cells.length; q++) {
		if (h.cells[q] > h.max) h.max = h.cells[q];
		h.total += h.cells[q];
	}
	scheduleLiveRedraw();
}
function parseEvent(ev) { try { return JSON.parse(ev.data); } catch (e) { return null; } }
// Same geometry and colour scale: only the changed columns are recoloured;
// otherwise (new columns, new maximum) the grid is drawn again.
var liveDirty = {};
function scheduleLiveRedraw() {
	if (liveRedraw) return;
	liveRedraw = setTimeout(function () {
		liveRedraw = null;
		var h = st.heat, g = heatGeom, dirty = liveDirty;
		liveDirty = {};
		if (!h || !g || g.ncols !== h.ncols || g.rows !== h.rows || g.max !== h.max ||
		    g.enhanced !== st.enhanced) {
			drawHeatmap();
			return;
		}
		var ctx = $('heatmap').getContext('2d');
		for (var k in dirty) drawColumns(ctx, Number(k), Number(k) + 1);
		updateHeatTitle();
	}, LIVE_REDRAW_MS);
}
function closeLive() {
	if (st.es) { st.es.close(); st.es = null; }
	st.liveFetching = false;
	st.liveQueue = [];
	st.liveReady = false;
	liveSnap = null;
	clearTimeout(liveFoldTimer);
}

// ---- toolbar -----------------------------------------------------------------------------------------
function setupToolbar() {
	$('rows').addEventListener('change', function () {
		st.rows = Number($('rows').value);
		st.pending = null;
		writeHash();
		loadHeatmap();
	});
	$('enhanced').addEventListener('change', function () {
		st.enhanced = $('enhanced').checked;
		writeHash();
		drawHeatmap();
	});
	$('whole').addEventListener('click', function () {
		st.sel = null; st.cmp = null; st.pending = null;
		endPicking();
		writeHash();
		selChanged();
		loadFlame();
	});
	// Stop comparing: back to the first selection's own flame graph.
	$('stop-cmp').addEventListener('click', function () {
		st.pending = null; st.cmp = null;
		endPicking();
		writeHash();
		selChanged();
		loadFlame();
	});
	$('step-back').addEventListener('click', function () { stepSelection(-1); });
	$('step-fwd').addEventListener('click', function () { stepSelection(1); });
	document.addEventListener('keydown', function (ev) {
		if (st.view !== 'profile' || /^(INPUT|SELECT|TEXTAREA)$/.test(ev.target.tagName)) return;
		if (ev.key === 'Escape' && (st.pending !== null || st.picking)) {
			st.pending = null;
			endPicking();
			selChanged();
		} else if (ev.key === '[') {
			stepSelection(-1);
		} else if (ev.key === ']') {
			stepSelection(1);
		}
	});
	var resizeTimer = null;
	window.addEventListener('resize', function () {
		clearTimeout(resizeTimer);
		resizeTimer = setTimeout(function () {
			if (st.view === 'profile') { drawHeatmap(); fg.render(); }
		}, 150);
	});
}

// Steps through time: the selection moves by its own length, so a user can
// walk a capture window by window and watch the flame graph change.
function stepSelection(dir) {
	var h = st.heat, sel = st.sel;
	if (!h || !sel || sel.from === null || sel.to === null) return;
	var len = sel.to - sel.from, from = sel.from + dir * len;
	var endNs = h.ncols * NS_PER_SEC;
	if (from < 0 || from >= endNs) return;
	st.sel = { from: from, to: from + len };
	writeHash();
	selChanged();
	loadFlame();
}
function updateStepper() {
	var h = st.heat, sel = st.sel;
	var ok = !!(h && sel && sel.from !== null && sel.to !== null);
	$('step-back').disabled = !ok || sel.from - (sel.to - sel.from) < 0;
	$('step-fwd').disabled = !ok || sel.to >= h.ncols * NS_PER_SEC;
}

function init() {
	setupUpload();
	setupHeatmap();
	setupFlame();
	setupFilters();
	setupCompare();
	setupToolbar();
	window.addEventListener('hashchange', route);
	route();
}
// For tests and scripting: read-only views of the state.
window.flamepipe = {
	state: st, flame: fg,
	trees: function () { return trees; },
	redraw: function () { drawHeatmap(); },
	// the centre of cell t in viewport coordinates (for clicks)
	cellCenter: function (t) {
		if (!heatGeom) return null;
		var b = cellBox(t), r = $('heat-overlay').getBoundingClientRect();
		return { x: r.left + b.x + b.w / 2, y: r.top + b.y + b.h / 2 };
	},
	// the colour drawn at each cell's centre, "r,g,b" (what the user sees)
	drawnCells: function () { return sampleCanvas($('heatmap')); },
	// the overlay's alpha at each cell's centre (selection highlight)
	overlayCells: function () { return sampleCanvas($('heat-overlay'), true); }
};
function sampleCanvas(cv, alpha) {
	var g = heatGeom;
	if (!g) return [];
	var dpr = cv.width / g.W;
	var img = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
	var out = new Array(g.ncols * g.rows);
	for (var t = 0; t < out.length; t++) {
		var b = cellBox(t);
		var px = Math.floor((b.x + b.w / 2) * dpr), py = Math.floor((b.y + b.h / 2) * dpr);
		var i = (py * cv.width + px) * 4;
		out[t] = alpha ? img[i + 3] : img[i] + ',' + img[i + 1] + ',' + img[i + 2];
	}
	return out;
}
init();
})();
