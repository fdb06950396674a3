/* heatmap.c: heatmap storage and its SVG, HTML, JSON and TSV renderings
 * (see heatmap.h). */
#include "heatmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fp_error.h"
#include "heatmap_js.inc"
#include "heatscale_js.inc"

#define MARGIN_LEFT 56   /* room for the ms axis labels */
#define MARGIN_TOP 52    /* title and hover status */
#define MARGIN_BOTTOM 56 /* seconds axis and selection text */
#define MARGIN_RIGHT 24
#define MIN_SVG_WIDTH 560  /* so the texts fit over narrow heatmaps */
#define MIN_LABEL_GAP_X 32 /* px between seconds labels */
#define MIN_LABEL_GAP_Y 16 /* px between ms labels */
#define LEGEND_WIDTH 100
#define FONT_SIZE 12
#define MS_X1000 1000000ull /* 1000 ms, in 1/1000 ms */

#define CELLS_MIN 32

void fp_heatmap_init(struct fp_heatmap *hm)
{
	memset(hm, 0, sizeof *hm);
	hm->rows = 50;
	hm->sorted = 1;
}

void fp_heatmap_free(struct fp_heatmap *hm)
{
	free(hm->cells);
	fp_map_free(&hm->by_key);
	free(hm->pin.col);
	memset(hm, 0, sizeof *hm);
}

/* Every storage is given back, so a reset costs O(1) and the memory it
 * takes again is paid for by the cells that fill it (20,000 G records
 * with changing geometry stay linear). */
int fp_heatmap_geometry(struct fp_heatmap *hm, const char *line, size_t len)
{
	struct fp_geometry g;

	if (fp_geometry_parse(line, len, &g) < 0 || g.rows > FP_ROWS_MAX || g.base_sec > INT64_MAX)
		return -1;
	fp_heatmap_reset(hm, (unsigned)g.rows, (int64_t)g.base_sec);
	return 0;
}

void fp_heatmap_reset(struct fp_heatmap *hm, unsigned rows, int64_t base_sec)
{
	if (rows < 1)
		rows = 1;
	if (rows > FP_ROWS_MAX)
		rows = FP_ROWS_MAX;
	fp_heatmap_free(hm);
	hm->rows = rows;
	hm->base_sec = base_sec;
	hm->sorted = 1;
}

static void index_cells(struct fp_heatmap *hm)
{
	fp_map_clear(&hm->by_key);
	for (size_t i = 0; i < hm->n; i++)
		fp_map_add(&hm->by_key, hm->cells[i].key, 0, (uint32_t)i);
}

static struct fp_heatmap_cell *find_cell(const struct fp_heatmap *hm, uint64_t key)
{
	uint32_t i = fp_map_get(&hm->by_key, key, 0);

	return i == FP_MAP_NONE ? NULL : &hm->cells[i];
}

int fp_heatmap_set(struct fp_heatmap *hm, uint64_t col, uint64_t row, uint64_t count)
{
	if (row >= hm->rows || col > FP_HEATMAP_MAX_COL)
		return -1;
	uint64_t key = col * hm->rows + row;
	uint32_t i = fp_map_put(&hm->by_key, key, 0, (uint32_t)hm->n);
	if (i < hm->n) {
		hm->cells[i].count = count;
		return 0;
	}
	if (hm->n == hm->cap) {
		hm->cap = hm->cap ? hm->cap * 2 : CELLS_MIN;
		hm->cells = fp_xrealloc(hm->cells, hm->cap * sizeof *hm->cells);
	}
	if (hm->n && key < hm->cells[hm->n - 1].key)
		hm->sorted = 0;
	hm->cells[hm->n++] = (struct fp_heatmap_cell){ key, count };
	if (col >= hm->ncols)
		hm->ncols = (size_t)col + 1;
	return 0;
}

