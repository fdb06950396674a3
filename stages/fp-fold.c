/* fp-fold: fold S sample records into folded stacks (stackcollapse-perf.pl style).
 *
 * Interface:
 *	fp-fold [--plain] [--weight samples|period] [--pid|--tid]
 *		[--kernel] [--jit] [--all] [--event-filter EV|--all-events]
 *		[--event-root] [--container-root] [--interval MS] [--max-stacks N]
 *		[--delta-snapshots]
 *		[--pass-samples [--snapshot-ids]] [FILE]
 *
 * Input: a flamepipe stream (fifo/PROTOCOL.md) on stdin or FILE (gzip ok).
 * Each S record becomes one folded stack `comm;root;...;leaf`, tidied as
 * Brendan Gregg's stackcollapse-perf.pl does, and is counted in a hash table
 * keyed by that string (memory follows unique stacks, not samples, up to
 * --max-stacks if given: past it the samples of a new
 * stack are counted under COMM;[more distinct stacks than --max-stacks],
 * with one W record and I fold overflow_samples=N).
 *
 * Output (default): every record that is not S, unchanged and in order, plus
 * snapshots of the table:
 *	C TAB begin TAB fold / F TAB <count> TAB <folded> ... / C TAB end TAB fold
 *	TAB <stacks> TAB <total>, then I TAB fold TAB samples=.. stacks=.. ...
 * A snapshot is written at end of input, on `C flush` (before passing the
 * flush on), and every --interval ms while the table changed, once the input
 * has been seen idle (a live stream; a batch run writes only the final one),
 * spaced so that they take at most a twentieth of a core (SNAPSHOT_CPU_SHARE).
 * With --delta-snapshots (the runner gives it when every reader downstream
 * reads them: fold/fp_foldsnap.h) a timed or flush snapshot after the first
 * full one carries only the stacks whose count changed since the last
 * snapshot, with their new counts (C begin fold-delta ... C end fold-delta
 * STACKS TOTAL); the first snapshot after a C reset, and the final one at
 * end of input, are full. With --snapshot-ids (and --pass-samples; the
 * runner gives it when every reader downstream reads them) each stack of
 * a snapshot is an E record naming its D record's id (E TAB <count> TAB
 * <id>) instead of an F record repeating its folded text, in the same
 * (bytewise) order.
 * `C reset` zeroes the counts (the stacks and their ids stay) and is passed on.
 * With --pass-samples: each sample that was folded (valid, and of the event
 * folded) also goes on as an R record (time, pid, tid, cpu, period, the
 * count it added, event, comm) naming its folded stack by id; the first
 * sample of a stack is preceded by the D record that defines the id (its
 * kinds and folded string), once for the life of the process (C reset
 * keeps the ids). fp-render stores them to draw the flame graph of any
 * time range: each sample is folded once, here.
 * The stack-id stream (PROTOCOL.md): K records are consumed (kept by id), a
 * P record is folded as its S record would be (a tail folded once: its
 * folded stack id is remembered, unless --pid/--tid put the pid in it).
 * With --plain: a plain folded file (`stack count` lines) at end of input,
 * nothing else on stdout; warnings go to stderr only.
 *
 * Signals: SIGINT/SIGTERM end the input; the final snapshot is written.
 * SIGUSR1 (with --interval): the next timed snapshot is full, even if
 * nothing changed: the runner sends it when a reader downstream was
 * restarted, replaced or added, so that a reader of deltas gets a whole
 * table within one interval (fold/fp_foldsnap.h: it skips deltas until
 * then).
 * Exit codes: 0 ok, 1 bad gzip input, 100 usage or unsupported stream
 * version, 111 system error, 141 the reader went away.
 * docs/fp-fold.md documents every rule and the differences from
 * stackcollapse-perf.pl.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ev.h>

#include "fp_cpus.h"
#include "fp_error.h"
#include "fp_strsort.h"
#include "fp_strtab.h"
#include "fp_fold.h"
#include "fp_io.h"
#include "fp_opts.h"
#include "fp_rangectl.h"
#include "fp_record.h"
#include "fp_foldsnap.h"
#include "fp_tails.h"

#define USAGE                                                                                     \
	"usage: fp-fold [--plain] [--weight samples|period] [--pid|--tid] "                       \
	"[--kernel] [--jit] [--all] [--event-filter EV|--all-events] [--event-root] "             \
	"[--container-root] [--timed-apart] "                                                     \
	"[--interval MS] [--max-stacks N] [--delta-snapshots] [--pass-samples [--snapshot-ids]] " \
	"[FILE]"

#define STAGE_NAME "fold"
/* --max-stacks: the table's bound on distinct stacks (none unless given;
 * flamepipe live gives 100000, docs/live.md). A live session that runs
 * for hours meets new stacks all the time (new pids with --pid, JIT code,
 * randomised names); past the bound, a sample of a stack not in the table
 * is counted under "COMM;" FOLD_OVERFLOW_FRAME, so the totals stay exact
 * and memory stays flat. */
