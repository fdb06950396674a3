/* fp_num.h: decimal numbers, the one parser of every record's and option's
 * numbers. */
#ifndef FP_NUM_H
#define FP_NUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Parses a whole field as an unsigned / signed decimal: 0, or -1. */
int fp_parse_u64(const char *s, size_t n, uint64_t *out);
int fp_parse_i64(const char *s, size_t n, int64_t *out);

/* The protocol's decimal numbers (fifo/PROTOCOL.md) and the options'
 * (lib/fp_opts.c): 1 to U64_DIGITS_MAX digits, no overflow, a '-' only
 * before an i64's digits. The scanner reads a number up to the TAB that
 * ends it, so a record's parser (the P, R and S records' hot path) reads
 * its fields in one pass; fp_parse_u64/i64 are the scanner on one field. */
#define FP_SCAN_TO_END 256 /* fp_scan_u64's stop for the last field: none */
#define U64_DIGITS_MAX 20  /* UINT64_MAX has 20 digits */

struct fp_num_scan {
	const char *p, *end;
	int canonical; /* every number so far as the writers write it */
};

/* Always inlined: a stream's every record is a row of numbers, and as a
 * call (registers saved and restored, stop tested at run time) a number
 * cost ~87 instructions, a quarter of fp-bucket's and fp-range's work. */
#define FP_NUM_INLINE static inline __attribute__((always_inline))

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Eight bytes at a time (SWAR): the digits of a field are found and
 * combined without a branch per digit (the branch at a field's end, and
 * the multiply-add chain per digit, were the P parser's cost). */
#define SWAR_BYTES 8
#define SWAR_ONES 0x0101010101010101ull

/* The number of digits the 8 bytes of w (the first in the lowest byte)
 * start with: a byte is flagged when it is below '0' or above '9'
 * (borrows and carries only reach bytes after the first flagged one). */
FP_NUM_INLINE unsigned swar_digits(uint64_t w)
{
	uint64_t bad = ((w - '0' * SWAR_ONES) | (w + (0x7f - '9') * SWAR_ONES)) &
		       (0x80 * SWAR_ONES);

	return bad ? (unsigned)__builtin_ctzll(bad) / 8 : SWAR_BYTES;
}

/* The value of the first n (1 .. 8) digits of w: the others are replaced
 * by leading zeros, then pairs, fours and the eight are combined. */
FP_NUM_INLINE uint64_t swar_value(uint64_t w, unsigned n)
{
	if (n < SWAR_BYTES)
		w = w << (8 * (SWAR_BYTES - n)) | ('0' * SWAR_ONES) >> (8 * n);
	w = (w & 0x0F0F0F0F0F0F0F0Full) * (10 * 256 + 1) >> 8;
	w = (w & 0x00FF00FF00FF00FFull) * (100 * 65536 + 1) >> 16;
	return (w & 0x0000FFFF0000FFFFull) * (10000ull * (1ull << 32) + 1) >> 32;
}

/* Up to 15 digits in the 16 bytes at p (of which avail are the line's):
 * their count in *n and value in *v, or 0 when the slow path must read
 * them (too close to the end of the line, or 16 digits or more). */
FP_NUM_INLINE int swar_scan(const char *p, size_t avail, size_t *n, uint64_t *v)
{
	static const uint64_t pow10[SWAR_BYTES] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
	};
	uint64_t w, w2;

	if (avail < SWAR_BYTES)
		return 0;
	memcpy(&w, p, SWAR_BYTES);
	unsigned k = swar_digits(w);
	if (k == 0) {
		*n = 0;
		return 1;
	}
	if (k < SWAR_BYTES) {
		*n = k;
		*v = swar_value(w, k);
		return 1;
	}
	if (avail < 2 * SWAR_BYTES)
		return 0;
	memcpy(&w2, p + SWAR_BYTES, SWAR_BYTES);
	unsigned k2 = swar_digits(w2);
	if (k2 == SWAR_BYTES)
		return 0;
	*n = SWAR_BYTES + k2;
	*v = swar_value(w, SWAR_BYTES) * pow10[k2] + (k2 ? swar_value(w2, k2) : 0);
	return 1;
}
#else
FP_NUM_INLINE int swar_scan(const char *p, size_t avail, size_t *n, uint64_t *v)
{
	return 0;
}
#endif

/* Reads an unsigned decimal from sc->p up to stop (a TAB, then skipped)
 * or the end of the line (stop FP_SCAN_TO_END). 0, or -1. Up to 19 digits
 * cannot overflow; 20 are compared with UINT64_MAX's. */
FP_NUM_INLINE int fp_scan_u64(struct fp_num_scan *sc, int stop, uint64_t *out)
{
	static const char max_digits[] = "18446744073709551615";
	const char *p = sc->p, *s = p, *end = sc->end;
	uint64_t v = 0;
	size_t n;

	if (swar_scan(p, (size_t)(end - p), &n, &v)) {
		p += n;
	} else {
		for (; p < end; p++) {
			unsigned d = (unsigned char)*p - '0';

			if (d > 9)
				break;
			v = v * 10 + d;
		}
		n = (size_t)(p - s);
	}
	if (stop == FP_SCAN_TO_END ? p != end : p == end || (unsigned char)*p != stop)
		return -1;
	if (n == 0 || n > U64_DIGITS_MAX ||
	    (n == U64_DIGITS_MAX && memcmp(s, max_digits, U64_DIGITS_MAX) > 0))
		return -1;
	if (n > 1 && *s == '0')
		sc->canonical = 0;
	sc->p = stop == FP_SCAN_TO_END ? p : p + 1;
	*out = v;
	return 0;
}

/* The same for a signed decimal: a '-' before the digits. */
FP_NUM_INLINE int fp_scan_i64(struct fp_num_scan *sc, int stop, int64_t *out)
{
	uint64_t v;

	if (sc->p < sc->end && *sc->p == '-') {
		sc->p++;
		if (fp_scan_u64(sc, stop, &v) < 0 || v > (uint64_t)INT64_MAX + 1)
			return -1;
		if (v == 0)
			sc->canonical = 0; /* "-0" */
		*out = (int64_t)(0 - v);
		return 0;
	}
	if (fp_scan_u64(sc, stop, &v) < 0 || v > (uint64_t)INT64_MAX)
		return -1;
	*out = (int64_t)v;
	return 0;
}

#endif
