// Interactive flame graph: zoom, search, details, URL state.
// The renderer prepends `var fp_cfg = {...};` (see flamegraph.c).
var details, searchbtn, unzoombtn, matchedtxt, icbtn, frames;
var searching = 0, current_term = null, ignorecase = false, zoomed = null;
var cfg = fp_cfg;
var avail = cfg.width - 2 * cfg.xpad;

function init(evt) {
	details = document.getElementById("details").firstChild;
	searchbtn = document.getElementById("search");
	unzoombtn = document.getElementById("unzoom");
	matchedtxt = document.getElementById("matched");
	icbtn = document.getElementById("ignorecase");
	frames = document.getElementById("frames");
	var p = url_params();
	if (p.get("x") !== null && p.get("y") !== null) {
		var el = frames.children;
		for (var i = 0; i < el.length; i++) {
			if (attr(el[i], "fp:x") == p.get("x") &&
			    attr(rect_of(el[i]), "y") == p.get("y")) {
				zoom(el[i]);
				break;
			}
		}
	}
	if (p.get("s"))
		search(p.get("s"));
}

// ---- helpers
function attr(e, n) { return e.getAttribute(n); }
function fx(g) { return +g.getAttribute("fp:x"); }
function fw(g) { return +g.getAttribute("fp:w"); }
function rect_of(g) { return g.getElementsByTagName("rect")[0]; }
function text_of(g) { return g.getElementsByTagName("text")[0]; }
function title_of(g) { return g.getElementsByTagName("title")[0].textContent; }
function frame_name(g) {
	var t = title_of(g), i = t.lastIndexOf(" (");
	return i < 0 ? t : t.substring(0, i);
}
function find_frame(node) {
	while (node && node.getAttribute) {
		if (node.getAttribute("fp:w") !== null)
			return node;
		node = node.parentNode;
	}
	return null;
}
function fit_label(name, w) {
	var chars = Math.floor(w / (cfg.fontsize * cfg.fontwidth));
	if (chars < 3)
		return "";
	if (name.length <= chars)
		return name;
	return name.substring(0, chars - 2) + "..";
}
function url_params() {
	try { return new URLSearchParams(window.location.search); }
	catch (e) { return { get: function () { return null; } }; }
}
// Keeps zoom and search in the URL so a view can be shared or reloaded.
function set_params(kv) {
	try {
		var p = new URLSearchParams(window.location.search);
		for (var k in kv) {
			if (kv[k] === null) p.delete(k); else p.set(k, kv[k]);
		}
		var q = p.toString();
		history.replaceState(null, "", window.location.pathname + (q ? "?" + q : ""));
	} catch (e) { /* file:// in some browsers: state stays local */ }
}

// ---- mouse and keys
window.addEventListener("click", function (e) {
	var g = find_frame(e.target);
	if (g) {
		zoom(g);
		set_params({ x: attr(g, "fp:x"), y: attr(rect_of(g), "y") });
		return;
	}
	var id = e.target.id || (e.target.parentNode && e.target.parentNode.id);
	if (id == "unzoom") unzoom();
	else if (id == "search") search_button();
	else if (id == "ignorecase") toggle_ignorecase();
}, false);
window.addEventListener("mouseover", function (e) {
	var g = find_frame(e.target);
	if (g) details.nodeValue = cfg.nametype + " " + title_of(g);
}, false);
window.addEventListener("mouseout", function (e) {
	if (find_frame(e.target)) details.nodeValue = " ";
}, false);
window.addEventListener("keydown", function (e) {
	if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) {	// F3, Ctrl-F
		e.preventDefault();
		search_prompt();
	} else if (e.ctrlKey && e.keyCode === 73) {			// Ctrl-I
		e.preventDefault();
		toggle_ignorecase();
	}
}, false);

