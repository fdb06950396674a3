/* heatmap.c: heatmap storage and its SVG, HTML, JSON and TSV renderings
 * (see heatmap.h). */
#include "heatmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fp_error.h"
#include "heatmap_js.inc"
#include "rangeflame_js.inc"

#define MARGIN_LEFT 56		/* room for the ms axis labels */
#define MARGIN_TOP 52		/* title and hover status */
#define MARGIN_BOTTOM 56	/* seconds axis and selection text */
#define MARGIN_RIGHT 24
#define MIN_SVG_WIDTH 560	/* so the texts fit over narrow heatmaps */
#define MIN_LABEL_GAP_X 32	/* px between seconds labels */
#define MIN_LABEL_GAP_Y 16	/* px between ms labels */
#define LEGEND_WIDTH 100
#define FONT_SIZE 12
#define MS_X1000 1000000ull	/* 1000 ms, in 1/1000 ms */

void fp_heatmap_init(struct fp_heatmap *hm)
{
	memset(hm, 0, sizeof *hm);
	hm->rows = 50;
}

void fp_heatmap_free(struct fp_heatmap *hm)
{
	free(hm->cells);
	memset(hm, 0, sizeof *hm);
}

void fp_heatmap_reset(struct fp_heatmap *hm, unsigned rows, int64_t base_sec)
{
	if (rows < 1)
		rows = 1;
	if (rows > FP_ROWS_MAX)
		rows = FP_ROWS_MAX;
	if (rows != hm->rows) {
		free(hm->cells);
		hm->cells = NULL;
		hm->cap_cols = 0;
	}
	if (hm->cells)
		memset(hm->cells, 0, hm->cap_cols * hm->rows * sizeof *hm->cells);
	hm->rows = rows;
	hm->base_sec = base_sec;
	hm->ncols = 0;
}

int fp_heatmap_set(struct fp_heatmap *hm, uint64_t col, uint64_t row, uint64_t count)
{
	if (row >= hm->rows || col >= FP_HEATMAP_MAX_COLS)
		return -1;
	if (col >= hm->cap_cols) {
		size_t cap = hm->cap_cols ? hm->cap_cols : 64;
		while (cap <= col)
			cap *= 2;
		if (cap > FP_HEATMAP_MAX_COLS)	/* doubling must not pass the limit */
			cap = FP_HEATMAP_MAX_COLS;
		hm->cells = fp_xrealloc(hm->cells, cap * hm->rows * sizeof *hm->cells);
		memset(hm->cells + hm->cap_cols * hm->rows, 0,
		       (cap - hm->cap_cols) * hm->rows * sizeof *hm->cells);
		hm->cap_cols = cap;
	}
	hm->cells[col * hm->rows + row] = count;
	if (col >= hm->ncols)
		hm->ncols = col + 1;
	return 0;
}

uint64_t fp_heatmap_get(const struct fp_heatmap *hm, size_t col, unsigned row)
{
	if (col >= hm->ncols || row >= hm->rows)
		return 0;
	return hm->cells[col * hm->rows + row];
}

uint64_t fp_heatmap_max(const struct fp_heatmap *hm)
{
	uint64_t max = 0;
	for (size_t i = 0; i < hm->ncols * hm->rows; i++)
		if (hm->cells[i] > max)
			max = hm->cells[i];
	return max;
}

uint64_t fp_heatmap_total(const struct fp_heatmap *hm)
{
	uint64_t t = 0;
	for (size_t i = 0; i < hm->ncols * hm->rows; i++)
		t += hm->cells[i];
	return t;
}

void fp_heatmap_opts_init(struct fp_heatmap_opts *o)
{
	memset(o, 0, sizeof *o);
	o->title = "Heatmap";
	o->range_from = o->range_to = -1;
}

void fp_heatmap_color(uint64_t count, uint64_t max, char *buf)
{
	unsigned v = 255;
	if (max)
		v = (unsigned)(255 - (255 * (unsigned __int128)count + max / 2) / max);
	snprintf(buf, 20, "rgb(255,%u,%u)", v, v);
}

/* Start of a slice in ms, up to 3 decimals without trailing zeros
 * (rows=50: 20; rows=49: 20.408). */
