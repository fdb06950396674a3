/* diff.h: differential and elided flame graphs from two folded tables.
 *
 * Differential (FlameScope "compare", flamegraph.pl's difffolded): every
 * stack of A (before) and B (after) becomes one entry with count = A's and
 * count2 = B's count (0 when absent). fp_flame_render then draws widths from
 * B and colours each frame by its self-count change normalised by the
 * totals, self2/total2 - self1/total1: red = more, blue = less, white =
 * unchanged, intensity scaled to the largest change (like flamegraph.pl's
 * color_scale, but on normalised deltas so a longer capture is not "more").
 * The tooltip adds the change in samples and in percent of the total.
 * opts.negate swaps red and blue.
 *
 * Elided: the stacks present in A only (they vanished in B), as a plain
 * table with A's counts, drawn as an ordinary flame graph.
 *
 * Calling sequence:
 *	fp_folded_parse_buffer(&a, ...); fp_folded_parse_buffer(&b, ...);
 *	struct fp_folded d; fp_folded_diff(&d, &a, &b);
 *	fp_flame_render(&sink, &d, &opts);
 *	fp_folded_free(&d);    // d references a's and b's strings: free them after
 */
#ifndef FP_DIFF_H
#define FP_DIFF_H

#include "folded.h"

/* out = union of a and b (a and b are merged in place first). */
void fp_folded_diff(struct fp_folded *out, struct fp_folded *a, struct fp_folded *b);
/* out = the stacks of a that b does not have, with a's counts. */
void fp_folded_elided(struct fp_folded *out, struct fp_folded *a, struct fp_folded *b);

#endif
