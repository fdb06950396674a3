/* u-strtab.c: the interning table (lib/fp_strtab.c) and the sort of its
 * ids by their strings (lib/fp_strsort.c). */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_hash.h"
#include "fp_strsort.h"
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
	assert_int_equal(fp_strtab_intern(&t, "mai", 3, NULL), 2); /* a prefix is another string */
	assert_int_equal(fp_strtab_count(&t), 3);
	fp_strtab_free(&t);
}

/* The front cache (fp_strtab_front_cache) answers only what the table
 * would: strings that share their first 8 bytes and length, a prefix and
 * the empty string, mixed with many that evict each other, get the ids a
 * table without the cache gives, and a cleared table forgets them. */
static void a_front_cache_gives_the_ids_the_table_gives(void **state)
{
	static const char *const tricky[] = {
		"",
		"a",
		"ab",
		"abcdefg",
		"abcdefgh",
		"abcdefghi",
		"abcdefghj",
		"abcdefgh_tail_one",
		"abcdefgh_tail_two",
		"abcdefgh_tail_one_longer",
		"reduce_expr",
		"reduce_exps",
		"parse_node",
		"parse_nodE",
	};
	struct fp_strtab with, without;
	char buf[64];
	unsigned seed = 12345;

	fp_strtab_init(&with);
	fp_strtab_init(&without);
	fp_strtab_front_cache(&with);
	for (int i = 0; i < MANY; i++) {
		const char *p;
		size_t n;
		int a1, a2;

		seed = seed * 1103515245u + 12345u;
		if (seed % 3 == 0) {
			p = tricky[(seed >> 8) % (sizeof tricky / sizeof *tricky)];
			n = strlen(p);
		} else { /* names of 1..40 bytes, few enough to repeat */
			n = (size_t)snprintf(buf, sizeof buf, "%.*s%u", (int)((seed >> 4) % 32),
					     "abcdefghijklmnopqrstuvwxyz012345",
					     (seed >> 12) % 2000);
			p = buf;
		}
		uint32_t id = fp_strtab_intern(&with, p, n, &a1);

		assert_int_equal(id, fp_strtab_intern(&without, p, n, &a2));
		assert_int_equal(a1, a2);
	}
	fp_strtab_clear(&with);
	assert_int_equal(fp_strtab_intern(&with, "parse_node", 10, NULL), 0);
	assert_int_equal(fp_strtab_intern(&with, "reduce_expr", 11, NULL), 1);
	assert_int_equal(fp_strtab_intern(&with, "parse_node", 10, NULL), 0);
	fp_strtab_free(&with);
	fp_strtab_free(&without);
}