#define FOLD_OVERFLOW_FRAME "[more distinct stacks than --max-stacks]"
#define DEFAULT_INTERVAL_MS 1000
#define MS_PER_SEC 1000.0
#define TAIL_FOLD_MIN 1024
/* --delta-snapshots: every FULL_EVERY-th snapshot is full all the same, so
 * a reader that came late (a stage replaced or restarted with flamepipe
 * ctl) has the whole table again within FULL_EVERY intervals */
#define FULL_EVERY 20

enum weight { WEIGHT_SAMPLES, WEIGHT_PERIOD };

struct fold_options {
	int plain;
	enum weight weight;
	struct fp_fold_opts fold; /* root id, annotations, event root */
	int all_events;
	const char *event_filter; /* NULL: the first event seen */
	unsigned interval_ms;     /* 0: no timed snapshots */
	int delta;                /* --delta-snapshots */
	int pass_samples;         /* D and R records for the folded samples */
	int snapshot_ids;         /* --snapshot-ids: E records, not F */
	int timed_apart;          /* --timed-apart: see fold_parsed */
	uint64_t max_stacks;      /* --max-stacks: distinct stacks kept */
};

/* ---- the stack table: lib/fp_strtab.h, a count per folded stack ------- */

static int id_cmp(const void *a, const void *b, void *t)
{
	size_t xn, yn;
	const char *x = fp_strtab_str(t, *(const uint32_t *)a, &xn);
	const char *y = fp_strtab_str(t, *(const uint32_t *)b, &yn);

	return fp_bytes_cmp(x, xn, y, yn);
}

/* The ids of every stack in the table in bytewise order of their strings,
 * as Perl's `sort { $a cmp $b }` and LC_ALL=C sort order them, kept across
 * snapshots: a snapshot sorts only the stacks added since the last one and
 * merges them in (a live fold writes one every --interval; sorting the
 * whole table each time was most of its cost). Ids stay for the life of
 * the process (C reset zeroes counts only), so the order stays valid. */
struct sorted_ids {
	uint32_t *ids, *tmp;
	size_t n, cap;
	unsigned threads; /* the sort's; 0 until the first */
};

static void sorted_update(struct sorted_ids *so, struct fp_strtab *t)
{
	size_t total = fp_strtab_count(t), k = total - so->n;

	if (!k)
		return;
	if (so->cap < total) {
		so->cap = total * 2;
		so->ids = fp_xrealloc(so->ids, so->cap * sizeof *so->ids);
		so->tmp = fp_xrealloc(so->tmp, so->cap * sizeof *so->tmp);
	}
	uint32_t *add = so->tmp; /* the new ids, sorted, then merged */
	for (size_t i = 0; i < k; i++)
		add[i] = (uint32_t)(so->n + i);
	/* lib/fp_strsort.h: shared prefixes compared once. On 2 CPUs: at the
	 * end of a report this sort of every stack is all that runs (the
	 * mixed capture's 82 k stacks: 28 ms, the next stage waiting). */
	if (!so->threads)
		so->threads = fp_cpus_usable(2);
	fp_strtab_sort_ids_on(t, add, k, so->threads);
	/* Merge from the back: ids[0..n) and add[0..k) into ids[0..n+k). A
	 * live snapshot adds a few stacks to many: each finds its place by
	 * binary search and the old ids after it move as a block, k log n
	 * string compares, not the n of a merge (which were a third of a live
	 * fp-fold's CPU: its stacks share long prefixes). */
	size_t i = so->n, j = k, out = total;
	if (k >= so->n / 8) { /* many new: the merge */
		while (j > 0) {
			if (i > 0 && id_cmp(&so->ids[i - 1], &add[j - 1], t) > 0)
				so->ids[--out] = so->ids[--i];
			else
				so->ids[--out] = add[--j];
		}
	}
	while (j > 0) {
		size_t lo = 0, hi = i;

		while (lo < hi) { /* the first old id after add[j - 1] */
			size_t mid = lo + (hi - lo) / 2;

			if (id_cmp(&so->ids[mid], &add[j - 1], t) > 0)
				hi = mid;
			else
				lo = mid + 1;
		}
		out -= i - lo;
		memmove(&so->ids[out], &so->ids[lo], (i - lo) * sizeof *so->ids);
		i = lo;
		so->ids[--out] = add[--j];
	}
	so->n = total;
}

