/* u-foldsnap.c: fold snapshots as their readers keep them, full and
 * delta (fold/fp_foldsnap.c). */
#include "unit.h"

#include <string.h>

#include "fp_foldsnap.h"

/* Feeds s one protocol line (C or F); returns what a C line did. */
static enum fp_fsnap_result feed(struct fp_foldsnap *s, const char *line)
{
	size_t len = strlen(line);
	struct fp_control c;
	struct fp_folded_rec f;

	if (line[0] == 'F') {
		assert_int_equal(fp_folded_parse(line, len, &f), 0);
		fp_foldsnap_folded(s, &f);
		return FP_FSNAP_NOTHING;
	}
	assert_int_equal(fp_control_parse(line, len, &c), 0);
	return fp_foldsnap_control(s, &c);
}

static uint64_t count_of(const struct fp_foldsnap *s, const char *stack)
{
	uint32_t id = fp_strtab_find(&s->cur, stack, strlen(stack));

	return id == FP_STRTAB_NONE ? 0 : s->cur.ent[id].count;
}

/* the full snapshot every test starts from: a;b 3, a;c 1 */
static void base(struct fp_foldsnap *s)
{
	fp_foldsnap_init(s);
	assert_int_equal(feed(s, "C\tbegin\tfold"), FP_FSNAP_BEGUN);
	feed(s, "F\t3\ta;b");
	feed(s, "F\t1\ta;c");
	assert_int_equal(feed(s, "C\tend\tfold\t2\t4"), FP_FSNAP_DONE);
}

static void a_full_snapshot_replaces_the_table_when_complete(void **state)
{
	struct fp_foldsnap s;

	base(&s);
	feed(&s, "C\tbegin\tfold");
	feed(&s, "F\t7\tx");
	assert_true(fp_foldsnap_busy(&s));
	assert_int_equal(count_of(&s, "a;b"), 3); /* not yet */
	assert_int_equal(feed(&s, "C\tend\tfold\t1\t7"), FP_FSNAP_DONE);
	assert_int_equal(count_of(&s, "a;b"), 0);
	assert_int_equal(count_of(&s, "x"), 7);
	assert_int_equal(s.stacks, 1);
	assert_int_equal(s.cur.total, 7);
	fp_foldsnap_free(&s);
}

static void a_delta_sets_the_counts_it_names_and_adds_new_stacks(void **state)
{
	struct fp_foldsnap s;

	base(&s);
	assert_int_equal(feed(&s, "C\tbegin\tfold-delta"), FP_FSNAP_BEGUN);
	feed(&s, "F\t5\ta;b");
	feed(&s, "F\t2\ta;d");
	assert_int_equal(feed(&s, "C\tend\tfold-delta\t3\t8"), FP_FSNAP_DONE);
	assert_int_equal(count_of(&s, "a;b"), 5);
	assert_int_equal(count_of(&s, "a;c"), 1); /* not named: kept */
	assert_int_equal(count_of(&s, "a;d"), 2);
	assert_int_equal(s.stacks, 3);
	assert_int_equal(s.cur.total, 8);
	assert_int_equal(s.deltas, 1);
	assert_int_equal(s.complete, 2);
	fp_foldsnap_free(&s);
}

static void a_count_of_zero_in_a_delta_takes_the_stack_out(void **state)
{
	struct fp_foldsnap s;

	base(&s);
	feed(&s, "C\tbegin\tfold-delta");
	feed(&s, "F\t0\ta;c");
	assert_int_equal(feed(&s, "C\tend\tfold-delta\t1\t3"), FP_FSNAP_DONE);
	assert_int_equal(count_of(&s, "a;c"), 0);
	assert_int_equal(s.stacks, 1);
	assert_int_equal(s.cur.total, 3);
	fp_foldsnap_free(&s);
}

