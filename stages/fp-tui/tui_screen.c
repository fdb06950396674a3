/* tui_screen.c: fp-tui's drawing (ncurses; tui.h).
 *
 *	line 0        status: state, samples, the range and its count, cursor
 *	heatmap       one column a second, one line a group of slices, the
 *	              start of the second at the bottom; the cursor reversed
 *	axis line     the selection ([===]), the cursor (^), the first second
 *	pane tabs     Top-down | Bottom-up | Functions, and which has the keys
 *	pane          the call tree (total %, self %, samples, the frame) or
 *	              the functions (self, total); both side by side when the
 *	              terminal is 150 columns or wider
 *	last line     messages, the search prompt, the key hints
 *
 * Without colour (NO_COLOR, --no-color, a terminal without colours) a
 * cell's level is its character, " .:-=+*#%@" from empty to the largest
 * cell shown, as render/termheat.c draws; with colour it is its
 * background, white to red. At 80x24 the heatmap has 9 lines and the
 * pane 11 rows. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "baseline.h"
#include "fp_rangectl.h"
#include "fp_record.h"
#include "tui.h"

#define MARGIN 7 /* the heatmap's left labels: " 980ms " */
#define RAMP " .:-=+*#%@"
#define LEVELS 9      /* levels of a non-empty cell */
#define WIDE_COLS 150 /* tree and functions side by side from here */
#define HEAT_MIN 2
#define HEAT_MAX 12
#define NUM_COLS 26 /* "total%  self%  samples " before a frame */

static unsigned level(uint64_t c, uint64_t max)
{
	if (!c)
		return 0;
	if (max <= 1)
		return LEVELS;
	return 1 + (unsigned)(((c - 1) * (LEVELS - 1) + (max - 1) / 2) / (max - 1));
}

/* The samples of a cell, scaled to a whole group of slices (the top line
 * may have fewer slices than the others: its cells must not look cooler). */
static uint64_t cell_count(const struct tui *t, size_t x, unsigned y)
{
	uint64_t col = tui_view_col(t, x), n = 0;
	unsigned lo, hi;

	tui_view_slices(t, y, &lo, &hi);
	for (unsigned r = lo; r < hi; r++)
		n += fp_heatmap_get(tui_heat(t), col, r);
	return hi > lo ? n * t->group / (hi - lo) : n;
}

/* A count as shown: samples, or a timed event's ns as time blocked. */
static const char *weight(const struct tui *t, uint64_t v, char *buf, size_t n)
{
	if (!tui_timed(t))
		snprintf(buf, n, "%" PRIu64, v);
	else if (v < 10 * FP_NSEC_PER_SEC)
		snprintf(buf, n, "%.1fms", (double)v / 1e6);
	else
		snprintf(buf, n, "%.2fs", (double)v / 1e9);
	return buf;
}

static void fill_line(int y, int x, int w)
{
	move(y, x);
	for (int i = 0; i < w; i++)
		addch(' ');
}

static void secs(const struct tui *t, uint64_t abs_ns, char *buf)
{
	uint64_t base = t->m.hm.base_sec > 0 ? (uint64_t)t->m.hm.base_sec * FP_NSEC_PER_SEC : 0;

	fp_rangectl_format_seconds(abs_ns >= base ? abs_ns - base : 0, buf);
}

static void draw_status(struct tui *t)
{
	char line[512], a[FP_RANGECTL_SECONDS_MAX], b[FP_RANGECTL_SECONDS_MAX],
		c[FP_RANGECTL_SECONDS_MAX];
	char wb[32];
	const char *unit = tui_timed(t) ? " blocked" : " samples";
	const char *state = !t->live   ? (t->ended ? "report" : "reading")
			    : t->ended ? "live, ended"
				       : "live";
	int n;

	n = snprintf(line, sizeof line, " %s  %s  %" PRIu64 " samples", t->title, state,
		     (uint64_t)t->m.ring_n + t->m.evicted);
	if (t->have_sel) {
		secs(t, t->sel_from, a);
		secs(t, t->sel_to, b);
		n += snprintf(line + n, sizeof line - (size_t)n, "  range %s..%s s: %s%s", a, b,
			      weight(t, t->range_total, wb, sizeof wb), unit);
	} else {
		n += snprintf(line + n, sizeof line - (size_t)n, "  range all: %s%s",
			      weight(t, t->range_total, wb, sizeof wb), unit);
	}
	if (t->ax.n && t->lines) {
		secs(t, tui_cell_start(t, t->cur), c);
		snprintf(line + n, sizeof line - (size_t)n, "  cursor %s s", c);
	}
	attron(A_REVERSE);
	fill_line(0, 0, COLS);
	mvaddnstr(0, 0, line, COLS);
	attroff(A_REVERSE);
}