uint64_t fp_heatmap_get(const struct fp_heatmap *hm, uint64_t col, unsigned row)
{
	if (col >= hm->ncols || row >= hm->rows)
		return 0;
	const struct fp_heatmap_cell *c = find_cell(hm, col * hm->rows + row);
	return c ? c->count : 0;
}

uint64_t fp_heatmap_max(const struct fp_heatmap *hm)
{
	uint64_t max = 0;
	for (size_t i = 0; i < hm->n; i++)
		if (hm->cells[i].count > max)
			max = hm->cells[i].count;
	return max;
}

uint64_t fp_heatmap_total(const struct fp_heatmap *hm)
{
	uint64_t t = 0;
	for (size_t i = 0; i < hm->n; i++)
		t += hm->cells[i].count;
	return t;
}

static int cmp_cell(const void *x, const void *y)
{
	const struct fp_heatmap_cell *a = x, *b = y;

	return (a->key > b->key) - (a->key < b->key);
}

void fp_heatmap_sort(struct fp_heatmap *hm)
{
	if (hm->sorted)
		return;
	qsort(hm->cells, hm->n, sizeof *hm->cells, cmp_cell);
	index_cells(hm);
	hm->sorted = 1;
}

/* The cells in key order: hm's own, or a sorted copy in *copy (to free). */
static const struct fp_heatmap_cell *sorted_cells(const struct fp_heatmap *hm,
						  struct fp_heatmap_cell **copy)
{
	*copy = NULL;
	if (hm->sorted || !hm->n)
		return hm->cells;
	*copy = fp_xmalloc(hm->n * sizeof **copy);
	memcpy(*copy, hm->cells, hm->n * sizeof **copy);
	qsort(*copy, hm->n, sizeof **copy, cmp_cell);
	return *copy;
}

void fp_heatmap_copy(struct fp_heatmap *dst, const struct fp_heatmap *src)
{
	fp_heatmap_reset(dst, src->rows, src->base_sec);
	for (size_t i = 0; i < src->n; i++)
		fp_heatmap_set(dst, src->cells[i].key / src->rows, src->cells[i].key % src->rows,
			       src->cells[i].count);
	if (src->pinned) {
		fp_heatmap_axis(src, &dst->pin);
		dst->pinned = 1;
	}
}

int fp_heatmap_onto(struct fp_heatmap *dst, const struct fp_heatmap *src,
		    const struct fp_heatmap *on)
{
	fp_heatmap_reset(dst, on->rows, on->base_sec);
	if (src->n && (src->rows != dst->rows || src->base_sec < on->base_sec))
		return -1;
	/* src's column 0 is on's column shift (src's samples are among on's,
	 * so its first second is never before on's) */
	uint64_t shift = src->n ? (uint64_t)(src->base_sec - on->base_sec) : 0;
	for (size_t i = 0; i < src->n; i++) {
		uint64_t col = src->cells[i].key / src->rows;
		if (shift < on->ncols && col < on->ncols - shift)
			fp_heatmap_set(dst, col + shift, src->cells[i].key % src->rows,
				       src->cells[i].count);
	}
	fp_heatmap_axis(on, &dst->pin);
	dst->pinned = 1;
	return 0;
}

size_t fp_heatmap_bytes(const struct fp_heatmap *hm)
{
	return hm->cap * sizeof *hm->cells + fp_map_bytes(&hm->by_key) +
	       (hm->pin.col ? hm->pin.n * sizeof *hm->pin.col : 0);
}

/* ---- the axis ------------------------------------------------------------ */

