/* u-bytes.c: byte runs a word or 16 bytes at a time (lib/fp_bytes.h). */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "fp_bytes.h"

/* Every run of 0-80 bytes, at each of 16 alignments, with the byte at
 * none, some and all of its places, and bytes that differ from it by one
 * bit or by the sign: each place found once, in order, and nothing past
 * the run read (it ends its allocation: ASan sees a read past). */
static void a_byte_is_found_at_each_place_in_order(void **state)
{
	static const char others[] = { 'a', ';' ^ 1, (char)(';' | 0x80), '\0', ':' };
	unsigned seed = 7;

	for (size_t n = 0; n <= 80; n++)
		for (size_t shift = 0; shift < 16; shift++)
			for (int density = 0; density < 4; density++) {
				char *buf = malloc(shift + n ? shift + n : 1), *run = buf + shift;
				size_t want[80], nwant = 0, got = 0;
				struct fp_byte_iter it;

				for (size_t i = 0; i < n; i++) {
					seed = seed * 1103515245u + 12345u;
					if (density == 3 ||
					    (density && (seed >> 16) % (4 - density) == 0)) {
						run[i] = ';';
						want[nwant++] = i;
					} else {
						run[i] = others[(seed >> 20) % sizeof others];
					}
				}
				fp_byte_iter_init(&it, ';', run, run + n);
				for (const char *q; (q = fp_byte_next(&it)); got++) {
					assert_true(got < nwant);
					assert_int_equal(q - run, want[got]);
				}
				assert_int_equal(got, nwant);
				assert_null(fp_byte_next(&it)); /* and stays at the end */
				free(buf);
			}
}

/* Started again further on (fp-render skips the frames a stack shares
 * with an earlier one), it finds the places from there. */
static void a_byte_iter_started_again_finds_the_places_after(void **state)
{
	static const char s[] = "a;bb;ccc;dddd;eeeee;ffffff;ggggggg;hhhhhhhh;i";
	const char *end = s + sizeof s - 1;
	struct fp_byte_iter it;

	fp_byte_iter_init(&it, ';', s, end);
	assert_ptr_equal(fp_byte_next(&it), s + 1);
	fp_byte_iter_init(&it, ';', s + 20, end);
	assert_ptr_equal(fp_byte_next(&it), strchr(s + 20, ';'));
	assert_ptr_equal(fp_byte_next(&it), strchr(strchr(s + 20, ';') + 1, ';'));
}

static void equal_runs_compare_equal_at_every_length(void **state)
{
	char a[40], b[40];

	for (size_t i = 0; i < sizeof a; i++)
		a[i] = b[i] = (char)('a' + i % 26);
	for (size_t n = 8; n <= sizeof a; n++) {
		assert_true(fp_bytes_equal(a, b, n));
		for (size_t k = 0; k < n; k++) {
			b[k] ^= 1;
			assert_false(fp_bytes_equal(a, b, n));
			b[k] ^= 1;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_byte_is_found_at_each_place_in_order),
		cmocka_unit_test(a_byte_iter_started_again_finds_the_places_after),
		cmocka_unit_test(equal_runs_compare_equal_at_every_length),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