static void draw_heat(struct tui *t, int y0, int h)
{
	size_t width = COLS > MARGIN ? (size_t)COLS - MARGIN : 1;
	uint64_t max = 0;

	for (size_t x = t->x0; x < t->ax.n && x < t->x0 + width; x++)
		for (unsigned y = 0; y < t->lines; y++) {
			uint64_t c = cell_count(t, x, y);

			max = c > max ? c : max;
		}
	for (int i = 0; i < h; i++) {
		unsigned y = t->lines - 1 - (unsigned)i; /* top line: the end of the second */
		unsigned lo, hi;
		char label[16];

		fill_line(y0 + i, 0, COLS);
		if ((unsigned)i >= t->lines)
			continue;
		tui_view_slices(t, y, &lo, &hi);
		if (i == 0 || y == 0 || y % 2 == 0) {
			snprintf(label, sizeof label, "%4ums",
				 (unsigned)((uint64_t)lo * 1000 / t->m.hm.rows));
			mvaddnstr(y0 + i, 0, label, MARGIN - 1);
		}
		for (size_t x = t->x0; x < t->ax.n && x < t->x0 + width; x++) {
			struct tui_cell c = { x, y };
			unsigned lv = level(cell_count(t, x, y), max);
			chtype ch = (chtype)(unsigned char)RAMP[lv];
			int cursor = x == t->cur.x && y == t->cur.y;

			if (t->color && lv)
				ch = ' ' | COLOR_PAIR(lv);
			if (tui_view_selected(t, c))
				ch |= A_UNDERLINE;
			if (cursor)
				ch = (t->color && ch == (' ' | COLOR_PAIR(lv)) ? '+' : ch) |
				     A_REVERSE | (t->focus == TUI_FOCUS_HEAT ? A_BOLD : 0);
			mvaddch(y0 + i, MARGIN + (int)(x - t->x0), ch);
		}
	}
}

/* Under the heatmap: [===] the selection, ^ the cursor, the first second. */
static void draw_axis(struct tui *t, int y)
{
	size_t width = COLS > MARGIN ? (size_t)COLS - MARGIN : 1;
	char label[32];

	fill_line(y, 0, COLS);
	if (!t->ax.n)
		return;
	snprintf(label, sizeof label, "%" PRIu64 "s", tui_view_col(t, t->x0));
	mvaddnstr(y, 0, label, MARGIN - 1);
	for (size_t x = t->x0; x < t->ax.n && x < t->x0 + width; x++) {
		int in = 0;
		char ch = ' ';

		for (unsigned yy = 0; yy < t->lines && !in; yy++)
			in = tui_view_selected(t, (struct tui_cell){ x, yy });
		if (in)
			ch = '=';
		if (x == t->cur.x)
			ch = '^';
		else if (t->ax.col && x && t->ax.col[x] != t->ax.col[x - 1] + 1)
			ch = in ? ch : '/'; /* a cut axis: empty seconds left out */
		mvaddch(y, MARGIN + (int)(x - t->x0), (chtype)(unsigned char)ch);
	}
}

static void draw_tabs(struct tui *t, int y)
{
	static const char *const names[TUI_NPANES] = { "Top-down", "Bottom-up", "Functions" };
	int x = 1;

	fill_line(y, 0, COLS);
	for (int p = 0; p < TUI_NPANES; p++) {
		char buf[32];

		snprintf(buf, sizeof buf, p == (int)t->pane ? "[%s]" : " %s ", names[p]);
		if (p == (int)t->pane)
			attron(A_BOLD);
		mvaddstr(y, x, buf);
		attroff(A_BOLD);
		x += (int)strlen(buf) + 1;
	}
	mvaddstr(y, x + 1,
		 t->diff_on       ? "diff vs baseline"
		 : t->fn_by_total ? "functions by total"
				  : "functions by self");
	if (COLS > 30)
		mvaddstr(y, COLS - 16,
			 t->focus == TUI_FOCUS_HEAT ? "keys: heatmap" : "keys: tree   ");
}

static double pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

