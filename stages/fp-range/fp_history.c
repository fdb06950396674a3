/* fp_history: the bounded ring of samples kept for replays (fp_history.h). */
#include <stdlib.h>

#include "fp_error.h"
#include "fp_history.h"

#define HISTORY_INITIAL 4096u /* entries of the first allocation */

int fp_history_add(struct fp_history *h, const struct fp_history_entry *e)
{
	if (!h->max)
		return 0;
	if (h->len == h->cap && h->cap < h->max) {
		/* Not wrapped yet: the ring only wraps at its final size. */
		size_t cap = h->cap ? h->cap * 2 : HISTORY_INITIAL;

		h->cap = cap < h->max ? cap : h->max;
		h->v = fp_xrealloc(h->v, h->cap * sizeof *h->v);
	}
	if (h->len == h->cap) {
		h->v[h->start] = *e;
		if (++h->start == h->cap)
			h->start = 0;
		h->dropped++;
		return 1;
	}
	/* start + len < 2 * cap: one subtraction wraps it (no division per sample) */
	size_t at = h->start + h->len++;
	h->v[at < h->cap ? at : at - h->cap] = *e;
	return 0;
}

void fp_history_free(struct fp_history *h)
{
	free(h->v);
	h->v = NULL;
	h->start = h->len = h->cap = 0;
}