void fp_heatmap_axis(const struct fp_heatmap *hm, struct fp_heatmap_axis *ax)
{
	memset(ax, 0, sizeof *ax);
	if (hm->pinned) { /* a copy of the pinned axis */
		*ax = hm->pin;
		if (hm->pin.col) {
			ax->col = fp_xmalloc((ax->n ? ax->n : 1) * sizeof *ax->col);
			memcpy(ax->col, hm->pin.col, ax->n * sizeof *ax->col);
		}
		return;
	}
	if (hm->ncols <= FP_HEATMAP_AXIS_COLS &&
	    (uint64_t)hm->ncols * hm->rows <= FP_HEATMAP_AXIS_CELLS) {
		ax->n = hm->ncols;
		return;
	}
	struct fp_heatmap_cell *copy;
	const struct fp_heatmap_cell *c = sorted_cells(hm, &copy);
	ax->col = fp_xmalloc((hm->n ? hm->n : 1) * sizeof *ax->col);
	for (size_t i = 0; i < hm->n; i++) {
		uint64_t col = c[i].key / hm->rows;
		if (c[i].count && (!ax->n || ax->col[ax->n - 1] != col))
			ax->col[ax->n++] = col;
	}
	ax->cut = hm->ncols - ax->n;
	free(copy);
}

void fp_heatmap_axis_free(struct fp_heatmap_axis *ax)
{
	free(ax->col);
	memset(ax, 0, sizeof *ax);
}

void fp_heatmap_axis_list(struct fp_sink *s, const struct fp_heatmap_axis *ax)
{
	fp_sink_char(s, '[');
	for (size_t c = 0; c < ax->n; c++) {
		if (c)
			fp_sink_char(s, ',');
		fp_sink_u64(s, ax->col[c]);
	}
	fp_sink_char(s, ']');
}

size_t fp_heatmap_axis_index(const struct fp_heatmap_axis *ax, uint64_t col, int ceil)
{
	if (!ax->col) {
		if (col < ax->n)
			return (size_t)col;
		return ceil ? ax->n : SIZE_MAX;
	}
	size_t lo = 0, hi = ax->n; /* first index with ax->col[i] >= col */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ax->col[mid] < col)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (ceil)
		return lo;
	return lo < ax->n && ax->col[lo] == col ? lo : SIZE_MAX;
}

static uint64_t axis_col(const struct fp_heatmap_axis *ax, size_t i)
{
	return ax->col ? ax->col[i] : i;
}

/* Walks the sorted cells column by column: fills out[0..rows-1] with the
 * counts of column col (cells before it are skipped). */
