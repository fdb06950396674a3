/* fp_regex.h: regular expressions with guaranteed bounds, for the stack
 * filters (fp-range's include/exclude, checked by fp-serve before a chain
 * runs). Built on PCRE2 (Debian libpcre2-dev), JIT-compiled where the
 * platform has PCRE2's JIT, the interpreter otherwise.
 *
 * Bounds (the same with and without JIT):
 *  - a pattern is at most FP_REGEX_PATTERN_MAX bytes, nests at most
 *    FP_REGEX_NEST_MAX parentheses, and compiles to what PCRE2's own
 *    compiled-size limit allows (bounded compile time and memory);
 *  - one match runs at most FP_REGEX_MATCH_LIMIT backtracking steps
 *    (PCRE2's match limit), with at most FP_REGEX_HEAP_LIMIT_KIB KiB of
 *    backtracking memory (interpreter) or FP_REGEX_JIT_STACK_MAX bytes of
 *    JIT stack. A match that would need more returns FP_REGEX_LIMIT: the
 *    caller reports it as an error, never as a silent "no match".
 *
 * Syntax: PCRE2 (Perl-compatible), byte-wise (no UTF-8 decoding: frame
 * names are bytes). What a POSIX extended regex means is meant the same
 * here, with these differences (docs/fp-range.md "Regex syntax"):
 *  - inside brackets a backslash escapes ("[\]]" is a ']'; POSIX: "[\]"
 *    is a backslash);
 *  - "\d", "\w", "\s", "\b" ... are PCRE2 escapes (POSIX: undefined);
 *  - "a++", "a*+", "a?+" are possessive quantifiers, "a+?" lazy (POSIX:
 *    undefined), "(?...)" groups (lookaround, non-capturing) exist;
 *  - back-references "\1" work (bounded by the match limit like the rest);
 *  - '$' matches only at the very end (PCRE2_DOLLAR_ENDONLY, as POSIX).
 * Matching answers only "does it match somewhere" (no captures).
 *
 * Calling sequence:
 *
 *	char why[FP_REGEX_WHY_MAX];
 *	struct fp_regex *re = fp_regex_compile(src, n, why, sizeof why);
 *	if (!re) ... why says what is wrong, with the offset
 *	switch (fp_regex_match(re, subject, len)) { case FP_REGEX_MATCH: ... }
 *	fp_regex_free(re);
 *
 * A compiled regex owns its match data: use one from one thread at a time.
 */
#ifndef FP_REGEX_H
#define FP_REGEX_H

#include <stddef.h>

#define FP_REGEX_PATTERN_MAX 4096      /* bytes of pattern */
#define FP_REGEX_NEST_MAX 64           /* nested parentheses */
#define FP_REGEX_STEPS_BASE 100000u    /* steps of one match: this plus */
#define FP_REGEX_STEPS_PER_BYTE 16u    /* this per byte of the subject */
#define FP_REGEX_HEAP_LIMIT_KIB 65536u /* interpreter backtracking memory */
#define FP_REGEX_JIT_STACK_MIN (32u << 10)
#define FP_REGEX_JIT_STACK_MAX (8u << 20)
#define FP_REGEX_WHY_MAX 256

enum {
	FP_REGEX_NOMATCH = 0,
	FP_REGEX_MATCH = 1,
	FP_REGEX_LIMIT = -1, /* the match hit a bound: no answer */
};

struct fp_regex;

/* Compiles src (n bytes, may not contain NUL). Returns the regex, or NULL
 * with a message in why ("missing closing parenthesis at offset 3"). */
struct fp_regex *fp_regex_compile(const char *src, size_t n, char *why, size_t whysize);

/* Does the regex match somewhere in s[0..n)? FP_REGEX_MATCH, _NOMATCH, or
 * _LIMIT when a bound was hit (see above). */
int fp_regex_match(struct fp_regex *re, const char *s, size_t n);

/* 1 if the regex runs JIT-compiled. */
int fp_regex_jit(const struct fp_regex *re);

void fp_regex_free(struct fp_regex *re);

#endif
