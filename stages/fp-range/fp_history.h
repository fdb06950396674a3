/* fp_history: the bounded ring of samples fp-range keeps for replays.
 *
 * Each entry is a sample without its tail text (the tail is an id into
 * the caller's interned tails, fp_tailtab.h), HISTORY_ENTRY_BYTES each.
 * The ring grows by doubling up to its maximum, then wraps, dropping the
 * oldest entry per new one.
 *
 * Calling sequence:
 *   struct fp_history h = { .max = N };	(N 0: nothing is kept)
 *   fp_history_add(&h, &e) per sample;	returns 1 when the oldest was dropped
 *   fp_history_at(&h, i) for i < h.len,	oldest first (a replay)
 *   fp_history_clear(&h)			when upstream re-sends (C reset)
 *   fp_history_free(&h)
 */
#ifndef FP_HISTORY_H
#define FP_HISTORY_H

#include <stddef.h>
#include <stdint.h>

/* One sample of the history: everything but the interned tail. */
struct fp_history_entry {
	uint64_t time_ns;
	uint64_t period;
	int32_t pid, tid, cpu;
	uint32_t tail; /* the tail's id (fp_tailtab) */
};
#define FP_HISTORY_ENTRY_BYTES 32
_Static_assert(sizeof(struct fp_history_entry) == FP_HISTORY_ENTRY_BYTES, "history entry grew");

struct fp_history {
	struct fp_history_entry *v;
	size_t start, len, cap;
	size_t max;       /* entries kept at most */
	uint64_t dropped; /* entries dropped because the ring was full */
};

/* Keeps e; 1 if the oldest entry was dropped for it, else 0. */
int fp_history_add(struct fp_history *h, const struct fp_history_entry *e);

/* The i-th entry, oldest first (i < h->len). */
static inline const struct fp_history_entry *fp_history_at(const struct fp_history *h, size_t i)
{
	size_t at = h->start + i; /* < 2 * cap */

	return &h->v[at < h->cap ? at : at - h->cap];
}

static inline void fp_history_clear(struct fp_history *h)
{
	h->start = h->len = 0;
}

void fp_history_free(struct fp_history *h);

#endif