static void put_row_ms(struct fp_sink *s, unsigned row, unsigned rows)
{
	uint64_t v = (uint64_t)row * MS_X1000 / rows;
	fp_sink_u64(s, v / 1000);
	unsigned frac = (unsigned)(v % 1000);
	if (frac) {
		char d[4] = { '.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10),
			      (char)('0' + frac % 10) };
		size_t n = 4;
		while (d[n - 1] == '0')
			n--;
		fp_sink_write(s, d, n);
	}
}

/* ---- JSON and TSV ------------------------------------------------------ */

void fp_heatmap_json(struct fp_sink *s, const struct fp_heatmap *hm)
{
	fp_sink_str(s, "{\"columns\":[");
	for (size_t c = 0; c < hm->ncols; c++) {
		if (c)
			fp_sink_char(s, ',');
		fp_sink_u64(s, c);
	}
	fp_sink_str(s, "],\"rows\":[");
	for (unsigned i = 0; i < hm->rows; i++) {
		if (i)
			fp_sink_char(s, ',');
		put_row_ms(s, hm->rows - 1 - i, hm->rows);
	}
	fp_sink_str(s, "],\"values\":[");
	for (size_t c = 0; c < hm->ncols; c++) {
		fp_sink_str(s, c ? ",[" : "[");
		for (unsigned i = 0; i < hm->rows; i++) {
			if (i)
				fp_sink_char(s, ',');
			fp_sink_u64(s, hm->cells[c * hm->rows + (hm->rows - 1 - i)]);
		}
		fp_sink_char(s, ']');
	}
	fp_sink_str(s, "],\"maxvalue\":");
	fp_sink_u64(s, fp_heatmap_max(hm));
	fp_sink_str(s, ",\"base_sec\":");
	fp_sink_i64(s, hm->base_sec);
	fp_sink_str(s, "}\n");
}

void fp_heatmap_tsv(struct fp_sink *s, const struct fp_heatmap *hm)
{
	fp_sink_str(s, "second\trow_start_ms\tcount\n");
	for (size_t c = 0; c < hm->ncols; c++) {
		for (unsigned r = 0; r < hm->rows; r++) {
			fp_sink_u64(s, c);
			fp_sink_char(s, '\t');
			put_row_ms(s, r, hm->rows);
			fp_sink_char(s, '\t');
			fp_sink_u64(s, hm->cells[c * hm->rows + r]);
			fp_sink_char(s, '\n');
		}
	}
}

/* ---- SVG ------------------------------------------------------------------ */

struct geom {
	unsigned cw, ch, x0, y0, width, height, grid_w, grid_h;
	size_t cols;
};

static struct geom geometry(const struct fp_heatmap *hm, const struct fp_heatmap_opts *o)
{
	struct geom g;
	g.cols = hm->ncols ? hm->ncols : 1;
	g.cw = o->cell_w ? o->cell_w : g.cols <= 100 ? 12 : g.cols <= 300 ? 6 : 3;
	g.ch = o->cell_h ? o->cell_h : hm->rows <= 50 ? 8 : hm->rows <= 100 ? 4 :
		(400 / hm->rows ? 400 / hm->rows : 1);
	g.x0 = MARGIN_LEFT;
	g.y0 = MARGIN_TOP;
	g.grid_w = (unsigned)g.cols * g.cw;
	g.grid_h = hm->rows * g.ch;
	g.width = g.x0 + g.grid_w + MARGIN_RIGHT;
	if (g.width < MIN_SVG_WIDTH)
		g.width = MIN_SVG_WIDTH;
	g.height = g.y0 + g.grid_h + MARGIN_BOTTOM;
	return g;
}

static void write_axes(struct fp_sink *s, const struct fp_heatmap *hm, const struct geom *g)
{
	unsigned every_c = (MIN_LABEL_GAP_X + g->cw - 1) / g->cw;
	unsigned every_r = (MIN_LABEL_GAP_Y + g->ch - 1) / g->ch;
	/* Round the steps to 1, 2, 5, 10, ... seconds and whole-ish rows. */
	static const unsigned nice[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000,
					 2000, 5000, 10000, 20000, 50000 };
	for (size_t i = 0; i < sizeof nice / sizeof *nice; i++)
		if (nice[i] >= every_c) { every_c = nice[i]; break; }
	fp_sink_str(s, "<g id=\"hm_axes\" font-size=\"11\">\n");
	for (size_t c = 0; c < g->cols; c += every_c)
		fp_sink_printf(s, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">%zu</text>\n",
			       g->x0 + (unsigned)c * g->cw + g->cw / 2, g->y0 + g->grid_h + 14, c);
	fp_sink_printf(s, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">seconds since %lld</text>\n",
		       g->x0 + g->grid_w / 2, g->y0 + g->grid_h + 28, (long long)hm->base_sec);
	for (unsigned r = 0; r <= hm->rows; r += every_r) {
		fp_sink_printf(s, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">", g->x0 - 4,
			       g->y0 + g->grid_h - r * g->ch + 4);
		if (r == hm->rows)
			fp_sink_str(s, "1000");
		else
			put_row_ms(s, r, hm->rows);
		fp_sink_str(s, "</text>\n");
	}
	fp_sink_printf(s, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">ms</text>\n",
		       g->x0 - 4, g->y0 - 6);
	fp_sink_str(s, "</g>\n");
}

