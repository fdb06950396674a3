/* fp_pairing.h: pair start and end events per key, in time order, with
 * bounded memory (fp-latency's engine).
 *
 * Events are added as actions (START, END or CANCEL of a pair, for a key)
 * and wait in a reorder window (a heap by time, input order breaking ties):
 * an action is applied once one at least `window_ns` later was added, or
 * by fp_pairing_release(all). Applying: a START pushes its time on the
 * key's stack of open starts (at most FP_PAIRING_NEST deep: a deeper one
 * pushes the oldest out, counted `replaced`); an END pops the latest and
 * reports the interval through on_interval (no open start: counted
 * `unmatched_ends`); a CANCEL drops the key's open starts (`cancelled`).
 *
 * Bounds: at most max_open keys hold open starts (a START that would open
 * one more is dropped, counted dropped_starts); at most max_pending actions
 * wait (past it the oldest is applied at once, counted early). on_limit is
 * called the first time each bound is hit.
 *
 *	struct fp_pairing pg;
 *	fp_pairing_init(&pg, npairs, window_ns, max_open, max_pending);
 *	pg.on_interval = f; pg.on_limit = g; pg.ctx = me;
 *	fp_pairing_add(&pg, ts_ns, pair, FP_ROLE_START, key, key_len);
 *	fp_pairing_release(&pg, 0);      // after each event; 1 at the end
 *	fp_pairing_open(&pg, open);      // open starts per pair
 *	fp_pairing_free(&pg);
 */
#ifndef FP_PAIRING_H
#define FP_PAIRING_H

#include <stddef.h>
#include <stdint.h>

#include "fp_map.h"

#define FP_PAIRING_NEST 16    /* open starts kept per key */
#define FP_PAIRING_KEY_MAX 64 /* longest key, bytes */
#define FP_PAIRING_HIST 66    /* (..,0), [0], [1], then 2^0 .. 2^63 */

enum fp_role { FP_ROLE_START, FP_ROLE_END, FP_ROLE_CANCEL, FP_ROLE_COUNT };
enum fp_pairing_limit { FP_LIMIT_OPEN, FP_LIMIT_PENDING };

struct fp_pair_stats {
	uint64_t count, sum_ns, min_ns, max_ns;
	uint64_t replaced, cancelled, unmatched_ends;
	uint64_t hist[FP_PAIRING_HIST]; /* fp_pairing_bucket of each latency */
};

/* What one event does to one pair, waiting in the reorder window. */
struct fp_action {
	uint64_t ts_ns;
	uint64_t seq; /* input order breaks timestamp ties */
	uint16_t pair;
	uint8_t role;
	uint8_t key_len;
	char key[FP_PAIRING_KEY_MAX];
};

struct fp_pairing {
	struct fp_pair_stats *stats; /* npairs */
	size_t npairs;
	uint64_t window_ns;
	size_t max_open, max_pending;
	uint64_t late; /* older than an action already applied */
	uint64_t dropped_starts, early;
	void (*on_interval)(void *ctx, const struct fp_action *end, uint64_t start_ns);
	void (*on_limit)(void *ctx, enum fp_pairing_limit which);
	void *ctx;
	/* private */
	struct fp_action *heap;
	size_t nheap, capheap;
	struct fp_open_entry *open; /* keys with open starts, 0 .. used-1 */
	size_t used, capopen;
	struct fp_map open_by_key; /* key_hash -> index into open */
	uint64_t seq, max_ts_ns, last_applied_ns;
	int applied_any, warned[2];
};

void fp_pairing_init(struct fp_pairing *pg, size_t npairs, uint64_t window_ns, size_t max_open,
		     size_t max_pending);
void fp_pairing_free(struct fp_pairing *pg);
/* Adds an action (key_len <= FP_PAIRING_KEY_MAX). */
void fp_pairing_add(struct fp_pairing *pg, uint64_t ts_ns, uint16_t pair, enum fp_role role,
		    const char *key, size_t key_len);
/* Applies the actions whose window has passed (all: every one). */
void fp_pairing_release(struct fp_pairing *pg, int all);
/* Actions waiting in the window. */
static inline size_t fp_pairing_pending(const struct fp_pairing *pg)
{
	return pg->nheap;
}
/* Open starts per pair into open[npairs]. */
void fp_pairing_open(const struct fp_pairing *pg, uint64_t *open);
/* The histogram bucket of a latency: 1 for 0, else 2 + log2(v). */
unsigned fp_pairing_bucket(uint64_t v);
/* bpftrace's hist() of a pair's latencies, `@NAME_ns:` then
 * `[1K, 2K)   3 |@@@@   |` lines from the first to the last non-empty
 * bucket (or ` (no intervals)`), then a blank line. */
struct fp_out;
void fp_pairing_write_hist(struct fp_out *o, const char *name, const struct fp_pair_stats *ps);

#endif
