/* fp-range: keep the samples of a half-open time range that pass filters;
 * the range and filters can be changed while running.
 *
 * Interface: fp-range [--from S] [--to S] [--pid LIST] [--tid LIST]
 *            [--cpu LIST] [--comm NAMES]... [--event NAMES]...
 *            [--include REGEX] [--exclude REGEX] [--container NAME|REGEX]
 *            [--history N]
 *            [--control PATH] [--name NAME]  < stream > stream
 * Input:  a flamepipe stream. G records give base_sec (else the first
 *         sample's whole second); S records are kept when
 *         from <= time - base_sec < to and every filter passes.
 * Output: matching S records unchanged, every non-S record unchanged, in
 *         order. After a control command (or SIGHUP): C reset, the matching
 *         samples of the history in arrival order, C range FROM TO, one
 *         C filter record per active filter (or C filter clear), C flush.
 *         At EOF: I range seen= passed= history= unique_stacks=
 *         history_dropped= replays= replayed= bad= regex_runs=.
 * Control: --control PATH is a FIFO (created if missing) read line by line
 *         with the commands of fifo/fp_rangectl.h; lines that arrive
 *         together are applied together with one replay. A bad line gives
 *         a W record and a warning, never an exit.
 * Memory: FP_HISTORY_ENTRY_BYTES per sample kept (--history, default
 *         HISTORY_DEFAULT, oldest dropped beyond it with one W record) plus
 *         each unique event+comm+kinds+stack once. Without history
 *         (--history 0, as flamepipe live runs it) and with S records in
 *         and out, the tails are only a cache of the filters' verdicts:
 *         past TAILS_CACHE_MAX of them the cache is emptied and refilled
 *         (unique_stacks then counts since), so a session of hours that
 *         meets new stacks all the time stays in bounded memory.
 * Signals: SIGHUP replays; SIGINT/SIGTERM end input as at EOF.
 * Exit codes: 0 ok, 100 usage or unsupported stream version, 111 system
 *         error, 141 the reader went away.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fp_container.h"
#include "fp_ctlfifo.h"
#include "fp_error.h"
#include "fp_io.h"
#include "fp_opts.h"
#include "fp_rangectl.h"
#include "fp_record.h"
#include "fp_history.h"
#include "fp_tailtab.h"
#include "fp_regex.h"

#define USAGE                                                                                  \
	"usage: fp-range [--from S] [--to S] [--pid LIST] [--tid LIST] [--cpu LIST]\n"         \
	"                [--comm NAMES] [--event NAMES] [--include REGEX] [--exclude REGEX]\n" \
	"                [--container NAME|REGEX]\n"                                           \
	"                [--history N] [--control PATH] [--name NAME]"

#define HISTORY_DEFAULT 4000000u
#define CONTROL_READ_CHUNK 4096
#define EXCERPT_MAX 80           /* bytes of a bad control line quoted back */
#define CONTROL_WARNING_MAX 1024 /* the W record's message about it */

struct regex_filter {
	int on;
	int from_control; /* set by the control FIFO (else by an option) */
	const char *word; /* "include" / "exclude" */
	char *src;
	struct fp_regex *re;
};

struct range {
	struct fp_pump *pump;

	/* axis */
	int have_base;
	uint64_t base_ns;
	int has_from, has_to;
	uint64_t from_ns, to_ns;
	char *comms, *events; /* --comm, --event lists until applied */

	/* filters */
	struct fp_id_set pid, tid, cpu;
	struct fp_name_set comm, event;
	struct regex_filter include, exclude;
	struct fp_container_filter container; /* on when container.src */
	int container_warned;                 /* a container match hit the regex bounds */
	uint32_t gen;                         /* bumped when a tail filter changes */
	int announced;                        /* the starting selection was written */
	int tail_filters_on;
	char *folded;                    /* scratch "comm;stack" for the regexes */
	struct regex_filter *over_limit; /* its match hit FP_REGEX_* bounds */
	size_t over_limit_len;           /* on a subject of this many bytes */
	size_t folded_cap;

	/* interned tails and the upstream stack-id map. Downstream gets K
	 * records of the own ids, so replays keep working whatever the
	 * upstream numbering (and a restarted source's). */
	struct fp_tailtab tt;
	size_t out_defined; /* own ids 0 .. out_defined-1 have gone out as K */

