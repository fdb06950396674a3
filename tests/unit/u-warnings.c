/* u-warnings.c: warnings limited per kind, live drop reports
 * (fifo/fp_warnings.h). */
#include "unit.h"

#include <string.h>

#include "fp_warnings.h"

static const char *const kinds[2] = { "bad line", "cut" };
static char said[64][FP_WARNING_MAX];
static unsigned nsaid;

static void say(void *ctx, const char *msg)
{
	if (nsaid < 64)
		strcpy(said[nsaid], msg);
	nsaid++;
}

static void the_first_of_each_kind_are_said_then_counted_and_totalled(void **state)
{
	struct fp_warnings w;

	nsaid = 0;
	fp_warnings_init(&w, kinds, 2, say, NULL);
	for (int i = 0; i < FP_WARNINGS_SHOWN + 5; i++)
		fp_warnings_say(&w, 0, "line %d", i);
	fp_warnings_say(&w, 1, "a\tb\nc\rd");
	assert_int_equal(nsaid, FP_WARNINGS_SHOWN + 1);
	assert_string_equal(said[0], "line 0");
	assert_string_equal(said[FP_WARNINGS_SHOWN], "a b c d"); /* one W record's text */
	fp_warnings_end(&w);
	assert_int_equal(nsaid, FP_WARNINGS_SHOWN + 2); /* only the kind that hid some */
	assert_string_equal(said[FP_WARNINGS_SHOWN + 1],
			    "5 more 'bad line' warnings not shown (15 in all)");
}

static void drops_are_reported_at_most_once_an_interval_unless_forced(void **state)
{
	struct fp_wmem m = { 0 };
	struct fp_drops d = { 0 };

	d.dropped = 3;
	fp_drops_report(&d, 10.0, 0, fp_wmem_wr(&m), "read", "in", 1);
	d.dropped = 5;
	fp_drops_report(&d, 10.5, 0, fp_wmem_wr(&m), "read", "in", 1); /* too soon */
	fp_drops_report(&d, 10.5, 1, fp_wmem_wr(&m), "read", "in", 1); /* the end */
	fp_drops_report(&d, 20.0, 1, fp_wmem_wr(&m), "read", "in", 1); /* none new */
	fp_wmem_add(&m, "", 1);
	assert_string_equal(
		m.p, "W\tread\t-\tdropped 3 samples (3 in all): the chain fell behind the live "
		     "source, which is never blocked\n"
		     "I\tread\tdropped=3\n"
		     "W\tread\t-\tdropped 2 samples (5 in all): the chain fell behind the live "
		     "source, which is never blocked\n"
		     "I\tread\tdropped=5\n");
	fp_wmem_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_first_of_each_kind_are_said_then_counted_and_totalled),
		cmocka_unit_test(drops_are_reported_at_most_once_an_interval_unless_forced),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
