/* tui.h: fp-tui's state, shared by its private modules:
 *
 *	tui_model.c   what the stream gave: the heatmap (G/H), the stacks (D)
 *	              and a bounded ring of samples (R); the call trees of a
 *	              time range built from them (fold/fp_calltree.h)
 *	tui_view.c    the view without drawing: heatmap cursor and selection,
 *	              which tree nodes are open, the rows shown, search
 *	tui_keys.c    the keys as a table: key, where it works, action, help
 *	tui_screen.c  the drawing (ncurses)
 *	tui_diff.c    the differential against a baseline (--baseline, d)
 *	fp-tui.c      main: options, the stream, the terminal and its restore
 */
#ifndef FP_TUI_H
#define FP_TUI_H

#include <stddef.h>
#include <stdint.h>

#include "folded.h"
#include "fp_calltree.h"
#include "fp_map.h"
#include "fp_strtab.h"
#include "heatmap.h"

/* ---- the model (tui_model.c) -------------------------------------------- */

struct tui_stack {
	uint32_t off, n; /* frames in the pool; n 0: not defined */
	uint32_t skip;   /* leading root frames (comm, event): not functions */
};

struct tui_sample {
	uint64_t time_ns;
	uint32_t stack;
	uint32_t count; /* samples; ns of a timed event (offcpu, wakeup) */
	uint8_t event;  /* index into tui_model.events */
};

#define TUI_MAX_EVENTS 16   /* past it, samples count as the last event's */
#define TUI_EV_UNTIMED (-1) /* the view of every event that is not timed */

struct tui_model {
	struct fp_strtab names; /* frame names */
	uint32_t *pool;         /* every stack's frame ids */
	size_t npool, cap_pool, max_pool;
	struct tui_stack *stack; /* by D id */
	size_t nstack;
	struct tui_sample *ring;            /* the newest max_samples samples */
	size_t ring_cap, ring_head, ring_n; /* head: the oldest */
	uint64_t evicted;                   /* samples pushed out of the ring */
	uint64_t unknown;                   /* R of an undefined stack, or past the pool */
	uint64_t *acc;                      /* per stack, while building */
	size_t nacc;
	uint32_t *touched;
	size_t ntouched, cap_touched;
	struct fp_heatmap hm;
	char *events[TUI_MAX_EVENTS]; /* C events, then the others seen */
	int timed[TUI_MAX_EVENTS];    /* fp_event_is_timed */
	unsigned nevents;
	uint64_t gen; /* bumped by every change */
};

void tui_model_init(struct tui_model *m, size_t max_samples, size_t max_frames);
void tui_model_free(struct tui_model *m);
/* A D record: stack id is the folded text, kinds one a frame. 0, or -1 if
 * kinds and frames disagree. */
int tui_model_define(struct tui_model *m, uint32_t id, const char *kinds, size_t kn,
		     const char *folded, size_t fn);
/* An R record. */
void tui_model_sample(struct tui_model *m, uint32_t id, uint64_t time_ns, uint64_t count,
		      unsigned event);
/* The index of event name[0..n) (added if new). */
unsigned tui_model_event(struct tui_model *m, const char *name, size_t n);
/* C reset: the samples go (fp-range re-sends what is in force). */
void tui_model_reset(struct tui_model *m);
/* Both trees (cleared first) of the samples with from <= time < to
 * (absolute ns); the sum of their counts, *nsamples how many. */
/* event: an index (a timed event: its ns), or TUI_EV_UNTIMED. */
uint64_t tui_model_build(struct tui_model *m, uint64_t from, uint64_t to, int event,
			 struct fp_calltree *td, struct fp_calltree *bu, uint64_t *nsamples);
/* hm: event's heatmap of the samples held, on m->hm's rows and seconds. */
void tui_model_heatmap(struct tui_model *m, int event, struct fp_heatmap *hm);

/* ---- the view (tui_view.c) ---------------------------------------------- */

enum tui_focus { TUI_FOCUS_HEAT, TUI_FOCUS_TREE };
enum tui_pane { TUI_TOPDOWN, TUI_BOTTOMUP, TUI_FUNCS, TUI_NPANES };

/* A cell of the heatmap as the view shows it: a column of the axis, a
 * group of `group` slices (line 0 at the bottom: the start of the second). */
struct tui_cell {
	size_t x;
	unsigned y;
};