/* ---- the stage --------------------------------------------------------- */

#define FP_EVENT_EXAMPLE_MAX 128 /* an unmatched event name, for the warning */

struct fold_state {
	struct fold_options opt;
	struct fp_pump pump;
	struct fp_strtab table; /* ids stay across resets (D records) */
	struct fp_tails tails;  /* K definitions (the stack-id stream) */
	uint32_t *tail_fold;    /* K id -> folded stack id + 1, 0: not yet */
	size_t tail_fold_n;
	size_t stacks; /* counted since the last reset */
	struct fp_fold_buf folded, kinds;
	struct sorted_ids sorted; /* every stack id, in string order */
	char *event_filter;       /* the filter in force, NULL until known */
	char *first_event;        /* the capture's first event (--timed-apart) */
	uint64_t timed_apart;     /* samples --timed-apart kept out of the table */
	int event_defaulted, event_warned;
	uint64_t event_matched;                /* samples --event-filter kept, since the start */
	char event_seen[FP_EVENT_EXAMPLE_MAX]; /* an event it did not match */
	int changed;                           /* since the last snapshot */
	struct fp_str head; /* the P record's "time ... period" text if canonical, else empty */
	/* --delta-snapshots: the stacks counted since the last snapshot */
	uint8_t *dirty; /* by stack id: 1 if in dirty_ids */
	uint32_t *dirty_ids;
	size_t dirty_n, dirty_cap;
	int full_sent; /* a full snapshot since the last reset */
	unsigned deltas_since_full;
	ev_timer snapshot_timer;
	ev_signal full_request;        /* SIGUSR1: the next snapshot full */
	ev_tstamp snapshot_not_before; /* the timer waits for this (snapshot_spaced) */
	/* I statistics */
	uint64_t samples;       /* folded since the last reset */
	uint64_t dropped_event; /* dropped by the event filter since the last reset */
	uint64_t bad_samples;   /* malformed S records, since the start */
	uint64_t resets;
	uint64_t overflow; /* samples counted as FOLD_OVERFLOW_STACK, since the start */
};

/* A warning about the input: a W record (unless --plain, where stdout is a
 * folded file) and `fp-fold: where: message` on stderr. */
static void input_warning(struct fold_state *st, const char *msg)
{
	struct fp_pump *p = &st->pump;

	if (!st->opt.plain) {
		fp_pump_warn(p, "%s", msg);
		return;
	}
	fp_warn("%s:%llu: %s", p->in_name, (unsigned long long)p->lineno, msg);
}

/* stackcollapse's default: only the first event name seen is kept (mixing
 * e.g. cycles and instructions would mislead), or the first of a C events
 * record (default_event). Returns 1 to keep s. */
static int event_wanted(struct fold_state *st, const struct fp_sample *s)
{
	if (st->opt.all_events || fp_str_eq(s->event, "-"))
		return 1; /* stackcollapse filters only parsed events */
	if (!st->event_filter) {
		st->event_filter = fp_xstrndup(s->event.p, s->event.n);
		st->event_defaulted = 1;
		return 1;
	}
	/* The first event seen is kept exactly (stackcollapse); a filter given
	 * matches as fp-range's --event does: "cpu-clock" is also
	 * "cpu-clock:ppp" (fifo/fp_rangectl.h, one rule for both). */
	if (st->event_defaulted ? fp_str_eq(s->event, st->event_filter)
				: fp_event_name_matches(st->event_filter, strlen(st->event_filter),
							s->event.p, s->event.n)) {
		st->event_matched++;
		return 1;
	}
	st->dropped_event++;
	if (!st->event_seen[0])
		snprintf(st->event_seen, sizeof st->event_seen, "%.*s", (int)s->event.n,
			 s->event.p);
	if (st->event_defaulted && !st->event_warned) {
		char msg[512];

		st->event_warned = 1;
		snprintf(msg, sizeof msg,
			 "filtering for events of type: %s (dropping %.*s samples; "
			 "use --event-filter or --all-events)",
			 st->event_filter, (int)s->event.n, s->event.p);
		fp_warn("%s", msg);
		if (!st->opt.plain)
			fp_write_warning(fp_out_wr(&st->pump.out), STAGE_NAME, st->pump.in_name,
					 st->pump.lineno, msg);
	}
	return 0;
}