static void column_counts(const struct fp_heatmap *hm, const struct fp_heatmap_cell *c, size_t *pos,
			  uint64_t col, uint64_t *out)
{
	memset(out, 0, hm->rows * sizeof *out);
	while (*pos < hm->n && c[*pos].key / hm->rows < col)
		(*pos)++;
	for (; *pos < hm->n && c[*pos].key / hm->rows == col; (*pos)++)
		out[c[*pos].key % hm->rows] = c[*pos].count;
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

/* A rendering's view of the heatmap: its axis and its cells in order. */
struct view {
	struct fp_heatmap_axis ax;
	const struct fp_heatmap_cell *c;
	struct fp_heatmap_cell *copy;
	uint64_t *colbuf; /* rows counts */
};

static void view_init(struct view *v, const struct fp_heatmap *hm)
{
	fp_heatmap_axis(hm, &v->ax);
	v->c = sorted_cells(hm, &v->copy);
	v->colbuf = fp_xmalloc(hm->rows * sizeof *v->colbuf);
}

static void view_free(struct view *v)
{
	fp_heatmap_axis_free(&v->ax);
	free(v->copy);
	free(v->colbuf);
}

/* A column's counts (counts[row]) as "[top,...,bottom]": the end of the
 * second first, as FlameScope lists them. */
static void put_column(struct fp_sink *s, const uint64_t *counts, unsigned rows)
{
	fp_sink_char(s, '[');
	for (unsigned i = 0; i < rows; i++) {
		if (i)
			fp_sink_char(s, ',');
		fp_sink_u64(s, counts[rows - 1 - i]);
	}
	fp_sink_char(s, ']');
}

void fp_heatmap_json_column(struct fp_sink *s, const struct fp_heatmap *hm, uint64_t col)
{
	uint64_t counts[FP_ROWS_MAX];
	unsigned rows = hm->rows < FP_ROWS_MAX ? hm->rows : FP_ROWS_MAX;

	for (unsigned r = 0; r < rows; r++)
		counts[r] = fp_heatmap_get(hm, col, r);
	put_column(s, counts, rows);
}

void fp_heatmap_json(struct fp_sink *s, const struct fp_heatmap *hm)
{
	fp_heatmap_json_keys(s, hm);
	fp_sink_str(s, "}\n");
}

void fp_heatmap_json_keys(struct fp_sink *s, const struct fp_heatmap *hm)
{
	struct view v;
	size_t pos = 0;
	uint64_t max = 0;

	view_init(&v, hm);
	fp_sink_str(s, "{\"columns\":[");
	for (size_t c = 0; c < v.ax.n; c++) {
		if (c)
			fp_sink_char(s, ',');
		fp_sink_u64(s, axis_col(&v.ax, c));
	}
	fp_sink_str(s, "],\"rows\":[");
	for (unsigned i = 0; i < hm->rows; i++) {
		if (i)
			fp_sink_char(s, ',');
		put_row_ms(s, hm->rows - 1 - i, hm->rows);
	}
	fp_sink_str(s, "],\"values\":[");
	for (size_t c = 0; c < v.ax.n; c++) {
		column_counts(hm, v.c, &pos, axis_col(&v.ax, c), v.colbuf);
		if (c)
			fp_sink_char(s, ',');
		put_column(s, v.colbuf, hm->rows);
		for (unsigned r = 0; r < hm->rows; r++)
			if (v.colbuf[r] > max)
				max = v.colbuf[r];
	}
	fp_sink_str(s, "],\"maxvalue\":");
	fp_sink_u64(s, max); /* of the drawn cells (a pinned axis may leave some out) */
	fp_sink_str(s, ",\"base_sec\":");
	fp_sink_i64(s, hm->base_sec);
	if (v.ax.cut) {
		fp_sink_str(s, ",\"cut\":");
		fp_sink_u64(s, v.ax.cut);
	}
	view_free(&v);
}

void fp_heatmap_tsv(struct fp_sink *s, const struct fp_heatmap *hm)
{
	struct view v;
	size_t pos = 0;

	view_init(&v, hm);
	fp_sink_str(s, "second\trow_start_ms\tcount\n");
	for (size_t c = 0; c < v.ax.n; c++) {
		uint64_t col = axis_col(&v.ax, c);
		column_counts(hm, v.c, &pos, col, v.colbuf);
		for (unsigned r = 0; r < hm->rows; r++) {
			fp_sink_u64(s, col);
			fp_sink_char(s, '\t');
			put_row_ms(s, r, hm->rows);
			fp_sink_char(s, '\t');
			fp_sink_u64(s, v.colbuf[r]);
			fp_sink_char(s, '\n');
		}
	}
	view_free(&v);
}

/* ---- SVG ------------------------------------------------------------------ */

struct geom {
	unsigned cw, ch, x0, y0, width, height, grid_w, grid_h;
	size_t cols;
};

static struct geom geometry(const struct fp_heatmap *hm, const struct fp_heatmap_axis *ax,
			    const struct fp_heatmap_opts *o)
{
	struct geom g;
	g.cols = ax->n ? ax->n : 1;
	g.cw = o->cell_w ? o->cell_w : g.cols <= 100 ? 12 : g.cols <= 300 ? 6 : 3;
	g.ch = o->cell_h         ? o->cell_h
	       : hm->rows <= 50  ? 8
	       : hm->rows <= 100 ? 4
				 : (400 / hm->rows ? 400 / hm->rows : 1);
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

/* A cut axis: a dashed line where empty seconds were left out. */
static void write_breaks(struct fp_sink *s, const struct fp_heatmap_axis *ax, const struct geom *g)
{
	if (!ax->cut)
		return;
	fp_sink_str(s,
		    "<g id=\"hm_breaks\" stroke=\"rgb(120,120,120)\" stroke-dasharray=\"3,3\">\n");
	for (size_t c = 1; c < ax->n; c++)
		if (ax->col[c] != ax->col[c - 1] + 1)
			fp_sink_printf(s, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\"/>\n",
				       g->x0 + (unsigned)c * g->cw, g->y0,
				       g->x0 + (unsigned)c * g->cw, g->y0 + g->grid_h);
	fp_sink_str(s, "</g>\n");
}

static void write_axes(struct fp_sink *s, const struct fp_heatmap *hm,
		       const struct fp_heatmap_axis *ax, const struct geom *g)
{
	unsigned every_c = (MIN_LABEL_GAP_X + g->cw - 1) / g->cw;
	unsigned every_r = (MIN_LABEL_GAP_Y + g->ch - 1) / g->ch;
	/* Round the steps to 1, 2, 5, 10, ... seconds and whole-ish rows. */
	static const unsigned nice[] = { 1,   2,    5,    10,   20,    50,    100,  200,
					 500, 1000, 2000, 5000, 10000, 20000, 50000 };
	for (size_t i = 0; i < sizeof nice / sizeof *nice; i++)
		if (nice[i] >= every_c) {
			every_c = nice[i];
			break;
		}
	fp_sink_str(s, "<g id=\"hm_axes\" font-size=\"11\">\n");
	/* A cut axis labels columns by their own second (c = axis index). */
	for (size_t c = 0; c < g->cols; c += every_c)
		fp_sink_printf(s, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">%llu</text>\n",
			       g->x0 + (unsigned)c * g->cw + g->cw / 2, g->y0 + g->grid_h + 14,
			       (unsigned long long)(c < ax->n ? axis_col(ax, c) : c));
	fp_sink_printf(s,
		       "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">"
		       "seconds since %lld",
		       g->x0 + g->grid_w / 2, g->y0 + g->grid_h + 28, (long long)hm->base_sec);
	if (ax->cut)
		fp_sink_printf(s,
			       " (only the %zu seconds with samples: %llu empty seconds left out)",
			       ax->n, (unsigned long long)ax->cut);
	fp_sink_str(s, "</text>\n");
	for (unsigned r = 0; r <= hm->rows; r += every_r) {
		fp_sink_printf(s, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">", g->x0 - 4,
			       g->y0 + g->grid_h - r * g->ch + 4);
		if (r == hm->rows)
			fp_sink_str(s, "1000");
		else
			put_row_ms(s, r, hm->rows);
		fp_sink_str(s, "</text>\n");
	}
	fp_sink_printf(s, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">ms</text>\n", g->x0 - 4,
		       g->y0 - 6);
	fp_sink_str(s, "</g>\n");
}

static void write_legend(struct fp_sink *s, uint64_t max, const struct geom *g)
{
	unsigned lx = g->width - MARGIN_RIGHT - LEGEND_WIDTH, ly = 8;
	fp_sink_printf(
		s, "<defs><linearGradient id=\"hm_scale\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">"
		   "<stop offset=\"0\" stop-color=\"rgb(255,255,255)\"/>"
		   "<stop offset=\"1\" stop-color=\"rgb(255,0,0)\"/></linearGradient></defs>\n");
	fp_sink_printf(s,
		       "<g id=\"hm_legend\" font-size=\"11\"><rect x=\"%u\" y=\"%u\" width=\"%u\" "
		       "height=\"10\" fill=\"url(#hm_scale)\" stroke=\"rgb(160,160,160)\"/>"
		       "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">0</text>"
		       "<text x=\"%u\" y=\"%u\">",
		       lx, ly, LEGEND_WIDTH, lx - 3, ly + 9, lx + LEGEND_WIDTH + 3, ly + 9);
	fp_sink_u64(s, max);
	fp_sink_printf(s,
		       "</text><text id=\"hm_enhanced\" x=\"%u\" y=\"%u\" text-anchor=\"end\" "
		       "style=\"cursor:pointer\" fill=\"rgb(0,0,160)\">Enhanced: off</text></g>\n",
		       lx + LEGEND_WIDTH, ly + 26);
}

/* The cell index on the axis (axis index * rows + row) where the time
 * `sec` seconds after base_sec falls; with end, of the last slice before
 * it. Seconds in a column left out go to the next (end: previous) one. */
static double axis_cell(const struct fp_heatmap *hm, const struct fp_heatmap_axis *ax, double sec,
			int end)
{
	double limit = ((double)FP_HEATMAP_MAX_COL + 1) * hm->rows; /* past every column */
	double cell = end ? ceil(sec * hm->rows) - 1 : floor(sec * hm->rows);
	if (cell < 0)
		return end ? -1 : 0;
	if (!(cell < limit)) /* also NaN: no integer conversion out of range */
		return (double)ax->n * hm->rows - (end ? 1 : 0);
	uint64_t col = (uint64_t)cell / hm->rows, row = (uint64_t)cell % hm->rows;
	size_t i = fp_heatmap_axis_index(ax, col, 1);
	if (i < ax->n && axis_col(ax, i) == col)
		return (double)i * hm->rows + (double)row;
	if (!end)
		return (double)i * hm->rows;
	return (double)i * hm->rows - 1; /* the end of the column before */
}

static void write_cfg(struct fp_sink *s, const struct fp_heatmap *hm, const struct view *v,
		      const struct fp_heatmap_opts *o, const struct geom *g, uint64_t max)
{
	const struct fp_heatmap_axis *ax = &v->ax;

	fp_sink_printf(s,
		       "var hm_cfg = { rows: %u, cols: %zu, cw: %u, ch: %u, x0: %u, y0: %u, max: ",
		       hm->rows, ax->n, g->cw, g->ch, g->x0, g->y0);
	fp_sink_u64(s, max ? max : 1);
	double last = (double)ax->n * hm->rows;
	if (o->have_range && last > 0) {
		double from = o->range_from < 0 ? 0 : axis_cell(hm, ax, o->range_from, 0);
		double to = o->range_to < 0 ? last : axis_cell(hm, ax, o->range_to, 1) + 1;
		if (from > last - 1)
			from = last - 1;
		if (to > last)
			to = last;
		if (to < from + 1)
			to = from + 1;
		fp_sink_printf(s, ", sel_from: %.0f, sel_to: %.0f", from, to - 1);
	} else {
		fp_sink_str(s, ", sel_from: null, sel_to: null");
	}
	/* A cut axis: the second of each drawn column (heatmap.js labels and
	 * selections use it). */
	fp_sink_str(s, ", colmap: ");
	if (ax->col) {
		fp_heatmap_axis_list(s, ax);
	} else {
		fp_sink_str(s, "null");
	}
	fp_sink_str(s, ",\ncounts: {");
	int first = 1;
	for (size_t i = 0; i < hm->n; i++) {
		uint64_t val = v->c[i].count;
		size_t c = fp_heatmap_axis_index(ax, v->c[i].key / hm->rows, 0);
		if (!val || c == SIZE_MAX)
			continue;
		fp_sink_printf(s, "%s\"%zu:%u\":", first ? "" : ",", c,
			       (unsigned)(v->c[i].key % hm->rows));
		fp_sink_u64(s, val);
		first = 0;
	}
	fp_sink_str(s, "} };\n");
}

static void write_cells(struct fp_sink *s, const struct fp_heatmap *hm, const struct view *v,
			const struct geom *g, uint64_t max)
{
	char color[20];

	/* Only non-empty cells are drawn: the grid is white already. */
	fp_sink_str(s, "<g id=\"hm_cells\">\n");
	for (size_t i = 0; i < hm->n; i++) {
		uint64_t val = v->c[i].count;
		size_t c = fp_heatmap_axis_index(&v->ax, v->c[i].key / hm->rows, 0);
		unsigned r = (unsigned)(v->c[i].key % hm->rows);
		if (!val || c == SIZE_MAX)
			continue;
		fp_heatmap_color(val, max, color);
		fp_sink_printf(
			s,
			"<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\" data-c=\"",
			g->x0 + (unsigned)c * g->cw, g->y0 + (hm->rows - 1 - r) * g->ch, g->cw,
			g->ch, color);
		fp_sink_u64(s, val);
		fp_sink_str(s, "\"/>\n");
	}
	fp_sink_str(s, "</g>\n");
}

static void write_svg(struct fp_sink *s, const struct fp_heatmap *hm,
		      const struct fp_heatmap_opts *o, int standalone)
{
	struct view v;
	view_init(&v, hm);
	struct geom g = geometry(hm, &v.ax, o);
	uint64_t max = fp_heatmap_max(hm);
	if (standalone)
		fp_sink_str(s, "<?xml version=\"1.0\" standalone=\"no\"?>\n");
	fp_sink_printf(s,
		       "<svg id=\"heatmap\" version=\"1.1\" width=\"%u\" height=\"%u\" "
		       "viewBox=\"0 0 %u %u\" xmlns=\"http://www.w3.org/2000/svg\" "
		       "font-family=\"Verdana, sans-serif\" font-size=\"%u\">\n",
		       g.width, g.height, g.width, g.height, FONT_SIZE);
	fp_sink_printf(
		s, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"rgb(255,255,255)\"/>\n",
		g.width, g.height);
	fp_sink_printf(s, "<text id=\"hm_title\" x=\"%u\" y=\"18\" font-size=\"15\">", g.x0);
	fp_xml_escape(s, o->title, strlen(o->title));
	fp_sink_str(s, "</text>\n");
	fp_sink_printf(s, "<text id=\"hm_status\" x=\"%u\" y=\"38\"> </text>\n", g.x0);
	write_legend(s, max, &g);
	fp_sink_printf(s,
		       "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"none\" "
		       "stroke=\"rgb(200,200,200)\"/>\n",
		       g.x0, g.y0, g.grid_w, g.grid_h);
	write_cells(s, hm, &v, &g, max);
	write_breaks(s, &v.ax, &g);
	write_axes(s, hm, &v.ax, &g);
	fp_sink_str(s, "<g id=\"hm_snake\" fill=\"rgb(0,90,255)\" fill-opacity=\"0.25\" "
		       "stroke=\"rgb(0,60,200)\" stroke-width=\"1\" pointer-events=\"none\"/>\n");
	fp_sink_printf(
		s,
		"<rect id=\"hm_hover\" x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"none\" "
		"stroke=\"black\" visibility=\"hidden\" pointer-events=\"none\"/>\n",
		g.cw, g.ch);
	fp_sink_printf(s, "<text id=\"hm_selected\" x=\"%u\" y=\"%u\"> </text>\n", g.x0,
		       g.y0 + g.grid_h + 48);
	fp_sink_str(s, "<script type=\"text/ecmascript\"><![CDATA[\n");
	write_cfg(s, hm, &v, o, &g, max);
	fp_sink_write(s, heatscale_js, sizeof heatscale_js - 1);
	fp_sink_write(s, heatmap_js, sizeof heatmap_js - 1);
	fp_sink_str(s, "]]></script>\n</svg>\n");
	view_free(&v);
}

void fp_heatmap_svg(struct fp_sink *s, const struct fp_heatmap *hm, const struct fp_heatmap_opts *o)
{
	write_svg(s, hm, o, 1);
}
