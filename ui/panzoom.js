// Continuous zoom and pan of a horizontal axis, for the flame graph and the
// flame chart (speedscope's "time order" and "left heavy" views move the
// same way): the wheel zooms in and out around the pointer, a sideways
// wheel or Shift+wheel pans, a drag pans (sideways on the axis, up and down
// by scrolling the element's scroll box), a double-click resets; with the
// focus on the element + and - zoom, Shift+Left/Right pan, 0 resets.
// Generic: the owner says what the axis spans and draws; this module only
// keeps the visible range, in the owner's units (samples).
//
//   var v = panZoom({ el: svg, wrap: scrollBox, extent: function () { return [0, total]; },
//                     home: function () { return [a, b]; }, draw: function () { ... } });
//   v.range()   -> [x0, x1] visible now (home() when the user has not moved)
//   v.moved()   -> whether the wheel or a drag moved it away from home()
//   v.reset()   -> back to home(); draw() is called
//   v.zoomTo(a, b), v.zoomAt(px, factor), v.panPx(dx) -> move it (bounded)
//   v.dragged() -> whether the last pointer press was a drag (not a click)
//
// Bounds: the range never leaves extent() and is never narrower than
// minWidth (1 unit: one sample fills the pane) nor wider than extent().
// Redraws are coalesced to one per animation frame, drawn with
// draw(true) (moving: the owner may leave out detail), and once the
// movement has stopped for SETTLE_MS with draw(false).

export var ZOOM_PER_WHEEL_PX = 0.0025;	// wheel deltaY of 100 px: range x 0.78 (in) or x 1.28 (out)
export var WHEEL_LINE_PX = 16;		// deltaMode 1 (lines): px per line
export var WHEEL_PAGE_PX = 400;		// deltaMode 2 (pages): px per page
export var DRAG_MIN_PX = 4;		// a press that moves less is a click
export var DOUBLE_CLICK_MS = 500;	// a second click this soon, as near, resets
export var MIN_WIDTH_UNITS = 1;
export var SETTLE_MS = 150;
export var KEY_ZOOM = 0.8;		// "+": the range x 0.8 around its middle, "-": / 0.8
export var KEY_PAN_FRACTION = 0.1;	// Shift+arrow: a tenth of the range

function wheelPx(ev, d) {
	return ev.deltaMode === 1 ? d * WHEEL_LINE_PX : ev.deltaMode === 2 ? d * WHEEL_PAGE_PX : d;
}

