/* fp_baseload.h: fp-baseline's baseline, a folded table read from a file.
 *
 * FILE is a plain folded file (`stack count` lines, gzip or not: what
 * `flamepipe report -o DIR` writes as DIR/flamegraph.folded, fp-fold
 * --plain, stackcollapse-perf.pl), or any capture flamepipe reads (perf
 * script text, perf.data, a recording, a Chrome profile), which is folded
 * by the stages as the live chain folds (its reader by fp_sniff, then
 * fp-bucket, so idle samples go as in the heatmap, fp-range for --from
 * and --to, and fp-fold --plain --all-events), run from the directory of
 * this program. A folded file has no times: a range of one is refused.
 *
 *	struct fp_folded base;
 *	if (fp_baseload(path, from, to, &base, err, sizeof err) < 0) die(err);
 *	... fp_folded_free(&base);	// its strings are its own (copied)
 */
#ifndef FP_BASELOAD_H
#define FP_BASELOAD_H

#include <stddef.h>

#include "folded.h"

/* 0, or -1 with err ("FILE: what failed: why"). from/to: seconds on the
 * capture's heatmap axis (fp-range --from/--to), or NULL. */
int fp_baseload(const char *path, const char *from, const char *to, struct fp_folded *out,
		char *err, size_t errsz);

#endif
