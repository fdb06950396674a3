/* fp_regex.c: bounded PCRE2 regexes (see fp_regex.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_regex.h"

/* ERE-like defaults: '$' only at the very end; no \C (it could split
 * nothing here, but never lets a pattern step outside code units). */
#define COMPILE_OPTIONS (PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_BACKSLASH_C)

struct fp_regex {
	pcre2_code *code;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	pcre2_jit_stack *jit_stack;
	int jit; /* JIT-compiled */
};

void fp_regex_free(struct fp_regex *re)
{
	if (!re)
		return;
	pcre2_match_data_free(re->md);
	pcre2_match_context_free(re->mctx);
	pcre2_jit_stack_free(re->jit_stack);
	pcre2_code_free(re->code);
	free(re);
}

static void say(char *why, size_t whysize, const char *what)
{
	if (whysize)
		snprintf(why, whysize, "%s", what);
}

static pcre2_code *compile(const char *src, size_t n, uint32_t options, char *why, size_t whysize)
{
	pcre2_compile_context *cctx = pcre2_compile_context_create(NULL);
	if (!cctx)
		fp_die(FP_EXIT_SYS, "out of memory compiling a regex");
	pcre2_set_parens_nest_limit(cctx, FP_REGEX_NEST_MAX);
	int err = 0;
	PCRE2_SIZE off = 0;
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)src, n, COMPILE_OPTIONS | options, &err, &off,
					 cctx);
	pcre2_compile_context_free(cctx);
	if (!code && whysize) {
		PCRE2_UCHAR msg[FP_REGEX_WHY_MAX];
		if (pcre2_get_error_message(err, msg, sizeof msg) < 0)
			snprintf((char *)msg, sizeof msg, "error %d", err);
		snprintf(why, whysize, "%s at offset %zu", (const char *)msg, (size_t)off);
	}
	return code;
}

/* "Does it match somewhere" as ONE anchored attempt: PCRE2 counts its
 * match limit per start position, so an unanchored search of a pattern
 * that costs O(n) at every start is O(n^2) however low the limit. With
 * the search loop inside the pattern (a lazy any-byte prefix), one limit
 * covers the whole search. The user's pattern is compiled alone first:
 * its syntax errors (and offsets) are its own, and "a)(b" cannot close
 * the wrapper's group. */
static const char wrap_head[] = "(?s:.)*?(?:";
static const char wrap_tail[] = ")";

struct fp_regex *fp_regex_compile(const char *src, size_t n, char *why, size_t whysize)
{
	if (n > FP_REGEX_PATTERN_MAX) {
		say(why, whysize, "regular expression too long");
		return NULL;
	}
	if (memchr(src, '\0', n)) {
		say(why, whysize, "regular expression contains NUL");
		return NULL;
	}
	pcre2_code *alone = compile(src, n, 0, why, whysize);
	if (!alone)
		return NULL;
	pcre2_code_free(alone);
	char wrapped[sizeof wrap_head + FP_REGEX_PATTERN_MAX + sizeof wrap_tail];
	size_t hn = sizeof wrap_head - 1, tn = sizeof wrap_tail - 1;
	memcpy(wrapped, wrap_head, hn);
	memcpy(wrapped + hn, src, n);
	memcpy(wrapped + hn + n, wrap_tail, tn);
	pcre2_code *code = compile(wrapped, hn + n + tn, PCRE2_ANCHORED, why, whysize);
	if (!code)
		return NULL;
	struct fp_regex *re = fp_xcalloc(1, sizeof *re);
	re->code = code;
	re->md = pcre2_match_data_create(1, NULL);
	re->mctx = pcre2_match_context_create(NULL);
	if (!re->md || !re->mctx)
		fp_die(FP_EXIT_SYS, "out of memory compiling a regex");
	pcre2_set_heap_limit(re->mctx, FP_REGEX_HEAP_LIMIT_KIB);
	/* JIT where PCRE2 has it; the interpreter (same limits) otherwise */
	if (pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0) {
		re->jit = 1;
		re->jit_stack = pcre2_jit_stack_create(FP_REGEX_JIT_STACK_MIN,
						       FP_REGEX_JIT_STACK_MAX, NULL);
		if (re->jit_stack)
			pcre2_jit_stack_assign(re->mctx, NULL, re->jit_stack);
	}
	return re;
}

int fp_regex_match(struct fp_regex *re, const char *s, size_t n)
{
	uint64_t limit = FP_REGEX_STEPS_BASE + (uint64_t)FP_REGEX_STEPS_PER_BYTE * n;
	pcre2_set_match_limit(re->mctx, limit > UINT32_MAX ? UINT32_MAX : (uint32_t)limit);
	int rc = pcre2_match(re->code, (PCRE2_SPTR)s, n, 0, 0, re->md, re->mctx);
	if (rc >= 0)
		return FP_REGEX_MATCH;
	if (rc == PCRE2_ERROR_NOMATCH)
		return FP_REGEX_NOMATCH;
	/* PCRE2_ERROR_MATCHLIMIT, _DEPTHLIMIT, _HEAPLIMIT, _JIT_STACKLIMIT,
	 * _NOMEMORY: no answer within the bounds */
	return FP_REGEX_LIMIT;
}

int fp_regex_jit(const struct fp_regex *re)
{
	return re->jit;
}
