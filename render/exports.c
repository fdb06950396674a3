/* exports.c: samples for the export formats (see exports.h). */
#include "exports.h"

#include <string.h>

#include "fp_record.h"

void fp_exports_init(struct fp_exports *e, int pprof, int speedscope, size_t max_samples)
{
	memset(e, 0, sizeof *e);
	e->pprof_on = pprof;
	e->speedscope_on = speedscope;
	if (pprof)
		fp_pprof_init(&e->pprof);
	if (speedscope)
		fp_speedscope_init(&e->speedscope, max_samples);
}

void fp_exports_free(struct fp_exports *e)
{
	if (e->pprof_on)
		fp_pprof_free(&e->pprof);
	if (e->speedscope_on)
		fp_speedscope_free(&e->speedscope);
	memset(e, 0, sizeof *e);
}

void fp_exports_add(struct fp_exports *e, const char *line, size_t len)
{
	struct fp_sample s;

	if (!e->pprof_on && !e->speedscope_on)
		return;
	if (fp_sample_parse(line, len, &s) < 0) {
		e->bad++;
		return;
	}
	fp_exports_add_sample(e, &s);
}

void fp_exports_add_sample(struct fp_exports *e, const struct fp_sample *s)
{
	if (e->pprof_on)
		fp_pprof_add(&e->pprof, s);
	if (e->speedscope_on)
		fp_speedscope_add(&e->speedscope, s);
}

void fp_exports_reset(struct fp_exports *e)
{
	if (e->pprof_on)
		fp_pprof_reset(&e->pprof);
	if (e->speedscope_on)
		fp_speedscope_reset(&e->speedscope);
}

int fp_export_fold(struct fp_fold_buf *f, struct fp_fold_buf *k, const struct fp_sample *s,
		   const char **frames, size_t *nframes, const char **kinds, size_t *nkinds)
{
	static const struct fp_fold_opts plain = FP_FOLD_OPTS_DEFAULT;
	size_t root;

	if (fp_fold_build(f, s, &plain, k) < 0 || k->len == 0)
		return -1;
	/* the comm root is the first folded frame (s->comm.n bytes), its kind
	 * the first kind */
	root = s->comm.n + (f->len > s->comm.n);
	*frames = f->p + root;
	*nframes = f->len - root;
	*kinds = k->p + 1;
	*nkinds = k->len - 1;
	return 0;
}

int fp_export_clock_event(const char *ev, size_t n)
{
	static const char *const clocks[] = { "cpu-clock", "task-clock" };

	for (size_t i = 0; i < sizeof clocks / sizeof *clocks; i++) {
		size_t m = strlen(clocks[i]);

		if (n >= m && !memcmp(ev, clocks[i], m) && (n == m || ev[m] == ':'))
			return 1;
	}
	return 0;
}

const char *fp_export_kind_name(char kind)
{
	switch (kind) {
	case FP_KIND_KERNEL:
		return "[kernel]";
	case FP_KIND_JIT:
		return "[jit]";
	case FP_KIND_INLINED:
		return "[inlined]";
	case FP_KIND_UNKNOWN:
		return "[unknown]";
	default:
		return "[user]";
	}
}
