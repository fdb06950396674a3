/* u-strtab.c: the interning table of the exports (render/strtab.c). */
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "fp_strtab.h"

#define MANY 100000

static void equal_strings_get_one_id_and_new_ones_the_next(void **state)
{
	struct fp_strtab t;
	int added;

	fp_strtab_init(&t);
	assert_int_equal(fp_strtab_intern(&t, "", 0, &added), 0);
	assert_true(added);
	assert_int_equal(fp_strtab_intern(&t, "main", 4, &added), 1);
	assert_true(added);
	assert_int_equal(fp_strtab_intern(&t, "main", 4, &added), 1);
	assert_false(added);
	assert_int_equal(fp_strtab_intern(&t, "mai", 3, NULL), 2);	/* a prefix is another string */
	assert_int_equal(fp_strtab_count(&t), 3);
	fp_strtab_free(&t);
}

static void strings_are_kept_nul_terminated_with_their_length(void **state)
{
	struct fp_strtab t;
	size_t n;

	fp_strtab_init(&t);
	uint32_t id = fp_strtab_intern(&t, "a\0b", 3, NULL);	/* binary keys work too */
	const char *s = fp_strtab_str(&t, id, &n);

	assert_int_equal(n, 3);
	assert_memory_equal(s, "a\0b", 4);
	fp_strtab_free(&t);
}

static void many_strings_survive_the_table_growing(void **state)
{
	struct fp_strtab t;
	char buf[32];

	fp_strtab_init(&t);
	for (int i = 0; i < MANY; i++) {
		int n = snprintf(buf, sizeof buf, "frame_%d", i);
		assert_int_equal(fp_strtab_intern(&t, buf, (size_t)n, NULL), i);
	}
	for (int i = 0; i < MANY; i += 997) {
		int n = snprintf(buf, sizeof buf, "frame_%d", i);
		assert_int_equal(fp_strtab_intern(&t, buf, (size_t)n, NULL), i);
		assert_string_equal(fp_strtab_str(&t, (uint32_t)i, NULL), buf);
	}
	fp_strtab_free(&t);
}

static void clear_forgets_every_string(void **state)
{
	struct fp_strtab t;
	int added;

	fp_strtab_init(&t);
	fp_strtab_intern(&t, "x", 1, NULL);
	fp_strtab_intern(&t, "y", 1, NULL);
	fp_strtab_clear(&t);
	assert_int_equal(fp_strtab_count(&t), 0);
	assert_int_equal(fp_strtab_intern(&t, "y", 1, &added), 0);
	assert_true(added);
	fp_strtab_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(equal_strings_get_one_id_and_new_ones_the_next),
		cmocka_unit_test(strings_are_kept_nul_terminated_with_their_length),
		cmocka_unit_test(many_strings_survive_the_table_growing),
		cmocka_unit_test(clear_forgets_every_string),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
