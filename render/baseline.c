/* baseline.c: a folded table against a baseline, by share (baseline.h). */
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "fp_error.h"

const char *fp_baseline_leaf(const char *stack, size_t len, size_t *n)
{
	const char *p = stack + len;

	while (p > stack && p[-1] != ';')
		p--;
	*n = (size_t)(stack + len - p);
	return p;
}

void fp_baseline_keyed(struct fp_folded *out, const struct fp_folded *in, enum fp_base_by by)
{
	fp_folded_init(out);
	for (size_t i = 0; i < in->n; i++) {
		const struct fp_folded_entry *e = &in->e[i];
		uint64_t c = in->two_counts ? e->count2 : e->count;
		size_t n = e->len;
		const char *k = by == FP_BASE_BY_FUNCTION ? fp_baseline_leaf(e->stack, e->len, &n)
							  : e->stack;

		if (c)
			fp_folded_add(out, k, n, c, 0, FP_FOLDED_REF);
	}
	fp_folded_merge(out);
}

static double share(uint64_t c, uint64_t total)
{
	return total ? 100.0 * (double)c / (double)total : 0.0;
}

double fp_baseline_share_base(const struct fp_folded *d, size_t i)
{
	return share(d->e[i].count, d->total);
}

double fp_baseline_share_now(const struct fp_folded *d, size_t i)
{
	return share(d->e[i].count2, d->total2);
}

double fp_baseline_delta(const struct fp_folded *d, size_t i)
{
	return fp_baseline_share_now(d, i) - fp_baseline_share_base(d, i);
}

size_t fp_baseline_top(const struct fp_folded *d, int grew, size_t *idx, size_t n)
{
	size_t k = 0;

	/* insertion into a short sorted list: n is a screenful */
	for (size_t i = 0; i < d->n && n; i++) {
		double v = fp_baseline_delta(d, i) * (grew ? 1 : -1);
		size_t j;

		if (v <= 0 || (k == n && v <= fp_baseline_delta(d, idx[k - 1]) * (grew ? 1 : -1)))
			continue;
		if (k < n)
			k++;
		for (j = k - 1; j > 0 && fp_baseline_delta(d, idx[j - 1]) * (grew ? 1 : -1) < v;
		     j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	return k;
}

void fp_alerts_init(struct fp_alerts *a, double pct)
{
	memset(a, 0, sizeof *a);
	a->pct = pct;
	a->rearm = pct / 2;
	fp_strtab_init(&a->keys);
}

void fp_alerts_free(struct fp_alerts *a)
{
	fp_strtab_free(&a->keys);
	free(a->seen);
}

size_t fp_alerts_check(struct fp_alerts *a, const struct fp_folded *d, fp_alert_fn *fire, void *ctx)
{
	size_t fired = 0;

	a->checks++;
	for (size_t i = 0; i < d->n; i++) {
		double delta = fp_baseline_delta(d, i);
		uint32_t id = fp_strtab_find(&a->keys, d->e[i].stack, d->e[i].len);

		if (id == FP_STRTAB_NONE) {
			if (delta < a->pct)
				continue; /* only keys that fired are kept */
			id = fp_strtab_intern(&a->keys, d->e[i].stack, d->e[i].len, NULL);
		}
		if (id >= a->seen_cap) {
			size_t cap = a->seen_cap ? a->seen_cap * 2 : 64;

			while (cap <= id)
				cap *= 2;
			a->seen = fp_xrealloc(a->seen, cap * sizeof *a->seen);
			memset(a->seen + a->seen_cap, 0, (cap - a->seen_cap) * sizeof *a->seen);
			a->seen_cap = cap;
		}
		a->seen[id] = a->checks;
		if (delta >= a->pct && !a->keys.ent[id].count) {
			a->keys.ent[id].count = 1;
			a->fired++;
			fired++;
			fire(ctx, d, i, delta);
		} else if (delta < a->rearm) {
			a->keys.ent[id].count = 0;
		}
	}
	/* a fired key in neither table has fallen back */
	for (size_t id = 0; id < fp_strtab_count(&a->keys); id++)
		if (a->seen[id] != a->checks)
			a->keys.ent[id].count = 0;
	return fired;
}
