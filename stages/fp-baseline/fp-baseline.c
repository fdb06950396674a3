/* fp-baseline: the samples as they come against a baseline, by share;
 * a line when a stack or a function grows past PCT points over it.
 *
 * Interface:
 *	fp-baseline (--baseline FILE [--from S] [--to S] | --from S --to S)
 *		[--alert PCT] [--by function|stack] [--window MS] [--step MS]
 *		[--min-samples N] [--top N] [--pass-samples] [--discard]
 *		[--name NAME]
 *
 * Input: a flamepipe stream after `fp-fold --pass-samples` (its D and R
 * records: each sample folded once, with its time). Output: every record,
 * unchanged and in order, except R records (fp-serve and the terminal
 * view do not use them, and fp-render would keep every one: --pass-samples
 * passes them on too), then `I baseline` statistics at the end. --discard:
 * no records at all (the last stage of a chain that only alerts).
 *
 * The baseline: FILE (a folded file, or a capture folded by the stages:
 * render/baseload.h), its range --from/--to; or without FILE the range
 * [--from, --to) of this stream, in seconds on the heatmap axis (fp-bucket's
 * G record; else the first sample's second), taken as it passes.
 * The comparison (render/baseline.h): each key's share of the last --window
 * ms of samples (sample time; default 1000) against its share of the
 * baseline, in percentage points, every --step ms (default 250). A key is
 * a function (default: the leaf frame, its self time summed over every
 * path to it) or, with --by stack, a whole folded stack.
 * --alert PCT: when a key's share is PCT points or more over the
 * baseline's, one line on stderr:
 *
 *	fp-baseline: alert: function spin_b grew +97.4 points: 97.4% of the last 1.0 s, 0.0% of the baseline (at 6.25 s)
 *
 * once, until its share falls back below PCT/2 points over the baseline.
 * A window of fewer than --min-samples samples (default 50) is not
 * compared: one sample of four is 25 %, and a workload starting up or a
 * loaded host gives such windows.
 * At the end, --top N (default 10, 0: none): the N keys that grew and
 * shrank most from the baseline to all the samples after it, on stderr.
 *
 * Exit codes: 0 ok, 1 the baseline cannot be read or folded (the message
 * says which file and why), 100 usage, 111 system error, 141 the reader
 * went away. docs/fp-baseline.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ev.h>

#include "baseline.h"
#include "fp_basewin.h"
#include "baseload.h"
#include "fp_error.h"
#include "fp_io.h"
#include "fp_opts.h"
#include "fp_record.h"
#include "fp_strtab.h"

#define USAGE                                                                         \
	"usage: fp-baseline (--baseline FILE [--from S] [--to S] | --from S --to S) " \
	"[--alert PCT] [--by function|stack] [--window MS] [--step MS] "              \
	"[--min-samples N] [--top N] [--pass-samples] [--discard] [--name NAME]"
#define MS_NS 1000000ull
#define WINDOW_MAX_MS 3600000
#define TOP_MAX 1000
/* steps in a window: each keeps a count per stack (memory: steps x stacks) */
#define STEPS_MAX 100u

struct state {
	/* options */
	const char *file, *from_s, *to_s;
	double pct; /* < 0: no alerts */
	int by;     /* enum fp_base_by */
	uint64_t window_ms, step_ms, top;
	uint64_t min_samples; /* a smaller window is not compared */
	int pass_samples, discard;
	uint64_t refs; /* R records seen */
	/* stacks: local ids of the D records' folded text */
	struct fp_strtab stacks;
	uint32_t *dmap; /* D id -> local id (+1; 0: not defined) */
	size_t dmap_cap;
	/* the time axis */
	int has_axis;
	uint64_t axis_ns; /* second 0 of the heatmap axis, in perf time */
	/* the baseline */
	int stream_range;        /* the baseline is [from, to) of this stream */
	uint64_t from_ns, to_ns; /* on the axis */
	uint64_t *bcount;        /* stream range: counts by local id */
	size_t bcap;
	int base_ready;
	struct fp_folded base, kbase; /* the baseline, and by key */
	/* now */
	struct fp_basewin win;
	uint64_t *after; /* samples after the baseline, by local id */
	size_t acap;
	struct fp_alerts alerts;
	uint64_t samples, evaluations, thin, bad;
	double window_end_s; /* on the axis, for the alert line */
};