	struct fp_history hist; /* the samples kept for replays */
	int hist_warned;

	struct fp_ctlfifo ctl;
	ev_signal sig_hup;

	uint64_t seen, passed, bad, replays, replayed, regex_runs;
	uint64_t tails_emptied; /* times the tail cache started again */
};

/* The text of tail t, and its fields' offsets. */
static const char *tail_text(const struct range *r, const struct fp_tailtab_tail *t)
{
	return fp_strtab_str(&r->tt.strs, t->text, NULL);
}

static const struct fp_tailtab_text *tail_info(const struct range *r,
					       const struct fp_tailtab_tail *t)
{
	return &r->tt.texts[t->text];
}

/* ---- filters -------------------------------------------------------------- */

/* Builds "comm;stack" (or "comm" for an empty stack), NUL-terminated;
 * its length in *len. */
static const char *folded_form(struct range *r, const struct fp_tailtab_tail *tail, size_t *len)
{
	const struct fp_tailtab_text *t = tail_info(r, tail);
	const char *text = tail_text(r, tail);
	size_t stack_n = t->stack_len;
	size_t need = t->comm_len + 1 + stack_n + 1;
	char *f;

	if (need > r->folded_cap) {
		r->folded_cap = need;
		r->folded = fp_xrealloc(r->folded, need);
	}
	f = r->folded;
	memcpy(f, text + t->comm_off, t->comm_len);
	f += t->comm_len;
	if (stack_n) {
		*f++ = ';';
		memcpy(f, text + t->stack_off, stack_n);
		f += stack_n;
	}
	*f = '\0';
	*len = (size_t)(f - r->folded);
	return r->folded;
}

/* 1 if f matches. A match that hits the regex bounds (fp_regex.h) is
 * remembered in r->over_limit (the caller's verdict is void). */
static int regex_says(struct range *r, struct regex_filter *f, const char *s, size_t n)
{
	int m = fp_regex_match(f->re, s, n);

	if (m == FP_REGEX_LIMIT && !r->over_limit) {
		r->over_limit = f;
		r->over_limit_len = n;
	}
	return m == FP_REGEX_MATCH;
}

static int tail_passes(struct range *r, struct fp_tailtab_tail *t)
{
	const struct fp_tailtab_text *x;
	int ok = 1;

	if (!r->tail_filters_on)
		return 1;
	if (t->verdict_gen == r->gen)
		return t->verdict;
	x = tail_info(r, t);
	if (r->comm.on && !fp_name_set_has(&r->comm, tail_text(r, t) + x->comm_off, x->comm_len))
		ok = 0;
	if (ok && r->event.on && !fp_name_set_has_event(&r->event, tail_text(r, t), x->event_len))
		ok = 0;
	if (ok && r->container.src &&
	    !fp_container_filter_passes(&r->container, tail_text(r, t) + x->cgroup_off,
					x->cgroup_len))
		ok = 0;
	if (ok && (r->include.on || r->exclude.on)) {
		size_t n;
		const char *folded = folded_form(r, t, &n);

		r->regex_runs++;
		if (r->include.on && !regex_says(r, &r->include, folded, n))
			ok = 0;
		if (ok && r->exclude.on && regex_says(r, &r->exclude, folded, n))
			ok = 0;
		if (r->over_limit)
			return 0; /* no verdict: regex_over_limit decides */
	}
	t->verdict_gen = r->gen;
	t->verdict = (uint8_t)ok;
	return ok;
}

static int in_range(const struct range *r, uint64_t time_ns)
{
	if (r->has_from && time_ns < fp_add_sat(r->base_ns, r->from_ns))
		return 0;
	if (r->has_to && time_ns >= fp_add_sat(r->base_ns, r->to_ns))
		return 0;
	return 1;
}

static int sample_passes(struct range *r, const struct fp_history_entry *h)
{
	return in_range(r, h->time_ns) && (!r->pid.on || fp_id_set_has(&r->pid, h->pid)) &&
	       (!r->tid.on || fp_id_set_has(&r->tid, h->tid)) &&
	       (!r->cpu.on || fp_id_set_has(&r->cpu, h->cpu)) &&
	       tail_passes(r, &r->tt.tails[h->tail]);
}

