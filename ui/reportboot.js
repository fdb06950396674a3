// reportboot.js: starts the page in the static report (render/views.h),
// the one classic script of ui/. The page's modules (ui/*.js, the report's
// data source reportsource.js among them) are embedded as text, since a
// file:// page cannot load modules from disk: each becomes a module at a
// blob: URL, an import map names them ('./util.js' -> 'fpui/util.js'), and
// the data source starts the app. Nothing is fetched from a network.
(function () {
	var PREFIX = 'fpui/';
	// import ... from './x.js', export ... from './x.js', import('./x.js')
	var SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])\.\/([\w.-]+\.js)\2/g;
	var map = { imports: {} };
	var mods = document.querySelectorAll('script[data-fp-module]');
	for (var i = 0; i < mods.length; i++) {
		var src = mods[i].textContent.replace(SPECIFIER, function (all, kw, q, name) {
			return kw + q + PREFIX + name + q;
		});
		map.imports[PREFIX + mods[i].getAttribute('data-fp-module')] =
			URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
	}
	var im = document.createElement('script');
	im.type = 'importmap';
	im.textContent = JSON.stringify(map);
	document.head.appendChild(im);
	import(PREFIX + 'reportsource.js').then(function (m) { return m.start(); }).catch(function (e) {
		var box = document.getElementById('error');
		if (box) { box.textContent = 'The page could not start: ' + e.message; box.hidden = false; }
		throw e;
	});
})();
