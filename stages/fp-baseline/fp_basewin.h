/* fp_basewin.h: fp-baseline's sliding window of sample time: counts by
 * stack id of the samples of the last `nslots` steps.
 *
 * Time is the samples' own (perf's clock), not the wall clock, so a
 * capture replayed from a file gives the windows it gave live. A step is
 * complete when a sample of a later step arrives; fp_basewin_add says so,
 * and the caller evaluates the window then (it holds complete steps
 * only). A sample older than the window (perf's per-CPU buffers are not
 * merged in time order) is counted in the step it belongs to while that
 * step is in the window, else dropped and counted in `late`.
 *
 *	struct fp_basewin w; fp_basewin_init(&w, 250000000, 4);
 *	if (fp_basewin_add(&w, time_ns, id, count)) evaluate(w.sum, ...);
 *	fp_basewin_free(&w);
 */
#ifndef FP_BASEWIN_H
#define FP_BASEWIN_H

#include <stddef.h>
#include <stdint.h>

struct fp_basewin {
	uint64_t step_ns;
	size_t nslots;        /* steps in the window */
	uint64_t **slot;      /* [nslots + 1][cap]: the window and the step being filled */
	uint64_t *sum;        /* [cap]: the window's complete steps, by stack id */
	uint64_t total;       /* of sum */
	uint64_t *slot_total; /* [nslots + 1] */
	size_t cap;           /* stack ids with room */
	uint64_t cur;         /* the step being filled (absolute: time / step_ns) */
	int started;
	uint64_t late; /* samples older than the window, dropped */
};

void fp_basewin_init(struct fp_basewin *w, uint64_t step_ns, size_t nslots);
void fp_basewin_free(struct fp_basewin *w);
/* Counts a sample; 1 if it completed a step (the window moved: sum is the
 * newest nslots complete steps), else 0. */
int fp_basewin_add(struct fp_basewin *w, uint64_t time_ns, uint32_t id, uint64_t count);
/* Forgets every count (C reset). */
void fp_basewin_clear(struct fp_basewin *w);

#endif