static uint64_t *grow_u64(uint64_t *a, size_t *cap, size_t id)
{
	size_t c = *cap ? *cap : 256;

	if (id < *cap)
		return a;
	while (c <= id)
		c *= 2;
	a = fp_xrealloc(a, c * sizeof *a);
	memset(a + *cap, 0, (c - *cap) * sizeof *a);
	*cap = c;
	return a;
}

/* A table of counts by local id, referencing the stacks' text (valid
 * until the next D record). */
static void table_of(const struct state *st, const uint64_t *count, size_t n, struct fp_folded *t,
		     int copy)
{
	fp_folded_init(t);
	for (uint32_t id = 0; id < n && id < fp_strtab_count(&st->stacks); id++) {
		size_t len;
		const char *s;

		if (!count[id])
			continue;
		s = fp_strtab_str(&st->stacks, id, &len);
		fp_folded_add(t, s, len, count[id], 0, copy);
	}
}

static const char *by_word(const struct state *st)
{
	return st->by == FP_BASE_BY_STACK ? "stack" : "function";
}

static void fire(void *ctx, const struct fp_folded *d, size_t i, double delta)
{
	const struct state *st = ctx;

	fprintf(stderr,
		"%s: alert: %s %.*s grew %+.1f points: %.1f%% of the last %.1f s, "
		"%.1f%% of the baseline (at %.2f s)\n",
		fp_prog(), by_word(st), (int)d->e[i].len, d->e[i].stack, delta,
		fp_baseline_share_now(d, i), (double)st->window_ms / 1000.0,
		fp_baseline_share_base(d, i), st->window_end_s);
	fflush(stderr);
}

/* The window against the baseline (a step completed). */
static void evaluate(struct state *st)
{
	struct fp_folded now, know, d;

	if (!st->base_ready || !st->win.total || st->pct < 0)
		return;
	if (st->win.total < st->min_samples) {
		st->thin++;
		return;
	}
	st->evaluations++;
	table_of(st, st->win.sum, st->win.cap, &now, FP_FOLDED_REF);
	fp_baseline_keyed(&know, &now, st->by);
	fp_folded_diff(&d, &st->kbase, &know);
	fp_alerts_check(&st->alerts, &d, fire, st);
	fp_folded_free(&d);
	fp_folded_free(&know);
	fp_folded_free(&now);
}

static void base_done(struct state *st)
{
	if (st->stream_range) {
		table_of(st, st->bcount, st->bcap, &st->base, FP_FOLDED_COPY);
		if (!st->base.total)
			fp_warn("the baseline range [%s, %s) of the stream has no samples: "
				"nothing is compared",
				st->from_s, st->to_s);
	}
	fp_baseline_keyed(&st->kbase, &st->base, st->by);
	st->base_ready = st->base.total > 0;
}

static void on_def(struct state *st, struct fp_pump *p, const char *line, size_t len)
{
	struct fp_stack_def d;

	if (fp_stack_def_parse(line, len, &d) < 0) {
		st->bad++;
		fp_pump_warn(p, "bad D record (expected D TAB id TAB kinds TAB folded)");
		return;
	}
	uint32_t id = fp_strtab_intern(&st->stacks, d.folded.p, d.folded.n, NULL);
	if (d.id >= st->dmap_cap) {
		size_t c = st->dmap_cap ? st->dmap_cap : 256;

		while (c <= d.id)
			c *= 2;
		st->dmap = fp_xrealloc(st->dmap, c * sizeof *st->dmap);
		memset(st->dmap + st->dmap_cap, 0, (c - st->dmap_cap) * sizeof *st->dmap);
		st->dmap_cap = c;
	}
	st->dmap[d.id] = id + 1;
}

