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
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* The places of one byte in a run, in order, from a mask of 16 bytes at a
 * time: the frames of a folded stack are 13 bytes on average, and a
 * memchr call for each cost more than its search (11 % of fp-render).
 *
 *	struct fp_byte_iter it;
 *	fp_byte_iter_init(&it, ';', p, end);
 *	for (const char *q; (q = fp_byte_next(&it)); ) ...   // each ';' in [p, end)
 */
struct fp_byte_iter {
	const char *blk;  /* the 16 bytes mask covers */
	const char *next; /* where the next 16 start */
	const char *end;  /* the run's end */
	unsigned mask;    /* the byte's places in blk not yet taken */
	char c;
};

static inline void fp_byte_iter_init(struct fp_byte_iter *it, char c, const char *p,
				     const char *end)
{
	it->blk = it->next = p;
	it->end = end;
	it->mask = 0;
	it->c = c;
}

/* The next place of the byte, or NULL at the end of the run. */
static inline __attribute__((always_inline)) const char *fp_byte_next(struct fp_byte_iter *it)
{
	while (!it->mask) {
		if (it->end - it->next < 16) { /* the last bytes, one at a time */
			const char *q = it->next;

			while (q < it->end && *q != it->c)
				q++;
			it->next = q < it->end ? q + 1 : it->end;
			return q < it->end ? q : NULL;
		}
		it->blk = it->next;
		it->next += 16;
#ifdef __SSE2__
		it->mask = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
			_mm_loadu_si128((const __m128i *)it->blk), _mm_set1_epi8(it->c)));
#else
		for (int i = 0; i < 16; i++)
			it->mask |= (unsigned)(it->blk[i] == it->c) << i;
#endif
	}
	const char *q = it->blk + __builtin_ctz(it->mask);

	it->mask &= it->mask - 1;
	return q;
}

#endif
