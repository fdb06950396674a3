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

/* The rule in two parts, for a reader that keeps what a tail (comm and
 * stack, fifo/PROTOCOL.md's K record) decides and not the tail:
 * fp_sample_is_idle(s) is fp_idle_of(s->pid, fp_comm_is_swapper(s->comm),
 * fp_stack_is_idle(s->stack)). */
int fp_comm_is_swapper(struct fp_str comm);
int fp_stack_is_idle(struct fp_str stack);
static inline int fp_idle_of(int64_t pid, int comm_is_swapper, int stack_is_idle)
{
	return (pid == 0 || (pid == -1 && comm_is_swapper)) && stack_is_idle;
}

#endif