static void draw_tree(struct tui *t, int y0, int h, int x0, int w)
{
	const struct fp_calltree *tr = tui_view_tree(t);
	uint64_t all = tr->node[0].total;

	char head[128];

	/* which event (E switches): a timed one's time blocked */
	snprintf(head, sizeof head, "  total%%   self%%   %s  frame  (%s%s)",
		 tui_timed(t) ? "blocked" : "samples", tui_event_name(t),
		 tui_timed(t) ? ": time blocked, not samples" : "");
	mvaddnstr(y0, x0, head, w);
	for (int i = 1; i < h; i++) {
		size_t r = t->top + (size_t)i - 1;
		const struct fp_calltree_node *nd;
		char line[1024];
		unsigned indent;
		char mark;
		int n;

		if (r >= t->nrows)
			break;
		nd = &tr->node[t->rows[r]];
		mark = nd->child == FP_CALLTREE_NONE     ? ' '
		       : tui_view_is_open(t, t->rows[r]) ? '-'
							 : '+';
		indent = nd->depth > 30 ? 30 : nd->depth;
		char wb[32];

		n = snprintf(line, sizeof line, "%c%6.2f%% %6.2f%% %9s  %*s%c %s",
			     tui_view_matches(t, nd->name) ? '*' : ' ', pct(nd->total, all),
			     pct(nd->self, all), weight(t, nd->total, wb, sizeof wb), (int)indent,
			     "", mark, tui_name(t, nd->name));
		if (nd->parent == FP_CALLTREE_NONE)
			snprintf(line + n, sizeof line - (size_t)n, " (%s)",
				 t->have_sel ? "the range" : "the whole capture");
		if (r == t->row)
			attron(t->focus == TUI_FOCUS_TREE ? A_REVERSE : A_UNDERLINE);
		if (tui_view_matches(t, nd->name))
			attron(A_BOLD);
		mvaddnstr(y0 + i, x0, line, w);
		attroff(A_REVERSE | A_UNDERLINE | A_BOLD);
	}
}

static void draw_fns(struct tui *t, int y0, int h, int x0, int w, int selectable)
{
	uint64_t all = t->td.node[0].total;

	char head[128];

	snprintf(head, sizeof head, "%s  (%s%s)",
		 t->fn_by_total ? "  total%   self%     total      self  function"
				: "   self%  total%      self     total  function",
		 tui_event_name(t), tui_timed(t) ? ": time blocked" : "");
	mvaddnstr(y0, x0, head, w);
	for (int i = 1; i < h; i++) {
		size_t r = (selectable ? t->top : 0) + (size_t)i - 1;
		const struct fp_calltree_fn *f;
		uint64_t a, b;
		char line[1024];

		if (r >= t->nfns)
			break;
		f = &t->td.fn[t->fns[r]];
		a = t->fn_by_total ? f->total : f->self;
		b = t->fn_by_total ? f->self : f->total;
		char wa[32], wb[32];

		snprintf(line, sizeof line, "%c%6.2f%% %6.2f%% %9s %9s  %s",
			 tui_view_matches(t, t->fns[r]) ? '*' : ' ', pct(a, all), pct(b, all),
			 weight(t, a, wa, sizeof wa), weight(t, b, wb, sizeof wb),
			 tui_name(t, t->fns[r]));
		if (selectable && r == t->row)
			attron(t->focus == TUI_FOCUS_TREE ? A_REVERSE : A_UNDERLINE);
		mvaddnstr(y0 + i, x0, line, w);
		attroff(A_REVERSE | A_UNDERLINE);
	}
}

/* The differential (d): each function's share of self time in the range
 * and in the baseline, and the growth in points, biggest growth first. */
static void draw_diff(struct tui *t, int y0, int h, int x0, int w)
{
	const struct fp_folded *d = &t->dtab;

	mvaddnstr(y0, x0, "   growth    now%   base%  function (points of self time)", w);
	for (int i = 1; i < h; i++) {
		size_t r = t->dtop + (size_t)i - 1, e;
		char line[1024];

		if (r >= t->ndidx)
			break;
		e = t->didx[r];
		snprintf(line, sizeof line, " %+8.2f %6.2f%% %6.2f%%  %.*s",
			 fp_baseline_delta(d, e), fp_baseline_share_now(d, e),
			 fp_baseline_share_base(d, e), (int)d->e[e].len, d->e[e].stack);
		mvaddnstr(y0 + i, x0, line, w);
	}
	if (!t->ndidx)
		mvaddnstr(y0 + 1, x0, "  (no samples in the range nor the baseline)", w);
}

static void draw_bottom(struct tui *t, int y)
{
	char line[512];

	fill_line(y, 0, COLS);
	if (t->prompting)
		snprintf(line, sizeof line, "/%s", t->search);
	else if (t->msg[0])
		snprintf(line, sizeof line, "%s", t->msg);
	else if (t->last_message[0] && t->now - t->message_at < TUI_MESSAGE_SHOWN)
		snprintf(line, sizeof line, "%s  (M: all)", t->last_message);
	else if (t->warnings)
		snprintf(line, sizeof line, "%" PRIu64 " warning%s: %s", t->warnings,
			 t->warnings == 1 ? "" : "s", t->last_warning);
	else if (t->m.evicted)
		snprintf(line, sizeof line,
			 "the oldest %" PRIu64 " samples were let go (--max-samples)",
			 t->m.evicted);
	else
		snprintf(line, sizeof line,
			 "Tab heatmap/tree  Enter mark range  Esc whole  "
			 "v pane  / search  ? help  q quit");
	mvaddnstr(y, 0, line, COLS);
	if (t->prompting)
		move(y, (int)strlen(line) < COLS ? (int)strlen(line) : COLS - 1);
}