static void update_tail_filters_on(struct range *r)
{
	r->tail_filters_on = r->comm.on || r->event.on || r->include.on || r->exclude.on ||
			     r->container.src;
	r->gen++;
	if (r->gen == 0) /* 0 means "no verdict" in a fresh tail */
		r->gen = 1;
}

/* ---- applying control commands ------------------------------------------- */

static void clear_regex(struct regex_filter *f)
{
	fp_regex_free(f->re);
	free(f->src);
	f->on = 0;
	f->src = NULL;
	f->re = NULL;
}

/* Returns 0, or -1 with the compiler's message in why (the filter
 * unchanged). */
static int set_regex(struct range *r, struct regex_filter *f, const struct fp_rangectl_cmd *c,
		     char *why, size_t whysize)
{
	char msg[FP_REGEX_WHY_MAX];
	struct fp_regex *re;

	if (c->off) {
		clear_regex(f);
		return 0;
	}
	re = fp_regex_compile(c->arg.p, c->arg.n, msg, sizeof msg);
	if (!re) {
		snprintf(why, whysize, "bad regex: %.200s", msg);
		return -1;
	}
	clear_regex(f);
	f->on = 1;
	f->from_control = r->pump != NULL; /* options are applied before the pump */
	f->src = fp_xstrndup(c->arg.p, c->arg.n);
	f->re = re;
	return 0;
}

static void clear_filters(struct range *r)
{
	struct fp_rangectl_cmd off = { .off = 1 };

	r->has_from = r->has_to = 0;
	fp_id_set_from(&r->pid, &off);
	fp_id_set_from(&r->tid, &off);
	fp_id_set_from(&r->cpu, &off);
	fp_name_set_from(&r->comm, &off);
	fp_name_set_from(&r->event, &off);
	clear_regex(&r->include);
	clear_regex(&r->exclude);
	fp_container_filter_free(&r->container);
}

/* container NAME|REGEX|-: 0, or -1 with the compiler's message in why
 * (the filter unchanged). */
static int set_container(struct range *r, const struct fp_rangectl_cmd *c, char *why,
			 size_t whysize)
{
	struct fp_container_filter f;
	char msg[FP_REGEX_WHY_MAX];

	if (c->off) {
		fp_container_filter_free(&r->container);
		return 0;
	}
	if (fp_container_filter_init(&f, c->arg.p, c->arg.n, msg, sizeof msg) < 0) {
		snprintf(why, whysize, "bad container regex: %.200s", msg);
		return -1;
	}
	fp_container_filter_free(&r->container);
	r->container = f;
	return 0;
}

/* Applies a parsed command. Returns 0, or -1 with a message in why. */
static int apply_command(struct range *r, const struct fp_rangectl_cmd *c, char *why,
			 size_t whysize)
{
	switch (c->kind) {
	case FP_RC_NONE:
	case FP_RC_REPLAY:
		return 0;
	case FP_RC_RANGE:
		r->has_from = c->has_from;
		r->from_ns = c->from_ns;
		r->has_to = c->has_to;
		r->to_ns = c->to_ns;
		return 0;
	case FP_RC_PID:
	case FP_RC_TID:
	case FP_RC_CPU: /* per sample: the tails' verdicts stand */
		fp_id_set_from(c->kind == FP_RC_PID   ? &r->pid
			       : c->kind == FP_RC_TID ? &r->tid
						      : &r->cpu,
			       c);
		return 0;
	case FP_RC_COMM:
	case FP_RC_EVENT:
		fp_name_set_from(c->kind == FP_RC_COMM ? &r->comm : &r->event, c);
		break;
	case FP_RC_INCLUDE:
	case FP_RC_EXCLUDE:
		if (set_regex(r, c->kind == FP_RC_INCLUDE ? &r->include : &r->exclude, c, why,
			      whysize) < 0)
			return -1;
		break;
	case FP_RC_CONTAINER:
		if (set_container(r, c, why, whysize) < 0)
			return -1;
		break;
	case FP_RC_CLEAR:
		clear_filters(r);
		break;
	}
	update_tail_filters_on(r);
	return 0;
}

/* ---- output --------------------------------------------------------------- */

