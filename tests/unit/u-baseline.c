/* u-baseline.c: the comparison with a baseline by share (render/baseline.h)
 * and fp-baseline's window of sample time (stages/fp-baseline/fp_basewin.h). */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "fp_basewin.h"

/* t from "stack count" lines joined by '\n' (copied). */
static void table(struct fp_folded *t, const char *text)
{
	fp_folded_init(t);
	fp_folded_parse_buffer(t, text, strlen(text), FP_FOLDED_COPY);
}

/* The differential by key of base and now (the tables stay alive: d
 * references their strings). */
struct cmp {
	struct fp_folded base, now, kb, kn, d;
};

static void compare(struct cmp *c, const char *base, const char *now, enum fp_base_by by)
{
	table(&c->base, base);
	table(&c->now, now);
	fp_baseline_keyed(&c->kb, &c->base, by);
	fp_baseline_keyed(&c->kn, &c->now, by);
	fp_folded_diff(&c->d, &c->kb, &c->kn);
}

static void cmp_free(struct cmp *c)
{
	fp_folded_free(&c->d);
	fp_folded_free(&c->kn);
	fp_folded_free(&c->kb);
	fp_folded_free(&c->now);
	fp_folded_free(&c->base);
}

static size_t find(const struct fp_folded *d, const char *key)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->e[i].len == strlen(key) && !memcmp(d->e[i].stack, key, d->e[i].len))
			return i;
	fail_msg("no key %s", key);
	return 0;
}

static void shares_not_counts(void **state)
{
	struct cmp c;

	(void)state;
	/* a: 25 % of the baseline, 50 % now (the counts are 10x apart) */
	compare(&c, "x;a 10\nx;b 30\n", "x;a 200\nx;b 200\n", FP_BASE_BY_STACK);
	size_t a = find(&c.d, "x;a"), b = find(&c.d, "x;b");
	assert_float_equal(fp_baseline_delta(&c.d, a), 25.0, 1e-9);
	assert_float_equal(fp_baseline_delta(&c.d, b), -25.0, 1e-9);
	assert_float_equal(fp_baseline_share_base(&c.d, a), 25.0, 1e-9);
	assert_float_equal(fp_baseline_share_now(&c.d, a), 50.0, 1e-9);
	cmp_free(&c);
}

static void a_new_key_has_no_baseline_share(void **state)
{
	struct cmp c;

	(void)state;
	compare(&c, "x;old 10\n", "x;old 1\nx;new 3\n", FP_BASE_BY_STACK);
	size_t n = find(&c.d, "x;new");
	assert_float_equal(fp_baseline_share_base(&c.d, n), 0.0, 1e-9);
	assert_float_equal(fp_baseline_delta(&c.d, n), 75.0, 1e-9);
	cmp_free(&c);
}

static void by_function_sums_the_leaf_over_paths(void **state)
{
	struct cmp c;

	(void)state;
	/* memcpy from two callers: 2 x 20 % now, 10 % before */
	compare(&c, "p;main;memcpy 1\np;main;work 9\n",
		"p;a;memcpy 2\np;b;memcpy 2\np;main;work 6\n", FP_BASE_BY_FUNCTION);
	assert_int_equal(c.d.n, 2);
	assert_float_equal(fp_baseline_delta(&c.d, find(&c.d, "memcpy")), 30.0, 1e-9);
	assert_float_equal(fp_baseline_delta(&c.d, find(&c.d, "work")), -30.0, 1e-9);
	size_t n;
	assert_string_equal(fp_baseline_leaf("comm", 4, &n), "comm");
	assert_int_equal(n, 4);
	cmp_free(&c);
}

static void top_is_biggest_change_first(void **state)
{
	struct cmp c;
	size_t idx[2];

	(void)state;
	compare(&c, "a 50\nb 50\n", "a 10\nb 20\nc 30\nd 40\n", FP_BASE_BY_STACK);
	assert_int_equal(fp_baseline_top(&c.d, 1, idx, 2), 2);
	assert_int_equal(idx[0], find(&c.d, "d"));
	assert_int_equal(idx[1], find(&c.d, "c"));
	assert_int_equal(fp_baseline_top(&c.d, 0, idx, 2), 2);
	assert_int_equal(idx[0], find(&c.d, "a"));
	assert_int_equal(idx[1], find(&c.d, "b"));
	cmp_free(&c);
}

