/* heatmap.h: the subsecond-offset heatmap and its renderings.
 *
 * A heatmap has one column per second (column 0 = base_sec, the floor of
 * the first sample's time) and `rows` slices per second; a cell counts the
 * samples whose time falls in that slice (fp-bucket's H records).
 *
 * Storage is sparse: only the cells set are kept (indexed by their key
 * col * rows + row in a lib/fp_map.h table), so memory and the cost of a G record are those of
 * the cells received, whatever the columns' numbers (two samples 99,900 s
 * apart cost two cells). Columns are limited to FP_HEATMAP_MAX_COL.
 *
 * The axis (fp_heatmap_axis): the columns the renderings draw. It is whole
 * (columns 0 .. ncols-1, empty ones too) while it has at most
 * FP_HEATMAP_AXIS_COLS columns and FP_HEATMAP_AXIS_CELLS cells; a longer
 * axis is *cut*: only the columns that hold samples are drawn, in order,
 * each labelled with its own second, and the gaps between them are marked.
 * So no sample is ever left out of the heatmap (it agrees with the flame
 * graph), and the output is proportional to the cells held, not to the
 * span of the timestamps (one stray early sample cannot push the others
 * off the axis).
 *
 * Renderings, all into a struct fp_sink (see sink.h):
 *  - fp_heatmap_svg: standalone interactive SVG in FlameScope's layout: a
 *    column per second, the start of each second at the bottom, white->red
 *    linear to the largest cell, an "Enhanced" toggle (log scale through
 *    yellow/orange so single samples show), axes in seconds and ms, hover
 *    status (second, ms, count), click a start cell then an end cell to
 *    select [start, end) (drawn as a time-ordered "snake").
 *  - fp_heatmap_json: FlameScope's /heatmap/ shape, the one JSON writer of
 *    fp-render's heatmap.json and fp-serve's /heatmap/ (which adds its own
 *    keys after these, through fp_heatmap_json_keys):
 *	{"columns":[0,1,...],"rows":[980,960,...,0],
 *	 "values":[[...],...],"maxvalue":N,"base_sec":B[,"cut":N]}
 *    values[column][i] is the count of the slice starting at rows[i] ms
 *    (rows are listed from the end of the second down to 0, as FlameScope
 *    does; each start in ms with up to 3 decimals, truncated, no trailing
 *    zeros: rows=49 gives 979.591, 959.183, ...). columns are the drawn
 *    columns' seconds since base_sec; maxvalue the largest drawn cell.
 *  - fp_heatmap_tsv: `second<TAB>row_start_ms<TAB>count`, a header line then
 *    every cell (zeros too) of every column on the axis, for
 *    matplotlib/gnuplot.
 *
 * A heatmap built against another one's axis (fp_heatmap_onto): a filtered
 * heatmap takes the unfiltered heatmap's base second, rows and axis (whole
 * or cut), so that it can be drawn in its place, cell for cell; its axis is
 * *pinned*: fp_heatmap_axis and every rendering give the unfiltered one's
 * columns, whatever the filtered cells are.
 *
 * Calling sequence:
 *	struct fp_heatmap hm; fp_heatmap_init(&hm);
 *	fp_heatmap_reset(&hm, 50, 82);       // on each G record
 *	fp_heatmap_set(&hm, col, row, n);    // on each H record
 *	struct fp_heatmap_opts o; fp_heatmap_opts_init(&o);
 *	fp_heatmap_svg(&sink, &hm, &o);
 *	fp_heatmap_free(&hm);
 * A filtered heatmap f on the unfiltered heatmap all's axis (fp-serve):
 *	struct fp_heatmap on_axis; fp_heatmap_init(&on_axis);
 *	if (fp_heatmap_onto(&on_axis, &f, &all) < 0) ...  // f not within all
 *	fp_heatmap_json_keys(&sink, &on_axis); ...own keys...; "}"
 */
#ifndef FP_HEATMAP_H
#define FP_HEATMAP_H

#include <stddef.h>
#include <stdint.h>

#include "sink.h"

#include "fp_map.h"
#include "fp_record.h"                /* FP_ROWS_MAX */
#define FP_HEATMAP_MAX_COL UINT32_MAX /* largest column: 136 years */
#define FP_HEATMAP_AXIS_COLS 100000   /* a whole axis: about 28 hours, */
#define FP_HEATMAP_AXIS_CELLS 5000000 /* and at most this many cells */

struct fp_heatmap_cell {
	uint64_t key; /* col * rows + row */
	uint64_t count;
};

/* The columns drawn (see above). col[i] is the heatmap column drawn i-th;
 * col is NULL when the axis is whole (col[i] = i). */
struct fp_heatmap_axis {
	size_t n;
	uint64_t *col;
	uint64_t cut; /* empty columns left out (0: whole) */
};