/* The W record's text for an S record fp_sample_parse refused. */
static void sample_warning(struct fold_state *st, const char *line, size_t len)
{
	char msg[256];

	snprintf(msg, sizeof msg, "malformed S record skipped: %s", fp_sample_problem(line, len));
	input_warning(st, msg);
}

/* --pass-samples: the sample as an R record, after the D record of its
 * stack if it is new. */
static void pass_sample(struct fold_state *st, const struct fp_sample *s, uint32_t id, int added,
			uint64_t count)
{
	struct fp_wr w = fp_out_wr(&st->pump.out);
	const struct fp_ref r = {
		.id = id,
		.time_ns = s->time_ns,
		.pid = s->pid,
		.tid = s->tid,
		.cpu = s->cpu,
		.period = s->period,
		.count = count,
		.event = s->event,
		.comm = s->comm,
		.cgroup = s->cgroup,
	};

	if (added)
		fp_write_stack_def(w, id, st->kinds.p, st->kinds.len, st->folded.p, st->folded.len);
	if (st->head.n) /* a P record's numbers, as the writers write them */
		fp_write_ref_head(w, &r, st->head.p, st->head.n);
	else
		fp_write_ref(w, &r);
}

/* The folded stack id of a P sample of tail `tail`, if folded before: the
 * folded string depends only on the tail unless the root names the pid or
 * tid. FP_STRTAB_NONE if not known yet. */
static uint32_t cached_fold(struct fold_state *st, uint32_t tail)
{
	if (st->opt.fold.root_id != FP_FOLD_ROOT_COMM || tail >= st->tail_fold_n ||
	    !st->tail_fold[tail])
		return FP_STRTAB_NONE;
	return st->tail_fold[tail] - 1;
}

static void remember_fold(struct fold_state *st, uint32_t tail, uint32_t id)
{
	if (st->opt.fold.root_id != FP_FOLD_ROOT_COMM)
		return;
	if (tail >= st->tail_fold_n) {
		size_t n = st->tail_fold_n ? st->tail_fold_n : TAIL_FOLD_MIN;
		while (n <= tail)
			n *= 2;
		st->tail_fold = fp_xrealloc(st->tail_fold, n * sizeof *st->tail_fold);
		memset(st->tail_fold + st->tail_fold_n, 0,
		       (n - st->tail_fold_n) * sizeof *st->tail_fold);
		st->tail_fold_n = n;
	}
	st->tail_fold[tail] = id + 1;
}

/* --delta-snapshots: stack id goes into the next delta. */
static void mark_dirty(struct fold_state *st, uint32_t id)
{
	if (id >= st->dirty_cap) {
		size_t n = st->dirty_cap ? st->dirty_cap : TAIL_FOLD_MIN;
		while (n <= id)
			n *= 2;
		st->dirty = fp_xrealloc(st->dirty, n);
		memset(st->dirty + st->dirty_cap, 0, n - st->dirty_cap);
		st->dirty_ids = fp_xrealloc(st->dirty_ids, n * sizeof *st->dirty_ids);
		st->dirty_cap = n;
	}
	if (!st->dirty[id]) {
		st->dirty[id] = 1;
		st->dirty_ids[st->dirty_n++] = id;
	}
}

static void clear_dirty(struct fold_state *st)
{
	for (size_t i = 0; i < st->dirty_n; i++)
		st->dirty[st->dirty_ids[i]] = 0;
	st->dirty_n = 0;
}

/* --timed-apart (the report's chain, with fp-bucket --pass-timed): a
 * timed event's sample (off-CPU time, in ns) that is not of the capture's
 * first event goes to fp-render's timeline as an R record, for the views'
 * event picker, but not into the table: the report's flame graph counts
 * the first event only, never samples and nanoseconds added up. */
static int timed_apart(struct fold_state *st, const struct fp_sample *s)
{
	if (!st->first_event && !fp_str_eq(s->event, "-"))
		st->first_event = fp_xstrndup(s->event.p, s->event.n);
	return st->opt.timed_apart && fp_event_is_timed(s->event) && st->first_event &&
	       !fp_str_eq(s->event, st->first_event);
}

/* The table is full (--max-stacks) and s's stack is not in it: the id of
 * "COMM;FOLD_OVERFLOW_FRAME", added once per comm (past the bound: a
 * handful). Warned about once. */