/* The sample of h (its tail's fields from the tail table). */
static void history_sample(const struct range *r, const struct fp_history_entry *h,
			   struct fp_sample *s)
{
	*s = (struct fp_sample){
		.time_ns = h->time_ns,
		.pid = h->pid,
		.tid = h->tid,
		.cpu = h->cpu,
		.period = h->period,
	};
	fp_tailtab_fields(&r->tt, h->tail, s);
}

/* A sample as the stack-id stream: the K records of the own ids up to its
 * tail's first (ids go out dense, 0, 1, 2, ..., as the protocol wants,
 * whatever order the tails are first selected in), then the P record:
 * from the P line it came as when p is not NULL (fp_tailtab_write_ref:
 * the line itself while the ids coincide), else from the history. */
static void write_tail_sample(struct range *r, struct fp_out *o, const struct fp_history_entry *h,
			      const char *line, const struct fp_tailtab_ref *p)
{
	while (r->out_defined <= h->tail) {
		fp_tailtab_write_def(&r->tt, fp_out_wr(o), (uint32_t)r->out_defined);
		r->out_defined++;
	}
	if (p) {
		fp_tailtab_write_ref(fp_out_wr(o), line, p);
		return;
	}
	const struct fp_tail_ref ref = {
		/* the tail's text is not needed here */
		.time_ns = h->time_ns, .pid = h->pid,       .tid = h->tid,
		.cpu = h->cpu,         .period = h->period, .id = h->tail,
	};
	fp_write_tail_ref(fp_out_wr(o), &ref);
}

/* A replayed sample: as P if its tail is defined downstream, else as the
 * S record it came as. */
static void write_history_sample(struct range *r, struct fp_out *o,
				 const struct fp_history_entry *h)
{
	struct fp_sample s;

	if (h->tail < r->out_defined) {
		write_tail_sample(r, o, h, NULL, NULL);
		return;
	}
	history_sample(r, h, &s);
	fp_write_sample(fp_out_wr(o), &s);
}

/* C filter WORD V,V,...: the spec is built in spec (reused, grown). */
static void write_ids(struct fp_out *o, struct fp_wmem *spec, const char *word,
		      const struct fp_id_set *set)
{
	fp_id_set_command(set, word, spec);
	fp_write_filter(fp_out_wr(o), spec->p, spec->len);
}

static void write_text_filter(struct fp_out *o, struct fp_wmem *spec, const char *word,
			      const char *text)
{
	spec->len = 0;
	fp_wmem_add(spec, word, strlen(word));
	fp_wmem_add(spec, " ", 1);
	fp_wmem_add(spec, text, strlen(text));
	fp_write_filter(fp_out_wr(o), spec->p, spec->len);
}

static void write_selection(struct range *r)
{
	struct fp_out *o = &r->pump->out;
	char from[FP_RANGECTL_SECONDS_MAX], to[FP_RANGECTL_SECONDS_MAX];
	struct fp_wmem spec = { 0 };
	int any = 0;

	fp_write_range(fp_out_wr(o),
		       r->has_from ? fp_rangectl_format_seconds(r->from_ns, from) : "-",
		       r->has_to ? fp_rangectl_format_seconds(r->to_ns, to) : "-");
	if (r->pid.on)
		write_ids(o, &spec, "pid", &r->pid), any = 1;
	if (r->tid.on)
		write_ids(o, &spec, "tid", &r->tid), any = 1;
	if (r->cpu.on)
		write_ids(o, &spec, "cpu", &r->cpu), any = 1;
	if (r->comm.on)
		write_text_filter(o, &spec, "comm", r->comm.text), any = 1;
	if (r->event.on)
		write_text_filter(o, &spec, "event", r->event.text), any = 1;
	if (r->include.on)
		write_text_filter(o, &spec, "include", r->include.src), any = 1;
	if (r->exclude.on)
		write_text_filter(o, &spec, "exclude", r->exclude.src), any = 1;
	if (r->container.src)
		write_text_filter(o, &spec, "container", r->container.src), any = 1;
	if (!any)
		fp_write_filter(fp_out_wr(o), "clear", strlen("clear"));
	fp_wmem_free(&spec);
}

static void replay(struct range *r);

