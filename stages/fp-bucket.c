/* fp-bucket: the FlameScope subsecond-offset heatmap, in integer arithmetic.
 *
 * Interface: fp-bucket [--rows N] [--keep-idle] [--max-columns N] [--window-columns N]
 *            [--name NAME] [--event NAMES|--all-events] [--cells-only] < stream > stream
 * Input:  a flamepipe stream (fifo/PROTOCOL.md). S records are counted into
 *         cells: column = second - base_sec, row = (time_ns mod 1e9) * rows
 *         / 1e9, base_sec = floor(earliest sample time seen).
 * Output: every record passed on unchanged and in order, except idle samples
 *         (dropped unless --keep-idle; see fifo/fp_idle.h) and malformed S
 *         records (a W record instead). G <rows> <base_sec> is written as
 *         soon as the first sample arrives and again when an earlier sample
 *         moves column 0; H <col> <row> <count> records carry the new
 *         absolute count of each changed cell. They are coalesced: written
 *         when the input goes idle, before a C flush is passed on, at EOF,
 *         and when DIRTY_MAX cells are pending. After a new G every
 *         non-empty cell is re-sent. A C reset empties the heatmap (and
 *         writes G again). At EOF: one I bucket-event samples=N
 *         counted=0|1 event=NAME per event (those of a C events record
 *         first, in its order, then the others in the order first seen),
 *         then I bucket samples= counted= idle= cells= columns= overflow=
 *         bad=.
 *         The stack-id stream (PROTOCOL.md): K records are passed on (of
 *         each, its event and what the idle rule says of its comm and
 *         stack are kept), a P record is a sample like an S record (counted, passed on
 *         or dropped by the same rules); a malformed or undefined one is
 *         dropped with a W record and counted in bad=. --cells-only: the
 *         samples (S, P, and the K records) are counted but not passed on,
 *         for a reader that wants the heatmap alone (fp-serve's /heatmap/).
 * Events: one event at a time, so that the heatmap and the flame graph
 *         count the same samples. By default only samples of the first
 *         event are counted and passed on: perf report's first event (the
 *         first -e), which the source names in a C events record before
 *         its first sample (fp-perfdata always, fp-read from perf script
 *         --header), else the first event seen (stackcollapse-perf.pl); --event NAMES (comma list, "cpu-clock" matches
 *         "cpu-clock:ppp", see fp_event_name_matches) picks others,
 *         --all-events keeps every event. Samples of other events are
 *         dropped like idle ones (stderr says so once). Samples without an
 *         event name ("-") always count.
 * Memory: columns live in a hash keyed by absolute second (timestamps far
 *         in the future cost one column, not a gap), rows*9 bytes each; at
 *         most --max-columns columns (default MAX_CELLS_DEFAULT / rows).
 *         Samples that would need a further column are passed on but not
 *         counted (overflow=, one W record). --window-columns N (the live
 *         chains): at most N columns in memory, the oldest second's column
 *         dropped for a new one (its cells were sent; downstream keeps
 *         them); a sample of a second before the newest dropped column is
 *         late: passed on, not counted (late=, one W record), and moves no
 *         column 0. I bucket then adds window_dropped= late=.
 * Signals: SIGINT/SIGTERM end input as at EOF (fp_pump).
 * Exit codes: 0 ok, 100 usage or unsupported stream version, 111 system
 *         error, 141 the reader went away.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_io.h"
#include "fp_map.h"
#include "fp_opts.h"
#include "fp_idle.h"
#include "fp_rangectl.h"
#include "fp_record.h"
#include "fp_strtab.h"
#include "fp_tails.h"

#define USAGE                                                                             \
	"usage: fp-bucket [--rows N] [--keep-idle] [--max-columns N] "                    \
	"[--window-columns N] [--name NAME] [--event NAMES|--all-events] [--cells-only] " \
	"[--pass-timed]"

#define ROWS_DEFAULT 50
/* Total cells (columns * rows) allowed by default: 16 Mi cells = 144 MiB
 * with their dirty flags, e.g. 93 hours at 50 rows. */
