// Subsecond-offset heatmap: hover, enhanced colours, range selection.
// The renderer prepends `var hm_cfg = {...};` and ui/heatscale.js (the
// Enhanced scale) and places this script at the end of heatmap.svg's
// <svg id="heatmap"> element.
(function () {
var cfg = hm_cfg;
var svg = document.getElementById("heatmap");
var status = document.getElementById("hm_status");
var selected = document.getElementById("hm_selected");
var hover = document.getElementById("hm_hover");
var snake = document.getElementById("hm_snake");
var enh = document.getElementById("hm_enhanced");
var cells = document.getElementById("hm_cells").children;
var enhanced = false, start = null;
var NS = "http://www.w3.org/2000/svg";

function set_text(e, s) { if (e) e.textContent = s; }
// The same integer formula as fp_heatmap_color, so toggling back restores
// exactly the colours the renderer wrote.
function linear_fill(c) {
	var v = 255 - Math.floor((255 * c + Math.floor(cfg.max / 2)) / cfg.max);
	return "rgb(255," + v + "," + v + ")";
}
// Enhanced: FlameScope's scale, the page's too (ui/heatscale.js, placed
// before this script), so single samples show.
function enhanced_fill(c) {
	return "rgb(" + heatEnhancedRGB(c, cfg.max, HEAT_ENHANCED_LIGHT).join(",") + ")";
}
function recolor() {
	for (var i = 0; i < cells.length; i++) {
		var c = +cells[i].getAttribute("data-c");
		cells[i].setAttribute("fill", enhanced ? enhanced_fill(c) : linear_fill(c));
	}
	set_text(enh, "Enhanced: " + (enhanced ? "on" : "off"));
	// The legend's gradient follows the scale in use.
	var grad = document.getElementById("hm_scale");
	if (grad) {
		while (grad.firstChild) grad.removeChild(grad.firstChild);
		var stops = enhanced ? HEAT_ENHANCED_LIGHT.map(function (c) { return "rgb(" + c.join(",") + ")"; })
			: ["rgb(255,255,255)", "rgb(255,0,0)"];
		var at = enhanced ? heatEnhancedAt(cfg.max) : [0, cfg.max];
		for (var k = 0; k < stops.length; k++) {
			var st = document.createElementNS(NS, "stop");
			st.setAttribute("offset", at[k] / cfg.max);
			st.setAttribute("stop-color", stops[k]);
			grad.appendChild(st);
		}
	}
}
function to_svg(evt) {
	var pt = svg.createSVGPoint();
	pt.x = evt.clientX; pt.y = evt.clientY;
	return pt.matrixTransform(svg.getScreenCTM().inverse());
}
// Mouse position -> {col, row} or null outside the grid.
function cell_at(evt) {
	var p = to_svg(evt);
	var col = Math.floor((p.x - cfg.x0) / cfg.cw);
	var top = Math.floor((p.y - cfg.y0) / cfg.ch);
	if (col < 0 || col >= cfg.cols || top < 0 || top >= cfg.rows) return null;
	return { col: col, row: cfg.rows - 1 - top };
}
function count_at(col, row) {
	var key = col + ":" + row;
	return cfg.counts[key] || 0;
}
function cell_x(col) { return cfg.x0 + col * cfg.cw; }
function cell_y(row) { return cfg.y0 + (cfg.rows - 1 - row) * cfg.ch; }
function ms_of(row) { return Math.round(1000 * row / cfg.rows * 1000) / 1000; }
function add_rect(parent, x, y, w, h) {
	var r = document.createElementNS(NS, "rect");
	r.setAttribute("x", x); r.setAttribute("y", y);
	r.setAttribute("width", w); r.setAttribute("height", h);
	parent.appendChild(r);
}
// Highlights cells a..b (indexes col*rows+row, a <= b) in time order:
// up the rest of a's column, whole middle columns, up b's column to b.
function draw_snake(a, b) {
	while (snake.firstChild) snake.removeChild(snake.firstChild);
	var ac = Math.floor(a / cfg.rows), ar = a % cfg.rows;
	var bc = Math.floor(b / cfg.rows), br = b % cfg.rows;
	if (ac == bc) {
		add_rect(snake, cell_x(ac), cell_y(br), cfg.cw, (br - ar + 1) * cfg.ch);
		return;
	}
	add_rect(snake, cell_x(ac), cfg.y0, cfg.cw, (cfg.rows - ar) * cfg.ch);
	if (bc - ac > 1)
		add_rect(snake, cell_x(ac + 1), cfg.y0, (bc - ac - 1) * cfg.cw, cfg.rows * cfg.ch);
	add_rect(snake, cell_x(bc), cell_y(br), cfg.cw, (br + 1) * cfg.ch);
}
// A cut axis (cfg.colmap, heatmap.h) draws only the seconds with samples:
// axis column i is second colmap[i]. Cell indexes are axis indexes.
function sec_of(col) { return cfg.colmap ? cfg.colmap[col] : col; }
function fmt_sec(idx) {
	if (!cfg.colmap) return (idx / cfg.rows).toFixed(3);
	return (sec_of(Math.floor(idx / cfg.rows)) + (idx % cfg.rows) / cfg.rows).toFixed(3);
}
// The end of cell idx (the start of the next slice of the same second).
function fmt_end(idx) {
	if (!cfg.colmap) return fmt_sec(idx + 1);
	return (sec_of(Math.floor(idx / cfg.rows)) + (idx % cfg.rows + 1) / cfg.rows).toFixed(3);
}
function select_range(a, b) {
	var n = 0;
	for (var k in cfg.counts) {
		var p = k.split(":"), i = (+p[0]) * cfg.rows + (+p[1]);
		if (i >= a && i <= b) n += cfg.counts[k];
	}
	draw_snake(a, b);
	var from = fmt_sec(a), to = fmt_end(b);
	set_text(selected, "Selected: [" + from + ", " + to + ") s, " + n + " samples");
	svg.setAttribute("data-from", from);
	svg.setAttribute("data-to", to);
	// Kept in the URL, so a reload or a shared link shows the same range.
	if (window.history && history.replaceState)
		history.replaceState(null, "", "#range=" + a + "," + b);
}

svg.addEventListener("mousemove", function (evt) {
	var c = cell_at(evt);
	if (!c) { hover.setAttribute("visibility", "hidden"); return; }
	hover.setAttribute("visibility", "visible");
	hover.setAttribute("x", cell_x(c.col));
	hover.setAttribute("y", cell_y(c.row));
	set_text(status, "second " + sec_of(c.col) + ", " + ms_of(c.row) + " ms: " +
		count_at(c.col, c.row) + " samples");
}, false);
svg.addEventListener("click", function (evt) {
	if (evt.target === enh) { enhanced = !enhanced; recolor(); return; }
	var c = cell_at(evt);
	if (!c) return;
	var idx = c.col * cfg.rows + c.row;
	if (start === null) {
		start = idx;
		draw_snake(idx, idx);
		set_text(selected, "Start: " + fmt_sec(idx) + " s; click the end cell");
	} else {
		var a = Math.min(start, idx), b = Math.max(start, idx);
		start = null;
		select_range(a, b);
	}
}, false);
if (cfg.sel_from !== null)
	draw_snake(cfg.sel_from, cfg.sel_to);
// A #range=A,B from an earlier selection: selected again once the picture
// is complete.
var m = /[#&]range=(\d+),(\d+)/.exec(window.location.hash || "");
if (m && +m[1] <= +m[2] && +m[2] < cfg.cols * cfg.rows)
	window.addEventListener("load", function () { select_range(+m[1], +m[2]); }, false);
})();