static void draw_help(void)
{
	const char *const *help = tui_key_help();
	int n = 0, w = 0, y0, x0;

	for (; help[n]; n++)
		w = (int)strlen(help[n]) > w ? (int)strlen(help[n]) : w;
	w += 4;
	if (w > COLS)
		w = COLS;
	y0 = LINES > n + 4 ? (LINES - n - 4) / 2 : 0;
	x0 = COLS > w ? (COLS - w) / 2 : 0;
	for (int i = 0; i < n + 4 && y0 + i < LINES; i++)
		fill_line(y0 + i, x0, w);
	attron(A_BOLD);
	mvaddnstr(y0 + 1, x0 + 2, "fp-tui keys (any key closes)", w - 4);
	attroff(A_BOLD);
	for (int i = 0; i < n && y0 + 3 + i < LINES; i++)
		mvaddnstr(y0 + 3 + i, x0 + 2, help[i], w - 4);
	for (int i = 0; i < w; i++) {
		mvaddch(y0, x0 + i, '-');
		if (y0 + n + 3 < LINES)
			mvaddch(y0 + n + 3, x0 + i, '-');
	}
}

/* The M overlay: the newest lines of the stages' messages that fit. */
static void draw_messages(const struct tui *t)
{
	int h = LINES - 2, y = LINES - 2;
	const char *end = t->messages + t->messages_len;

	for (int i = 1; i < LINES - 1; i++)
		fill_line(i, 0, COLS);
	attron(A_BOLD);
	mvaddnstr(1, 0,
		  t->messages_len ? "messages of the stages, newest last (any key closes):"
				  : "no messages from the stages (any key closes)",
		  COLS);
	attroff(A_BOLD);
	while (end > t->messages && end[-1] == '\n')
		end--;
	while (end > t->messages && y > 1 && h-- > 0) {
		const char *start = end;

		while (start > t->messages && start[-1] != '\n')
			start--;
		mvaddnstr(y--, 0, start, (int)(end - start) < COLS ? (int)(end - start) : COLS);
		end = start > t->messages ? start - 1 : start;
	}
}

void tui_screen_draw(struct tui *t)
{
	int heat_h = (LINES - 6) / 2, pane_y, pane_h;
	size_t width = COLS > MARGIN ? (size_t)COLS - MARGIN : 1;

	if (heat_h > HEAT_MAX)
		heat_h = HEAT_MAX;
	if (heat_h < HEAT_MIN)
		heat_h = HEAT_MIN;
	tui_view_axis(t, (unsigned)heat_h, width);
	if (t->lines && (int)t->lines < heat_h)
		heat_h = (int)t->lines;
	if (t->dirty == 2)
		clearok(curscr, TRUE);
	erase();
	draw_status(t);
	draw_heat(t, 1, heat_h);
	draw_axis(t, 1 + heat_h);
	draw_tabs(t, 2 + heat_h);
	pane_y = 3 + heat_h;
	pane_h = LINES - 1 - pane_y;
	if (pane_h > 1) {
		if (t->row < t->top)
			t->top = t->row;
		if (t->row >= t->top + (size_t)pane_h - 1)
			t->top = t->row - (size_t)pane_h + 2;
		if (t->diff_on) {
			draw_diff(t, pane_y, pane_h, 0, COLS);
		} else if (t->pane == TUI_FUNCS) {
			draw_fns(t, pane_y, pane_h, 0, COLS, 1);
		} else if (COLS >= WIDE_COLS) {
			int lw = COLS * 3 / 5;

			draw_tree(t, pane_y, pane_h, 0, lw - 1);
			for (int i = 0; i < pane_h; i++)
				mvaddch(pane_y + i, lw - 1, '|');
			draw_fns(t, pane_y, pane_h, lw, COLS - lw, 0);
		} else {
			draw_tree(t, pane_y, pane_h, 0, COLS);
		}
	}
	draw_bottom(t, LINES - 1);
	if (t->show_messages)
		draw_messages(t);
	if (t->help)
		draw_help();
	if (!t->prompting)
		move(LINES - 1, COLS - 1);
	refresh();
	t->dirty = 0;
}