static size_t fired;
static void count_fire(void *ctx, const struct fp_folded *d, size_t i, double delta)
{
	(void)ctx;
	(void)d;
	(void)i;
	(void)delta;
	fired++;
}

/* One check of the alerts: now has `pct` % in x;hot, the rest in x;cold;
 * the baseline is all x;cold. How many fired. */
static size_t check_at(struct fp_alerts *al, unsigned pct)
{
	char now[64];
	struct cmp c;

	snprintf(now, sizeof now, "x;hot %u\nx;cold %u\n", pct, 100 - pct);
	compare(&c, "x;cold 10\n", pct ? now : "x;cold 10\n", FP_BASE_BY_STACK);
	fired = 0;
	fp_alerts_check(al, &c.d, count_fire, NULL);
	cmp_free(&c);
	return fired;
}

static void alert_once_until_back_below_half(void **state)
{
	struct fp_alerts al;

	(void)state;
	fp_alerts_init(&al, 20);
	assert_int_equal(check_at(&al, 19), 0);
	assert_int_equal(check_at(&al, 20), 1); /* at PCT: fires */
	assert_int_equal(check_at(&al, 60), 0); /* still above: once */
	assert_int_equal(check_at(&al, 15), 0); /* below PCT, above PCT/2: not rearmed */
	assert_int_equal(check_at(&al, 25), 0);
	assert_int_equal(check_at(&al, 9), 0); /* below PCT/2: rearmed */
	assert_int_equal(check_at(&al, 30), 1);
	assert_int_equal(check_at(&al, 0), 0); /* gone from both tables: rearmed */
	assert_int_equal(check_at(&al, 30), 1);
	assert_int_equal(al.fired, 3);
	fp_alerts_free(&al);
}

static void window_holds_the_last_complete_steps(void **state)
{
	struct fp_basewin w;
	const uint64_t step = 250; /* ns, for the test */

	(void)state;
	fp_basewin_init(&w, step, 4);
	assert_int_equal(fp_basewin_add(&w, 0, 0, 1), 0); /* step 0 filling */
	assert_int_equal(w.total, 0);
	assert_int_equal(fp_basewin_add(&w, 260, 1, 1), 1); /* step 0 complete */
	assert_true(w.sum[0] == 1 && w.total == 1);
	assert_int_equal(fp_basewin_add(&w, 100, 0, 5), 0); /* late, in the window */
	assert_true(w.sum[0] == 6 && w.total == 6);
	/* step 5: steps 1..4 are the window, step 0 left it */
	assert_int_equal(fp_basewin_add(&w, 5 * step, 2, 1), 1);
	assert_true(w.sum[0] == 0 && w.sum[1] == 1 && w.total == 1);
	assert_int_equal(fp_basewin_add(&w, 0, 0, 1), 0); /* older than the window */
	assert_int_equal(w.late, 1);
	/* a long gap: everything leaves */
	assert_int_equal(fp_basewin_add(&w, 100 * step, 3, 1), 1);
	assert_true(w.total == 0 && w.sum[1] == 0 && w.sum[2] == 0);
	assert_int_equal(fp_basewin_add(&w, 101 * step, 3, 1), 1);
	assert_true(w.total == 1 && w.sum[3] == 1);
	fp_basewin_clear(&w);
	assert_true(w.total == 0 && w.sum[3] == 0);
	fp_basewin_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shares_not_counts),
		cmocka_unit_test(a_new_key_has_no_baseline_share),
		cmocka_unit_test(by_function_sums_the_leaf_over_paths),
		cmocka_unit_test(top_is_biggest_change_first),
		cmocka_unit_test(alert_once_until_back_below_half),
		cmocka_unit_test(window_holds_the_last_complete_steps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