static void strings_are_kept_nul_terminated_with_their_length(void **state)
{
	struct fp_strtab t;
	size_t n;

	fp_strtab_init(&t);
	uint32_t id = fp_strtab_intern(&t, "a\0b", 3, NULL); /* binary keys work too */
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

/* ---- fp_strtab_sort_ids ------------------------------------------------ */

static const struct fp_strtab *cmp_table;

/* the order the sort must give: memcmp, then the shorter first */
static int bytewise(const void *a, const void *b)
{
	size_t xn, yn;
	const char *x = fp_strtab_str(cmp_table, *(const uint32_t *)a, &xn);
	const char *y = fp_strtab_str(cmp_table, *(const uint32_t *)b, &yn);
	int c = memcmp(x, y, xn < yn ? xn : yn);

	return c ? c : (xn > yn) - (xn < yn);
}

/* Sorts every id of t and checks the order against qsort's bytewise one. */
/* The tail of a hashed string (1 .. 7 bytes) is read in a few loads that
 * never pass its end, and is the word a memcpy into a zeroed word gives:
 * every tail length, at every alignment, with bytes of every value. */
static void hash_tails_read_only_their_bytes_as_memcpy_would(void **state)
{
	unsigned char buf[32];

	for (unsigned seed = 0; seed < 256; seed++) {
		for (size_t i = 0; i < sizeof buf; i++)
			buf[i] = (unsigned char)(seed * 131 + i * 29 + (i >> 2));
		for (size_t at = 0; at < 8; at++)
			for (size_t n = 1; n < 8; n++) {
				char *s = malloc(n); /* exactly n: ASan flags a read past them */
				uint64_t w = 0;

				memcpy(s, buf + at, n);
				memcpy(&w, s, n);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
				assert_true(fp_hash_tail(s, n) == w);
#endif
				assert_true(fp_hash_bytes(s, n) ==
					    fp_hash_bytes((char *)buf + at, n));
				free(s);
			}
	}
}

/* ... on `threads` threads (fp_strtab_sort_ids_on). */
static void check_sorted_on(const struct fp_strtab *t, unsigned threads)
{
	size_t n = fp_strtab_count(t);
	uint32_t *got = malloc((n ? n : 1) * sizeof *got),
		 *want = malloc((n ? n : 1) * sizeof *want);

	for (size_t i = 0; i < n; i++)
		got[i] = want[i] = (uint32_t)(n - 1 - i); /* reversed: no run in order */
	cmp_table = t;
	qsort(want, n, sizeof *want, bytewise);
	if (threads == 1)
		fp_strtab_sort_ids(t, got, n);
	else
		fp_strtab_sort_ids_on(t, got, n, threads);
	assert_memory_equal(got, want, n * sizeof *got);
	free(got);
	free(want);
}

static void check_sorted(const struct fp_strtab *t)
{
	check_sorted_on(t, 1);
}

/* Prefixes (shorter first), NUL and 0xff bytes (unsigned order, NUL is
 * not the end), lengths around the 8-byte chunks, the empty string. */
static void ids_sort_bytewise_a_prefix_first(void **state)
{
	static const char *const s[] = {
		"",
		"a",
		"ab",
		"abcdefg",
		"abcdefgh",
		"abcdefghi",
		"abcdefgh\0",
		"abcdefgh\0\0",
		"abcdefgh\xff",
		"b;a",
		"a;b;c;d;e;f;g;h;i",
		"a;b;c;d;e;f;g;h;j",
		"a;b;c;d;e;f;g;h",
		"\xff\xff",
		"\x01",
		"abcdefg\0",
		"abcdefg\0\0\0\0\0\0\0\0\0",
	};
	static const size_t len[] = { 0, 1, 2, 7, 8, 9, 9, 10, 9, 3, 17, 17, 15, 2, 1, 8, 16 };
	struct fp_strtab t;

	fp_strtab_init(&t);
	for (size_t i = 0; i < sizeof s / sizeof *s; i++)
		fp_strtab_intern(&t, s[i], len[i], NULL);
	check_sorted(&t);
	fp_strtab_free(&t);
}

/* Many strings sharing long prefixes, as folded stacks do (a root, then
 * one of a few frames per level), and random bytes: the same order as
 * qsort's; none, one and two ids too. */
static void add_stacks(struct fp_strtab *t, int count, unsigned seed)
{
	static const char *const frame[] = {
		"start_thread", "do_syscall_64", "a", "ab", "entry_SYSCALL_64_after_hwframe", "x\0y"
	};
	char buf[512];

	for (int i = 0; i < count; i++) {
		size_t n = (size_t)snprintf(buf, sizeof buf, "comm%u",
					    (seed = seed * 1103515245 + 12345) >> 28);
		int depth = (int)((seed >> 16) % 24);

		for (int k = 0; k < depth && n + 40 < sizeof buf; k++) {
			seed = seed * 1103515245 + 12345;
			const char *f = frame[(seed >> 16) % (sizeof frame / sizeof *frame)];
			size_t fl = strcmp(f, "x") == 0 ? 3 : strlen(f);

			buf[n++] = ';';
			memcpy(buf + n, f, fl);
			n += fl;
		}
		if (i % 7 == 0) /* and some random bytes at the end */
			for (int k = 0; k < 5; k++)
				buf[n++] = (char)((seed = seed * 1103515245 + 12345) >> 24);
		fp_strtab_intern(t, buf, n, NULL);
	}
}

static void many_stacks_sort_as_qsort_sorts_them(void **state)
{
	struct fp_strtab t;

	fp_strtab_init(&t);
	check_sorted(&t);
	fp_strtab_intern(&t, "only", 4, NULL);
	check_sorted(&t);
	fp_strtab_intern(&t, "ONLY", 4, NULL);
	check_sorted(&t);
	add_stacks(&t, 20000, 1);
	assert_true(fp_strtab_count(&t) > 5000);
	check_sorted(&t);
	fp_strtab_free(&t);
}

/* On threads, the groups split off sorted apart: the same order, for
 * tables that are sorted on one thread (too small) and on several, and
 * one whose strings all share a long prefix (the work is handed over
 * deep down). */
static void ids_sort_on_threads_as_on_one(void **state)
{
	static const unsigned threads[] = { 2, 3, FP_STRSORT_THREADS_MAX, 64 };
	static const int sizes[] = { 0, 1, 100, 3000, 40000 };
	char prefix[300], buf[400];

	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		struct fp_strtab t;

		fp_strtab_init(&t);
		add_stacks(&t, sizes[s], (unsigned)s + 7);
		for (size_t k = 0; k < sizeof threads / sizeof *threads; k++)
			check_sorted_on(&t, threads[k]);
		fp_strtab_free(&t);
	}
	struct fp_strtab t;

	memset(prefix, 'p', sizeof prefix);
	fp_strtab_init(&t);
	for (unsigned i = 0; i < 30000; i++) {
		unsigned v = i * 2654435761u;
		int n = snprintf(buf, sizeof buf, "%.*s;%u;%x", (int)sizeof prefix, prefix, v % 97,
				 v);

		fp_strtab_intern(&t, buf, (size_t)n, NULL);
	}
	check_sorted_on(&t, 2);
	check_sorted_on(&t, 4);
	fp_strtab_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(equal_strings_get_one_id_and_new_ones_the_next),
		cmocka_unit_test(a_front_cache_gives_the_ids_the_table_gives),
		cmocka_unit_test(strings_are_kept_nul_terminated_with_their_length),
		cmocka_unit_test(many_strings_survive_the_table_growing),
		cmocka_unit_test(clear_forgets_every_string),
		cmocka_unit_test(hash_tails_read_only_their_bytes_as_memcpy_would),
		cmocka_unit_test(ids_sort_bytewise_a_prefix_first),
		cmocka_unit_test(many_stacks_sort_as_qsort_sorts_them),
		cmocka_unit_test(ids_sort_on_threads_as_on_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