static void write_legend(struct fp_sink *s, uint64_t max, const struct geom *g)
{
	unsigned lx = g->width - MARGIN_RIGHT - LEGEND_WIDTH, ly = 8;
	fp_sink_printf(s, "<defs><linearGradient id=\"hm_scale\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">"
		       "<stop offset=\"0\" stop-color=\"rgb(255,255,255)\"/>"
		       "<stop offset=\"1\" stop-color=\"rgb(255,0,0)\"/></linearGradient></defs>\n");
	fp_sink_printf(s, "<g id=\"hm_legend\" font-size=\"11\"><rect x=\"%u\" y=\"%u\" width=\"%u\" "
		       "height=\"10\" fill=\"url(#hm_scale)\" stroke=\"rgb(160,160,160)\"/>"
		       "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">0</text>"
		       "<text x=\"%u\" y=\"%u\">", lx, ly, LEGEND_WIDTH, lx - 3, ly + 9,
		       lx + LEGEND_WIDTH + 3, ly + 9);
	fp_sink_u64(s, max);
	fp_sink_printf(s, "</text><text id=\"hm_enhanced\" x=\"%u\" y=\"%u\" text-anchor=\"end\" "
		       "style=\"cursor:pointer\" fill=\"rgb(0,0,160)\">Enhanced: off</text></g>\n",
		       lx + LEGEND_WIDTH, ly + 26);
}

static void write_cfg(struct fp_sink *s, const struct fp_heatmap *hm, const struct fp_heatmap_opts *o,
		      const struct geom *g, uint64_t max)
{
	fp_sink_printf(s, "var hm_cfg = { rows: %u, cols: %zu, cw: %u, ch: %u, x0: %u, y0: %u, max: ",
		       hm->rows, hm->ncols, g->cw, g->ch, g->x0, g->y0);
	fp_sink_u64(s, max ? max : 1);
	fp_sink_str(s, ", range_url: ");
	if (o->range_url)
		fp_json_string(s, o->range_url, strlen(o->range_url));
	else
		fp_sink_str(s, "null");
	size_t last = hm->ncols * hm->rows;
	if (o->have_range && last > 0) {
		double from = o->range_from < 0 ? 0 : floor(o->range_from * hm->rows);
		double to = o->range_to < 0 ? (double)last : ceil(o->range_to * hm->rows);
		if (from > (double)last - 1) from = (double)last - 1;
		if (to > (double)last) to = (double)last;
		if (to < from + 1) to = from + 1;
		fp_sink_printf(s, ", sel_from: %.0f, sel_to: %.0f", from, to - 1);
	} else {
		fp_sink_str(s, ", sel_from: null, sel_to: null");
	}
	fp_sink_str(s, ",\ncounts: {");
	int first = 1;
	for (size_t c = 0; c < hm->ncols; c++) {
		for (unsigned r = 0; r < hm->rows; r++) {
			uint64_t v = hm->cells[c * hm->rows + r];
			if (!v)
				continue;
			fp_sink_printf(s, "%s\"%zu:%u\":", first ? "" : ",", c, r);
			fp_sink_u64(s, v);
			first = 0;
		}
	}
	fp_sink_str(s, "} };\n");
}

