/* tui_view.c: fp-tui's view state without drawing (tui.h): where the
 * heatmap cursor is, what is selected, which call-tree nodes are open and
 * the rows that shows, search.
 *
 * A cell's time span is the one fp-bucket counts into it: slice r of a
 * second starts at ceil(r * 1e9 / rows) ns (fp-bucket's row is
 * (ns mod 1e9) * rows / 1e9, integer division), so a selection covers
 * exactly the samples of its cells, and `flamepipe report --from --to`
 * with its seconds selects the same samples. */
#include <string.h>

#include "fp_error.h"
#include "fp_record.h"
#include "tui.h"

#define HOT_SHARE 2 /* a node opens by itself when it has 1/HOT_SHARE of its parent */
#define AUTO_OPEN_DEPTH 64

void tui_view_axis(struct tui *t, unsigned heat_lines, size_t width)
{
	unsigned rows = t->m.hm.rows;

	if (!heat_lines)
		heat_lines = 1;
	t->group = rows ? (rows + heat_lines - 1) / heat_lines : 1;
	t->lines = rows ? (rows + t->group - 1) / t->group : 0;
	fp_heatmap_axis_free(&t->ax);
	fp_heatmap_axis(tui_heat(t), &t->ax);
	if (t->ax.n == 0) {
		t->cur.x = t->x0 = 0;
		return;
	}
	if (t->follow || t->cur.x >= t->ax.n)
		t->cur.x = t->ax.n - 1;
	if (t->mark.x >= t->ax.n)
		t->mark.x = t->ax.n - 1;
	if (t->lines && t->cur.y >= t->lines)
		t->cur.y = t->lines - 1;
	if (!width)
		width = 1;
	if (t->cur.x < t->x0)
		t->x0 = t->cur.x;
	if (t->cur.x >= t->x0 + width)
		t->x0 = t->cur.x - width + 1;
}

uint64_t tui_view_col(const struct tui *t, size_t x)
{
	return t->ax.col ? t->ax.col[x] : x;
}

void tui_view_slices(const struct tui *t, unsigned y, unsigned *lo, unsigned *hi)
{
	unsigned rows = t->m.hm.rows;

	*lo = y * t->group;
	*hi = *lo + t->group < rows ? *lo + t->group : rows;
}

static uint64_t slice_start(unsigned rows, unsigned r)
{
	return ((uint64_t)r * FP_NSEC_PER_SEC + rows - 1) / rows;
}

static uint64_t base_ns(const struct tui *t)
{
	return t->m.hm.base_sec > 0 ? (uint64_t)t->m.hm.base_sec * FP_NSEC_PER_SEC : 0;
}

uint64_t tui_cell_start(const struct tui *t, struct tui_cell c)
{
	unsigned lo, hi;

	tui_view_slices(t, c.y, &lo, &hi);
	return base_ns(t) + tui_view_col(t, c.x) * FP_NSEC_PER_SEC + slice_start(t->m.hm.rows, lo);
}

uint64_t tui_cell_end(const struct tui *t, struct tui_cell c)
{
	unsigned lo, hi;

	tui_view_slices(t, c.y, &lo, &hi);
	return base_ns(t) + tui_view_col(t, c.x) * FP_NSEC_PER_SEC + slice_start(t->m.hm.rows, hi);
}

int tui_view_selected(const struct tui *t, struct tui_cell c)
{
	uint64_t from, to, s = tui_cell_start(t, c), e = tui_cell_end(t, c);

	if (t->marking) {
		uint64_t a = tui_cell_start(t, t->mark), b = tui_cell_start(t, t->cur);

		from = a < b ? a : b;
		a = tui_cell_end(t, t->mark);
		b = tui_cell_end(t, t->cur);
		to = a > b ? a : b;
	} else if (t->have_sel) {
		from = t->sel_from;
		to = t->sel_to;
	} else {
		return 0;
	}
	return s >= from && e <= to && s < e;
}

const struct fp_calltree *tui_view_tree(const struct tui *t)
{
	return t->pane == TUI_BOTTOMUP ? &t->bu : &t->td;
}

const char *tui_name(const struct tui *t, uint32_t name)
{
	if (name == FP_CALLTREE_NONE)
		return "all";
	return fp_strtab_str(&t->m.names, name, NULL);
}

int tui_view_is_open(const struct tui *t, uint32_t node)
{
	const struct fp_calltree *tr = tui_view_tree(t);
	const struct fp_calltree_node *nd = &tr->node[node];
	uint32_t state = fp_map_get(&t->open, nd->key, (uint32_t)t->pane);

	if (state != FP_MAP_NONE)
		return state == 1;
	if (nd->parent == FP_CALLTREE_NONE)
		return 1;
	return nd->depth < AUTO_OPEN_DEPTH && nd->total * HOT_SHARE >= tr->node[nd->parent].total;
}

/* Where the selected row is, by its key. */
static void find_row(struct tui *t)
{
	const struct fp_calltree *tr = tui_view_tree(t);

	for (size_t i = 0; i < t->nrows; i++) {
		uint64_t key = t->pane == TUI_FUNCS ? t->rows[i] : tr->node[t->rows[i]].key;

		if (key == t->row_key) {
			t->row = i;
			return;
		}
	}
	if (t->row >= t->nrows)
		t->row = t->nrows ? t->nrows - 1 : 0;
	if (t->nrows)
		t->row_key = t->pane == TUI_FUNCS ? t->rows[t->row] : tr->node[t->rows[t->row]].key;
}

