/* fp_fmt.h: decimal numbers, the one writer of them for every output path
 * (fp_io's fp_out, render/'s sink, the protocol writers of fp_recwrite.c,
 * fp_perfparse's S records built in place).
 *
 * Digits are made back to front, into the end of the caller's buffer:
 *
 *	char buf[FP_FMT_I64_MAX], *end = buf + sizeof buf;
 *	char *p = fp_fmt_i64(end, v);	// the number is p .. end
 *
 * Two digits per division and inline: this runs for every number of every
 * S, H and R record.
 */
#ifndef FP_FMT_H
#define FP_FMT_H

#include <stdint.h>

#define FP_FMT_U64_MAX 20 /* digits of UINT64_MAX */
#define FP_FMT_I64_MAX 21 /* "-9223372036854775808" */

static const char fp_fmt_two_digits[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* v in decimal, ending just before end; returns where it starts (at most
 * FP_FMT_U64_MAX bytes before end). */
static inline char *fp_fmt_u64(char *end, uint64_t v)
{
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		*--end = fp_fmt_two_digits[d + 1];
		*--end = fp_fmt_two_digits[d];
	}
	if (v >= 10) {
		*--end = fp_fmt_two_digits[v * 2 + 1];
		*--end = fp_fmt_two_digits[v * 2];
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* How many digits v has: a writer that knows it puts the number where it
 * goes, p = fp_fmt_u64(d + fp_fmt_u64_len(v), v) == d, with no copy. */
static inline unsigned fp_fmt_u64_len(uint64_t v)
{
	for (unsigned n = 1;; n += 4, v /= 10000) {
		if (v < 10)
			return n;
		if (v < 100)
			return n + 1;
		if (v < 1000)
			return n + 2;
		if (v < 10000)
			return n + 3;
	}
}

/* The same for a signed number (at most FP_FMT_I64_MAX bytes). */
static inline char *fp_fmt_i64(char *end, int64_t v)
{
	if (v >= 0)
		return fp_fmt_u64(end, (uint64_t)v);
	end = fp_fmt_u64(end, (uint64_t)0 - (uint64_t)v);
	*--end = '-';
	return end;
}

#endif