export function panZoom(o) {
	var cur = null;		// [x0, x1] set by the user, or null: home()
	var queued = false, wasDrag = false, drag = null, settle = null;
	var lastUp = null, eatClick = false;
	var minWidth = o.minWidth || MIN_WIDTH_UNITS;

	function clampRange(x0, x1) {
		var e = o.extent(), full = e[1] - e[0];
		var w = Math.min(full, Math.max(Math.min(minWidth, full), x1 - x0));
		if (x0 < e[0]) x0 = e[0];
		if (x0 + w > e[1]) x0 = e[1] - w;
		return [x0, x0 + w];
	}
	function schedule() {
		if (queued) return;
		queued = true;
		clearTimeout(settle);
		requestAnimationFrame(function () {
			queued = false;
			o.draw(true);
			clearTimeout(settle);
			settle = setTimeout(function () { o.draw(false); }, SETTLE_MS);
		});
	}
	function pxWidth() { return Number(o.el.getAttribute('width')) || o.el.clientWidth || 1; }
	function range() { return cur ? cur.slice() : o.home(); }

	var v = {
		range: range,
		moved: function () { return cur !== null; },
		dragged: function () { return wasDrag; },
		reset: function () { cur = null; clearTimeout(settle); o.draw(false); },
		forget: function () { cur = null; clearTimeout(settle); },	// a new home (click zoom, new data): drawn by the owner
		// factor < 1 zooms in; at is the pointer's x in px from the element's left
		zoomAt: function (at, factor) {
			var r = range(), W = pxWidth(), w = r[1] - r[0];
			var u = r[0] + (at / W) * w, nw = w * factor;
			cur = clampRange(u - (at / W) * nw, u - (at / W) * nw + nw);
			schedule();
		},
		zoomTo: function (x0, x1) { cur = clampRange(x0, x1); schedule(); },
		panPx: function (dx) {
			var r = range(), W = pxWidth(), d = dx * (r[1] - r[0]) / W;
			cur = clampRange(r[0] + d, r[1] + d);
			schedule();
		}
	};

	o.el.addEventListener('wheel', function (ev) {
		// Ctrl+wheel (and a touchpad pinch) is the owner's (flamekeys.js)
		if (ev.ctrlKey || ev.metaKey || !o.extent()) return;
		ev.preventDefault();
		var dx = wheelPx(ev, ev.deltaX), dy = wheelPx(ev, ev.deltaY);
		if (ev.shiftKey && !dx) { dx = dy; dy = 0; }
		if (Math.abs(dx) > Math.abs(dy)) { v.panPx(dx); return; }
		if (!dy) return;
		var rect = o.el.getBoundingClientRect();
		v.zoomAt(ev.clientX - rect.left, Math.exp(dy * ZOOM_PER_WHEEL_PX));
	}, { passive: false });

	o.el.addEventListener('pointerdown', function (ev) {
		if (ev.button !== 0 || !o.extent()) return;
		wasDrag = eatClick = false;
		drag = { x: ev.clientX, y: ev.clientY, lastX: ev.clientX, lastY: ev.clientY, id: ev.pointerId, on: false };
	});
	o.el.addEventListener('pointermove', function (ev) {
		if (!drag || ev.pointerId !== drag.id) return;
		if (!drag.on) {
			if (Math.abs(ev.clientX - drag.x) < DRAG_MIN_PX && Math.abs(ev.clientY - drag.y) < DRAG_MIN_PX) return;
			drag.on = wasDrag = true;
			o.el.setPointerCapture(ev.pointerId);
			o.el.classList.add('dragging');
		}
		v.panPx(drag.lastX - ev.clientX);
		if (o.wrap) o.wrap.scrollTop -= ev.clientY - drag.lastY;
		drag.lastX = ev.clientX;
		drag.lastY = ev.clientY;
	});
	function endDrag(ev) {
		if (!drag || ev.pointerId !== drag.id) return;
		if (drag.on) o.el.classList.remove('dragging');
		drag = null;
	}
	function reset() { if (o.onReset) o.onReset(); else v.reset(); }
	// The double-click is told from the presses themselves: the first
	// click's zoom redraws the frames, and a redraw between the second
	// press and its release leaves the browser no click, so no dblclick.
	o.el.addEventListener('pointerup', function (ev) {
		var was = drag && drag.on, near = lastUp && ev.timeStamp - lastUp.t < DOUBLE_CLICK_MS &&
			Math.abs(ev.clientX - lastUp.x) < DRAG_MIN_PX && Math.abs(ev.clientY - lastUp.y) < DRAG_MIN_PX;
		endDrag(ev);
		if (ev.button !== 0 || was || !o.extent()) { lastUp = null; return; }
		if (!near) { lastUp = { t: ev.timeStamp, x: ev.clientX, y: ev.clientY }; return; }
		lastUp = null;
		eatClick = true;	// the second click zooms no more
		reset();
	});
	o.el.addEventListener('pointercancel', endDrag);
	// a drag ends with a click on whatever frame is under the pointer: not a zoom
	o.el.addEventListener('click', function (ev) {
		if (wasDrag || eatClick) { ev.stopImmediatePropagation(); wasDrag = eatClick = false; }
	}, true);
	// the keyboard, when the element has the focus: + and - zoom around
	// the middle, Shift+Left/Right pan, 0 resets
	o.el.addEventListener('keydown', function (ev) {
		if (!o.extent() || ev.ctrlKey || ev.metaKey || ev.altKey) return;
		var W = pxWidth();
		if (ev.key === '+' || ev.key === '=') v.zoomAt(W / 2, KEY_ZOOM);
		else if (ev.key === '-' || ev.key === '_') v.zoomAt(W / 2, 1 / KEY_ZOOM);
		else if (ev.shiftKey && (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight'))
			v.panPx((ev.key === 'ArrowLeft' ? -1 : 1) * W * KEY_PAN_FRACTION);
		else if (ev.key === '0') reset();
		else return;
		ev.preventDefault();
		ev.stopImmediatePropagation();
	});
	o.el.addEventListener('dblclick', function (ev) {
		ev.preventDefault();	// (no text selection; the reset was at the second release)
	});
	return v;
}

// Where a span [a, a + w) of units lands on a W px wide axis showing r,
// clipped to the axis: {x, w} in px, or null when it is out of sight.
export function spanPx(a, w, r, W) {
	var scale = W / (r[1] - r[0]);
	var x0 = (a - r[0]) * scale, x1 = (a + w - r[0]) * scale;
	if (x1 <= 0 || x0 >= W) return null;
	if (x0 < 0) x0 = 0;
	if (x1 > W) x1 = W;
	return { x: x0, w: x1 - x0, full: w * scale };
}
