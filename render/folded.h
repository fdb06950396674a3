/* folded.h: a table of folded stacks, the input of every flame graph.
 *
 * An entry is one line of a Brendan Gregg folded file: `stack count`, or
 * `stack count1 count2` for a differential pair (widths from count2, colour
 * from the change). Frames are root first, joined by ';'.
 *
 * Calling sequence:
 *	struct fp_folded t;
 *	fp_folded_init(&t);
 *	fp_folded_add(&t, "a;b;c", 5, 10, 0);     // copies the stack
 *	... or fp_folded_parse_line(&t, line, len, FP_FOLDED_COPY) ...
 *	fp_flame_render(&sink, &t, &opts);        // sorts t (see flamegraph.h)
 *	fp_folded_free(&t);
 *
 * Strings are either copied into the table's arena (FP_FOLDED_COPY) or
 * referenced (the caller keeps the memory alive until fp_folded_free; this
 * is how fp-flamegraph avoids copying a whole file).
 */
#ifndef FP_FOLDED_H
#define FP_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "sink.h"

/* How many leading bytes a[0..an) and b[0..bn) share: 16 bytes a step
 * (SSE2, x86-64's baseline), then 8, then one. Sorting a table and
 * building its flame graph tree compare neighbouring stacks, which share
 * most of their (long) prefixes. */
static inline size_t fp_common_prefix(const char *a, size_t an, const char *b, size_t bn)
{
	size_t n = an < bn ? an : bn, i = 0;
	uint64_t x, y;

#ifdef __SSE2__
	for (; i + 16 <= n; i += 16) {
		__m128i va = _mm_loadu_si128((const __m128i *)(a + i));
		__m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
		unsigned diff = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(va, vb)) ^ 0xffffu;

		if (diff)
			return i + (size_t)__builtin_ctz(diff);
	}
#endif
	for (; i + sizeof x <= n; i += sizeof x) {
		memcpy(&x, a + i, sizeof x);
		memcpy(&y, b + i, sizeof y);
		if (x != y)
			break;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

struct fp_folded_entry {
	const char *stack;
	size_t len;
	uint64_t count;  /* the only count, or the "before" count */
	uint64_t count2; /* the "after" count (two_counts tables) */
};

struct fp_folded {
	struct fp_folded_entry *e;
	size_t n, cap;
	int two_counts;         /* some line had two counts: differential */
	uint64_t total, total2; /* sums of count and count2 */
	uint64_t ignored;       /* lines that were not `stack count [count]` */
	uint64_t first_ignored; /* 1-based line number of the first of them */
	uint64_t lines;         /* lines offered to fp_folded_parse_line */
	/* private: arena of copied strings */
	char **chunks;
	size_t nchunks, chunk_used, chunk_cap;
};

enum { FP_FOLDED_REF = 0, FP_FOLDED_COPY = 1 };

void fp_folded_init(struct fp_folded *t);
void fp_folded_free(struct fp_folded *t);
/* Forgets all entries (keeps the allocations for reuse). */
void fp_folded_clear(struct fp_folded *t);

/* Adds an entry (copy: FP_FOLDED_COPY or FP_FOLDED_REF). */
void fp_folded_add(struct fp_folded *t, const char *stack, size_t len, uint64_t count,
		   uint64_t count2, int copy);
/* Same, but marks the table differential (count2 meaningful). */
void fp_folded_add2(struct fp_folded *t, const char *stack, size_t len, uint64_t count,
		    uint64_t count2, int copy);

/* Parses one line `stack count` or `stack count1 count2` (a trailing CR is
 * ignored, blank lines and `#` comments are skipped and return 0).
 * Returns 0, or -1 if the line is malformed (counted in t->ignored). */
int fp_folded_parse_line(struct fp_folded *t, const char *line, size_t len, int copy);
/* Parses a whole buffer of lines (referenced, not copied, if FP_FOLDED_REF). */
void fp_folded_parse_buffer(struct fp_folded *t, const char *buf, size_t len, int copy);

/* Sorts entries frame-wise: children of a frame come out ordered bytewise
 * by name, and a frame sorts before its own descendants. Stable for equal
 * stacks. */
void fp_folded_sort(struct fp_folded *t);
/* Sorts and sums entries with identical stacks. */
void fp_folded_merge(struct fp_folded *t);
/* Reverses the frame order of every stack (flamegraph.pl --reverse):
 * stacks then merge at their leaves. */
void fp_folded_reverse(struct fp_folded *t);

/* Writes the table as a plain folded file: `stack count\n`
 * (`stack count1 count2\n` for a differential table). */
void fp_folded_write(struct fp_sink *s, const struct fp_folded *t);

/* Compares two stacks frame-wise (the order of fp_folded_sort). */
int fp_stack_cmp(const char *a, size_t an, const char *b, size_t bn);

#endif