#define MAX_CELLS_DEFAULT (16u << 20)
/* Write pending H records once this many cells have changed. */
#define DIRTY_MAX 65536
#define NO_COLUMN UINT32_MAX
/* Distinct event names counted for the bucket-event records; samples of
 * further names are still filtered, their names just not listed. */
#define EVENT_NAMES_MAX 64
#define FP_STAGE_NAME_MAX 256 /* "NAME-event" of --name NAME */

#define NO_TAIL UINT32_MAX /* count_and_pass: an S record */
#define TAIL_VERDICT_MIN 1024
enum { TAIL_KNOWN = 1, TAIL_WANT = 2, TAIL_ENTRY = 4 };

struct event_count {
	char *name;
	uint64_t samples;
	int counted;
};

struct column {
	uint64_t sec;    /* absolute perf second */
	uint64_t *count; /* rows counters */
	uint8_t *dirty;  /* rows flags: in the dirty list */
};

struct dirty_cell {
	uint64_t sec;
	uint32_t col, row;
};

/* A K record of the stack-id stream, as much of it as a P needs: not its
 * text (the sample's event, and the idle rule's parts of the tail). */
struct tail_slot {
	uint32_t event;                         /* the id of its event name in event_names */
	uint8_t comm_is_swapper, stack_is_idle; /* fp_idle.h */
};

struct bucket {
	struct fp_pump *pump;
	struct tail_slot *tails; /* by K id: ids 0 .. ntails-1 are defined */
	size_t ntails, captails;
	struct fp_strtab event_names; /* of the K records */
	uint8_t *tail_verdict;        /* by K id: TAIL_* bits, 0: not known */
	uint16_t *tail_event;         /* by K id: its entry in events[] */
	size_t tail_verdict_n;
	unsigned rows;
	int keep_idle;
	int cells_only; /* samples are not passed on */
	int pass_timed; /* --pass-timed: uncounted timed samples passed on */
	size_t max_columns;
	/* --window-columns: at most this many columns in memory (0: no
	 * window); the oldest is dropped for a new one, and a sample before
	 * the newest dropped column (floor_sec) comes too late to count */
	size_t window;
	int have_floor;
	uint64_t floor_sec;
	uint64_t window_dropped, late;
	int late_warned;

	int have_base;
	uint64_t base_sec;
	int resend_all; /* geometry changed: re-send every cell */

	struct column *col;
	size_t ncol, capcol;
	struct fp_map by_sec; /* absolute second -> column index */
	uint32_t last_col;    /* cache: most samples share a second */

	struct dirty_cell *dirty;
	size_t ndirty;

	uint64_t samples, counted, idle, cells, overflow, bad;
	int overflow_warned;

	const char *event_list; /* --event, or NULL: the first event (C events, or seen) */
	int all_events;
	char *first_event; /* the default filter, once known */
	struct event_count events[EVENT_NAMES_MAX];
	size_t nevents;
	int event_warned;
};

/* ---- events -------------------------------------------------------------- */

/* The entry of event `name` in b->events (added if new); NULL when the
 * table is full. */
static struct event_count *event_entry(struct bucket *b, struct fp_str name)
{
	for (size_t i = 0; i < b->nevents; i++)
		if (fp_str_eq(name, b->events[i].name))
			return &b->events[i];
	if (b->nevents == EVENT_NAMES_MAX)
		return NULL;
	b->events[b->nevents].name = fp_xstrndup(name.p, name.n);
	return &b->events[b->nevents++];
}

/* C events NAME...: the capture's events in perf report's order (the
 * source read them from perf.data's attributes or perf script --header).
 * Before the first sample it fixes the default event (its first name,
 * perf report's first event, even when another event has the first
 * sample) and the order of the I bucket-event records. */