// ---- zoom
function place(g, x, w) {
	var r = rect_of(g), t = text_of(g);
	r.setAttribute("x", x.toFixed(2));
	r.setAttribute("width", w.toFixed(2));
	t.setAttribute("x", (x + 3).toFixed(2));
	t.textContent = fit_label(frame_name(g), w - 3);
}
function is_above(y, zy) { return cfg.inverted ? y < zy : y > zy; }
function zoom(node) {
	var zx = fx(node), zw = fw(node), zy = +attr(rect_of(node), "y");
	var ratio = avail / zw;
	zoomed = node;
	unzoombtn.classList.remove("hide");
	var el = frames.children;
	for (var i = 0; i < el.length; i++) {
		var e = el[i], x = fx(e), w = fw(e), y = +attr(rect_of(e), "y");
		e.classList.remove("parent");
		e.classList.remove("hide");
		if (is_above(y, zy)) {
			if (x <= zx && x + w >= zx + zw) {	// ancestor
				e.classList.add("parent");
				place(e, cfg.xpad, avail);
			} else {
				e.classList.add("hide");
			}
		} else if (x >= zx && x + w <= zx + zw && (y != zy || e === node)) {
			place(e, cfg.xpad + (x - zx) * ratio, w * ratio);
		} else {
			e.classList.add("hide");
		}
	}
}
function unzoom() {
	zoomed = null;
	unzoombtn.classList.add("hide");
	var el = frames.children, scale = avail / cfg.total;
	for (var i = 0; i < el.length; i++) {
		el[i].classList.remove("parent");
		el[i].classList.remove("hide");
		place(el[i], cfg.xpad + fx(el[i]) * scale, fw(el[i]) * scale);
	}
	set_params({ x: null, y: null });
}

// ---- search
function toggle_ignorecase() {
	ignorecase = !ignorecase;
	if (ignorecase) icbtn.classList.add("show"); else icbtn.classList.remove("show");
	if (current_term !== null) search(current_term);
}
function search_button() {
	if (searching) {
		reset_search();
		set_params({ s: null });
	} else {
		search_prompt();
	}
}
function search_prompt() {
	var term = prompt("Enter a search term (regexp allowed, eg: ^ext4_)" +
		(ignorecase ? ", ignoring case" : "") +
		"\nPress Ctrl-i to toggle case sensitivity", current_term || "");
	if (term === null) return;
	if (term === "") { reset_search(); set_params({ s: null }); return; }
	search(term);
}
function reset_search() {
	var el = frames.children;
	for (var i = 0; i < el.length; i++) {
		var r = rect_of(el[i]);
		if (r.hasAttribute("ofill")) {
			r.setAttribute("fill", attr(r, "ofill"));
			r.removeAttribute("ofill");
		}
	}
	searching = 0;
	current_term = null;
	searchbtn.classList.remove("show");
	searchbtn.firstChild.nodeValue = "Search";
	matchedtxt.classList.add("hide");
	matchedtxt.firstChild.nodeValue = " ";
}
function search(term) {
	var re;
	try { re = new RegExp(term, ignorecase ? "i" : ""); }
	catch (e) {
		matchedtxt.firstChild.nodeValue = "Bad regexp: " + e.message;
		matchedtxt.classList.remove("hide");
		return;
	}
	reset_search();
	current_term = term;
	var el = frames.children, matches = [];
	for (var i = 0; i < el.length; i++) {
		var g = el[i];
		if (!re.test(frame_name(g))) continue;
		var r = rect_of(g);
		r.setAttribute("ofill", attr(r, "fill"));
		r.setAttribute("fill", cfg.searchcolor);
		matches.push([fx(g), fw(g)]);
	}
	searching = 1;
	searchbtn.classList.add("show");
	searchbtn.firstChild.nodeValue = "Reset Search";
	// Nested matches (a match inside a match) are counted once: by start,
	// widest first, then skip anything starting inside the last kept one.
	matches.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
	var count = 0, end = -1;
	for (var j = 0; j < matches.length; j++) {
		if (matches[j][0] >= end) {
			count += matches[j][1];
			end = matches[j][0] + matches[j][1];
		}
	}
	var pct = cfg.total ? 100 * count / cfg.total : 0;
	matchedtxt.setAttribute("fp:samples", count);
	matchedtxt.firstChild.nodeValue = "Matched: " +
		(pct == 100 ? "100" : pct.toFixed(1)) + "%";
	matchedtxt.classList.remove("hide");
	set_params({ s: term });
}
