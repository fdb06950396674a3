/* fp_bytes.h: byte runs compared a word at a time, for the hot paths that
 * compare short strings they already expect to be equal (fp-read's dso
 * cache, fp_strtab's front cache): a memcmp call per compare was 3 % of
 * fp-read and a quarter of a front-cache hit.
 */
#ifndef FP_BYTES_H
#define FP_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* a[0..n) == b[0..n) for n >= 8: 8 bytes at a time, the last 8 overlapping. */
static inline __attribute__((always_inline)) int fp_bytes_equal(const char *a, const char *b,
								size_t n)
{
	uint64_t x, y;

	for (size_t i = 0; i + 8 < n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	memcpy(&x, a + n - 8, 8);
	memcpy(&y, b + n - 8, 8);
	return x == y;
}

#endif