static uint32_t overflow_stack(struct fold_state *st, const struct fp_sample *s)
{
	char msg[160];
	int added = 0;

	if (!st->overflow++) {
		snprintf(msg, sizeof msg,
			 "more than %llu distinct stacks: the samples of new ones "
			 "are counted as COMM;" FOLD_OVERFLOW_FRAME " (--max-stacks)",
			 (unsigned long long)st->opt.max_stacks);
		input_warning(st, msg);
	}
	st->folded.len = 0;
	fp_fold_buf_add(&st->folded, s->comm.p, s->comm.n);
	fp_fold_buf_add(&st->folded, ";" FOLD_OVERFLOW_FRAME, sizeof FOLD_OVERFLOW_FRAME);
	if (st->opt.pass_samples) {
		st->kinds.len = 0;
		fp_fold_buf_add(&st->kinds, (char[]){ FP_FOLD_KIND_ROOT, 'x' }, 2);
	}
	return fp_strtab_intern(&st->table, st->folded.p, st->folded.len, &added);
}

/* Folds and counts a valid sample; tail is its K id (P records) or
 * FP_STRTAB_NONE (S records). */
static void fold_parsed(struct fold_state *st, const struct fp_sample *s, uint32_t tail)
{
	uint64_t count;
	uint32_t id = FP_STRTAB_NONE;
	int added = 0;

	if (!event_wanted(st, s))
		return;
	if (tail != FP_STRTAB_NONE)
		id = cached_fold(st, tail);
	if (id == FP_STRTAB_NONE) {
		if (fp_fold_build(&st->folded, s, &st->opt.fold,
				  st->opt.pass_samples ? &st->kinds : NULL) != 0) {
			st->bad_samples++;
			input_warning(st, "malformed S record skipped: kinds must have one "
					  "character per frame");
			return;
		}
		if (fp_strtab_count(&st->table) >= st->opt.max_stacks &&
		    (id = fp_strtab_find(&st->table, st->folded.p, st->folded.len)) ==
			    FP_STRTAB_NONE) {
			id = overflow_stack(st, s);
		} else {
			id = fp_strtab_intern(&st->table, st->folded.p, st->folded.len, &added);
			if (tail != FP_STRTAB_NONE)
				remember_fold(st, tail, id);
		}
	}
	/* A period of 0 counts 1, as in stackcollapse (`$period = 1 if not $period`). */
	/* a timed event's samples (off-CPU) always weigh their time */
	count = (st->opt.weight == WEIGHT_PERIOD || fp_event_is_timed(s->event)) && s->period
			? s->period
			: 1;
	if (timed_apart(st, s)) { /* in the timeline only, not the table */
		st->timed_apart++;
		if (st->opt.pass_samples)
			pass_sample(st, s, id, added, count);
		return;
	}
	if (st->table.ent[id].count == 0)
		st->stacks++;
	fp_strtab_add(&st->table, id, count);
	if (st->opt.delta)
		mark_dirty(st, id);
	st->samples++;
	st->changed = 1;
	if (st->opt.pass_samples)
		pass_sample(st, s, id, added, count);
}

/* A malformed S record: counted and warned about here, with what is wrong
 * in it (sample_warning), so 0 for fp_sample_records. */
static int fold_sample(void *ctx, const char *line, size_t len)
{
	struct fold_state *st = ctx;
	struct fp_sample s;

	if (fp_sample_parse(line, len, &s) != 0) {
		st->bad_samples++;
		sample_warning(st, line, len);
		return 0;
	}
	fold_parsed(st, &s, FP_STRTAB_NONE);
	return 0;
}

/* The stack-id stream: K records define tails (consumed: what follows fold
 * sees D and R), P records are samples. */
static int on_tail(void *ctx, const char *line, size_t len)
{
	struct fold_state *st = ctx;
	uint32_t id;
	int err = fp_tails_define_line(&st->tails, line, len, &id);

	if (!err && id < st->tail_fold_n)
		st->tail_fold[id] = 0; /* a new definition of the id */
	return err;
}

static int on_tail_sample(void *ctx, const char *line, size_t len)
{
	struct fold_state *st = ctx;
	struct fp_sample s;
	struct fp_tail_ref ref;
	size_t head_n;
	int canonical, err;

	if (fp_tail_ref_parse_head(line, len, &ref, &head_n, &canonical) < 0)
		return FP_TAILS_MALFORMED;
	if ((err = fp_tails_sample(&st->tails, &ref, &s)) != FP_TAILS_OK)
		return err;
	/* "P TAB " is not part of the head the R record copies */
	st->head = canonical ? (struct fp_str){ line + 2, head_n - 2 } : (struct fp_str){ NULL, 0 };
	int known = cached_fold(st, ref.id) != FP_STRTAB_NONE;
	fold_parsed(st, &s, ref.id);
	st->head = (struct fp_str){ NULL, 0 };
	/* folded now: its frames are not read again (half of fold's memory
	 * on a capture of many deep stacks) */
	if (!known && cached_fold(st, ref.id) != FP_STRTAB_NONE)
		fp_tails_shed(&st->tails, ref.id);
	return 0;
}

