/* fp_idle.h: which samples are idle, one rule for every stage.
 *
 * fp-bucket drops idle samples from the heatmap (and so from every flame
 * graph behind it) unless --keep-idle; fp-record counts them for the live
 * summary. A sample is idle when it ran in the idle task (pid 0, or comm
 * swapper* when the pid is unknown), none of its frames is interrupt or
 * softirq work, and its stack is empty or its leaf is an idle-loop
 * function (fp_idle.c lists them).
 */
#ifndef FP_IDLE_H
#define FP_IDLE_H

#include "fp_record.h"

int fp_sample_is_idle(const struct fp_sample *s);

#endif
