// The server's routes and one JSON fetch helper (errors carry the server's message).

export var API = {
	profiles: '/profile/',
	heatmap: '/heatmap/',
	flamegraph: '/flamegraph/',
	differential: '/differential/',
	elided: '/elided/',
	upload: '/upload',
	liveEvents: '/live/events',
	liveFlamegraph: '/live/flamegraph',
	svg: '/svg/flamegraph',
	threads: '/threads/',
	flamechart: '/flamechart/'
};

// ---- HTTP ---------------------------------------------------------------------
export function qs(params) {
	var u = new URLSearchParams();
	for (var k in params)
		if (params[k] !== null && params[k] !== undefined && params[k] !== '')
			u.set(k, params[k]);
	return u.toString();
}
// Where the answers come from: this server, or a page's own data source
// fn(url, opts) -> the JSON value (or a promise of it); an Error whose
// message starts "400: " is a refused request, as the server's. The static
// report answers from the data it embeds (ui/reportsource.js).
var source = null;
export function setSource(fn) { source = fn; }
export function getJSON(url, opts) {
	if (source) return new Promise(function (answer) { answer(source(url, opts)); });
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