/* A container regex that hit the bounds on a cgroup path (a few hundred
 * bytes: a pathological regex) counts the sample as not matching; said
 * once, never silent. */
static void container_over_limit(struct range *r)
{
	if (!r->container.over_limit || r->container_warned)
		return;
	r->container_warned = 1;
	fp_pump_warn(r->pump, "container regex: no answer within the match limit on a cgroup "
			      "path: its samples counted as not matching");
}

/* 1 if a range or a filter is in force. */
static int selection_given(const struct range *r)
{
	return r->has_from || r->has_to || r->pid.on || r->tid.on || r->cpu.on || r->comm.on ||
	       r->event.on || r->include.on || r->exclude.on || r->container.src;
}

/* After a verdict that hit the regex bounds: a filter given as an option
 * ends the stage (W record, exit FP_EXIT_USAGE: the filter cannot be
 * answered); one set through the control FIFO is dropped (W record) and
 * the history replayed without it, so a live chain keeps running. */
static void regex_over_limit(struct range *r)
{
	struct regex_filter *f = r->over_limit;

	if (!f)
		return;
	r->over_limit = NULL;
	fp_pump_warn(r->pump,
		     "%s regex: no answer within the match limit (%u + %u steps per "
		     "byte) on a %zu-byte stack%s",
		     f->word, FP_REGEX_STEPS_BASE, FP_REGEX_STEPS_PER_BYTE, r->over_limit_len,
		     f->from_control ? ": filter removed" : "");
	if (!f->from_control) {
		fp_out_flush_all(&r->pump->out);
		exit(FP_EXIT_USAGE);
	}
	clear_regex(f);
	update_tail_filters_on(r);
	replay(r);
}

/* Entries between two looks at a pending SIGINT/SIGTERM in a replay. */
#define REPLAY_SIGNAL_CHECK 1024u

/* C reset, the matching history in arrival order, the selection, C flush.
 * fp_out_write waits for a slow reader when the buffer is full, so a long
 * history is re-sent with bounded memory (input waits meanwhile). */
static void replay(struct range *r)
{
	struct fp_out *o = &r->pump->out;

	r->replays++;
	fp_write_reset(fp_out_wr(o));
	for (size_t i = 0; i < r->hist.len; i++) {
		const struct fp_history_entry *h = fp_history_at(&r->hist, i);

		if (i % REPLAY_SIGNAL_CHECK == 0 && fp_signal_pending())
			return; /* the stage is ending: no C flush */
		if (sample_passes(r, h)) {
			write_history_sample(r, o, h);
			r->replayed++;
		}
		if (r->over_limit)
			break;
	}
	if (r->over_limit) {
		regex_over_limit(r); /* replays again without the filter */
		return;
	}
	write_selection(r);
	fp_write_flush(fp_out_wr(o));
	fp_out_flush(o);
}

/* ---- input ---------------------------------------------------------------- */

static void remember(struct range *r, const struct fp_history_entry *h)
{
	if (fp_history_add(&r->hist, h) && !r->hist_warned) {
		fp_pump_warn(r->pump,
			     "history full (%zu samples): oldest samples dropped, "
			     "replays after a range change miss them (see --history)",
			     r->hist.max);
		r->hist_warned = 1;
	}
}

/* A valid sample whose tail is interned: kept, and passed on if it is
 * selected (the S line as it came, or, p not NULL, a P of the own tail id). */
static void take_sample(struct range *r, const struct fp_history_entry *h, const char *line,
			size_t len, const struct fp_tailtab_ref *p)
{
	r->seen++;
	if (!r->have_base) {
		r->have_base = 1;
		r->base_ns = h->time_ns / FP_NSEC_PER_SEC * FP_NSEC_PER_SEC;
	}
	remember(r, h);
	if (sample_passes(r, h)) {
		r->passed++;
		if (p)
			write_tail_sample(r, &r->pump->out, h, line, p);
		else
			fp_write_line(fp_out_wr(&r->pump->out), line, len);
	}
	regex_over_limit(r);
	container_over_limit(r);
}

/* Past this many tails a cache-only table is emptied (see Memory above). */
#define TAILS_CACHE_MAX 200000

/* No sample refers to a tail id after its turn (no history, no stack-id
 * stream either way): the table may start again. */
