/* u-map.c: the integer-keyed hash table (lib/fp_map.h). */
#include "unit.h"

#include "fp_map.h"

#define MANY 200000u
#define STRIDE (1ull << 40) /* keys alike in their low 40 bits */

static void a_key_is_absent_until_put_then_keeps_its_first_value(void **state)
{
	struct fp_map m;

	fp_map_init(&m);
	assert_int_equal(fp_map_get(&m, 7, 0), FP_MAP_NONE);
	assert_int_equal(fp_map_put(&m, 7, 0, 42), 42); /* added */
	assert_int_equal(fp_map_put(&m, 7, 0, 43), 42); /* there */
	assert_int_equal(fp_map_get(&m, 7, 0), 42);
	assert_int_equal(fp_map_get(&m, 8, 0), FP_MAP_NONE);
	assert_int_equal(m.n, 1);
	fp_map_free(&m);
}

static void both_parts_of_a_key_count(void **state)
{
	struct fp_map m;

	fp_map_init(&m);
	fp_map_add(&m, 0x401000, 1, 10); /* (address, dso 1) */
	fp_map_add(&m, 0x401000, 2, 20); /* the same address in dso 2 */
	fp_map_add(&m, 1, 0x401000, 30); /* the parts swapped: another key */
	assert_int_equal(fp_map_get(&m, 0x401000, 1), 10);
	assert_int_equal(fp_map_get(&m, 0x401000, 2), 20);
	assert_int_equal(fp_map_get(&m, 1, 0x401000), 30);
	assert_int_equal(fp_map_get(&m, 0x401000, 3), FP_MAP_NONE);
	fp_map_free(&m);
}

/* Keys that differ only in high bits (seconds far apart, kernel
 * addresses) and the largest key are all told apart as the table grows. */
static void many_keys_survive_growing_even_when_alike_in_their_low_bits(void **state)
{
	struct fp_map m;

	fp_map_init(&m);
	for (uint32_t i = 0; i < MANY; i++)
		fp_map_add(&m, (uint64_t)i * STRIDE, 0, i);
	fp_map_add(&m, UINT64_MAX, UINT32_MAX, MANY);
	assert_int_equal(m.n, MANY + 1);
	assert_true(m.n * 2 <= m.mask + 1); /* at most half full */
	assert_int_equal(fp_map_bytes(&m), (m.mask + 1) * sizeof(struct fp_map_slot));
	for (uint32_t i = 0; i < MANY; i++)
		assert_int_equal(fp_map_get(&m, (uint64_t)i * STRIDE, 0), i);
	assert_int_equal(fp_map_get(&m, UINT64_MAX, UINT32_MAX), MANY);
	assert_int_equal(fp_map_get(&m, STRIDE / 2, 0), FP_MAP_NONE);
	fp_map_free(&m);
}

/* Keys whose low 32 bits are all 0 (a table indexed by a key's low bits
 * would put them in one probe run), half of them removed again: the other
 * half is still found (backward-shift deletion keeps every run whole). */
static void removing_keys_keeps_the_others_found(void **state)
{
	struct fp_map m;
	enum { N = 1000 };

	fp_map_init(&m);
	for (uint32_t i = 0; i < N; i++)
		fp_map_add(&m, (uint64_t)i << 32, 0, i);
	for (uint32_t i = 0; i < N; i += 2)
		assert_int_equal(fp_map_del(&m, (uint64_t)i << 32, 0), 1);
	assert_int_equal(fp_map_del(&m, 0, 0), 0); /* gone already */
	assert_int_equal(m.n, N / 2);
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(fp_map_get(&m, (uint64_t)i << 32, 0), i % 2 ? i : FP_MAP_NONE);
	fp_map_free(&m);
}

/* The bits of the values of key 99 that first/next reach. */
static unsigned entries_of_99(const struct fp_map *m)
{
	unsigned seen = 0;
	size_t pos = 0;

	for (uint32_t v = fp_map_first(m, 99, 0, &pos); v != FP_MAP_NONE; v = fp_map_next(m, &pos))
		seen |= 1u << v;
	return seen;
}

/* The multi-map use (fp_pairing: a hash for a longer key): the entries of
 * one key are all reached with next, and removing one keeps the others. */
static void entries_of_one_key_are_walked_with_next(void **state)
{
	struct fp_map m;
	size_t pos = 0;

	fp_map_init(&m);
	for (uint32_t i = 0; i < 5; i++) {
		fp_map_add(&m, 99, 0, i);
		fp_map_add(&m, 100 + i, 0, 100 + i); /* others in between */
	}
	assert_int_equal(entries_of_99(&m), 0x1f);
	for (uint32_t v = fp_map_first(&m, 99, 0, &pos); v != 2; v = fp_map_next(&m, &pos))
		assert_int_not_equal(v, FP_MAP_NONE);
	fp_map_del_at(&m, pos);
	assert_int_equal(entries_of_99(&m), 0x1b);
	for (uint32_t i = 0; i < 5; i++)
		assert_int_equal(fp_map_get(&m, 100 + i, 0), 100 + i);
	fp_map_free(&m);
}

/* Adding and removing keys for ever (fp_pairing's open starts) leaves no
 * debris: the table stays the size of what is in it. */
static void add_and_remove_forever_stays_small(void **state)
{
	struct fp_map m;

	fp_map_init(&m);
	for (uint64_t k = 0; k < MANY; k++) {
		fp_map_add(&m, k, 0, (uint32_t)k);
		if (k >= 8)
			assert_int_equal(fp_map_del(&m, k - 8, 0), 1);
	}
	assert_int_equal(m.n, 8);
	assert_true(m.mask + 1 <= 64);
	for (uint64_t k = MANY - 8; k < MANY; k++)
		assert_int_equal(fp_map_get(&m, k, 0), (uint32_t)k);
	fp_map_free(&m);
}

static void clear_empties_the_table_and_it_can_be_used_again(void **state)
{
	struct fp_map m;

	fp_map_init(&m);
	for (uint32_t i = 0; i < 1000; i++)
		fp_map_add(&m, i, 0, i);
	fp_map_clear(&m);
	assert_int_equal(m.n, 0);
	assert_int_equal(fp_map_get(&m, 5, 0), FP_MAP_NONE);
	assert_int_equal(fp_map_put(&m, 5, 0, 55), 55);
	assert_int_equal(fp_map_get(&m, 5, 0), 55);
	fp_map_free(&m);
	assert_int_equal(fp_map_get(&m, 5, 0), FP_MAP_NONE); /* freed is empty */
	assert_int_equal(fp_map_bytes(&m), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_key_is_absent_until_put_then_keeps_its_first_value),
		cmocka_unit_test(both_parts_of_a_key_count),
		cmocka_unit_test(many_keys_survive_growing_even_when_alike_in_their_low_bits),
		cmocka_unit_test(removing_keys_keeps_the_others_found),
		cmocka_unit_test(entries_of_one_key_are_walked_with_next),
		cmocka_unit_test(add_and_remove_forever_stays_small),
		cmocka_unit_test(clear_empties_the_table_and_it_can_be_used_again),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
