/* baseline.h: a folded table against a baseline folded table, by share.
 *
 * "What grew and shrank since the baseline" is a question of shares, not
 * counts: a baseline of 60 s and a window of 1 s differ in counts by 60x.
 * So each key's share of its own table is compared, in percentage points:
 *
 *	delta = 100 * (now / now_total - base / base_total)
 *
 * The pairing of the two tables is render/diff.c's (fp_folded_diff: one
 * two-count entry per key, count = baseline, count2 = now), so this view,
 * fp-flamegraph --diff and fp-serve's differential agree on what a stack
 * is. A key is the whole folded stack (FP_BASE_BY_STACK) or a function's
 * self time (FP_BASE_BY_FUNCTION: the leaf frame of each stack, summed
 * over every path that reaches it).
 *
 * Alerts (fp_alerts): a key fires once when its delta reaches PCT points,
 * and again only after it fell back below PCT / 2 (the half keeps a key
 * hovering at the threshold from firing every evaluation). A key absent
 * from both tables has fallen back.
 *
 * Calling sequence:
 *	struct fp_folded base, now, kb, kn, d;
 *	fp_baseline_keyed(&kb, &base, FP_BASE_BY_FUNCTION);	// refs base's strings
 *	fp_baseline_keyed(&kn, &now, FP_BASE_BY_FUNCTION);
 *	fp_folded_diff(&d, &kb, &kn);
 *	for (i = 0; i < d.n; i++) delta = fp_baseline_delta(&d, i);
 *	fp_alerts_check(&al, &d, fire, ctx);
 *	fp_folded_free(&d); fp_folded_free(&kn); fp_folded_free(&kb);
 */
#ifndef FP_BASELINE_H
#define FP_BASELINE_H

#include "diff.h"
#include "folded.h"
#include "fp_strtab.h"

enum fp_base_by { FP_BASE_BY_STACK, FP_BASE_BY_FUNCTION };

/* out = in by key (merged, sorted); out references in's strings. */
void fp_baseline_keyed(struct fp_folded *out, const struct fp_folded *in, enum fp_base_by by);
/* The leaf frame of a folded stack (the whole stack if it has one frame). */
const char *fp_baseline_leaf(const char *stack, size_t len, size_t *n);

/* Shares in percent of a differential table's entry i (count: baseline,
 * count2: now; a table with a total of 0 has shares of 0). */
double fp_baseline_share_base(const struct fp_folded *d, size_t i);
double fp_baseline_share_now(const struct fp_folded *d, size_t i);
/* share_now - share_base, in percentage points. */
double fp_baseline_delta(const struct fp_folded *d, size_t i);

/* The n keys that grew most (grew = 1) or shrank most (grew = 0), by
 * delta, into idx (entry indexes of d, biggest change first); how many
 * (only keys that changed that way). */
size_t fp_baseline_top(const struct fp_folded *d, int grew, size_t *idx, size_t n);

struct fp_alerts {
	double pct;            /* fire at delta >= pct */
	double rearm;          /* fire again only after delta < rearm */
	struct fp_strtab keys; /* keys met; ent.count: 1 while fired */
	uint64_t *seen;        /* by key id: the check that last met it */
	size_t seen_cap;
	uint64_t checks;
	uint64_t fired; /* alerts given */
};

typedef void fp_alert_fn(void *ctx, const struct fp_folded *d, size_t i, double delta);

void fp_alerts_init(struct fp_alerts *a, double pct);
void fp_alerts_free(struct fp_alerts *a);
/* Runs the rule above over d; calls fire for each new alert; how many. */
size_t fp_alerts_check(struct fp_alerts *a, const struct fp_folded *d, fp_alert_fn *fire,
		       void *ctx);

#endif