static void on_bad(void *ctx, const char *problem)
{
	struct fold_state *st = ctx;

	st->bad_samples++;
	input_warning(st, problem);
}

static void write_stats(struct fold_state *st)
{
	struct fp_stat stats[] = {
		{ "samples", st->samples },
		{ "stacks", st->stacks },
		{ "total", st->table.total },
		{ "dropped_event", st->dropped_event },
		{ "bad_samples", st->bad_samples },
		{ "resets", st->resets },
		{ NULL, 0 },
		{ NULL, 0 },
	};
	size_t n = 6;

	/* only when there were some */
	if (st->overflow)
		stats[n++] = (struct fp_stat){ "overflow_samples", st->overflow };
	if (st->pump.lines_too_long)
		stats[n++] = (struct fp_stat){ "too_long", st->pump.lines_too_long };
	fp_write_info(fp_out_wr(&st->pump.out), STAGE_NAME, stats, n);
}

/* A snapshot: full (every counted stack), or with --delta-snapshots and
 * delta set only the stacks counted since the last one; F records in
 * bytewise order either way. */
static void write_snapshot_of(struct fold_state *st, int delta)
{
	struct fp_wr w = fp_out_wr(&st->pump.out);
	const uint64_t end[] = { st->stacks, st->table.total };
	const char *what = delta ? FP_FOLDSNAP_DELTA : FP_FOLDSNAP_FULL;

	sorted_update(&st->sorted, &st->table);
	fp_write_begin(w, what);
	for (size_t i = 0; i < st->sorted.n; i++) {
		uint32_t id = st->sorted.ids[i];
		size_t len;
		if (!st->table.ent[id].count || (delta && !st->dirty[id]))
			continue;           /* not counted since the last reset / snapshot */
		if (st->opt.snapshot_ids) { /* its D record was written */
			fp_write_folded_id(w, st->table.ent[id].count, id);
			continue;
		}
		const char *key = fp_strtab_str(&st->table, id, &len);

		fp_write_folded(w, st->table.ent[id].count, key, len);
	}
	fp_write_end(w, what, end, sizeof end / sizeof *end);
	write_stats(st);
	st->changed = 0;
	clear_dirty(st);
	st->full_sent |= !delta;
	st->deltas_since_full = delta ? st->deltas_since_full + 1 : 0;
}

/* A snapshot while the input goes on (timer, C flush): a delta when it can. */
static void write_snapshot(struct fold_state *st)
{
	write_snapshot_of(st,
			  st->opt.delta && st->full_sent && st->deltas_since_full + 1 < FULL_EVERY);
}

static void write_plain(struct fold_state *st)
{
	struct fp_out *out = &st->pump.out;
	sorted_update(&st->sorted, &st->table);
	for (size_t i = 0; i < st->sorted.n; i++) {
		uint32_t id = st->sorted.ids[i];
		size_t len;
		if (!st->table.ent[id].count)
			continue;
		const char *key = fp_strtab_str(&st->table, id, &len);

		fp_out_write(out, key, len);
		fp_out_char(out, ' ');
		fp_out_u64(out, st->table.ent[id].count);
		fp_out_char(out, '\n');
	}
}

static void reset_table(struct fold_state *st)
{
	fp_strtab_zero(&st->table); /* the ids stay: D records were sent */
	st->stacks = 0;
	st->samples = 0;
	st->dropped_event = 0;
	st->resets++;
	st->changed = 1;   /* the empty table is news downstream */
	st->full_sent = 0; /* so the next snapshot is full */
	clear_dirty(st);
}

/* C events NAME... before the first sample: the default event is its first
 * name, perf report's first event (the source read the attribute order),
 * not the first one seen. */
static void default_event(struct fold_state *st, const struct fp_control *c)
{
	struct fp_str first;

	if (!st->first_event && !st->samples && fp_events_first(c, &first) == 0)
		st->first_event = fp_xstrndup(first.p, first.n);
	if (st->event_filter || st->opt.all_events || fp_events_first(c, &first) < 0)
		return;
	st->event_filter = fp_xstrndup(first.p, first.n);
	st->event_defaulted = 1;
}

