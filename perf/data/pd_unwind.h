/* pd_unwind.h: user stacks of `perf record --call-graph dwarf` samples,
 * unwound with elfutils' unwinder (libdwfl), as perf's unwind-libdw.c and
 * KDAB perfparser do.
 *
 * Each such sample carries the user registers (PERF_SAMPLE_REGS_USER) and
 * a copy of the top of the user stack (PERF_SAMPLE_STACK_USER). The
 * unwinder starts from those registers (x86_64: perf_regs order mapped to
 * DWARF register numbers), reads memory from the stack copy, or from the
 * mapped file for addresses outside it, and walks the frames with the
 * CFI (.eh_frame, else .debug_frame) of the modules the process maps;
 * elfutils falls back to the frame pointer where there is no CFI.
 *
 * One Dwfl session per process, reused from sample to sample, so each
 * module's CFI is parsed once per process; modules are reported on first
 * use from the process's maps (pd_machine). A session whose module no
 * longer matches the maps (exec, munmap + mmap) is rebuilt. At most
 * PD_UNWIND_MAX_SESSIONS sessions are kept (least recently used ends), so
 * memory and open files follow the processes being sampled, not samples.
 *
 * The addresses come out leaf first as perf script prints them: the
 * sampled user ip, then each caller's return address minus one (the call
 * instruction), except after a signal frame.
 */
#ifndef PD_UNWIND_H
#define PD_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "pd_machine.h"
#include "pd_read.h"

#define PD_UNWIND_MAX_SESSIONS 64 /* Dwfl sessions (processes) kept */

struct pd_unwind_stats {
	uint64_t samples;    /* samples with user registers and stack */
	uint64_t incomplete; /* the unwind stopped before the outermost frame */
	uint64_t bad_regs;   /* registers unusable (ABI, no ip/sp): not unwound */
	uint64_t sessions;   /* Dwfl sessions created (rebuilds included) */
	uint64_t evictions;  /* sessions ended to stay under the limit */
};

struct pd_unwind;

struct pd_unwind *pd_unwind_new(struct pd_machine *m);
void pd_unwind_free(struct pd_unwind *u);

/* Does this sample carry what dwarf unwinding needs (perf's check)? */
int pd_unwind_wanted(const struct pd_sample *s);

/* Unwinds the user stack of s (thread t): at most max addresses into ips,
 * leaf first. Returns how many. */
size_t pd_unwind_user(struct pd_unwind *u, struct pd_thread *t, const struct pd_sample *s,
		      uint64_t *ips, size_t max);

const struct pd_unwind_stats *pd_unwind_stats(const struct pd_unwind *u);

#endif