struct fp_heatmap {
	unsigned rows;                 /* slices per second */
	int64_t base_sec;              /* absolute perf second of column 0 */
	size_t ncols;                  /* columns 0 .. ncols-1: the last column set + 1 */
	struct fp_heatmap_cell *cells; /* in the order they were first set */
	size_t n, cap;
	struct fp_map by_key; /* cell key -> index into cells */
	int sorted;           /* cells are in key order (the usual case) */
	/* pinned: the axis drawn is pin, not hm's own (fp_heatmap_onto) */
	int pinned;
	struct fp_heatmap_axis pin;
};

struct fp_heatmap_opts {
	const char *title;           /* "Heatmap" */
	unsigned cell_w, cell_h;     /* px; 0: chosen from the size */
	int have_range;              /* draw an initial selection */
	double range_from, range_to; /* seconds on the heatmap axis; <0: open */
};

void fp_heatmap_init(struct fp_heatmap *hm);
void fp_heatmap_free(struct fp_heatmap *hm);
/* Drops all cells and sets the geometry (rows clamped to 1..FP_ROWS_MAX).
 * Costs the cells held, not their columns. */
void fp_heatmap_reset(struct fp_heatmap *hm, unsigned rows, int64_t base_sec);
/* A G record (fifo/fp_record.h) applied: fp_heatmap_reset with its rows and
 * base second. -1 (the heatmap untouched) if it is malformed, its rows are
 * past FP_ROWS_MAX or its base second past INT64_MAX. */
int fp_heatmap_geometry(struct fp_heatmap *hm, const char *line, size_t len);
/* Sets a cell to an absolute count. -1 if row >= rows or col > MAX_COL. */
int fp_heatmap_set(struct fp_heatmap *hm, uint64_t col, uint64_t row, uint64_t count);
uint64_t fp_heatmap_get(const struct fp_heatmap *hm, uint64_t col, unsigned row);
uint64_t fp_heatmap_max(const struct fp_heatmap *hm);
uint64_t fp_heatmap_total(const struct fp_heatmap *hm);
/* Sorts the cells by (column, row) if they are not (renderings of an
 * unsorted heatmap sort a copy). */
void fp_heatmap_sort(struct fp_heatmap *hm);
/* dst (initialised, any state) becomes a copy of src, pinned axis too. */
void fp_heatmap_copy(struct fp_heatmap *dst, const struct fp_heatmap *src);
/* dst (initialised, any state) becomes src's cells on the axis of `on`:
 * on's rows and base second, src's column c moved to column
 * c + (src->base_sec - on->base_sec), cells past on's last column dropped,
 * dst's axis pinned to on's. -1 (dst empty) if the rows differ or src has
 * cells before on's base second (its samples are not among on's). */
int fp_heatmap_onto(struct fp_heatmap *dst, const struct fp_heatmap *src,
		    const struct fp_heatmap *on);
/* The bytes hm's storage takes (cells, their index, a pinned axis). */
size_t fp_heatmap_bytes(const struct fp_heatmap *hm);

/* The axis of hm (see above; a pinned one if hm has one); free with
 * fp_heatmap_axis_free. */
void fp_heatmap_axis(const struct fp_heatmap *hm, struct fp_heatmap_axis *ax);
void fp_heatmap_axis_free(struct fp_heatmap_axis *ax);
/* Where column col is drawn: its index on the axis, or SIZE_MAX if it is
 * not drawn. With ceil, the first drawn column >= col (ax->n if none). */
size_t fp_heatmap_axis_index(const struct fp_heatmap_axis *ax, uint64_t col, int ceil);
/* The drawn columns' seconds as a JSON list "[0,100002,...]" (ax->col set). */
void fp_heatmap_axis_list(struct fp_sink *s, const struct fp_heatmap_axis *ax);

void fp_heatmap_opts_init(struct fp_heatmap_opts *o);
/* Linear white->red colour of a count: "rgb(255,g,g)" into buf (>= 20 bytes). */
void fp_heatmap_color(uint64_t count, uint64_t max, char *buf);

void fp_heatmap_svg(struct fp_sink *s, const struct fp_heatmap *hm,
		    const struct fp_heatmap_opts *o);
void fp_heatmap_json(struct fp_sink *s, const struct fp_heatmap *hm);
/* fp_heatmap_json without its closing "}\n": a caller adds its own keys
 * (",\"k\":v"...) and closes the object. */
void fp_heatmap_json_keys(struct fp_sink *s, const struct fp_heatmap *hm);
/* One column as in "values": "[top,...,bottom]" (col past the last: zeros). */
void fp_heatmap_json_column(struct fp_sink *s, const struct fp_heatmap *hm, uint64_t col);
void fp_heatmap_tsv(struct fp_sink *s, const struct fp_heatmap *hm);

#endif