static void write_svg(struct fp_sink *s, const struct fp_heatmap *hm,
		      const struct fp_heatmap_opts *o, int standalone)
{
	struct geom g = geometry(hm, o);
	uint64_t max = fp_heatmap_max(hm);
	if (standalone)
		fp_sink_str(s, "<?xml version=\"1.0\" standalone=\"no\"?>\n");
	fp_sink_printf(s, "<svg id=\"heatmap\" version=\"1.1\" width=\"%u\" height=\"%u\" "
		       "viewBox=\"0 0 %u %u\" xmlns=\"http://www.w3.org/2000/svg\" "
		       "font-family=\"Verdana, sans-serif\" font-size=\"%u\">\n",
		       g.width, g.height, g.width, g.height, FONT_SIZE);
	fp_sink_printf(s, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"rgb(255,255,255)\"/>\n",
		       g.width, g.height);
	fp_sink_printf(s, "<text id=\"hm_title\" x=\"%u\" y=\"18\" font-size=\"15\">", g.x0);
	fp_xml_escape(s, o->title, strlen(o->title));
	fp_sink_str(s, "</text>\n");
	fp_sink_printf(s, "<text id=\"hm_status\" x=\"%u\" y=\"38\"> </text>\n", g.x0);
	write_legend(s, max, &g);
	fp_sink_printf(s, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"none\" "
		       "stroke=\"rgb(200,200,200)\"/>\n", g.x0, g.y0, g.grid_w, g.grid_h);
	/* Only non-empty cells are drawn: the grid is white already. */
	fp_sink_str(s, "<g id=\"hm_cells\">\n");
	char color[20];
	for (size_t c = 0; c < hm->ncols; c++) {
		for (unsigned r = 0; r < hm->rows; r++) {
			uint64_t v = hm->cells[c * hm->rows + r];
			if (!v)
				continue;
			fp_heatmap_color(v, max, color);
			fp_sink_printf(s, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\" data-c=\"",
				       g.x0 + (unsigned)c * g.cw, g.y0 + (hm->rows - 1 - r) * g.ch,
				       g.cw, g.ch, color);
			fp_sink_u64(s, v);
			fp_sink_str(s, "\"/>\n");
		}
	}
	fp_sink_str(s, "</g>\n");
	write_axes(s, hm, &g);
	fp_sink_str(s, "<g id=\"hm_snake\" fill=\"rgb(0,90,255)\" fill-opacity=\"0.25\" "
		    "stroke=\"rgb(0,60,200)\" stroke-width=\"1\" pointer-events=\"none\"/>\n");
	fp_sink_printf(s, "<rect id=\"hm_hover\" x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"none\" "
		       "stroke=\"black\" visibility=\"hidden\" pointer-events=\"none\"/>\n", g.cw, g.ch);
	fp_sink_printf(s, "<text id=\"hm_selected\" x=\"%u\" y=\"%u\"> </text>\n",
		       g.x0, g.y0 + g.grid_h + 48);
	fp_sink_str(s, "<script type=\"text/ecmascript\"><![CDATA[\n");
	write_cfg(s, hm, o, &g, max);
	fp_sink_write(s, heatmap_js, sizeof heatmap_js - 1);
	fp_sink_str(s, "]]></script>\n</svg>\n");
}

void fp_heatmap_svg(struct fp_sink *s, const struct fp_heatmap *hm, const struct fp_heatmap_opts *o)
{
	write_svg(s, hm, o, 1);
}

static void put_escaped(struct fp_sink *s, const char *text)
{
	fp_xml_escape(s, text, strlen(text));
}

/* The in-page flame graph of a selected range: the timeline as JSON (its
 * names are escaped so no `</script>` or `<` can appear in it) and the
 * script that sums the selected cells and draws the graph (rangeflame.js). */
static void write_range_flame(struct fp_sink *s, const struct fp_heatmap_opts *o)
{
	fp_sink_str(s, "<div id=\"rangeflame\" style=\"display:none\"></div>\n"
		    "<script type=\"application/json\" id=\"fp_timeline\">");
	fp_sink_write(s, o->timeline_json, o->timeline_len);
	fp_sink_str(s, "</script>\n<script type=\"text/javascript\">//<![CDATA[\n");
	fp_sink_write(s, rangeflame_js, sizeof rangeflame_js - 1);
	fp_sink_str(s, "//]]></script>\n");
}