static void on_events(struct bucket *b, const struct fp_control *c)
{
	struct fp_str first;

	if (b->samples || b->first_event || fp_events_first(c, &first) < 0)
		return;
	b->first_event = fp_xstrndup(first.p, first.n);
	for (const char *p = c->rest.p, *end = p + c->rest.n; p < end;) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));
		size_t n = tab ? (size_t)(tab - p) : (size_t)(end - p);
		if (n)
			event_entry(b, (struct fp_str){ p, n });
		p += n + 1;
	}
}

/* Whether s is of the event (set) counted. */
static int event_wanted(struct bucket *b, const struct fp_sample *s)
{
	struct event_count *e = event_entry(b, s->event);
	int want;

	if (b->all_events || fp_str_eq(s->event, "-"))
		want = 1;
	else if (b->event_list)
		want = fp_event_in_list(b->event_list, strlen(b->event_list), s->event.p,
					s->event.n);
	else {
		if (!b->first_event)
			b->first_event = fp_xstrndup(s->event.p, s->event.n);
		want = fp_str_eq(s->event, b->first_event);
		if (!want && !b->event_warned && !(b->pass_timed && fp_event_is_timed(s->event))) {
			b->event_warned = 1;
			fp_warn("counting events of type %s only (dropping %.*s samples; "
				"use --event or --all-events%s)",
				b->first_event, (int)s->event.n, s->event.p,
				fp_event_is_timed(s->event) ? "; off-CPU time is the web view's "
							      "and report's event picker's"
							    : "");
		}
	}
	if (e) {
		e->samples++;
		e->counted |= want;
	}
	return want;
}

static void write_event_counts(struct bucket *b)
{
	char stage[FP_STAGE_NAME_MAX];

	snprintf(stage, sizeof stage, "%s-event", b->pump->stage);
	for (size_t i = 0; i < b->nevents; i++) {
		const struct fp_stat kv[] = {
			{ "samples", b->events[i].samples },
			{ "counted", (uint64_t)b->events[i].counted },
		};

		fp_write_info_text(fp_out_wr(&b->pump->out), stage, kv, sizeof kv / sizeof *kv,
				   "event", b->events[i].name);
	}
}

/* ---- columns ------------------------------------------------------------- */

static uint32_t find_column(struct bucket *b, uint64_t sec)
{
	if (b->last_col != NO_COLUMN && b->col[b->last_col].sec == sec)
		return b->last_col;

	uint32_t idx = fp_map_get(&b->by_sec, sec, 0);

	return idx == FP_MAP_NONE ? NO_COLUMN : (b->last_col = idx);
}

static uint32_t add_column(struct bucket *b, uint64_t sec)
{
	struct column *c;
	uint32_t idx;

	if (b->ncol == b->capcol) {
		b->capcol = b->capcol ? b->capcol * 2 : 16;
		b->col = fp_xrealloc(b->col, b->capcol * sizeof *b->col);
	}
	idx = (uint32_t)b->ncol++;
	c = &b->col[idx];
	c->sec = sec;
	/* One allocation: counters, then dirty flags. */
	c->count = fp_xcalloc(1, b->rows * (sizeof *c->count + 1));
	c->dirty = (uint8_t *)(c->count + b->rows);
	fp_map_add(&b->by_sec, sec, 0, idx);
	return b->last_col = idx;
}

static void free_columns(struct bucket *b)
{
	for (size_t i = 0; i < b->ncol; i++)
		free(b->col[i].count);
	free(b->col);
	fp_map_free(&b->by_sec);
	b->col = NULL;
	b->ncol = b->capcol = 0;
	b->last_col = NO_COLUMN;
	b->ndirty = 0;
	b->cells = 0;
	b->have_floor = 0;
}

static void flush_cells(struct bucket *b);

/* --window-columns is full and a new second came: its pending H records
 * out first (they carry the column's final counts), then the column of
 * the oldest second leaves memory; the heatmap downstream keeps its
 * cells. Once a second a column, O(window). */
