/* tui_keys.c: fp-tui's keys as one table (tui.h): the keys, where they
 * work (on the heatmap, on the lower pane, anywhere), the action, and the
 * line of the help screen, which is made from this table. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "fp_error.h"
#include "tui.h"

#define CTRL(c) ((c)&0x1f)
#define KEY_ESC 27
#define W_HEAT 1u
#define W_TREE 2u
#define W_ANY (W_HEAT | W_TREE)
#define PAGE 10 /* rows a page key moves when the pane's height is not known */

struct binding {
	int keys[5]; /* 0 ends the list */
	unsigned where;
	int (*fn)(struct tui *t, int key);
	const char *label; /* the keys as the help shows them; NULL: not listed */
	const char *help;
};

/* ---- the heatmap ---------------------------------------------------------- */

static int heat_move(struct tui *t, int key)
{
	switch (key) {
	case KEY_LEFT:
	case 'h':
		if (t->cur.x)
			t->cur.x--;
		t->follow = 0;
		break;
	case KEY_RIGHT:
	case 'l':
		if (t->cur.x + 1 < t->ax.n)
			t->cur.x++;
		break;
	case KEY_UP:
	case 'k':
		if (t->cur.y + 1 < t->lines)
			t->cur.y++;
		break;
	case KEY_DOWN:
	case 'j':
		if (t->cur.y)
			t->cur.y--;
		break;
	case KEY_HOME:
	case 'g':
		t->cur.x = 0;
		t->follow = 0;
		break;
	case KEY_END:
	case 'G':
		t->cur.x = t->ax.n ? t->ax.n - 1 : 0;
		t->follow = t->live && !t->ended;
		break;
	}
	return 1;
}

static int heat_mark(struct tui *t, int key)
{
	if (!t->ax.n || !t->lines)
		return 0;
	if (!t->marking) {
		t->mark = t->cur;
		t->marking = 1;
		snprintf(t->msg, sizeof t->msg,
			 "start cell marked: move to the end cell, Enter selects, Esc cancels");
		return 1;
	}
	uint64_t s1 = tui_cell_start(t, t->mark), s2 = tui_cell_start(t, t->cur);
	uint64_t e1 = tui_cell_end(t, t->mark), e2 = tui_cell_end(t, t->cur);

	t->sel_from = s1 < s2 ? s1 : s2;
	t->sel_to = e1 > e2 ? e1 : e2;
	t->have_sel = 1;
	t->marking = 0;
	t->need_build = 1;
	t->msg[0] = '\0';
	return 1;
}

static int clear_sel(struct tui *t, int key)
{
	if (t->prompting)
		return 0;
	if (t->marking || t->have_sel)
		t->need_build = t->have_sel;
	t->marking = t->have_sel = 0;
	snprintf(t->msg, sizeof t->msg, "whole capture");
	return 1;
}

static int follow(struct tui *t, int key)
{
	t->follow = 1;
	t->cur.x = t->ax.n ? t->ax.n - 1 : 0;
	return 1;
}

static int follow_or_event(struct tui *t, int key)
{
	if (key == 'f')
		return follow(t, key);
	if (!tui_view_next_event(t))
		snprintf(t->msg, sizeof t->msg,
			 "one event only: no off-CPU time in this capture (yet)");
	t->diff_on = 0; /* the differential is of on-CPU samples */
	return 1;
}

/* ---- the lower pane --------------------------------------------------------- */

static void select_row(struct tui *t, size_t row)
{
	const struct fp_calltree *tr = tui_view_tree(t);

	if (!t->nrows)
		return;
	t->row = row < t->nrows ? row : t->nrows - 1;
	t->row_key = t->pane == TUI_FUNCS ? t->rows[t->row] : tr->node[t->rows[t->row]].key;
}

/* Where a movement key takes a position r in rows 0..last. */
static size_t moved(int key, size_t r, size_t last)
{
	switch (key) {
	case KEY_UP:
	case 'k':
		return r ? r - 1 : 0;
	case KEY_DOWN:
	case 'j':
		return r + 1;
	case KEY_PPAGE:
		return r > PAGE ? r - PAGE : 0;
	case KEY_NPAGE:
	case ' ':
		return r + PAGE;
	case KEY_HOME:
	case 'g':
		return 0;
	case KEY_END:
	case 'G':
		return last;
	}
	return r;
}

/* The differential's table scrolls (it has no selected row). */
static int diff_move(struct tui *t, int key)
{
	size_t last = t->ndidx ? t->ndidx - 1 : 0, r = moved(key, t->dtop, last);

	t->dtop = r < last ? r : last;
	return 1;
}

static int tree_move(struct tui *t, int key)
{
	if (t->diff_on)
		return diff_move(t, key);
	select_row(t, moved(key, t->row, t->nrows ? t->nrows - 1 : 0));
	return 1;
}

static void set_open(struct tui *t, uint32_t node, uint32_t state)
{
	uint64_t key = tui_view_tree(t)->node[node].key;

	fp_map_del(&t->open, key, (uint32_t)t->pane);
	fp_map_add(&t->open, key, (uint32_t)t->pane, state);
}

