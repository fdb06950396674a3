/* u-words.c: word tables (lib/fp_words.h). */
#include "unit.h"

#include "fp_words.h"

enum { RED = 1, BLUE = 2, CYAN = 3 };

static const struct fp_word colours[] = {
	{ "red", RED },
	{ "blue", BLUE },
	{ "bluegreen", CYAN },
	{ "aqua", CYAN },
};

static void a_word_is_matched_whole_and_bytewise(void **state)
{
	assert_int_equal(fp_word_value(colours, FP_WORDS(colours), LINE("red"), -1), RED);
	assert_int_equal(fp_word_value(colours, FP_WORDS(colours), LINE("bluegreen"), -1), CYAN);
	assert_int_equal(fp_word_value(colours, FP_WORDS(colours), "blueX", 4, -1), BLUE);
	assert_int_equal(fp_word_value(colours, FP_WORDS(colours), LINE("blu"), -1), -1);
	assert_int_equal(fp_word_value(colours, FP_WORDS(colours), LINE("redd"), -1), -1);
	assert_int_equal(fp_word_value(colours, FP_WORDS(colours), LINE("Red"), -1), -1);
	assert_int_equal(fp_word_value(colours, FP_WORDS(colours), LINE(""), -7), -7);
}

static void a_value_names_its_first_word(void **state)
{
	assert_string_equal(fp_word_name(colours, FP_WORDS(colours), CYAN, "?"), "bluegreen");
	assert_string_equal(fp_word_name(colours, FP_WORDS(colours), 9, "?"), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_word_is_matched_whole_and_bytewise),
		cmocka_unit_test(a_value_names_its_first_word),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