static void drop_oldest_column(struct bucket *b)
{
	size_t old = 0, last = b->ncol - 1;

	flush_cells(b); /* the dirty list names columns by index */
	for (size_t i = 1; i < b->ncol; i++)
		if (b->col[i].sec < b->col[old].sec)
			old = i;
	if (!b->have_floor || b->col[old].sec + 1 > b->floor_sec)
		b->floor_sec = b->col[old].sec + 1;
	b->have_floor = 1;
	fp_map_del(&b->by_sec, b->col[old].sec, 0);
	free(b->col[old].count);
	if (old != last) {
		b->col[old] = b->col[last];
		fp_map_del(&b->by_sec, b->col[old].sec, 0);
		fp_map_add(&b->by_sec, b->col[old].sec, 0, (uint32_t)old);
	}
	b->ncol--;
	b->last_col = NO_COLUMN;
	b->window_dropped++;
}

/* ---- output -------------------------------------------------------------- */

static void write_geometry(struct bucket *b)
{
	fp_write_geometry(fp_out_wr(&b->pump->out), b->rows, b->base_sec);
}

static void write_cell(struct bucket *b, const struct column *c, unsigned row)
{
	fp_write_cell(fp_out_wr(&b->pump->out), c->sec - b->base_sec, row, c->count[row]);
}

static int cmp_dirty(const void *x, const void *y)
{
	const struct dirty_cell *a = x, *b = y;

	if (a->sec != b->sec)
		return a->sec < b->sec ? -1 : 1;
	return (a->row > b->row) - (a->row < b->row);
}

static int cmp_column_sec(const void *x, const void *y)
{
	const struct column *a = x, *b = y;

	return (a->sec > b->sec) - (a->sec < b->sec);
}

/* Re-sends every non-empty cell, in time order (after a new G). */
static void write_all_cells(struct bucket *b)
{
	if (!b->ncol) /* only idle samples so far: no columns, no arrays */
		return;
	qsort(b->col, b->ncol, sizeof *b->col, cmp_column_sec);
	fp_map_clear(&b->by_sec); /* the columns moved: index them again */
	for (size_t i = 0; i < b->ncol; i++)
		fp_map_add(&b->by_sec, b->col[i].sec, 0, (uint32_t)i);
	b->last_col = NO_COLUMN;
	for (size_t i = 0; i < b->ncol; i++) {
		memset(b->col[i].dirty, 0, b->rows);
		for (unsigned r = 0; r < b->rows; r++)
			if (b->col[i].count[r])
				write_cell(b, &b->col[i], r);
	}
}

/* Writes the H records of every cell changed since the last call. */
static void flush_cells(struct bucket *b)
{
	if (b->resend_all) {
		write_all_cells(b);
		b->resend_all = 0;
		b->ndirty = 0;
		return;
	}
	if (!b->ndirty)
		return;
	qsort(b->dirty, b->ndirty, sizeof *b->dirty, cmp_dirty);
	for (size_t i = 0; i < b->ndirty; i++) {
		struct column *c = &b->col[b->dirty[i].col];

		c->dirty[b->dirty[i].row] = 0;
		write_cell(b, c, b->dirty[i].row);
	}
	b->ndirty = 0;
}

/* ---- input --------------------------------------------------------------- */

