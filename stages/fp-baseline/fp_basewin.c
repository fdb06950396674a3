/* fp_basewin.c: the sliding window of sample time (fp_basewin.h).
 *
 * Ring of nslots + 1 steps: the step being filled is not in sum; when it
 * completes it is added to sum and the oldest step leaves it. */
#include <stdlib.h>
#include <string.h>

#include "fp_basewin.h"
#include "fp_error.h"

void fp_basewin_init(struct fp_basewin *w, uint64_t step_ns, size_t nslots)
{
	memset(w, 0, sizeof *w);
	w->step_ns = step_ns;
	w->nslots = nslots;
	w->slot = fp_xcalloc(nslots + 1, sizeof *w->slot);
	w->slot_total = fp_xcalloc(nslots + 1, sizeof *w->slot_total);
}

void fp_basewin_free(struct fp_basewin *w)
{
	for (size_t i = 0; i <= w->nslots; i++)
		free(w->slot[i]);
	free(w->slot);
	free(w->slot_total);
	free(w->sum);
}

void fp_basewin_clear(struct fp_basewin *w)
{
	for (size_t i = 0; i <= w->nslots; i++) {
		if (w->cap)
			memset(w->slot[i], 0, w->cap * sizeof **w->slot);
		w->slot_total[i] = 0;
	}
	if (w->cap)
		memset(w->sum, 0, w->cap * sizeof *w->sum);
	w->total = 0;
	w->started = 0;
}

static uint64_t *grow(uint64_t *a, size_t old, size_t cap)
{
	a = fp_xrealloc(a, cap * sizeof *a);
	memset(a + old, 0, (cap - old) * sizeof *a);
	return a;
}

static void reserve(struct fp_basewin *w, uint32_t id)
{
	size_t cap = w->cap ? w->cap : 256;

	if (id < w->cap)
		return;
	while (cap <= id)
		cap *= 2;
	for (size_t i = 0; i <= w->nslots; i++)
		w->slot[i] = grow(w->slot[i], w->cap, cap);
	w->sum = grow(w->sum, w->cap, cap);
	w->cap = cap;
}

static size_t ring(const struct fp_basewin *w, uint64_t step)
{
	return (size_t)(step % (w->nslots + 1));
}

/* The step being filled is complete: into sum; then `step` is the one
 * being filled, and the steps that fall out of the window leave sum. */
static void advance(struct fp_basewin *w, uint64_t step)
{
	size_t n = w->nslots + 1;

	/* cur joins sum (it is part of the window from now on) */
	uint64_t *c = w->slot[ring(w, w->cur)];
	for (size_t id = 0; id < w->cap; id++)
		w->sum[id] += c[id];
	w->total += w->slot_total[ring(w, w->cur)];
	/* every step after cur up to `step` is empty (or becomes the new
	 * current one); the ones they replace leave the window */
	uint64_t gap = step - w->cur;
	for (uint64_t k = 1; k <= gap && k <= n; k++) {
		size_t r = ring(w, w->cur + k);
		uint64_t *o = w->slot[r];

		if (w->slot_total[r]) {
			for (size_t id = 0; id < w->cap; id++)
				w->sum[id] -= o[id];
			w->total -= w->slot_total[r];
			memset(o, 0, w->cap * sizeof *o);
			w->slot_total[r] = 0;
		}
	}
	w->cur = step;
}

int fp_basewin_add(struct fp_basewin *w, uint64_t time_ns, uint32_t id, uint64_t count)
{
	uint64_t step = time_ns / w->step_ns;
	int moved = 0;

	reserve(w, id);
	if (!w->started) {
		w->started = 1;
		w->cur = step;
	} else if (step > w->cur) {
		advance(w, step);
		moved = 1;
	} else if (step + w->nslots < w->cur) {
		w->late++; /* older than the window */
		return 0;
	}
	size_t r = ring(w, step);
	w->slot[r][id] += count;
	w->slot_total[r] += count;
	if (step < w->cur) { /* a complete step of the window: in sum at once */
		w->sum[id] += count;
		w->total += count;
	}
	return moved;
}