static const struct fp_sample_handlers sample_handlers = {
	.sample = fold_sample,
	.tail = on_tail,
	.tail_sample = on_tail_sample,
	.bad = on_bad,
};

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	struct fold_state *st = p->ctx;
	struct fp_control c;

	enum fp_rec tag = fp_record_tag(line, &len);

	if (fp_sample_records(&sample_handlers, st, tag, line, len))
		return;
	switch (tag) {
	case FP_REC_CONTROL:
		if (fp_control_parse(line, len, &c) < 0)
			break;
		if (c.kind == FP_CTL_RESET)
			reset_table(st);
		else if (c.kind == FP_CTL_FLUSH && !st->opt.plain)
			write_snapshot(st);
		else if (c.kind == FP_CTL_EVENTS)
			default_event(st, &c);
		break;
	case FP_REC_HEADER:
		fp_header_require(line, len, p->in_name, p->lineno);
		break;
	default:
		break;
	}
	if (st->opt.plain)
		return; /* stdout is a folded file */
	fp_write_line(fp_out_wr(&p->out), line, len);
}

/* --event-filter that kept nothing of what it saw: say so, naming an
 * event the input has. */
static void warn_unmatched_filter(struct fold_state *st)
{
	char msg[512];

	if (st->event_defaulted || !st->event_filter || st->event_matched || !st->event_seen[0])
		return;
	snprintf(msg, sizeof msg,
		 "--event-filter %s matched none of the samples (the input has "
		 "e.g. %s; use that name, or --all-events)",
		 st->event_filter, st->event_seen);
	fp_warn("%s", msg);
	if (!st->opt.plain)
		fp_write_warning(fp_out_wr(&st->pump.out), STAGE_NAME, st->pump.in_name,
				 st->pump.lineno, msg);
}

static void on_eof(struct fp_pump *p)
{
	struct fold_state *st = p->ctx;

	ev_timer_stop(p->loop, &st->snapshot_timer);
	warn_unmatched_filter(st);
	if (st->opt.plain)
		write_plain(st);
	else
		write_snapshot_of(st, 0); /* the last word is the whole table */
}

static void on_too_long(struct fp_pump *p, uint64_t lineno)
{
	input_warning(p->ctx, fp_too_long_text());
}

/* Timed snapshots take at most 1/SNAPSHOT_CPU_SHARE of a core: after one
 * that cost C seconds of CPU the next waits SNAPSHOT_CPU_SHARE * C, if
 * that is longer than --interval. A live fold of a system-wide capture
 * holds ~90,000 stacks (62 MB of text); where its readers may restart it
 * writes them all each time (no deltas: fifo/PROTOCOL.md, Negotiation),
 * and every 500 ms that was a fifth of a core here and as much again in
 * each reader. The heatmap is not delayed (its cells come from fp-bucket). */
#define SNAPSHOT_CPU_SHARE 20

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_snapshot_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct fold_state *st = w->data;

	if (!st->changed || !st->pump.seen_idle || ev_now(loop) < st->snapshot_not_before)
		return;
	double cpu = cpu_seconds();
	write_snapshot(st);
	fp_out_flush(&st->pump.out);
	st->snapshot_not_before = ev_time() + (cpu_seconds() - cpu) * SNAPSHOT_CPU_SHARE;
}

static void on_full_request(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct fold_state *st = w->data;

	st->full_sent = 0;
	st->changed = 1;
}

static const struct fp_pump_ops fold_ops = {
	.line = on_line,
	.eof = on_eof,
	.too_long = on_too_long,
};

static void opt_weight(void *ctx, const char *opt, const char *arg)
{
	struct fold_options *o = ctx;

	if (strcmp(arg, "samples") == 0)
		o->weight = WEIGHT_SAMPLES;
	else if (strcmp(arg, "period") == 0)
		o->weight = WEIGHT_PERIOD;
	else
		fp_die(FP_EXIT_USAGE, "--weight: want samples or period, got \"%s\"", arg);
}

/* --tid wins over --pid, as in stackcollapse. */
static void opt_pid(void *ctx, const char *opt, const char *arg)
{
	struct fold_options *o = ctx;

	if (o->fold.root_id != FP_FOLD_ROOT_TID)
		o->fold.root_id = FP_FOLD_ROOT_PID;
}

static void opt_tid(void *ctx, const char *opt, const char *arg)
{
	struct fold_options *o = ctx;

	o->fold.root_id = FP_FOLD_ROOT_TID;
}

static void opt_all(void *ctx, const char *opt, const char *arg)
{
	struct fold_options *o = ctx;

	o->fold.annotate_kernel = o->fold.annotate_jit = o->fold.annotate_inlined = 1;
}