static void add_row(struct tui *t, uint32_t v)
{
	t->rows = fp_xgrow(t->rows, &t->cap_rows, t->nrows + 1, sizeof *t->rows, 256);
	t->rows[t->nrows++] = v;
}

void tui_view_rows(struct tui *t)
{
	const struct fp_calltree *tr = tui_view_tree(t);
	uint32_t n = 0;

	t->nrows = 0;
	if (t->pane == TUI_FUNCS) {
		for (size_t i = 0; i < t->nfns; i++)
			add_row(t, t->fns[i]);
		find_row(t);
		return;
	}
	/* depth first through the open nodes, without recursion */
	while (n != FP_CALLTREE_NONE) {
		add_row(t, n);
		if (tr->node[n].child != FP_CALLTREE_NONE && tui_view_is_open(t, n)) {
			n = tr->node[n].child;
			continue;
		}
		while (n != FP_CALLTREE_NONE && tr->node[n].next == FP_CALLTREE_NONE)
			n = tr->node[n].parent;
		if (n != FP_CALLTREE_NONE)
			n = tr->node[n].next;
	}
	find_row(t);
}

static void open_matches(struct tui *t);

void tui_view_build(struct tui *t, double now, double min_interval)
{
	uint64_t from = 0, to = UINT64_MAX;

	if (!t->need_build && t->built_gen == t->m.gen)
		return;
	if (!t->need_build && now - t->built_at < min_interval)
		return; /* live: the next tick builds it */
	if (t->have_sel) {
		from = t->sel_from;
		to = t->sel_to;
	}
	t->range_total = tui_model_build(&t->m, from, to, t->event, &t->td, &t->bu,
					 &t->range_samples);
	if (tui_timed(t))
		tui_model_heatmap(&t->m, t->event, &t->ehm);
	t->cap_fns = t->cap_fns >= t->td.nfn ? t->cap_fns : t->td.nfn;
	t->fns = fp_xrealloc(t->fns, (t->cap_fns ? t->cap_fns : 1) * sizeof *t->fns);
	t->nfns = fp_calltree_functions(&t->td, t->fn_by_total, t->fns);
	tui_diff_build(t);
	t->built_gen = t->m.gen;
	t->built_at = now;
	t->need_build = 0;
	t->dirty = 1;
	if (t->search_len && !t->prompting && t->pane != TUI_FUNCS)
		open_matches(t); /* a live match shows as soon as it is sampled */
	tui_view_rows(t);
}

int tui_timed(const struct tui *t)
{
	return t->event >= 0 && (unsigned)t->event < t->m.nevents && t->m.timed[t->event];
}

const struct fp_heatmap *tui_heat(const struct tui *t)
{
	return tui_timed(t) ? &t->ehm : &t->m.hm;
}

const char *tui_event_name(const struct tui *t)
{
	if (tui_timed(t))
		return t->m.events[t->event];
	for (unsigned i = 0; i < t->m.nevents; i++) /* the first untimed one */
		if (!t->m.timed[i])
			return t->m.events[i];
	return "samples";
}

int tui_view_next_event(struct tui *t)
{
	int next = TUI_EV_UNTIMED;

	for (unsigned i = t->event < 0 ? 0 : (unsigned)t->event + 1; i < t->m.nevents; i++)
		if (t->m.timed[i]) {
			next = (int)i;
			break;
		}
	if (next == t->event)
		return 0;
	t->event = next;
	t->need_build = 1;
	return 1;
}

int tui_view_matches(const struct tui *t, uint32_t name)
{
	return t->search_len && name != FP_CALLTREE_NONE &&
	       strcasestr(tui_name(t, name), t->search);
}

/* Opens the path down to every node that matches. */
static void open_matches(struct tui *t)
{
	const struct fp_calltree *tr = tui_view_tree(t);

	for (size_t i = 1; i < tr->n; i++) {
		if (!tui_view_matches(t, tr->node[i].name))
			continue;
		for (uint32_t p = tr->node[i].parent; p != FP_CALLTREE_NONE;
		     p = tr->node[p].parent) {
			fp_map_del(&t->open, tr->node[p].key, (uint32_t)t->pane);
			fp_map_add(&t->open, tr->node[p].key, (uint32_t)t->pane, 1);
		}
	}
}

int tui_view_search(struct tui *t, int dir)
{
	const struct fp_calltree *tr = tui_view_tree(t);

	if (!t->search_len)
		return 0;
	if (t->pane != TUI_FUNCS) {
		open_matches(t);
		tui_view_rows(t);
	}
	for (size_t k = 1; k <= t->nrows; k++) {
		size_t i = (t->row + t->nrows + (dir > 0 ? k : t->nrows - k)) % t->nrows;
		uint32_t name = t->pane == TUI_FUNCS ? t->rows[i] : tr->node[t->rows[i]].name;

		if (tui_view_matches(t, name)) {
			t->row = i;
			t->row_key = t->pane == TUI_FUNCS ? t->rows[i] : tr->node[t->rows[i]].key;
			return 1;
		}
	}
	return 0;
}
