/* u-digtab.c: the digest table (lib/fp_digtab.c): strings numbered by
 * their 128-bit digests, none of their bytes kept. */
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "fp_digtab.h"

#define MANY 200000

static uint32_t intern(struct fp_digtab *t, const char *s, size_t n, int *added)
{
	return fp_digtab_intern(t, fp_digtab_digest(t, s, n), added);
}

static void equal_strings_get_one_id_and_new_ones_the_next(void **state)
{
	struct fp_digtab t;
	int added;

	fp_digtab_init(&t);
	assert_int_equal(intern(&t, "", 0, &added), 0);
	assert_true(added);
	assert_int_equal(intern(&t, "main", 4, &added), 1);
	assert_true(added);
	assert_int_equal(intern(&t, "main", 4, &added), 1);
	assert_false(added);
	assert_int_equal(intern(&t, "mai", 3, NULL), 2); /* a prefix is another string */
	assert_int_equal(intern(&t, "a\0b", 3, NULL), 3);
	assert_int_equal(intern(&t, "a\0c", 3, NULL), 4); /* bytes after a NUL count */
	assert_int_equal(fp_digtab_count(&t), 5);
	fp_digtab_free(&t);
}

static void find_adds_nothing(void **state)
{
	struct fp_digtab t;

	fp_digtab_init(&t);
	struct fp_digest d = fp_digtab_digest(&t, "tail", 4);
	assert_int_equal(fp_digtab_find(&t, d), FP_DIGTAB_NONE);
	assert_int_equal(fp_digtab_count(&t), 0);
	assert_int_equal(fp_digtab_intern(&t, d, NULL), 0);
	assert_int_equal(fp_digtab_find(&t, d), 0);
	fp_digtab_free(&t);
}

/* Long strings that differ in one byte anywhere (a stack's frame deep
 * inside ~800 bytes) are different strings. */
static void long_strings_differing_in_one_byte_are_two(void **state)
{
	struct fp_digtab t;
	char s[1000];

	fp_digtab_init(&t);
	memset(s, 'f', sizeof s);
	assert_int_equal(intern(&t, s, sizeof s, NULL), 0);
	for (size_t i = 0; i < sizeof s; i++) {
		s[i] = 'g';
		assert_int_equal(intern(&t, s, sizeof s, NULL), i + 1);
		s[i] = 'f';
	}
	assert_int_equal(intern(&t, s, sizeof s, NULL), 0);
	fp_digtab_free(&t);
}

static void many_strings_survive_the_table_growing(void **state)
{
	struct fp_digtab t;
	char buf[64];

	fp_digtab_init(&t);
	for (int i = 0; i < MANY; i++) {
		int n = snprintf(buf, sizeof buf, "event\tcomm\tuu\tframe_%d", i);
		assert_int_equal(intern(&t, buf, (size_t)n, NULL), i);
	}
	for (int i = 0; i < MANY; i += 997) {
		int n = snprintf(buf, sizeof buf, "event\tcomm\tuu\tframe_%d", i);
		assert_int_equal(fp_digtab_find(&t, fp_digtab_digest(&t, buf, (size_t)n)), i);
	}
	assert_int_equal(fp_digtab_count(&t), MANY);
	fp_digtab_free(&t);
}

/* Each table draws its own secret: input written against one process's
 * digests says nothing about the next one's. */
static void two_tables_digest_one_string_differently(void **state)
{
	struct fp_digtab a, b;

	fp_digtab_init(&a);
	fp_digtab_init(&b);
	struct fp_digest da = fp_digtab_digest(&a, "tail", 4), db = fp_digtab_digest(&b, "tail", 4);
	assert_false(da.lo == db.lo && da.hi == db.hi);
	fp_digtab_free(&a);
	fp_digtab_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(equal_strings_get_one_id_and_new_ones_the_next),
		cmocka_unit_test(find_adds_nothing),
		cmocka_unit_test(long_strings_differing_in_one_byte_are_two),
		cmocka_unit_test(many_strings_survive_the_table_growing),
		cmocka_unit_test(two_tables_digest_one_string_differently),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