static void opt_event_root(void *ctx, const char *opt, const char *arg)
{
	struct fold_options *o = ctx;

	o->fold.event_root = o->all_events = 1;
}

static void parse_options(int argc, char **argv, struct fold_options *o)
{
	const struct fp_opt options[] = {
		{ "plain", FP_OPT_FLAG, &o->plain },
		{ "weight", FP_OPT_FN, .fn = opt_weight },
		{ "pid", FP_OPT_FN_FLAG, .fn = opt_pid },
		{ "tid", FP_OPT_FN_FLAG, .fn = opt_tid },
		{ "kernel", FP_OPT_FLAG, &o->fold.annotate_kernel },
		{ "jit", FP_OPT_FLAG, &o->fold.annotate_jit },
		{ "all", FP_OPT_FN_FLAG, .fn = opt_all },
		{ "event-filter", FP_OPT_STR, &o->event_filter },
		{ "all-events", FP_OPT_FLAG, &o->all_events },
		{ "timed-apart", FP_OPT_FLAG, &o->timed_apart },
		{ "event-root", FP_OPT_FN_FLAG, .fn = opt_event_root },
		{ "container-root", FP_OPT_FLAG, &o->fold.container_root },
		{ "interval", FP_OPT_UINT, &o->interval_ms, .max = UINT32_MAX },
		{ "max-stacks", FP_OPT_U64, &o->max_stacks, .min = 1, .max = FP_STRTAB_MAX - 1024 },
		{ "pass-samples", FP_OPT_FLAG, &o->pass_samples },
		{ FP_FOLDSNAP_DELTA_OPTION + 2, FP_OPT_FLAG, &o->delta },
		{ FP_FOLDSNAP_IDS_OPTION + 2, FP_OPT_FLAG, &o->snapshot_ids },
		{ NULL },
	};

	*o = (struct fold_options){ .weight = WEIGHT_SAMPLES,
				    .fold = FP_FOLD_OPTS_DEFAULT,
				    .interval_ms = DEFAULT_INTERVAL_MS,
				    .max_stacks = UINT64_MAX };
	fp_opts_parse(argc, argv, options, USAGE, 1, o);
	if (o->event_filter && o->all_events)
		fp_die(FP_EXIT_USAGE,
		       "--event-filter and --all-events/--event-root exclude each other");
	if (o->pass_samples && o->plain)
		fp_die(FP_EXIT_USAGE, "--pass-samples and --plain exclude each other (--plain "
				      "writes only a folded file)");
	if (o->snapshot_ids && !o->pass_samples)
		fp_die(FP_EXIT_USAGE, "--snapshot-ids needs --pass-samples (its E records name the "
				      "stacks by the ids of the D records --pass-samples writes)");
}

int main(int argc, char **argv)
{
	static struct fold_state st; /* static: big, and lives as long as the process */
	const char *in_name;
	int in_fd;

	fp_set_prog(argv[0]);
	parse_options(argc, argv, &st.opt);
	in_fd = fp_open_input(optind < argc ? argv[optind] : NULL, &in_name);
	if (st.opt.event_filter)
		st.event_filter = fp_xstrdup(st.opt.event_filter);
	fp_strtab_init(&st.table);
	fp_tails_init(&st.tails);

	fp_pump_init(&st.pump, EV_DEFAULT, in_fd, 1, &fold_ops, &st, FP_PUMP_GZIP);
	st.pump.in_name = in_name;
	st.pump.stage = STAGE_NAME;
	if (st.opt.interval_ms > 0 && !st.opt.plain) {
		double every = st.opt.interval_ms / MS_PER_SEC;

		ev_timer_init(&st.snapshot_timer, on_snapshot_timer, every, every);
		st.snapshot_timer.data = &st;
		ev_timer_start(st.pump.loop, &st.snapshot_timer);
		ev_signal_init(&st.full_request, on_full_request, SIGUSR1);
		st.full_request.data = &st;
		ev_signal_start(st.pump.loop, &st.full_request);
	}
	int rc = fp_pump_run(&st.pump);

	fp_strtab_free(&st.table);
	fp_tails_free(&st.tails);
	free(st.tail_fold);
	fp_fold_buf_free(&st.folded);
	fp_fold_buf_free(&st.kinds);
	free(st.sorted.ids);
	free(st.sorted.tmp);
	free(st.dirty);
	free(st.dirty_ids);
	free(st.event_filter);
	free(st.first_event);
	return rc;
}