struct tui {
	struct tui_model m;
	struct fp_calltree td, bu;
	/* the event shown (E): TUI_EV_UNTIMED, or a timed event's index,
	 * whose heatmap is ehm and whose counts are ns blocked */
	int event;
	struct fp_heatmap ehm;
	/* the range the trees are of */
	int have_sel;
	uint64_t sel_from, sel_to; /* absolute ns (a new base second moves no sample) */
	uint64_t range_total, range_samples;
	uint64_t built_gen;
	double built_at;
	int need_build;
	/* heatmap cursor */
	struct fp_heatmap_axis ax;
	unsigned group, lines; /* slices per line, lines drawn */
	struct tui_cell cur, mark;
	int marking;
	int follow; /* the cursor stays on the newest column */
	size_t x0;  /* first column shown */
	/* lower panes */
	enum tui_focus focus;
	enum tui_pane pane;
	int fn_by_total;
	struct fp_map open; /* node key -> 1 open, 2 closed */
	uint32_t *rows;     /* the visible rows: tree nodes, or functions */
	size_t nrows, cap_rows;
	size_t row, top;  /* selected row, first row shown */
	uint64_t row_key; /* the selected node's key (kept across rebuilds) */
	uint32_t *fns;    /* the function table, sorted */
	size_t nfns, cap_fns;
	char search[128];
	size_t search_len;
	int prompting; /* typing a search */
	int help;
	/* the differential (tui_diff.c): by function, biggest growth first */
	int have_base, diff_on;
	struct fp_folded base, kbase;  /* the baseline, and by function */
	struct fp_folded dnow, dtab;   /* the range by function; against base */
	size_t *didx, ndidx, cap_didx; /* dtab's entries sorted by growth */
	size_t dtop;                   /* first row shown */
	/* state of the stream and the screen */
	int ended, live, quit, color, dirty;
	uint64_t warnings;
	char last_warning[160];
	char msg[160];
	const char *title;
	/* the other stages' messages (--messages FILE: the runner's log of
	 * their stderr while the view is on the screen) */
	char messages[8192]; /* the log's last bytes */
	size_t messages_len;
	char last_message[160];
	double message_at;     /* when last_message changed */
#define TUI_MESSAGE_SHOWN 10.0 /* s a new message stays on the last line */
	int show_messages;     /* the M overlay */
	double now;
};

/* After new data or a size change: the axis, the cursor kept on it. */
void tui_view_axis(struct tui *t, unsigned heat_lines, size_t width);
/* The heatmap column of axis index x. */
uint64_t tui_view_col(const struct tui *t, size_t x);
/* The slices [lo, hi) of line y. */
void tui_view_slices(const struct tui *t, unsigned y, unsigned *lo, unsigned *hi);
/* Absolute ns of the start of cell c, and of its end. */
uint64_t tui_cell_start(const struct tui *t, struct tui_cell c);
uint64_t tui_cell_end(const struct tui *t, struct tui_cell c);
/* Whether cell c is in the selection (or in the one being marked). */
int tui_view_selected(const struct tui *t, struct tui_cell c);
/* Rebuilds the trees if the data or the range changed (live: at most
 * every min_interval s); then the rows. */
void tui_view_build(struct tui *t, double now, double min_interval);
/* The visible rows again (after an open/close or a pane change). */
void tui_view_rows(struct tui *t);
int tui_view_is_open(const struct tui *t, uint32_t node);
const struct fp_calltree *tui_view_tree(const struct tui *t);
/* The frame name of a node or function. */
const char *tui_name(const struct tui *t, uint32_t name);
/* Search: the next (dir 1) or previous (-1) row whose name contains
 * t->search, opening the paths to every match first; 0 if none. */
int tui_view_search(struct tui *t, int dir);
int tui_view_matches(const struct tui *t, uint32_t name);

/* ---- the differential (tui_diff.c) -------------------------------------- */

/* Reads the baseline (a folded file or a capture); 0, or -1 with err. */
int tui_diff_load(struct tui *t, const char *path, char *err, size_t errsz);
/* The table of the trees just built against the baseline. */
void tui_diff_build(struct tui *t);
void tui_diff_free(struct tui *t);

/* The heatmap shown: the stream's, or the timed event's. */
const struct fp_heatmap *tui_heat(const struct tui *t);
int tui_timed(const struct tui *t);
/* The event shown's name. */
const char *tui_event_name(const struct tui *t);
/* The next event to show: untimed, then each timed one; 0 if only one. */
int tui_view_next_event(struct tui *t);

/* ---- the keys (tui_keys.c) ---------------------------------------------- */

/* Handles one key (ncurses code); 1 if it changed anything. */
int tui_key(struct tui *t, int key);
/* The help text: one "keys  what" line each, NULL-terminated. */
const char *const *tui_key_help(void);

/* ---- the screen (tui_screen.c) ------------------------------------------ */

void tui_screen_draw(struct tui *t);

#endif
