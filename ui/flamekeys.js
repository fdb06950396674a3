// Keyboard, Ctrl+wheel and help for the flame graph: arrows move a focus
// frame (up = into the heaviest child, down = to the caller, left/right =
// siblings), Enter zooms to it, Escape zooms out one level (or back from a
// wheel zoom or drag, panzoom.js), Ctrl+wheel steps into the frame under
// the pointer (out when turned back), "?" shows the help overlay. The focus frame is outlined and described below the
// graph, so the graph can be read without a mouse.

import { fg } from './flamegraph.js';
import { st } from './state.js';
import { $, text } from './util.js';

var focus = null;	// the focused node of fg.data

function visible(n) {
	// a node drawn in the current zoom (the zoomed frame, its subtree or ancestors)
	var z = fg.zoomed || fg.data.root;
	for (var a = n; a; a = a.parent) if (a === z) return true;
	for (var b = z; b; b = b.parent) if (b === n) return true;
	return false;
}
export function setFocus(n) {
	focus = n;
	var frames = $('flame').querySelectorAll('g.frame.focus');
	for (var i = 0; i < frames.length; i++) frames[i].classList.remove('focus');
	if (!n || !fg.data) { text($('flame-details'), ''); return; }
	var g = $('flame').querySelector('g.frame[data-i="' + fg.data.nodes.indexOf(n) + '"]');
	if (g) g.classList.add('focus');
	text($('flame-details'), 'Focus: ' + fg.label(n));
}
function siblings(n) {
	if (!n.parent) return [n];
	return n.parent.kids.slice().sort(function (a, b) { return a.x - b.x; });
}
function move(key) {
	var d = fg.data;
	if (!d) return false;
	var n = focus && visible(focus) ? focus : (fg.zoomed || d.root);
	var deeper = st.icicle ? 'ArrowDown' : 'ArrowUp', shallower = st.icicle ? 'ArrowUp' : 'ArrowDown';
	var next = null;
	if (key === deeper) next = n.kids.slice().sort(function (a, b) { return b.total - a.total; })[0] || null;
	else if (key === shallower) next = n.parent;
	else if (key === 'ArrowLeft' || key === 'ArrowRight') {
		var s = siblings(n), i = s.indexOf(n) + (key === 'ArrowLeft' ? -1 : 1);
		next = s[i] || null;
	}
	if (!next || !visible(next)) return true;	// at an edge: stay
	setFocus(next);
	return true;
}
// Escape: back to the zoomed frame when the wheel or a drag moved the
// view, else out one level.
function zoomOut() {
	if (fg.view && fg.view.moved()) { fg.view.reset(); return; }
	if (!fg.zoomed) return;
	fg.zoom(fg.zoomed.parent);
}
export function toggleHelp(on) {
	var h = $('flame-help');
	h.hidden = on === undefined ? !h.hidden : !on;
}

export function setupFlameKeys() {
	var svg = $('flame');
	fg.onRender = function () { if (focus) setFocus(focus); };
	svg.setAttribute('tabindex', '0');
	svg.addEventListener('keydown', function (ev) {
		if (ev.key === 'Enter' || ev.key === ' ') {
			if (focus) fg.zoom(focus);
		} else if (ev.key === 'Escape' || ev.key === 'Backspace') {
			if (!$('flame-help').hidden) toggleHelp(false);
			else zoomOut();
		} else if (!move(ev.key)) {
			return;
		} else if (!/^Arrow/.test(ev.key)) {
			return;
		}
		ev.preventDefault();
		if (focus) setFocus(focus);	// the graph was drawn again: outline again
	});
	// Ctrl+wheel (and a touchpad pinch): in to the frame under the pointer, or out
	svg.addEventListener('wheel', function (ev) {
		if (!ev.ctrlKey || !fg.data) return;
		ev.preventDefault();
		if (ev.deltaY < 0) {
			var n = fg.node(ev);
			if (n && n !== fg.zoomed) fg.zoom(n);
		} else if (ev.deltaY > 0) {
			if (fg.view) fg.view.forget();
			zoomOut();
		}
	}, { passive: false });
	$('help-btn').addEventListener('click', function () { toggleHelp(); });
	$('flame-help').addEventListener('click', function () { toggleHelp(false); });
	document.addEventListener('keydown', function (ev) {
		if (st.view !== 'profile' || /^(INPUT|SELECT|TEXTAREA)$/.test(ev.target.tagName)) return;
		if (ev.key === '?') { toggleHelp(); ev.preventDefault(); }
		else if (ev.key === 'Escape' && !$('flame-help').hidden) toggleHelp(false);
		else if (ev.key === 'Escape' && ev.target !== $('flame') && fg.view && fg.view.moved()) fg.view.reset();
	});
}
export function focusNode() { return focus; }
