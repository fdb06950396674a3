/* fp_perftext.h: the token rules of perf script text, shared by the
 * parts of its parser (fp_perfparse.c: frames and records, fp_perfevent.c:
 * event lines). Internal to fifo/: small and inline, on the hot path. */
#ifndef FP_PERFTEXT_H
#define FP_PERFTEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Widest decimal int64/uint64, with sign. */
#define DEC_MAX 21

/* C_ADDR: may appear in perf's right-aligned address column. */
enum { C_DIGIT = 1, C_HEX = 2, C_SPACE = 4, C_ADDR = 8 };

static const unsigned char char_class[256] = {
	['0' ... '9'] = C_DIGIT | C_HEX | C_ADDR,
	['a' ... 'f'] = C_HEX | C_ADDR,
	['A' ... 'F'] = C_HEX | C_ADDR,
	[' '] = C_SPACE | C_ADDR,
	['\t'] = C_SPACE,
};

#define IS_DIGIT(c) (char_class[(unsigned char)(c)] & C_DIGIT)
#define IS_HEX(c) (char_class[(unsigned char)(c)] & C_HEX)
#define IS_SPACE(c) (char_class[(unsigned char)(c)] & C_SPACE)

static inline const char *skip_spaces(const char *p, const char *end)
{
	while (p < end && IS_SPACE(*p))
		p++;
	return p;
}

static inline const char *trim_spaces_back(const char *begin, const char *end)
{
	while (end > begin && IS_SPACE(end[-1]))
		end--;
	return end;
}

/* Strict decimal, optional leading '-'. */
static inline int parse_int(const char *s, size_t n, int64_t *out)
{
	int neg = n > 0 && s[0] == '-';
	uint64_t v = 0;
	size_t i = (size_t)neg;
	if (i == n || n - i > DEC_MAX - 3) /* at most 18 digits: no overflow */
		return -1;
	for (; i < n; i++) {
		if (!IS_DIGIT(s[i]))
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* Not empty, and every byte of the character class cls. */
static inline int all_class(const char *s, size_t n, unsigned char cls)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(char_class[(unsigned char)s[i]] & cls))
			return 0;
	return 1;
}

static inline int all_digits(const char *s, size_t n)
{
	return all_class(s, n, C_DIGIT);
}

static inline int all_hex(const char *s, size_t n)
{
	return all_class(s, n, C_HEX);
}

static inline int has_prefix(const char *s, size_t n, const char *pre, size_t pn)
{
	return n >= pn && memcmp(s, pre, pn) == 0;
}
#define HAS_PREFIX(s, n, lit) has_prefix(s, n, lit, sizeof(lit) - 1)
#define PERF_RECORD_PREFIX "PERF_RECORD_"

static inline const char *next_token_end(const char *p, const char *end)
{
	while (p < end && !IS_SPACE(*p))
		p++;
	return p;
}

#endif
