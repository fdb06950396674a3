/* u-rangectl.c: the fp-range control-line parser (fifo/fp_rangectl.c). */
#include "unit.h"

#include <string.h>

#include "fp_rangectl.h"

/* The command of the last parse() and its reason when refused. */
static struct fp_rangectl_cmd c;
static const char *why;

static int parse(const char *line)
{
	return fp_rangectl_parse(line, strlen(line), &c, &why);
}

static void range_bounds_parse_to_nanoseconds_and_dash_is_open(void **state)
{
	assert_int_equal(parse("range 1.25 3"), 0);
	assert_int_equal(c.kind, FP_RC_RANGE);
	assert_true(c.has_from && c.has_to);
	assert_true(c.from_ns == 1250000000ull && c.to_ns == 3000000000ull);
	assert_int_equal(parse("  range   -\t0.000000001  \r"), 0);
	assert_false(c.has_from);
	assert_true(c.has_to && c.to_ns == 1);
	assert_int_equal(parse("range - -"), 0);
	assert_false(c.has_from || c.has_to);
}

static void bad_ranges_are_rejected_with_a_reason(void **state)
{
	static const char *const bad[] = {
		"range",      "range 1",   "range 1 2 3",          "range x 2", "range 1 2s",
		"range -1 2", "range 3 2", "range 1.0000000001 2", "range . 2",
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why = NULL;
		assert_int_equal(parse(bad[i]), -1);
		assert_non_null(why);
		assert_true(strlen(why) > 0);
	}
}

static void id_lists_are_validated_and_iterated(void **state)
{
	const char *cur, *end;
	struct fp_str item;
	int n = 0;

	assert_int_equal(parse("pid 1,-1,2147483647"), 0);
	assert_int_equal(c.kind, FP_RC_PID);
	assert_false(c.off);
	cur = c.arg.p;
	end = c.arg.p + c.arg.n;
	while (fp_rangectl_next_item(&cur, end, &item))
		n++;
	assert_int_equal(n, 3);
	assert_int_equal(parse("cpu -"), 0);
	assert_true(c.off);
	assert_int_equal(parse("tid 1,,2"), -1);
	assert_int_equal(parse("tid 1,"), -1);
	assert_int_equal(parse("tid 2147483648"), -1);
	assert_int_equal(parse("tid a"), -1);
	assert_int_equal(parse("pid"), -1);
}

static void names_and_regexes_take_the_rest_of_the_line(void **state)
{
	assert_int_equal(parse("comm Web Content,bash "), 0);
	assert_int_equal(c.kind, FP_RC_COMM);
	assert_int_equal(c.arg.n, strlen("Web Content,bash"));
	assert_int_equal(parse("include ^app;(a|b) c$"), 0);
	assert_int_equal(c.kind, FP_RC_INCLUDE);
	assert_true(c.arg.n == strlen("^app;(a|b) c$") &&
		    !memcmp(c.arg.p, "^app;(a|b) c$", c.arg.n));
	assert_int_equal(parse("exclude -"), 0);
	assert_true(c.off);
	assert_int_equal(parse("event a,"), -1);
	assert_int_equal(parse("container pod-.*/3f6c 1a"), 0);
	assert_int_equal(c.kind, FP_RC_CONTAINER);
	assert_true(c.arg.n == strlen("pod-.*/3f6c 1a") &&
		    !memcmp(c.arg.p, "pod-.*/3f6c 1a", c.arg.n));
	assert_int_equal(parse("container -"), 0);
	assert_true(c.off);
	assert_int_equal(parse("container"), -1);
}

static void blank_and_comment_lines_are_nothing_unknown_words_are_errors(void **state)
{
	assert_int_equal(parse(""), 0);
	assert_int_equal(c.kind, FP_RC_NONE);
	assert_int_equal(parse("   \r"), 0);
	assert_int_equal(c.kind, FP_RC_NONE);
	assert_int_equal(parse("# range 1 2"), 0);
	assert_int_equal(c.kind, FP_RC_NONE);
	assert_int_equal(parse("clear"), 0);
	assert_int_equal(c.kind, FP_RC_CLEAR);
	assert_int_equal(parse("replay"), 0);
	assert_int_equal(c.kind, FP_RC_REPLAY);
	assert_int_equal(parse("clear now"), -1);
	assert_int_equal(parse("Range 1 2"), -1);
	assert_int_equal(parse("ranges 1 2"), -1);
}

static void seconds_are_formatted_without_trailing_zeros(void **state)
{
	char buf[FP_RANGECTL_SECONDS_MAX];

	assert_string_equal(fp_rangectl_format_seconds(0, buf), "0");
	assert_string_equal(fp_rangectl_format_seconds(2000000000ull, buf), "2");
	assert_string_equal(fp_rangectl_format_seconds(1500000000ull, buf), "1.5");
	assert_string_equal(fp_rangectl_format_seconds(1, buf), "0.000000001");
	assert_string_equal(fp_rangectl_format_seconds(UINT64_MAX, buf), "18446744073.709551615");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(range_bounds_parse_to_nanoseconds_and_dash_is_open),
		cmocka_unit_test(bad_ranges_are_rejected_with_a_reason),
		cmocka_unit_test(id_lists_are_validated_and_iterated),
		cmocka_unit_test(names_and_regexes_take_the_rest_of_the_line),
		cmocka_unit_test(blank_and_comment_lines_are_nothing_unknown_words_are_errors),
		cmocka_unit_test(seconds_are_formatted_without_trailing_zeros),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
