/* fp_calltree.c: folded stacks -> call tree and function table (see
 * fp_calltree.h). */
#include <stdlib.h>
#include <string.h>

#include "fp_calltree.h"
#include "fp_error.h"
#include "fp_strtab.h" /* fp_add_sat */

#define ROOT_KEY 0x6a09e667f3bcc908ull

uint64_t fp_calltree_key(uint64_t parent_key, uint32_t name)
{
	uint64_t h = (parent_key ^ ((uint64_t)name + 1) * 0x9e3779b97f4a7c15ull) *
		     0xff51afd7ed558ccdull;

	return h ^ h >> 31;
}

static uint32_t new_node(struct fp_calltree *t, uint32_t parent, uint32_t name)
{
	struct fp_calltree_node *nd;
	uint32_t id = (uint32_t)t->n;

	if (t->n >= FP_MAP_MAX)
		fp_die(FP_EXIT_SYS, "call tree: more than %zu nodes", (size_t)FP_MAP_MAX);
	t->node = fp_xgrow(t->node, &t->cap, t->n + 1, sizeof *t->node, 256);
	nd = &t->node[t->n++];
	nd->name = name;
	nd->parent = parent;
	nd->child = nd->next = FP_CALLTREE_NONE;
	nd->self = nd->total = 0;
	if (parent == FP_CALLTREE_NONE) {
		nd->depth = 0;
		nd->key = ROOT_KEY;
	} else {
		struct fp_calltree_node *p = &t->node[parent];

		nd->depth = p->depth + 1;
		nd->key = fp_calltree_key(p->key, name);
		nd->next = p->child;
		p->child = id;
	}
	return id;
}

void fp_calltree_init(struct fp_calltree *t, int bottom_up)
{
	memset(t, 0, sizeof *t);
	t->bottom_up = bottom_up;
	fp_map_init(&t->kids);
	new_node(t, FP_CALLTREE_NONE, FP_CALLTREE_NONE);
}

void fp_calltree_free(struct fp_calltree *t)
{
	fp_map_free(&t->kids);
	FP_FREE_ALL(t->node, t->fn);
	memset(t, 0, sizeof *t);
}

void fp_calltree_clear(struct fp_calltree *t)
{
	fp_map_clear(&t->kids);
	t->n = 0;
	new_node(t, FP_CALLTREE_NONE, FP_CALLTREE_NONE);
	if (t->fn)
		memset(t->fn, 0, t->nfn * sizeof *t->fn);
	t->adds = 0;
}

static void count_function(struct fp_calltree *t, uint32_t name, uint64_t count, int leaf)
{
	struct fp_calltree_fn *f;

	if (name >= t->nfn)
		t->fn = fp_xgrow_zeroed(t->fn, &t->nfn, (size_t)name + 1, sizeof *t->fn);
	f = &t->fn[name];
	if (leaf)
		f->self = fp_add_sat(f->self, count);
	if (f->seen != t->adds) { /* once a stack, however deep it recurses */
		f->seen = t->adds;
		f->total = fp_add_sat(f->total, count);
	}
}

void fp_calltree_add(struct fp_calltree *t, const uint32_t *frames, size_t n, size_t skip,
		     uint64_t count)
{
	uint32_t cur = 0;

	if (!n || !count)
		return;
	t->adds++;
	t->node[0].total = fp_add_sat(t->node[0].total, count);
	for (size_t i = 0; i < n; i++) {
		uint32_t name = frames[t->bottom_up ? n - 1 - i : i];
		uint32_t next = (uint32_t)t->n;
		uint32_t got = fp_map_put(&t->kids, cur, name, next);

		if (got == next)
			new_node(t, cur, name);
		cur = got;
		t->node[cur].total = fp_add_sat(t->node[cur].total, count);
	}
	t->node[cur].self = fp_add_sat(t->node[cur].self, count);
	for (size_t i = skip; i < n; i++)
		count_function(t, frames[i], count, i == n - 1);
}

static const struct fp_calltree_node *sort_nodes;

static int by_total_desc(const void *a, const void *b)
{
	const struct fp_calltree_node *x = &sort_nodes[*(const uint32_t *)a];
	const struct fp_calltree_node *y = &sort_nodes[*(const uint32_t *)b];

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->name < y->name ? -1 : x->name > y->name;
}

void fp_calltree_sort(struct fp_calltree *t)
{
	uint32_t *kids = NULL;
	size_t cap = 0;

	sort_nodes = t->node;
	for (size_t i = 0; i < t->n; i++) {
		size_t k = 0;

		for (uint32_t c = t->node[i].child; c != FP_CALLTREE_NONE; c = t->node[c].next) {
			kids = fp_xgrow(kids, &cap, k + 1, sizeof *kids, 64);
			kids[k++] = c;
		}
		if (k < 2)
			continue;
		qsort(kids, k, sizeof *kids, by_total_desc);
		t->node[i].child = kids[0];
		for (size_t j = 0; j + 1 < k; j++)
			t->node[kids[j]].next = kids[j + 1];
		t->node[kids[k - 1]].next = FP_CALLTREE_NONE;
	}
	free(kids);
}

static const struct fp_calltree_fn *sort_fns;
static int sort_by_total;

static int fn_desc(const void *a, const void *b)
{
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	const struct fp_calltree_fn *x = &sort_fns[ia], *y = &sort_fns[ib];
	uint64_t kx = sort_by_total ? x->total : x->self, ky = sort_by_total ? y->total : y->self;
	uint64_t sx = sort_by_total ? x->self : x->total, sy = sort_by_total ? y->self : y->total;

	if (kx != ky)
		return kx < ky ? 1 : -1;
	if (sx != sy)
		return sx < sy ? 1 : -1;
	return ia < ib ? -1 : ia > ib;
}

size_t fp_calltree_functions(const struct fp_calltree *t, int by_total, uint32_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nfn; i++)
		if (t->fn[i].total)
			out[n++] = (uint32_t)i;
	sort_fns = t->fn;
	sort_by_total = by_total;
	qsort(out, n, sizeof *out, fn_desc);
	return n;
}
