/* diff.c: two folded tables -> differential or elided table (see diff.h). */
#include "diff.h"

/* Merged single-count view of a table (a 2-count table uses count2). */
static uint64_t count_of(const struct fp_folded *t, size_t i)
{
	return t->two_counts ? t->e[i].count2 : t->e[i].count;
}

void fp_folded_diff(struct fp_folded *out, struct fp_folded *a, struct fp_folded *b)
{
	fp_folded_merge(a);
	fp_folded_merge(b);
	fp_folded_init(out);
	out->two_counts = 1;
	size_t i = 0, j = 0;
	while (i < a->n || j < b->n) {
		int c;
		if (i == a->n)
			c = 1;
		else if (j == b->n)
			c = -1;
		else
			c = fp_stack_cmp(a->e[i].stack, a->e[i].len, b->e[j].stack, b->e[j].len);
		if (c < 0) {
			fp_folded_add2(out, a->e[i].stack, a->e[i].len, count_of(a, i), 0,
				       FP_FOLDED_REF);
			i++;
		} else if (c > 0) {
			fp_folded_add2(out, b->e[j].stack, b->e[j].len, 0, count_of(b, j),
				       FP_FOLDED_REF);
			j++;
		} else {
			fp_folded_add2(out, a->e[i].stack, a->e[i].len, count_of(a, i),
				       count_of(b, j), FP_FOLDED_REF);
			i++;
			j++;
		}
	}
}

void fp_folded_elided(struct fp_folded *out, struct fp_folded *a, struct fp_folded *b)
{
	fp_folded_merge(a);
	fp_folded_merge(b);
	fp_folded_init(out);
	size_t j = 0;
	for (size_t i = 0; i < a->n; i++) {
		int c = 1;
		while (j < b->n && (c = fp_stack_cmp(a->e[i].stack, a->e[i].len, b->e[j].stack,
						     b->e[j].len)) > 0)
			j++;
		if (j == b->n || c < 0)
			fp_folded_add(out, a->e[i].stack, a->e[i].len, count_of(a, i), 0,
				      FP_FOLDED_REF);
	}
}