/* weight: 1 for a sample, its period for a timed event's (off-CPU time). */
static void count_sample(struct bucket *b, uint64_t time_ns, uint64_t weight)
{
	uint64_t sec = time_ns / FP_NSEC_PER_SEC;
	unsigned row = (unsigned)((time_ns % FP_NSEC_PER_SEC) * b->rows / FP_NSEC_PER_SEC);
	uint32_t idx = find_column(b, sec);
	struct column *c;

	if (idx == NO_COLUMN && b->have_floor && sec < b->floor_sec) {
		b->late++;
		if (!b->late_warned) {
			fp_pump_warn(b->pump,
				     "a sample of second %llu came after its column left "
				     "memory (--window-columns %zu): such samples are passed on, "
				     "not counted in the heatmap (late=)",
				     (unsigned long long)sec, b->window);
			b->late_warned = 1;
		}
		return;
	}
	if (idx == NO_COLUMN) {
		if (b->window && b->ncol >= b->window)
			drop_oldest_column(b);
		if (b->ncol >= b->max_columns) {
			b->overflow++;
			if (!b->overflow_warned) {
				fp_pump_warn(b->pump,
					     "more than %zu heatmap columns: "
					     "samples in further seconds are not counted "
					     "(see --max-columns)",
					     b->max_columns);
				b->overflow_warned = 1;
			}
			return;
		}
		idx = add_column(b, sec);
	}
	c = &b->col[idx];
	if (c->count[row] == 0)
		b->cells++;
	c->count[row] = fp_add_sat(c->count[row], weight); /* counts stick, never wrap */
	b->counted = fp_add_sat(b->counted, 1);
	if (b->resend_all || c->dirty[row])
		return;
	c->dirty[row] = 1;
	b->dirty[b->ndirty++] = (struct dirty_cell){ sec, idx, row };
	if (b->ndirty == DIRTY_MAX)
		flush_cells(b);
}

/* Moves column 0 to the second of this sample if it is the first or an
 * earlier one. */
static void update_base(struct bucket *b, uint64_t time_ns)
{
	uint64_t sec = time_ns / FP_NSEC_PER_SEC;

	if (b->have_base && sec >= b->base_sec)
		return;
	if (b->have_floor) /* columns left memory: the axis stays */
		return;
	if (b->have_base)
		b->resend_all = 1;
	b->have_base = 1;
	b->base_sec = sec;
	write_geometry(b);
}

/* A valid sample (from an S, or a P and its K): counted, and its record
 * passed on unless its event is not counted or it is idle. */
/* event_wanted for a P sample: the verdict of its tail's event is kept
 * by tail id (looking the event name up was a quarter of the stage's CPU
 * on the stack-id stream), once the default event is known. */
static int tail_event_wanted(struct bucket *b, const struct fp_sample *s, uint32_t tail)
{
	if (tail < b->tail_verdict_n && b->tail_verdict[tail]) {
		uint8_t v = b->tail_verdict[tail];
		if (v & TAIL_ENTRY)
			b->events[b->tail_event[tail]].samples++;
		return (v & TAIL_WANT) != 0;
	}
	int want = event_wanted(b, s);
	if (!b->all_events && !b->event_list && !b->first_event)
		return want;
	if (tail >= b->tail_verdict_n) {
		size_t n = b->tail_verdict_n ? b->tail_verdict_n : TAIL_VERDICT_MIN;
		while (n <= tail)
			n *= 2;
		b->tail_verdict = fp_xrealloc(b->tail_verdict, n);
		b->tail_event = fp_xrealloc(b->tail_event, n * sizeof *b->tail_event);
		memset(b->tail_verdict + b->tail_verdict_n, 0, n - b->tail_verdict_n);
		b->tail_verdict_n = n;
	}
	for (size_t i = 0; i < b->nevents; i++)
		if (fp_str_eq(s->event, b->events[i].name)) {
			b->tail_event[tail] = (uint16_t)i;
			b->tail_verdict[tail] |= TAIL_ENTRY;
		}
	b->tail_verdict[tail] |= TAIL_KNOWN | (want ? TAIL_WANT : 0);
	return want;
}

/* tail: the K id of a P sample (s has its event, not its other tail
 * fields), NO_TAIL for an S record. */
static void count_and_pass(struct bucket *b, const struct fp_sample *s, const char *line,
			   size_t len, uint32_t tail)
{
	b->samples++;
	update_base(b, s->time_ns);
	if (!(tail == NO_TAIL ? event_wanted(b, s) : tail_event_wanted(b, s, tail))) {
		/* --pass-timed: off-CPU time beside the counted event, for the
		 * report's event picker (fp-fold --timed-apart keeps it apart) */
		if (b->pass_timed && fp_event_is_timed(s->event)) {
			if (!b->cells_only)
				fp_write_line(fp_out_wr(&b->pump->out), line, len);
		}
		return;
	}
	if (tail == NO_TAIL ? fp_sample_is_idle(s)
			    : fp_idle_of(s->pid, b->tails[tail].comm_is_swapper,
					 b->tails[tail].stack_is_idle)) {
		b->idle++;
		if (!b->keep_idle)
			return;
	}
	count_sample(b, s->time_ns, fp_event_is_timed(s->event) ? s->period : 1);
	if (!b->cells_only)
		fp_write_line(fp_out_wr(&b->pump->out), line, len);
}

