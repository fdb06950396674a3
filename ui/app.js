// flamepipe web UI entry point: routing, the profile page, init.
// Plain JS modules, no framework, no network resources other than this server.
// Every name from the data goes into the page with textContent or
// setAttribute, never innerHTML, so a symbol like <script> stays text.

import { fillCompareFiles, hideCompareBox, setupCompare } from './compare.js';
import { fillFilterForm, setupFilters } from './filters.js';
import { fg, setupFlame } from './flamegraph.js';
import { loadFlame, trees } from './flameload.js';
import { cellBox, drawHeatmap, heatGeom, loadHeatmap, sampleCanvas, setupHeatmap } from './heatmap.js';
import { loadProfiles, setupUpload, showList } from './list.js';
import { closeLive, openLive } from './live.js';
import { gen, parseHash, showError, st } from './state.js';
import { setupEventPicker } from './events.js';
import { sandwichRows, setupSandwich } from './sandwich.js';
import { callTreeNodes, callTreeRows, setupCallTree } from './calltree.js';
import { drawnStrips, loadThreads, setupThreads, stripsOther } from './threads.js';
import { drawnContainerStrips, loadContainers, setupContainers } from './containers.js';
import { focusNode, setupFlameKeys } from './flamekeys.js';
import { chartView, drawnChart, setupChart } from './chart.js';
import { setupToolbar } from './toolbar.js';
import { $, FILTER_KEYS, ROWS_CHOICES, ROWS_DEFAULT, clear, el, secToNs, text } from './util.js';

export function route() {
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

// ---- profile page ------------------------------------------------------------------
// Values of the address that cannot be used are reported, not replaced
// silently: "rows=7 (expected one of 10, 25, ...; 50 is shown)".
var FLAGS = ['enhanced', 'icicle', 'flip', 'allevents', 'cwhole'];
var CHOICES = { order: ['weight', 'name'], fv: ['flame', 'sandwich', 'tree', 'chart'], ct: ['top', 'bottom'] };
function urlProblems(params) {
	var out = [];
	function has(k) { return params.get(k) !== null && params.get(k) !== ''; }
	if (has('rows') && ROWS_CHOICES.indexOf(Number(params.get('rows'))) < 0)
		out.push('rows=' + params.get('rows') + ' (expected one of ' + ROWS_CHOICES.join(', ') + '; ' + ROWS_DEFAULT + ' is shown)');
	['start', 'end', 'cstart', 'cend'].forEach(function (k) {
		if (has(k) && secToNs(params.get(k)) === null)
			out.push(k + '=' + params.get(k) + ' (expected seconds such as 12 or 12.5; ignored)');
	});
	FLAGS.forEach(function (k) {
		if (has(k) && params.get(k) !== '0' && params.get(k) !== '1')
			out.push(k + '=' + params.get(k) + ' (expected 0 or 1)');
	});
	for (var k in CHOICES)
		if (has(k) && CHOICES[k].indexOf(params.get(k)) < 0)
			out.push(k + '=' + params.get(k) + ' (expected ' + CHOICES[k].join(' or ') + ')');
	if (params.get('allevents') === '1' && has('event'))
		out.push('allevents=1 with event=' + params.get('event') + ' (they exclude each other; the event is shown)');
	return out;
}
export function openProfile(params) {
	var file = params.get('file');
	var sameFile = st.view === 'profile' && st.file === file;
	st.view = 'profile';
	st.file = file;
	var rows = Number(params.get('rows'));
	st.rows = ROWS_CHOICES.indexOf(rows) >= 0 ? rows : ROWS_DEFAULT;
	st.enhanced = params.get('enhanced') === '1';
	st.filters = {};
	FILTER_KEYS.forEach(function (k) { if (params.get(k)) st.filters[k] = params.get(k); });
	st.allEvents = params.get('allevents') === '1' && !st.filters.event;
	var a = secToNs(params.get('start')), b = secToNs(params.get('end'));
	st.sel = a !== null || b !== null ? { from: a, to: b } : null;
	var cf = params.get('cfile');
	st.cmp = cf ? { file: cf, from: secToNs(params.get('cstart')), to: secToNs(params.get('cend')) } : null;
	st.search = params.get('s') || '';
	st.icicle = params.get('icicle') === '1';
	st.order = params.get('order') === 'name' ? 'name' : 'weight';
	st.flip = params.get('flip') === '1';
	st.fview = ['sandwich', 'tree', 'chart'].indexOf(params.get('fv')) >= 0 ? params.get('fv') : 'flame';
	st.ctMode = params.get('ct') === 'bottom' ? 'bottom' : 'top';
	st.sandwich = params.get('sw') || '';
	st.zoom = params.get('z') || '';
	st.pending = null; st.picking = false; st.pickFile = null;
	if (!sameFile) st.tab = 'diff';

	var bad = urlProblems(params);
	if (bad.length) showError('The address has values that were not used: ' + bad.join('; '));

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
	$('order').value = st.order;
	$('fview').value = st.fview;
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
			else loadThreads();
			loadContainers();
		});
		// a live page: the chain's snapshot of the whole capture, or the
		// URL's selection from the recording (live.js)
		loadFlame();
	});
}

export function init() {
	setupUpload();
	setupHeatmap();
	setupFlame();
	setupFilters();
	setupCompare();
	setupToolbar();
	setupEventPicker();
	setupSandwich();
	setupCallTree();
	setupThreads();
	setupContainers();
	setupFlameKeys();
	setupChart();
	window.addEventListener('hashchange', route);
	route();
}
// For tests and scripting: read-only views of the state.
window.flamepipe = {
	state: st, flame: fg,
	trees: function () { return trees; },
	sandwich: function () { return sandwichRows(); },
	calltree: function () { return callTreeRows(); },
	calltreeNodes: function (mode) { return callTreeNodes(mode); },
	strips: function () { return drawnStrips(); },
	stripsOther: function () { return stripsOther(); },
	containerStrips: function () { return drawnContainerStrips(); },
	chart: function () { return drawnChart(); },
	chartView: function () { return chartView(); },
	// the flame graph's visible range in samples and its width in px
	flameView: function () {
		return fg.data && fg.view ? { range: fg.view.range(), moved: fg.view.moved(), total: fg.data.root.total,
					      W: Number($('flame').getAttribute('width')) } : null;
	},
	focus: function () { var n = focusNode(); return n ? n.name : null; },
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
init();
