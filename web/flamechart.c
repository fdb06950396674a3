/* flamechart.c: /flamechart/, the time-ordered flame chart of a selection.
 *
 * The samples of the selection (the same chain, event set and filters as
 * /flamegraph/: reader | fp-bucket | fp-range) are folded one by one with
 * fp-fold's rules (fold/fp_fold.h, kernel and JIT annotations as in the
 * flame graph's folded table), sorted by time, and runs of consecutive
 * samples with the same stack are merged:
 *
 *	{"total":N,"start_ns":T0,"end_ns":T1,"runs":[
 *	   {"t":NS,"d":NS,"n":COUNT,"stack":"comm;frame;...;leaf"},...]}
 *
 * t = the run's first sample time - T0 (T0 = the first sample's time), d =
 * time to the next run's first sample (the last run: to the last sample),
 * n = its samples. The page draws each run's frames side by side in time
 * order, consecutive equal frames joined (speedscope's "time order").
 * At most FLAMECHART_SAMPLES_MAX samples: a longer selection is a 413.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fp_error.h"
#include "fp_fold.h"
#include "fp_record.h"
#include "serve.h"

#define FLAMECHART_SAMPLES_MAX 200000

struct chart_sample {
	uint64_t t;
	uint32_t seq; /* input order: ties keep it */
	char *stack;
};

struct chart_build {
	struct chart_sample *v;
	size_t n, cap;
	int too_many, bad;
	struct fp_fold_opts opts;
	struct fp_fold_buf buf;
};

static void chart_line(void *ctx, char *line, size_t len)
{
	struct chart_build *b = ctx;
	struct fp_sample s;

	if (fp_record_tag(line, &len) != FP_REC_SAMPLE || b->too_many)
		return;
	if (fp_sample_parse(line, len, &s) < 0 || fp_fold_build(&b->buf, &s, &b->opts, NULL) < 0) {
		b->bad++;
		return;
	}
	if (b->n == FLAMECHART_SAMPLES_MAX) {
		b->too_many = 1;
		return;
	}
	if (b->n == b->cap)
		b->v = fp_xrealloc(b->v, (b->cap = b->cap ? 2 * b->cap : 4096) * sizeof *b->v);
	b->v[b->n] = (struct chart_sample){ s.time_ns, (uint32_t)b->n,
					    fp_xstrndup(b->buf.p, b->buf.len) };
	b->n++;
}

static int cmp_time(const void *x, const void *y)
{
	const struct chart_sample *a = x, *b = y;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static void runs_json(struct fp_sink *s, const struct chart_build *b)
{
	uint64_t t0 = b->n ? b->v[0].t : 0, t1 = b->n ? b->v[b->n - 1].t : 0;
	fp_sink_printf(s,
		       "{\"total\":%zu,\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 ",\"runs\":[",
		       b->n, t0, t1);
	for (size_t i = 0, k = 0; i < b->n; k++) {
		size_t j = i + 1;
		while (j < b->n && strcmp(b->v[j].stack, b->v[i].stack) == 0)
			j++;
		uint64_t next = j < b->n ? b->v[j].t : t1;
		fp_sink_printf(s, "%s{\"t\":%" PRIu64 ",\"d\":%" PRIu64 ",\"n\":%zu,\"stack\":",
			       k ? "," : "", b->v[i].t - t0, next - b->v[i].t, j - i);
		fp_json_string(s, b->v[i].stack, strlen(b->v[i].stack));
		fp_sink_char(s, '}');
		i = j;
	}
	fp_sink_str(s, "]}\n");
}

int flamechart_json(const struct job *job, int fd, const struct selection *sel, struct fp_sink *s,
		    char *err, size_t errsz)
{
	struct chart_build b = { .opts = FP_FOLD_OPTS_DEFAULT };
	int status = 0;

	b.opts.annotate_kernel = b.opts.annotate_jit = 1; /* as fp-fold --all */
	b.opts.event_root = SEL_EVENT_ROOT(sel);
	selection_chain_run(job, fd, sel, chart_line, &b, &status, err, errsz);
	if (!status && b.too_many) {
		status = 413;
		snprintf(err, errsz,
			 "more than %d samples in this selection: select a shorter range "
			 "for the flame chart",
			 FLAMECHART_SAMPLES_MAX);
	}
	if (!status) {
		qsort(b.v, b.n, sizeof *b.v, cmp_time);
		runs_json(s, &b);
	}
	for (size_t i = 0; i < b.n; i++)
		free(b.v[i].stack);
	free(b.v);
	fp_fold_buf_free(&b.buf);
	return status;
}