static void a_delta_that_does_not_add_up_is_a_mismatch(void **state)
{
	struct fp_foldsnap s;

	base(&s);
	feed(&s, "C\tbegin\tfold-delta");
	feed(&s, "F\t5\ta;b");
	/* the end says a;d 2 was sent too: one F record was lost */
	assert_int_equal(feed(&s, "C\tend\tfold-delta\t3\t8"), FP_FSNAP_MISMATCH);
	assert_int_equal(count_of(&s, "a;b"), 5); /* applied as far as it came */
	fp_foldsnap_free(&s);
}

static void brackets_out_of_place_are_reported(void **state)
{
	struct fp_foldsnap s;

	base(&s);
	assert_int_equal(feed(&s, "C\tend\tfold-delta\t2\t4"), FP_FSNAP_END_ALONE);
	feed(&s, "C\tbegin\tfold");
	feed(&s, "F\t9\tlost");
	assert_int_equal(feed(&s, "C\tbegin\tfold"), FP_FSNAP_BEGUN_INSIDE);
	assert_int_equal(feed(&s, "C\tend\tfold-delta\t2\t4"), FP_FSNAP_END_ALONE);
	assert_int_equal(feed(&s, "C\tend\tfold\t0\t0"), FP_FSNAP_DONE); /* empty */
	assert_int_equal(count_of(&s, "lost"), 0);
	assert_int_equal(s.stacks, 0);
	assert_int_equal(feed(&s, "C\treset"), FP_FSNAP_NOTHING);
	fp_foldsnap_free(&s);
}

static void f_outside_a_snapshot_adds_to_the_table(void **state)
{
	struct fp_foldsnap s;

	base(&s);
	feed(&s, "F\t2\ta;b");
	feed(&s, "F\t1\tnew");
	assert_int_equal(count_of(&s, "a;b"), 5);
	assert_int_equal(count_of(&s, "new"), 1);
	assert_int_equal(s.cur.total, 7);
	assert_int_equal(s.stacks, 3);
	fp_foldsnap_free(&s);
}

static void a_delta_before_the_first_full_snapshot_is_skipped(void **state)
{
	struct fp_foldsnap s;

	fp_foldsnap_init(&s); /* a reader (re)started while fp-fold runs */
	assert_int_equal(feed(&s, "C\tbegin\tfold-delta"), FP_FSNAP_BEGUN);
	assert_true(fp_foldsnap_busy(&s));
	feed(&s, "F\t5\ta;b");
	assert_int_equal(feed(&s, "C\tend\tfold-delta\t3\t8"), FP_FSNAP_SKIPPED);
	assert_int_equal(count_of(&s, "a;b"), 0);
	assert_int_equal(s.stacks, 0);
	assert_int_equal(s.skipped, 1);
	assert_int_equal(s.complete, 0);
	/* the full snapshot makes the table; deltas apply from then on */
	feed(&s, "C\tbegin\tfold");
	feed(&s, "F\t3\ta;b");
	feed(&s, "F\t1\ta;c");
	assert_int_equal(feed(&s, "C\tend\tfold\t2\t4"), FP_FSNAP_DONE);
	feed(&s, "C\tbegin\tfold-delta");
	feed(&s, "F\t5\ta;b");
	assert_int_equal(feed(&s, "C\tend\tfold-delta\t2\t6"), FP_FSNAP_DONE);
	assert_int_equal(count_of(&s, "a;b"), 5);
	assert_int_equal(s.skipped, 1);
	fp_foldsnap_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_full_snapshot_replaces_the_table_when_complete),
		cmocka_unit_test(a_delta_sets_the_counts_it_names_and_adds_new_stacks),
		cmocka_unit_test(a_count_of_zero_in_a_delta_takes_the_stack_out),
		cmocka_unit_test(a_delta_that_does_not_add_up_is_a_mismatch),
		cmocka_unit_test(brackets_out_of_place_are_reported),
		cmocka_unit_test(f_outside_a_snapshot_adds_to_the_table),
		cmocka_unit_test(a_delta_before_the_first_full_snapshot_is_skipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