static void on_ref(struct state *st, struct fp_pump *p, const char *line, size_t len)
{
	struct fp_ref r;

	if (fp_ref_parse(line, len, &r) < 0 || r.id >= st->dmap_cap || !st->dmap[r.id]) {
		st->bad++;
		fp_pump_warn(p, "bad R record, or one of a stack no D record defined");
		return;
	}
	uint32_t id = st->dmap[r.id] - 1;
	st->refs++;
	if (!st->has_axis) { /* no G record: the first sample's second */
		st->has_axis = 1;
		st->axis_ns = r.time_ns - r.time_ns % FP_NSEC_PER_SEC;
	}
	uint64_t t = r.time_ns >= st->axis_ns ? r.time_ns - st->axis_ns : 0;

	st->samples++;
	if (st->stream_range && !st->base_ready) {
		if (t >= st->from_ns && t < st->to_ns) {
			st->bcount = grow_u64(st->bcount, &st->bcap, id);
			st->bcount[id] += r.count;
			return;
		}
		if (t < st->to_ns)
			return; /* before the range */
		base_done(st);
	}
	if (st->stream_range && t < st->to_ns)
		return; /* late samples of the range (the baseline is made) */
	st->after = grow_u64(st->after, &st->acap, id);
	st->after[id] += r.count;
	if (fp_basewin_add(&st->win, r.time_ns, id, r.count)) {
		uint64_t end = r.time_ns - r.time_ns % (st->step_ms * MS_NS);

		st->window_end_s = (double)(end >= st->axis_ns ? end - st->axis_ns : 0) / 1e9;
		evaluate(st);
	}
}

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	struct state *st = p->ctx;
	enum fp_rec tag = fp_record_tag(line, &len);
	struct fp_geometry g;
	struct fp_control c;

	switch (tag) {
	case FP_REC_STACK:
		on_def(st, p, line, len);
		break;
	case FP_REC_REF:
		on_ref(st, p, line, len);
		if (!st->pass_samples)
			return;
		break;
	case FP_REC_GEOMETRY:
		if (!st->has_axis && fp_geometry_parse(line, len, &g) == 0) {
			st->has_axis = 1;
			st->axis_ns = g.base_sec * FP_NSEC_PER_SEC;
		}
		break;
	case FP_REC_CONTROL:
		/* fp-range re-sends its history after a reset: the window starts over */
		if (fp_control_parse(line, len, &c) == 0 && c.kind == FP_CTL_RESET)
			fp_basewin_clear(&st->win);
		break;
	default:
		break;
	}
	if (!st->discard)
		fp_write_line(fp_out_wr(&p->out), line, len);
}

/* --top: the keys that grew and shrank most since the baseline. */
static void summary(struct state *st)
{
	struct fp_folded all, kall, d;
	size_t *idx;

	if (!st->top || !st->base_ready)
		return;
	table_of(st, st->after, st->acap, &all, FP_FOLDED_REF);
	fp_baseline_keyed(&kall, &all, st->by);
	fp_folded_diff(&d, &st->kbase, &kall);
	idx = fp_xcalloc(st->top, sizeof *idx);
	fprintf(stderr,
		"%s: by %s, %llu samples after the baseline against %llu in it "
		"(points, share after, share in the baseline):\n",
		fp_prog(), by_word(st), (unsigned long long)d.total2, (unsigned long long)d.total);
	for (int grew = 1; grew >= 0; grew--) {
		size_t n = fp_baseline_top(&d, grew, idx, st->top);

		fprintf(stderr, "  %s:%s\n", grew ? "grew" : "shrank", n ? "" : " none");
		for (size_t k = 0; k < n; k++)
			fprintf(stderr, "  %+6.1f %5.1f%% %5.1f%%  %.*s\n",
				fp_baseline_delta(&d, idx[k]), fp_baseline_share_now(&d, idx[k]),
				fp_baseline_share_base(&d, idx[k]), (int)d.e[idx[k]].len,
				d.e[idx[k]].stack);
	}
	free(idx);
	fp_folded_free(&d);
	fp_folded_free(&kall);
	fp_folded_free(&all);
}

static void on_eof(struct fp_pump *p)
{
	struct state *st = p->ctx;

	if (!st->refs) /* a silent empty comparison would look like "no change" */
		fp_warn("no samples to compare: the stream had no R records (is fp-fold given "
			"--pass-samples before this stage?)");
	if (st->stream_range && !st->base_ready && !st->base.n)
		base_done(st); /* the stream ended inside the range */
	if (st->pct >= 0 && st->thin && !st->evaluations)
		fp_warn("no window held %llu samples (--min-samples): no alert was possible; "
			"sample faster (-F) or widen --window",
			(unsigned long long)st->min_samples);
	summary(st);
	if (st->discard)
		return;
	struct fp_stat stats[] = {
		{ "samples", st->samples },         { "baseline_samples", st->base.total },
		{ "evaluations", st->evaluations }, { "thin_windows", st->thin },
		{ "alerts", st->alerts.fired },     { "late", st->win.late },
		{ "bad_records", st->bad },
	};
	fp_write_info(fp_out_wr(&p->out), p->stage, stats, sizeof stats / sizeof *stats);
}