void fp_heatmap_html(struct fp_sink *s, const struct fp_heatmap *hm, const struct fp_heatmap_opts *o)
{
	fp_sink_str(s, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n"
		    "<head>\n<meta charset=\"utf-8\"/>\n<title>");
	put_escaped(s, o->title);
	fp_sink_str(s, "</title>\n<style type=\"text/css\">\n"
		    "body { font-family: Verdana, sans-serif; font-size: 13px; margin: 12px; }\n"
		    "#main { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }\n"
		    "#heat { overflow-x: auto; max-width: 100%; }\n"
		    "#flame iframe { width: 1220px; height: 760px; border: 1px solid #ccc; }\n"
		    "table { border-collapse: collapse; } td, th { padding: 2px 8px; text-align: left; }\n"
		    ".warn { color: #a00; }\n"
		    "</style>\n</head>\n<body>\n<h1>");
	put_escaped(s, o->title);
	fp_sink_str(s, "</h1>\n<p>Click a start cell, then an end cell, to select a range "
		    "[start, end). Hover for the second, millisecond and count.</p>\n"
		    "<div id=\"main\">\n<div id=\"heat\">\n");
	write_svg(s, hm, o, 0);
	fp_sink_str(s, "</div>\n");
	if (o->flame_src) {
		fp_sink_str(s, "<div id=\"flame\">\n<p><span id=\"flame_caption\">");
		put_escaped(s, o->flame_caption ? o->flame_caption : "Flame graph");
		fp_sink_str(s, "</span>");
		if (o->whole_href) {
			fp_sink_str(s, " &#8212; <a id=\"whole\" href=\"");
			fp_html_attr_escape(s, o->whole_href, strlen(o->whole_href));
			fp_sink_str(s, "\">Whole profile</a>");
		}
		fp_sink_str(s, "</p>\n<iframe id=\"flameframe\" src=\"");
		fp_html_attr_escape(s, o->flame_src, strlen(o->flame_src));
		fp_sink_str(s, "\" title=\"flame graph\"></iframe>\n");
		/* A static page without the samples' timeline cannot redraw the
		 * flame graph: say how to get the selected range's graph
		 * (heatmap.js fills in the numbers). */
		if (!o->range_url && !o->timeline_json)
			fp_sink_str(s, "<p id=\"range_hint\">This page is static: select a range, then "
				    "run <code>flamepipe report CAPTURE -o DIR --from S --to S</code> "
				    "(or use <code>flamepipe serve</code>) for its flame graph.</p>\n");
		if (o->timeline_note) {
			fp_sink_str(s, "<p id=\"timeline_note\">");
			put_escaped(s, o->timeline_note);
			fp_sink_str(s, "</p>\n");
		}
		if (o->timeline_json)
			write_range_flame(s, o);
		fp_sink_str(s, "</div>\n");
	}
	fp_sink_str(s, "</div>\n");
	fp_sink_printf(s, "<h2>Warnings (%zu)</h2>\n", o->n_warnings);
	if (o->n_warnings) {
		fp_sink_str(s, "<ul id=\"warnings\">\n");
		for (size_t i = 0; i < o->n_warnings; i++) {
			fp_sink_str(s, "<li class=\"warn\">");
			put_escaped(s, o->warnings[i]);
			fp_sink_str(s, "</li>\n");
		}
		fp_sink_str(s, "</ul>\n");
	} else {
		fp_sink_str(s, "<p id=\"warnings\">None.</p>\n");
	}
	if (o->n_stats) {
		fp_sink_str(s, "<h2>Statistics</h2>\n<table id=\"stats\">\n");
		for (size_t i = 0; i < o->n_stats; i++) {
			/* "stage<TAB>k=v<TAB>k=v" -> one row per stage. */
			const char *line = o->stats[i];
			const char *tab = strchr(line, '\t');
			size_t stage_len = tab ? (size_t)(tab - line) : strlen(line);
			fp_sink_str(s, "<tr><th>");
			fp_xml_escape(s, line, stage_len);
			fp_sink_str(s, "</th><td>");
			const char *p = tab ? tab + 1 : line + stage_len;
			while (*p) {
				const char *t = strchr(p, '\t');
				size_t n = t ? (size_t)(t - p) : strlen(p);
				fp_xml_escape(s, p, n);
				if (!t)
					break;
				fp_sink_str(s, " &#160; ");
				p = t + 1;
			}
			fp_sink_str(s, "</td></tr>\n");
		}
		fp_sink_str(s, "</table>\n");
	}
	if (o->footer_html_text) {
		fp_sink_str(s, "<p id=\"footer\">");
		put_escaped(s, o->footer_html_text);
		fp_sink_str(s, "</p>\n");
	}
	fp_sink_str(s, "</body>\n</html>\n");
}
