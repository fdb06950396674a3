/* tui_diff.c: fp-tui's differential against a baseline (--baseline FILE,
 * the d key): each function's share of the range's self time now against
 * its share of the baseline's, in percentage points, biggest growth first.
 * The engine is render/baseline.c's (fp-baseline's alerts, fp-serve's
 * differential), by function: a key is a leaf frame, so "now" is the
 * trees' self time per function and the baseline is keyed the same way.
 * The baseline is read once (render/baseload.c: a folded
 * file, or a capture folded by the stages); the table is rebuilt with the
 * trees (tui_view_build). */
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "baseload.h"
#include "fp_error.h"
#include "tui.h"

int tui_diff_load(struct tui *t, const char *path, char *err, size_t errsz)
{
	fp_folded_init(&t->base);
	fp_folded_init(&t->kbase);
	fp_folded_init(&t->dnow);
	fp_folded_init(&t->dtab);
	if (fp_baseload(path, NULL, NULL, &t->base, err, errsz) < 0)
		return -1;
	fp_baseline_keyed(&t->kbase, &t->base, FP_BASE_BY_FUNCTION);
	t->have_base = 1;
	return 0;
}

static const struct fp_folded *cmp_tab;

static int by_growth(const void *a, const void *b)
{
	double da = fp_baseline_delta(cmp_tab, *(const size_t *)a);
	double db = fp_baseline_delta(cmp_tab, *(const size_t *)b);

	if (da != db)
		return da < db ? 1 : -1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1; /* by name */
}

void tui_diff_build(struct tui *t)
{
	if (!t->have_base)
		return;
	fp_folded_free(&t->dtab);
	fp_folded_clear(&t->dnow);
	for (size_t i = 0; i < t->td.nfn; i++) {
		size_t n;
		const char *name;

		if (!t->td.fn[i].self)
			continue;
		name = fp_strtab_str(&t->m.names, (uint32_t)i, &n);
		fp_folded_add(&t->dnow, name, n, t->td.fn[i].self, 0, FP_FOLDED_COPY);
	}
	fp_folded_diff(&t->dtab, &t->kbase, &t->dnow);
	if (t->dtab.n > t->cap_didx) {
		t->cap_didx = t->dtab.n;
		t->didx = fp_xrealloc(t->didx, t->cap_didx * sizeof *t->didx);
	}
	for (size_t i = 0; i < t->dtab.n; i++)
		t->didx[i] = i;
	cmp_tab = &t->dtab;
	qsort(t->didx, t->dtab.n, sizeof *t->didx, by_growth);
	t->ndidx = t->dtab.n;
}

void tui_diff_free(struct tui *t)
{
	if (!t->have_base)
		return;
	fp_folded_free(&t->dtab);
	fp_folded_free(&t->dnow);
	fp_folded_free(&t->kbase);
	fp_folded_free(&t->base);
	free(t->didx);
}
