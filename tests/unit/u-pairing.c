/* u-pairing.c: stages/fp-latency/fp_pairing.c, fp-latency's engine: pairing in time
 * order through the reorder window, nesting, cancel, and the two memory
 * bounds (issue 14 #6). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "fp_pairing.h"

static uint64_t last_lat;
static int intervals, limits[2];

static void on_interval(void *ctx, const struct fp_action *end, uint64_t start_ns)
{
	(void)ctx;
	last_lat = end->ts_ns - start_ns;
	intervals++;
}

static void on_limit(void *ctx, enum fp_pairing_limit which)
{
	(void)ctx;
	limits[which]++;
}

static void setup(struct fp_pairing *pg, uint64_t window, size_t max_open, size_t max_pending)
{
	fp_pairing_init(pg, 1, window, max_open, max_pending);
	pg->on_interval = on_interval;
	pg->on_limit = on_limit;
	intervals = limits[0] = limits[1] = 0;
}

static void add(struct fp_pairing *pg, uint64_t ts, enum fp_role role, const char *key)
{
	fp_pairing_add(pg, ts, 0, role, key, strlen(key));
	fp_pairing_release(pg, 0);
}

static void out_of_order_events_pair_in_time_order(void **state)
{
	struct fp_pairing pg;

	setup(&pg, 100, 10, 10);
	add(&pg, 50, FP_ROLE_END, "k"); /* printed before its start */
	add(&pg, 10, FP_ROLE_START, "k");
	assert_int_equal(fp_pairing_pending(&pg), 2);
	add(&pg, 200, FP_ROLE_START, "x"); /* the window has passed for both */
	assert_int_equal(intervals, 1);
	assert_int_equal(last_lat, 40);
	assert_true(pg.stats[0].count == 1 && pg.stats[0].unmatched_ends == 0 && pg.late == 0);
	fp_pairing_free(&pg);
}

static void starts_nest_and_cancel_drops_them(void **state)
{
	struct fp_pairing pg;
	uint64_t open;

	setup(&pg, 0, 10, 10);
	add(&pg, 1, FP_ROLE_START, "k");
	add(&pg, 2, FP_ROLE_START, "k");
	add(&pg, 5, FP_ROLE_END, "k"); /* closes the latest: 3 */
	assert_int_equal(last_lat, 3);
	add(&pg, 6, FP_ROLE_CANCEL, "k");
	fp_pairing_release(&pg, 1);
	fp_pairing_open(&pg, &open);
	assert_true(open == 0 && pg.stats[0].cancelled == 1 && pg.stats[0].count == 1);
	assert_int_equal(fp_pairing_bucket(0), 1);
	assert_int_equal(fp_pairing_bucket(3), 3);
	fp_pairing_free(&pg);
}

static void max_open_drops_and_counts_starts_of_new_keys(void **state)
{
	struct fp_pairing pg;
	char key[16];
	uint64_t open;

	setup(&pg, 0, 3, 100);
	for (int i = 0; i < 10; i++) {
		snprintf(key, sizeof key, "%d", i);
		add(&pg, (uint64_t)i, FP_ROLE_START, key);
	}
	add(&pg, 20, FP_ROLE_START, "1"); /* an open key still nests */
	fp_pairing_release(&pg, 1);
	fp_pairing_open(&pg, &open);
	assert_true(open == 4 && pg.dropped_starts == 7 && limits[FP_LIMIT_OPEN] == 1);
	fp_pairing_free(&pg);
}

static void max_pending_pairs_the_oldest_early(void **state)
{
	struct fp_pairing pg;

	setup(&pg, 1000000, 100, 2); /* a long window, two waiting */
	fp_pairing_add(&pg, 1, 0, FP_ROLE_START, "k", 1);
	fp_pairing_add(&pg, 2, 0, FP_ROLE_END, "k", 1);
	fp_pairing_add(&pg, 3, 0, FP_ROLE_START, "k", 1); /* the START at 1 goes */
	fp_pairing_add(&pg, 4, 0, FP_ROLE_END, "k", 1);   /* the END at 2: paired */
	assert_int_equal(intervals, 1);
	assert_true(fp_pairing_pending(&pg) == 2 && pg.early == 2 && limits[FP_LIMIT_PENDING] == 1);
	fp_pairing_release(&pg, 1);
	assert_true(intervals == 2 && pg.stats[0].count == 2 && pg.stats[0].max_ns == 1);
	fp_pairing_free(&pg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(out_of_order_events_pair_in_time_order),
		cmocka_unit_test(starts_nest_and_cancel_drops_them),
		cmocka_unit_test(max_open_drops_and_counts_starts_of_new_keys),
		cmocka_unit_test(max_pending_pairs_the_oldest_early),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
