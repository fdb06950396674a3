/* u-calltree.c: the call-tree engine (fold/fp_calltree.c): folded stacks
 * -> top-down and bottom-up trees with self and total, and the functions
 * by self and total. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "fp_calltree.h"
#include "fp_strtab.h"

/* frames of a folded stack "a;b;c", interned in names */
static size_t frames(struct fp_strtab *names, const char *folded, uint32_t *out)
{
	size_t n = 0;

	for (const char *p = folded;;) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		out[n++] = fp_strtab_intern(names, p, len, NULL);
		if (!e)
			return n;
		p = e + 1;
	}
}

static void add(struct fp_calltree *t, struct fp_strtab *names, const char *folded, uint64_t count)
{
	uint32_t f[64];
	size_t n = frames(names, folded, f);

	fp_calltree_add(t, f, n, 1, count); /* the comm is not a function */
}

/* The child of node p named s, or FP_CALLTREE_NONE. */
static uint32_t child(const struct fp_calltree *t, const struct fp_strtab *names, uint32_t p,
		      const char *s)
{
	for (uint32_t c = t->node[p].child; c != FP_CALLTREE_NONE; c = t->node[c].next)
		if (!strcmp(fp_strtab_str(names, t->node[c].name, NULL), s))
			return c;
	return FP_CALLTREE_NONE;
}

static void top_down_totals_are_self_plus_children(void **state)
{
	struct fp_strtab names;
	struct fp_calltree t;

	fp_strtab_init(&names);
	fp_calltree_init(&t, 0);
	add(&t, &names, "app;main;work;hash", 5);
	add(&t, &names, "app;main;work", 2);
	add(&t, &names, "app;main;io", 3);
	fp_calltree_sort(&t);
	assert_int_equal(t.node[0].total, 10);
	uint32_t app = child(&t, &names, 0, "app"), main_ = child(&t, &names, app, "main");
	uint32_t work = child(&t, &names, main_, "work"), io = child(&t, &names, main_, "io");

	assert_int_equal(t.node[main_].total, 10);
	assert_int_equal(t.node[work].total, 7);
	assert_int_equal(t.node[work].self, 2);
	assert_int_equal(t.node[io].self, 3);
	/* sorted: the heavier child first */
	assert_int_equal(t.node[main_].child, work);
	assert_int_equal(t.node[work].depth, 3);
	for (size_t i = 0; i < t.n; i++) {
		uint64_t sum = t.node[i].self;

		for (uint32_t c = t.node[i].child; c != FP_CALLTREE_NONE; c = t.node[c].next)
			sum += t.node[c].total;
		assert_int_equal(sum, t.node[i].total);
	}
	fp_calltree_free(&t);
	fp_strtab_free(&names);
}

static void bottom_up_starts_at_the_leaves(void **state)
{
	struct fp_strtab names;
	struct fp_calltree t;

	fp_strtab_init(&names);
	fp_calltree_init(&t, 1);
	add(&t, &names, "app;main;a;hash", 4);
	add(&t, &names, "app;main;b;hash", 6);
	add(&t, &names, "app;main;b", 1);
	fp_calltree_sort(&t);
	uint32_t hash = child(&t, &names, 0, "hash");

	assert_int_not_equal(hash, FP_CALLTREE_NONE);
	assert_int_equal(t.node[hash].total, 10);
	assert_int_equal(t.node[child(&t, &names, hash, "b")].total, 6);
	assert_int_equal(t.node[child(&t, &names, hash, "a")].total, 4);
	assert_int_equal(t.node[child(&t, &names, 0, "b")].total, 1);
	assert_int_equal(t.node[0].total, 11);
	fp_calltree_free(&t);
	fp_strtab_free(&names);
}

static void recursion_counts_a_function_once_per_stack(void **state)
{
	struct fp_strtab names;
	struct fp_calltree t;
	uint32_t out[16];

	fp_strtab_init(&names);
	fp_calltree_init(&t, 0);
	add(&t, &names, "app;f;f;f", 3);
	add(&t, &names, "app;g", 1);
	uint32_t f = fp_strtab_find(&names, "f", 1), app = fp_strtab_find(&names, "app", 3);

	assert_int_equal(t.fn[f].total, 3); /* not 9 */
	assert_int_equal(t.fn[f].self, 3);
	size_t n = fp_calltree_functions(&t, 1, out);

	assert_int_equal(n, 2); /* app, the comm, is not a function */
	assert_int_equal(out[0], f);
	assert_true(app >= t.nfn || t.fn[app].total == 0);
	fp_calltree_free(&t);
	fp_strtab_free(&names);
}

static void keys_name_paths_alike_across_rebuilds(void **state)
{
	struct fp_strtab names;
	struct fp_calltree a, b;

	fp_strtab_init(&names);
	fp_calltree_init(&a, 0);
	fp_calltree_init(&b, 0);
	add(&a, &names, "app;x;y", 1);
	add(&b, &names, "app;z", 9);
	add(&b, &names, "app;x;y", 1);
	uint32_t ya = child(&a, &names, child(&a, &names, child(&a, &names, 0, "app"), "x"), "y");
	uint32_t yb = child(&b, &names, child(&b, &names, child(&b, &names, 0, "app"), "x"), "y");

	assert_int_equal(a.node[ya].key, b.node[yb].key);
	assert_int_not_equal(a.node[ya].key, a.node[a.node[ya].parent].key);
	fp_calltree_clear(&b);
	assert_int_equal(b.n, 1);
	assert_int_equal(b.node[0].total, 0);
	fp_calltree_free(&a);
	fp_calltree_free(&b);
	fp_strtab_free(&names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(top_down_totals_are_self_plus_children),
		cmocka_unit_test(bottom_up_starts_at_the_leaves),
		cmocka_unit_test(recursion_counts_a_function_once_per_stack),
		cmocka_unit_test(keys_name_paths_alike_across_rebuilds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