/* The selected tree node, or FP_CALLTREE_NONE (functions pane, no rows). */
static uint32_t cur_node(const struct tui *t)
{
	return t->pane == TUI_FUNCS || !t->nrows ? FP_CALLTREE_NONE : t->rows[t->row];
}

static int tree_expand(struct tui *t, int key)
{
	const struct fp_calltree *tr = tui_view_tree(t);
	uint32_t n = cur_node(t);

	if (n == FP_CALLTREE_NONE || tr->node[n].child == FP_CALLTREE_NONE)
		return 0;
	if (tui_view_is_open(t, n)) {
		select_row(t, t->row + 1); /* into the first child */
		return 1;
	}
	set_open(t, n, 1);
	tui_view_rows(t);
	return 1;
}

static int tree_collapse(struct tui *t, int key)
{
	const struct fp_calltree *tr = tui_view_tree(t);
	uint32_t n = cur_node(t);

	if (n == FP_CALLTREE_NONE)
		return 0;
	if (tr->node[n].child != FP_CALLTREE_NONE && tui_view_is_open(t, n)) {
		set_open(t, n, 2);
	} else if (tr->node[n].parent != FP_CALLTREE_NONE) {
		t->row_key = tr->node[tr->node[n].parent].key; /* up to the parent */
	}
	tui_view_rows(t);
	return 1;
}

static int tree_toggle(struct tui *t, int key)
{
	uint32_t n = cur_node(t);

	if (n == FP_CALLTREE_NONE || tui_view_tree(t)->node[n].child == FP_CALLTREE_NONE)
		return 0;
	set_open(t, n, tui_view_is_open(t, n) ? 2 : 1);
	tui_view_rows(t);
	return 1;
}

/* Every node under the selected one open ('e'), or every node closed ('c'). */
static int tree_all(struct tui *t, int key)
{
	const struct fp_calltree *tr = tui_view_tree(t);
	uint32_t top = cur_node(t);

	if (top == FP_CALLTREE_NONE)
		return 0;
	for (size_t i = 1; i < tr->n; i++) {
		uint32_t p = (uint32_t)i;

		if (tr->node[i].child == FP_CALLTREE_NONE)
			continue;
		if (key == 'c') {
			set_open(t, p, 2);
			continue;
		}
		while (p != FP_CALLTREE_NONE && p != top)
			p = tr->node[p].parent;
		if (p == top)
			set_open(t, (uint32_t)i, 1);
	}
	if (key == 'c')
		t->row_key = tr->node[0].key;
	tui_view_rows(t);
	return 1;
}

/* ---- anywhere ---------------------------------------------------------------- */

static int focus(struct tui *t, int key)
{
	t->focus = t->focus == TUI_FOCUS_HEAT ? TUI_FOCUS_TREE : TUI_FOCUS_HEAT;
	return 1;
}

static int pane(struct tui *t, int key)
{
	t->pane = key == 'v'   ? (enum tui_pane)((t->pane + 1) % TUI_NPANES)
		  : key == 't' ? TUI_TOPDOWN
		  : key == 'b' ? TUI_BOTTOMUP
			       : TUI_FUNCS;
	t->row = 0;
	t->row_key = 0;
	tui_view_rows(t);
	return 1;
}

static int sort_fns(struct tui *t, int key)
{
	t->fn_by_total = !t->fn_by_total;
	t->need_build = 1;
	return 1;
}

static int diff(struct tui *t, int key)
{
	if (!t->have_base) {
		snprintf(t->msg, sizeof t->msg, "no baseline: start fp-tui with --baseline FILE");
		return 1;
	}
	t->diff_on = !t->diff_on;
	t->dtop = 0;
	return 1;
}

static int sort_or_diff(struct tui *t, int key)
{
	return key == 'd' ? diff(t, key) : sort_fns(t, key);
}

static int search_start(struct tui *t, int key)
{
	t->prompting = 1;
	t->search_len = 0;
	t->search[0] = '\0';
	return 1;
}

static int search_next(struct tui *t, int key)
{
	if (!tui_view_search(t, key == 'N' ? -1 : 1))
		snprintf(t->msg, sizeof t->msg, "not found: %s", t->search);
	return 1;
}

static int help(struct tui *t, int key)
{
	t->help = !t->help;
	return 1;
}

static int messages(struct tui *t, int key)
{
	t->show_messages = !t->show_messages;
	return 1;
}

static int redraw(struct tui *t, int key)
{
	t->dirty = 2; /* the whole screen again */
	return 1;
}

static int quit(struct tui *t, int key)
{
	t->quit = 1;
	return 1;
}