static int on_sample(void *ctx, const char *line, size_t len)
{
	struct bucket *b = ctx;
	struct fp_sample s;

	if (fp_sample_parse(line, len, &s) < 0)
		return -1;
	count_and_pass(b, &s, line, len, NO_TAIL);
	return 0;
}

#define TAILS_MIN 1024u /* slots of the first allocation */

/* The stack-id stream: K records are kept (by the rules of fp_tails.h: the
 * next id, or one defined before) and passed on, P records are samples. */
static int on_tail(void *ctx, const char *line, size_t len)
{
	struct bucket *b = ctx;
	struct fp_tail_def d;

	if (fp_tail_def_parse(line, len, &d) < 0)
		return FP_TAILS_MALFORMED;
	if (d.id > b->ntails)
		return FP_TAILS_SKIPS_AHEAD;
	if (d.id == b->ntails) {
		if (b->ntails == b->captails) {
			b->captails = b->captails ? b->captails * 2 : TAILS_MIN;
			b->tails = fp_xrealloc(b->tails, b->captails * sizeof *b->tails);
		}
		b->ntails++;
	}
	b->tails[d.id] = (struct tail_slot){
		.event = fp_strtab_intern(&b->event_names, d.event.p, d.event.n, NULL),
		.comm_is_swapper = (uint8_t)fp_comm_is_swapper(d.comm),
		.stack_is_idle = (uint8_t)fp_stack_is_idle(d.stack),
	};
	uint32_t id = d.id;
	if (id < b->tail_verdict_n)
		b->tail_verdict[id] = 0; /* a new definition: its event may differ */
	if (!b->cells_only)
		fp_write_line(fp_out_wr(&b->pump->out), line, len);
	return 0;
}

static int on_tail_sample(void *ctx, const char *line, size_t len)
{
	struct bucket *b = ctx;
	struct fp_tail_ref r;

	if (fp_tail_ref_parse(line, len, &r) < 0)
		return FP_TAILS_MALFORMED;
	if (r.id >= b->ntails)
		return FP_TAILS_UNDEFINED;
	size_t event_n;
	const char *event = fp_strtab_str(&b->event_names, b->tails[r.id].event, &event_n);
	const struct fp_sample s = {
		.time_ns = r.time_ns,
		.pid = r.pid,
		.tid = r.tid,
		.cpu = r.cpu,
		.period = r.period,
		.event = { event, event_n },
	};
	count_and_pass(b, &s, line, len, r.id);
	return 0;
}

static void on_bad(void *ctx, const char *problem)
{
	struct bucket *b = ctx;

	b->bad++;
	fp_pump_warn(b->pump, "%s", problem);
}

static void on_control(struct bucket *b, const char *line, size_t len)
{
	struct fp_control c;

	if (fp_control_parse(line, len, &c) < 0)
		return;
	if (c.kind == FP_CTL_FLUSH) {
		flush_cells(b);
	} else if (c.kind == FP_CTL_EVENTS) {
		on_events(b, &c);
	} else if (c.kind == FP_CTL_RESET) {
		/* Upstream re-sends its samples: start the heatmap again on the
		 * same axis; the new G tells consumers to drop their cells. */
		free_columns(b);
		b->resend_all = 0;
		if (b->have_base)
			write_geometry(b);
	}
}