static void bound_tail_cache(struct range *r)
{
	if (r->tt.ntails < TAILS_CACHE_MAX || r->hist.max || r->out_defined || r->tt.up_n)
		return;
	fp_tailtab_free(&r->tt);
	fp_tailtab_init(&r->tt);
	r->tails_emptied++;
}

static int on_sample(void *ctx, const char *line, size_t len)
{
	struct range *r = ctx;
	struct fp_sample s;

	if (fp_sample_parse(line, len, &s) < 0)
		return -1;
	bound_tail_cache(r);
	const struct fp_history_entry h = {
		.time_ns = s.time_ns,
		.period = s.period,
		.pid = (int32_t)s.pid,
		.tid = (int32_t)s.tid,
		.cpu = (int32_t)s.cpu,
		.tail = fp_tailtab_intern_sample(&r->tt, line, len, &s),
	};
	take_sample(r, &h, line, len, NULL);
	return 0;
}

/* K: its text kept for its upstream id; its tail gets an own id at its
 * first sample (so unique_stacks counts the tails of samples, as with S
 * records). Not passed on: downstream gets the K of the own id before its
 * first P. */
static int on_tail(void *ctx, const char *line, size_t len)
{
	struct range *r = ctx;

	return fp_tailtab_define_line(&r->tt, line, len);
}

static void on_bad(void *ctx, const char *problem)
{
	struct range *r = ctx;

	r->bad++;
	fp_pump_warn(r->pump, "%s", problem);
}

static int on_tail_sample(void *ctx, const char *line, size_t len)
{
	struct range *r = ctx;
	struct fp_tailtab_ref p;
	int err = fp_tailtab_ref_line(&r->tt, line, len, &p);

	if (err)
		return err;
	const struct fp_history_entry h = {
		.time_ns = p.ref.time_ns,
		.period = p.ref.period,
		.pid = (int32_t)p.ref.pid,
		.tid = (int32_t)p.ref.tid,
		.cpu = (int32_t)p.ref.cpu,
		.tail = p.own,
	};
	take_sample(r, &h, line, len, &p);
	return 0;
}

/* G <rows> <base_sec>: the heatmap axis. When it moves while a range is
 * selected, the same range now means other samples: re-send. */
static void on_geometry(struct range *r, const char *line, size_t len)
{
	struct fp_geometry g;
	uint64_t base_sec;

	if (fp_geometry_parse(line, len, &g) < 0) {
		fp_pump_warn(r->pump, "malformed G record (expected G <rows> <base_sec>): ignored");
		return;
	}
	base_sec = g.base_sec;
	if (r->have_base && r->base_ns == base_sec * FP_NSEC_PER_SEC)
		return;
	r->base_ns = base_sec * FP_NSEC_PER_SEC;
	if (r->have_base && (r->has_from || r->has_to)) {
		fp_write_line(fp_out_wr(&r->pump->out), line, len);
		replay(r);
		r->have_base = 1;
		return;
	}
	r->have_base = 1;
}

static const struct fp_sample_handlers sample_handlers = {
	.sample = on_sample,
	.tail = on_tail,
	.tail_sample = on_tail_sample,
	.bad = on_bad,
};

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	struct range *r = p->ctx;
	struct fp_control c;
	size_t replays;

	enum fp_rec tag = fp_record_tag(line, &len);

	if (!r->announced) {
		/* The selection it was started with, once, after the header:
		 * the stages after it (fp-render's captions) learn it from the
		 * stream, as they learn every later change. */
		r->announced = 1;
		if (tag == FP_REC_HEADER) {
			fp_header_require(line, len, p->in_name, p->lineno);
			fp_write_line(fp_out_wr(&p->out), line, len);
		}
		if (selection_given(r))
			write_selection(r);
		if (tag == FP_REC_HEADER)
			return;
	}
	if (fp_sample_records(&sample_handlers, r, tag, line, len))
		return;
	switch (tag) {
	case FP_REC_GEOMETRY:
		replays = r->replays;
		on_geometry(r, line, len);
		if (r->replays != replays)
			return; /* already written before the replay */
		break;
	case FP_REC_HEADER:
		fp_header_require(line, len, p->in_name, p->lineno);
		break;
	case FP_REC_CONTROL:
		if (fp_control_parse(line, len, &c) == 0 && c.kind == FP_CTL_RESET)
			fp_history_clear(&r->hist); /* upstream re-sends */
		break;
	default:
		break;
	}
	fp_write_line(fp_out_wr(&p->out), line, len);
}

