/* fp_strsort.h: ids of an fp_strtab sorted bytewise by their strings.
 *
 * The order of fp-fold's snapshots (bytewise, as Perl's `sort { $a cmp $b }`
 * and LC_ALL=C sort: memcmp order, a string before the longer ones it is a
 * prefix of). Folded stacks share long prefixes (a system-wide capture's
 * stacks of one comm share their first frames), so a comparison sort
 * spends most of its time comparing the same leading bytes again in every
 * one of its n log n comparisons: this is a multikey quicksort (Bentley
 * and Sedgewick) on 8-byte big-endian chunks, which looks at the bytes of
 * a string about once per level of the strings that share them, and
 * skips a prefix a whole group of strings shares in one pass. It splits
 * into three groups at each step, recursing into the two smaller ones
 * (stack depth log2 n) and looping on the biggest.
 *
 *	fp_strtab_sort_ids(&table, ids, n);   // ids[0..n) now in string order
 */
#ifndef FP_STRSORT_H
#define FP_STRSORT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fp_strtab.h"

/* The order itself, of two byte strings: <0, 0 or >0. */
static inline int fp_bytes_cmp(const void *a, size_t an, const void *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	return c ? c : (an > bn) - (an < bn);
}

/* Sorts ids[0..n) (ids of t) bytewise by their strings. The strings must
 * differ (a table's do); equal ones would come in no particular order. */
void fp_strtab_sort_ids(const struct fp_strtab *t, uint32_t *ids, size_t n);

/* The same on up to `threads` threads (at most FP_STRSORT_THREADS_MAX; a
 * small n, or a thread that cannot be had, sorts on fewer): the groups
 * the quicksort splits off are sorted apart. For fp-fold's last
 * snapshot, whose sort is all that runs at the end of a report. */
#define FP_STRSORT_THREADS_MAX 8
void fp_strtab_sort_ids_on(const struct fp_strtab *t, uint32_t *ids, size_t n, unsigned threads);

#endif
