// heatscale.js: the heatmap's "Enhanced" colour scale, one definition for
// the page (heatmap.js, threads.js) and for heatmap.svg (render/heatmap.c
// embeds this file, its `export`s dropped, before render/heatmap.js).
// FlameScope's (its Heatmap.jsx): linear between the counts 0, 1, 3,
// max/2 and max, through white, blue, pink, orange-red and red, so that a
// cell of one sample stands out from an empty one and from a full one.
// (The default scale is white -> red, linear to the largest cell.)
export var HEAT_ENHANCED_LIGHT = [[255, 255, 255], [106, 170, 255], [250, 160, 181], [255, 80, 50], [229, 9, 20]];
// The counts the colours sit at, for a largest cell of max: FlameScope's
// 0, 1, 3, max/2, max, each kept within [previous, max] (a small max).
export function heatEnhancedAt(max) {
	var at = [0, 1, 3, max / 2, max];
	for (var i = 1; i < at.length; i++) at[i] = Math.min(max, Math.max(at[i], at[i - 1]));
	return at;
}
// The colour [r, g, b] of count c (0 <= c) with the largest cell max.
export function heatEnhancedRGB(c, max, colors) {
	var at = heatEnhancedAt(max), n = at.length, k = n - 2;
	if (c >= max) return colors[n - 1].slice();
	while (k > 0 && c < at[k]) k--;
	var w = at[k + 1] - at[k], f = w > 0 ? Math.min(1, (c - at[k]) / w) : 1;
	return [0, 1, 2].map(function (i) { return Math.round(colors[k][i] + (colors[k + 1][i] - colors[k][i]) * f); });
}