static void on_eof(struct fp_pump *p)
{
	struct range *r = p->ctx;
	const struct fp_stat stats[] = {
		{ "seen", r->seen },
		{ "passed", r->passed },
		{ "history", r->hist.len },
		{ "unique_stacks", r->tt.ntails },
		{ "history_dropped", r->hist.dropped },
		{ "replays", r->replays },
		{ "replayed", r->replayed },
		{ "bad", r->bad },
		{ "regex_runs", r->regex_runs },
		{ "too_long", p->lines_too_long }, /* only when some line was */
	};

	fp_write_info(fp_out_wr(&p->out), p->stage, stats,
		      sizeof stats / sizeof *stats - !p->lines_too_long);
}

static const struct fp_pump_ops range_ops = {
	.line = on_line,
	.eof = on_eof,
};

/* ---- the control FIFO ----------------------------------------------------- */

static void control_warn(struct range *r, const char *why, const char *line, size_t len)
{
	char excerpt[EXCERPT_MAX + 4];
	size_t n = len < EXCERPT_MAX ? len : EXCERPT_MAX;

	memcpy(excerpt, line, n);
	for (size_t i = 0; i < n; i++)
		if (excerpt[i] == '\t' || excerpt[i] == '\r' || excerpt[i] == '\n')
			excerpt[i] = ' ';
	if (n < len)
		memcpy(excerpt + n, "...", 3), n += 3;
	excerpt[n] = '\0';
	fp_warn("%s:%llu: %s: \"%s\"", r->ctl.path, (unsigned long long)r->ctl.lineno, why,
		excerpt);
	char msg[CONTROL_WARNING_MAX];

	snprintf(msg, sizeof msg, "%s: \"%s\"", why, excerpt);
	fp_write_warning(fp_out_wr(&r->pump->out), r->pump->stage, r->ctl.path, r->ctl.lineno, msg);
}

/* Returns 1 if the line changed the selection or asked for a replay. */
static int control_line(struct range *r, const char *line, size_t len)
{
	struct fp_rangectl_cmd c;
	const char *why;
	char msg[256];

	if (fp_rangectl_parse(line, len, &c, &why) < 0) {
		control_warn(r, why, line, len);
		return 0;
	}
	if (c.kind == FP_RC_NONE)
		return 0;
	if (apply_command(r, &c, msg, sizeof msg) < 0) {
		for (char *m = msg; *m; m++)
			if (*m == '\t' || *m == '\n')
				*m = ' ';
		control_warn(r, msg, line, len);
		return 0;
	}
	return 1;
}

static int control_line_cb(void *ctx, const char *line, size_t len)
{
	return control_line(ctx, line, len);
}

static void control_too_long(void *ctx, const char *start, size_t len)
{
	control_warn(ctx, "control line too long, skipped", start, len);
}

static void control_done(void *ctx, int changed)
{
	struct range *r = ctx;

	if (changed)
		replay(r);
	else
		fp_out_flush(&r->pump->out); /* W records, if any */
}

static void sighup_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	replay(w->data);
}

/* ---- options -------------------------------------------------------------- */

/* Applies an option as the control line "<word> <arg>". */
static void option_command(struct range *r, const char *word, const char *arg)
{
	size_t n = strlen(word) + 1 + strlen(arg);
	char *line = fp_xmalloc(n + 1);
	struct fp_rangectl_cmd c;
	const char *why;
	char msg[256];

	snprintf(line, n + 1, "%s %s", word, arg);
	if (fp_rangectl_parse(line, n, &c, &why) < 0 || c.kind == FP_RC_NONE)
		fp_die(FP_EXIT_USAGE, "--%s: %s", word,
		       c.kind == FP_RC_NONE ? "missing argument" : why);
	if (apply_command(r, &c, msg, sizeof msg) < 0)
		fp_die(FP_EXIT_USAGE, "--%s: %s", word, msg);
	free(line);
}