static const struct fp_pump_ops ops = {
	.line = on_line,
	.eof = on_eof,
};

static void opt_alert(void *ctx, const char *opt, const char *arg)
{
	struct state *st = ctx;
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !isfinite(v) || v <= 0 || v > 100)
		fp_die(FP_EXIT_USAGE,
		       "--%s: expected percentage points above 0 and at most 100, "
		       "got \"%s\"",
		       opt, arg);
	st->pct = v;
}

static uint64_t seconds_ns(const char *opt, const char *arg)
{
	uint64_t ns;

	if (fp_parse_seconds_ns(arg, strlen(arg), &ns) < 0)
		fp_die(FP_EXIT_USAGE, "--%s: expected seconds (e.g. 2.5), got \"%s\"", opt, arg);
	return ns;
}

int main(int argc, char **argv)
{
	static struct state st;
	static const char *const bys[] = { "stack", "function", NULL };
	struct fp_pump p;
	const char *name = "baseline";
	char err[1024];
	int rc;

	fp_set_prog(argv[0]);
	st.pct = -1;
	st.by = FP_BASE_BY_FUNCTION;
	st.window_ms = 1000;
	st.step_ms = 250;
	st.top = 10;
	st.min_samples = 50;
	const struct fp_opt options[] = {
		{ "baseline", FP_OPT_STR, &st.file },
		{ "from", FP_OPT_STR, &st.from_s },
		{ "to", FP_OPT_STR, &st.to_s },
		{ "alert", FP_OPT_FN, .fn = opt_alert },
		{ "by", FP_OPT_CHOICE, &st.by, .choices = bys },
		{ "window", FP_OPT_U64, &st.window_ms, 10, WINDOW_MAX_MS },
		{ "step", FP_OPT_U64, &st.step_ms, 10, WINDOW_MAX_MS },
		{ "top", FP_OPT_U64, &st.top, 0, TOP_MAX },
		{ "min-samples", FP_OPT_U64, &st.min_samples, 1, 1000000 },
		{ "pass-samples", FP_OPT_FLAG, &st.pass_samples },
		{ "discard", FP_OPT_FLAG, &st.discard },
		{ "name", FP_OPT_NAME, &name },
		{ NULL },
	};
	fp_opts_parse(argc, argv, options, USAGE, 0, &st);
	if (st.step_ms > st.window_ms || st.window_ms % st.step_ms ||
	    st.window_ms / st.step_ms > STEPS_MAX)
		fp_die(FP_EXIT_USAGE,
		       "--window %llu: expected a whole number of --step %llu ms, "
		       "at most %u of them",
		       (unsigned long long)st.window_ms, (unsigned long long)st.step_ms, STEPS_MAX);
	if (!st.file && !(st.from_s && st.to_s))
		fp_die(FP_EXIT_USAGE,
		       "no baseline: give --baseline FILE, or --from S --to S "
		       "(a range of this stream)\n%s",
		       USAGE);
	if (st.from_s)
		st.from_ns = seconds_ns("from", st.from_s);
	if (st.to_s)
		st.to_ns = seconds_ns("to", st.to_s);
	if (st.from_s && st.to_s && st.from_ns >= st.to_ns)
		fp_die(FP_EXIT_USAGE, "--from %s is not before --to %s", st.from_s, st.to_s);
	fp_strtab_init(&st.stacks);
	fp_alerts_init(&st.alerts, st.pct);
	fp_basewin_init(&st.win, st.step_ms * MS_NS, st.window_ms / st.step_ms);
	fp_folded_init(&st.base);
	fp_folded_init(&st.kbase);
	if (st.file) {
		if (fp_baseload(st.file, st.from_s, st.to_s, &st.base, err, sizeof err) < 0)
			fp_die(FP_EXIT_DATA, "baseline %s", err);
		base_done(&st);
	} else {
		st.stream_range = 1;
	}
	fp_pump_init(&p, EV_DEFAULT, 0, 1, &ops, &st, 0);
	p.stage = name;
	rc = fp_pump_run(&p);
	fp_alerts_free(&st.alerts);
	fp_basewin_free(&st.win);
	fp_folded_free(&st.kbase);
	fp_folded_free(&st.base);
	fp_strtab_free(&st.stacks);
	free(st.dmap);
	free(st.bcount);
	free(st.after);
	return rc;
}
