/* summary.h: what the last line of `flamepipe report` and `live` counts
 * in the output directory (runner/summary.c). */
#ifndef FP_RUNNER_SUMMARY_H
#define FP_RUNNER_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#define FP_FOLDED_NAME "stacks.folded"

/* Samples and stacks in DIR/stacks.folded (`stack count` lines): 0, or
 * -1 if there is no such file. */
int fp_folded_totals(const char *dir, uint64_t *samples, uint64_t *stacks);
/* The names in DIR (dotfiles left out), blank-separated, into buf. */
void fp_list_files(const char *dir, char *buf, size_t len);

#endif