/* --from, --to: decimal seconds on the heatmap axis. */
static void opt_bound(void *ctx, const char *opt, const char *arg)
{
	struct range *r = ctx;
	int from = !strcmp(opt, "from");

	if (fp_parse_seconds_ns(arg, strlen(arg), from ? &r->from_ns : &r->to_ns) < 0)
		fp_die(FP_EXIT_USAGE, "--%s: expected decimal seconds (e.g. 1.25), got \"%s\"", opt,
		       arg);
	*(from ? &r->has_from : &r->has_to) = 1;
}

/* --pid, --tid, --cpu, --include, --exclude, --container: a control command now. */
static void opt_command(void *ctx, const char *opt, const char *arg)
{
	option_command(ctx, opt, arg);
}

/* --comm and --event may be repeated: the lists are joined, then applied
 * as one command each. */
static char *append_list(char *list, const char *arg)
{
	size_t n = list ? strlen(list) : 0, m = strlen(arg);

	list = fp_xrealloc(list, n + 1 + m + 1);
	if (n)
		list[n++] = ',';
	memcpy(list + n, arg, m + 1);
	return list;
}

static void opt_comm(void *ctx, const char *opt, const char *arg)
{
	struct range *r = ctx;

	r->comms = append_list(r->comms, arg);
}

static void opt_event(void *ctx, const char *opt, const char *arg)
{
	struct range *r = ctx;

	r->events = append_list(r->events, arg);
}

int main(int argc, char **argv)
{
	struct range r = { .gen = 1,
			   .include = { .word = "include" },
			   .exclude = { .word = "exclude" } };
	struct fp_pump p;
	const char *name = "range";
	uint64_t hist_max = HISTORY_DEFAULT;
	int rc;
	const struct fp_opt options[] = {
		{ "from", FP_OPT_FN, .fn = opt_bound },
		{ "to", FP_OPT_FN, .fn = opt_bound },
		{ "pid", FP_OPT_FN, .fn = opt_command },
		{ "tid", FP_OPT_FN, .fn = opt_command },
		{ "cpu", FP_OPT_FN, .fn = opt_command },
		{ "comm", FP_OPT_FN, .fn = opt_comm },
		{ "event", FP_OPT_FN, .fn = opt_event },
		{ "include", FP_OPT_FN, .fn = opt_command },
		{ "exclude", FP_OPT_FN, .fn = opt_command },
		{ "container", FP_OPT_FN, .fn = opt_command },
		{ "history", FP_OPT_U64, &hist_max, .max = SIZE_MAX / FP_HISTORY_ENTRY_BYTES },
		{ "control", FP_OPT_STR, &r.ctl.path },
		{ "name", FP_OPT_STR, &name },
		{ NULL },
	};

	fp_set_prog(argv[0]);
	fp_tailtab_init(&r.tt);
	fp_opts_parse(argc, argv, options, USAGE, 0, &r);
	r.hist.max = (size_t)hist_max;
	if (r.has_from && r.has_to && r.from_ns > r.to_ns)
		fp_die(FP_EXIT_USAGE, "--from is after --to");
	if (r.comms)
		option_command(&r, "comm", r.comms);
	if (r.events)
		option_command(&r, "event", r.events);
	free(r.comms);
	free(r.events);

	fp_pump_init(&p, EV_DEFAULT, 0, 1, &range_ops, &r, 0);
	p.stage = name;
	r.pump = &p;
	if (r.ctl.path) {
		r.ctl.line_max = FP_RANGECTL_LINE_MAX;
		r.ctl.ctx = &r;
		r.ctl.line = control_line_cb;
		r.ctl.too_long = control_too_long;
		r.ctl.done = control_done;
		fp_ctlfifo_open(&r.ctl, p.loop);
	}
	ev_signal_init(&r.sig_hup, sighup_cb, SIGHUP);
	r.sig_hup.data = &r;
	ev_signal_start(p.loop, &r.sig_hup);
	rc = fp_pump_run(&p);
	ev_signal_stop(p.loop, &r.sig_hup);
	fp_ctlfifo_close(&r.ctl, p.loop);
	clear_filters(&r);
	free(r.folded);
	fp_history_free(&r.hist);
	fp_tailtab_free(&r.tt);
	fp_container_filter_free(&r.container);
	return rc;
}
