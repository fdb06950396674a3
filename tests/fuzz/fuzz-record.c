/* fuzz-record.c: libFuzzer target for the record parser (fp_sample_parse)
 * and the fp-range control-line parser (fp_rangectl_parse).
 *
 * Build and run (bounded):
 *	clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Ififo \
 *	    tests/fuzz/fuzz-record.c fifo/fp_record.c fifo/fp_rangectl.c \
 *	    fifo/fp_io.c lib/fp_error.c -lev -lz -o build/fuzz-record
 *	build/fuzz-record -max_total_time=30 -max_len=4096
 *
 * Checks, beyond "no crash": parsed fields lie inside the input, kinds has
 * one character per frame, a range has from <= to and its bounds survive
 * format -> parse, and every list item of an accepted id list parses.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fp_rangectl.h"
#include "fp_record.h"

static int inside(struct fp_str f, const char *buf, size_t n)
{
	return f.p >= buf && f.p + f.n <= buf + n;
}

static void check_sample(const char *buf, size_t n)
{
	struct fp_sample s;

	if (fp_sample_parse(buf, n, &s) < 0)
		return;
	assert(inside(s.event, buf, n) && inside(s.comm, buf, n));
	assert(inside(s.kinds, buf, n) && inside(s.stack, buf, n));
	assert(s.kinds.n == fp_stack_depth(s.stack));
	assert(!memchr(s.stack.p, '\t', s.stack.n));
}

static void check_bound(uint64_t ns)
{
	char text[FP_RANGECTL_SECONDS_MAX];
	uint64_t back;

	fp_rangectl_format_seconds(ns, text);
	assert(fp_parse_seconds_ns(text, strlen(text), &back) == 0 && back == ns);
}

static void check_control(const char *buf, size_t n)
{
	struct fp_rangectl_cmd c;
	const char *why = NULL, *cur, *end;
	struct fp_str item;
	int64_t v;

	if (fp_rangectl_parse(buf, n, &c, &why) < 0) {
		assert(why && *why);
		return;
	}
	switch (c.kind) {
	case FP_RC_RANGE:
		assert(!(c.has_from && c.has_to) || c.from_ns <= c.to_ns);
		if (c.has_from)
			check_bound(c.from_ns);
		if (c.has_to)
			check_bound(c.to_ns);
		break;
	case FP_RC_PID:
	case FP_RC_TID:
	case FP_RC_CPU:
		if (c.off)
			break;
		assert(inside(c.arg, buf, n));
		cur = c.arg.p;
		end = c.arg.p + c.arg.n;
		while (fp_rangectl_next_item(&cur, end, &item))
			assert(fp_parse_i64(item.p, item.n, &v) == 0 && v >= INT32_MIN &&
			       v <= INT32_MAX);
		break;
	case FP_RC_COMM:
	case FP_RC_EVENT:
	case FP_RC_INCLUDE:
	case FP_RC_EXCLUDE:
		assert(c.arg.n > 0 && inside(c.arg, buf, n));
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A private copy: parsers may rely on nothing past the end. */
	char *buf = malloc(size ? size : 1);

	memcpy(buf, data, size);
	check_sample(buf, size);
	check_control(buf, size);
	free(buf);
	return 0;
}