static const struct fp_sample_handlers sample_handlers = {
	.sample = on_sample,
	.tail = on_tail,
	.tail_sample = on_tail_sample,
	.bad = on_bad,
};

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	struct bucket *b = p->ctx;

	enum fp_rec tag = fp_record_tag(line, &len);

	if (fp_sample_records(&sample_handlers, b, tag, line, len))
		return;
	switch (tag) {
	case FP_REC_HEADER:
		fp_header_require(line, len, p->in_name, p->lineno);
		break;
	case FP_REC_CONTROL:
		on_control(b, line, len);
		break;
	default:
		break;
	}
	fp_write_line(fp_out_wr(&p->out), line, len);
}

static void on_idle(struct fp_pump *p)
{
	flush_cells(p->ctx);
}

static void on_eof(struct fp_pump *p)
{
	struct bucket *b = p->ctx;
	struct fp_stat stats[10] = {
		{ "samples", b->samples },
		{ "counted", b->counted },
		{ "idle", b->idle },
		{ "cells", b->cells },
		{ "columns", b->ncol + b->window_dropped },
		{ "overflow", b->overflow },
		{ "bad", b->bad },
	};
	size_t n = 7;

	if (b->window) { /* only with --window-columns */
		stats[n++] = (struct fp_stat){ "window_dropped", b->window_dropped };
		stats[n++] = (struct fp_stat){ "late", b->late };
	}
	if (p->lines_too_long) /* only when some line was */
		stats[n++] = (struct fp_stat){ "too_long", p->lines_too_long };
	flush_cells(b);
	write_event_counts(b);
	fp_write_info(fp_out_wr(&p->out), p->stage, stats, n);
}

static const struct fp_pump_ops bucket_ops = {
	.line = on_line,
	.eof = on_eof,
	.idle = on_idle,
};

static void opt_event(void *ctx, const char *opt, const char *arg)
{
	struct bucket *b = ctx;

	if (!*arg)
		fp_die(FP_EXIT_USAGE, "--event: expected a comma-separated list of event names");
	b->event_list = arg;
}

int main(int argc, char **argv)
{
	struct bucket b = { .rows = ROWS_DEFAULT, .last_col = NO_COLUMN };
	struct fp_pump p;
	const char *name = "bucket";
	uint64_t max_columns = 0, window = 0;
	int rc;
	const struct fp_opt options[] = {
		{ "rows", FP_OPT_UINT, &b.rows, .min = 1, .max = FP_ROWS_MAX },
		{ "keep-idle", FP_OPT_FLAG, &b.keep_idle },
		{ "max-columns", FP_OPT_U64, &max_columns, .min = 1, .max = UINT32_MAX - 1 },
		{ "window-columns", FP_OPT_U64, &window, .min = 1, .max = UINT32_MAX - 1 },
		{ "name", FP_OPT_STR, &name },
		{ "event", FP_OPT_FN, .fn = opt_event },
		{ "all-events", FP_OPT_FLAG, &b.all_events },
		{ "cells-only", FP_OPT_FLAG, &b.cells_only },
		{ "pass-timed", FP_OPT_FLAG, &b.pass_timed },
		{ NULL },
	};

	fp_set_prog(argv[0]);
	fp_opts_parse(argc, argv, options, USAGE, 0, &b);
	if (b.event_list && b.all_events)
		fp_die(FP_EXIT_USAGE, "--event and --all-events exclude each other");
	b.max_columns = max_columns ? max_columns : MAX_CELLS_DEFAULT / b.rows;
	b.window = (size_t)window;
	b.dirty = fp_xmalloc(DIRTY_MAX * sizeof *b.dirty);

	fp_pump_init(&p, EV_DEFAULT, 0, 1, &bucket_ops, &b, 0);
	p.stage = name;
	b.pump = &p;
	fp_strtab_init(&b.event_names);
	rc = fp_pump_run(&p);
	free(b.tails);
	fp_strtab_free(&b.event_names);
	free(b.tail_verdict);
	free(b.tail_event);
	free_columns(&b);
	free(b.dirty);
	free(b.first_event);
	for (size_t i = 0; i < b.nevents; i++)
		free(b.events[i].name);
	return rc;
}