static const struct binding bindings[] = {
	{ { KEY_LEFT, KEY_RIGHT, 'h', 'l' },
	  W_HEAT,
	  heat_move,
	  "Left Right h l",
	  "heatmap: cursor one second earlier / later" },
	{ { KEY_UP, KEY_DOWN, 'k', 'j' },
	  W_HEAT,
	  heat_move,
	  "Up Down k j",
	  "heatmap: cursor later / earlier in the second" },
	{ { KEY_HOME, KEY_END, 'g', 'G' },
	  W_HEAT,
	  heat_move,
	  "Home End g G",
	  "heatmap: first / last second" },
	{ { '\n', '\r', KEY_ENTER, ' ' },
	  W_HEAT,
	  heat_mark,
	  "Enter Space",
	  "heatmap: mark the start cell, then the end cell: the range" },
	{ { KEY_ESC, 'x' }, W_ANY, clear_sel, "Esc x", "back to the whole capture" },
	/* one help line for both: the help fits 24 lines */
	{ { 'f', 'E' },
	  W_ANY,
	  follow_or_event,
	  "f E",
	  "live: follow the newest second / next event (offcpu...)" },
	{ { KEY_UP, KEY_DOWN, 'k', 'j' },
	  W_TREE,
	  tree_move,
	  "Up Down k j",
	  "tree: previous / next row" },
	{ { KEY_PPAGE, KEY_NPAGE, KEY_HOME, KEY_END },
	  W_TREE,
	  tree_move,
	  "PgUp PgDn Home End",
	  "tree: page up / down, first / last row" },
	{ { 'g', 'G', ' ' }, W_TREE, tree_move, NULL, NULL },
	{ { KEY_RIGHT, 'l', '+' },
	  W_TREE,
	  tree_expand,
	  "Right l +",
	  "tree: open the node (again: into it)" },
	{ { KEY_LEFT, 'h', '-' },
	  W_TREE,
	  tree_collapse,
	  "Left h -",
	  "tree: close the node (again: to its parent)" },
	{ { '\n', '\r', KEY_ENTER }, W_TREE, tree_toggle, "Enter", "tree: open / close the node" },
	{ { 'e', 'c' },
	  W_TREE,
	  tree_all,
	  "e c",
	  "tree: open everything below the node / close all" },
	{ { '\t' }, W_ANY, focus, "Tab", "move between the heatmap and the tree" },
	{ { 'v', 't', 'b', 'F' },
	  W_ANY,
	  pane,
	  "v t b F",
	  "next pane / top-down tree / bottom-up tree / functions" },
	/* one help line for both: the help fits 24 lines */
	{ { 's', 'd' },
	  W_ANY,
	  sort_or_diff,
	  "s d",
	  "functions by self or total / differential (--baseline)" },
	{ { '/' }, W_ANY, search_start, "/", "search frames (substring, any case); Enter finds" },
	{ { 'n', 'N' }, W_ANY, search_next, "n N", "next / previous match" },
	{ { '?', KEY_F(1) }, W_ANY, help, "? F1", "this help (any key closes it)" },
	{ { 'M' },
	  W_ANY,
	  messages,
	  "M",
	  "the other stages' messages (perf, warnings, the web view's URL)" },
	{ { CTRL('l') }, W_ANY, redraw, "Ctrl-L", "draw the whole screen again" },
	{ { 'q', 'Q', CTRL('c') }, W_ANY, quit, "q Ctrl-C", "quit (the terminal is restored)" },
};
#define NBINDINGS (sizeof bindings / sizeof *bindings)

/* A key typed into the search prompt. */
static int prompt_key(struct tui *t, int key)
{
	if (key == KEY_ESC || key == CTRL('c') || key == CTRL('g')) {
		t->prompting = 0;
		t->search_len = 0;
		t->search[0] = '\0';
	} else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		t->prompting = 0;
		if (t->search_len && !tui_view_search(t, 1))
			snprintf(t->msg, sizeof t->msg, "not found: %s", t->search);
	} else if (key == KEY_BACKSPACE || key == 127 || key == CTRL('h')) {
		if (t->search_len)
			t->search[--t->search_len] = '\0';
	} else if (key >= ' ' && key < 256 && t->search_len + 1 < sizeof t->search) {
		t->search[t->search_len++] = (char)key;
		t->search[t->search_len] = '\0';
	}
	return 1;
}

int tui_key(struct tui *t, int key)
{
	unsigned where = t->focus == TUI_FOCUS_HEAT ? W_HEAT : W_TREE;

	if (t->prompting)
		return prompt_key(t, key);
	if (t->help || t->show_messages) { /* any key closes an overlay; q still quits */
		t->help = t->show_messages = 0;
		if (key != 'q' && key != CTRL('c'))
			return 1;
	}
	t->msg[0] = '\0';
	for (size_t i = 0; i < NBINDINGS; i++) {
		if (!(bindings[i].where & where))
			continue;
		for (const int *k = bindings[i].keys; *k && k < bindings[i].keys + 5; k++)
			if (*k == key)
				return bindings[i].fn(t, key);
	}
	return 0;
}

const char *const *tui_key_help(void)
{
	static char lines[NBINDINGS][128];
	static const char *list[NBINDINGS + 1];
	size_t n = 0;

	if (list[0])
		return list;
	for (size_t i = 0; i < NBINDINGS; i++) {
		if (!bindings[i].label)
			continue;
		snprintf(lines[n], sizeof lines[n], "%-20s %s", bindings[i].label,
			 bindings[i].help);
		list[n] = lines[n];
		n++;
	}
	list[n] = NULL;
	return list;
}
