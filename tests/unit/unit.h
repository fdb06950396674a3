/* tests/unit/unit.h: what the cmocka unit tests share. cmocka wants
 * stdarg, stddef, setjmp and stdint before it. */
#ifndef FP_TESTS_UNIT_H
#define FP_TESTS_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

/* A string literal as the (pointer, length) pair the fifo/ parsers take. */
#define LINE(s) s, sizeof(s) - 1

/* FN (const char *, size_t, uint64_t *) accepts the literal TEXT and gives
 * exactly NS (a macro: a failure names the test's line). */
#define assert_parses_ns(fn, text, ns)                         \
	do {                                                   \
		uint64_t got_ns_;                              \
		assert_int_equal(fn(LINE(text), &got_ns_), 0); \
		assert_true(got_ns_ == (ns));                  \
	} while (0)

#endif
