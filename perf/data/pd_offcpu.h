/* pd_offcpu.h: off-CPU time from scheduler events (fp-perfdata).
 *
 * A thread that switches out blocked (sched:sched_switch with a prev_state
 * other than running: not a preemption) opens an interval, with the stack
 * of its switch-out sample. The interval ends when the thread is woken
 * (sched:sched_wakeup of its tid, with the waker's stack, where the
 * capture has it: a system-wide capture, or a waker that is itself
 * recorded) or else when it switches in again (sched_switch's next_pid in
 * a system-wide capture, perf record --switch-events' SWITCH record of a
 * recorded task). A closed interval is written as samples of the timed
 * event `offcpu` (fifo/PROTOCOL.md, "Off-CPU samples"): one per heatmap
 * cell it covers, at the piece's start, its period the piece's
 * nanoseconds, split at fp-bucket's row boundaries for `rows` rows a
 * second, so the heatmap's cells, fp-range's ranges and fp-fold's counts
 * (which weigh timed events by their period) all see blocked time. A
 * woken interval is also written as `wakeup` samples of the waker's
 * stack, the same pieces.
 *
 * Memory: one entry per thread blocked now, at most max_open (past that
 * the interval is not tracked: counted in overflow, the caller warns).
 *
 * Calling sequence:
 *	pd_offcpu_init(&o, rows, max_open, piece_fn, ctx);
 *	pd_offcpu_block(&o, time, &tail);      // switch-out, blocked
 *	pd_offcpu_wakeup(&o, time, tid, &waker);
 *	pd_offcpu_run(&o, time, tid);          // switch-in: pieces written
 *	pd_offcpu_end(&o);                     // still blocked: up to the last time seen
 *	pd_offcpu_free(&o);
 */
#ifndef PD_OFFCPU_H
#define PD_OFFCPU_H

#include <stddef.h>
#include <stdint.h>

#include "fp_map.h"
#include "fp_record.h"

#define PD_OFFCPU_MAX_OPEN_DEFAULT 65536
/* Pieces (heatmap cells) one interval is written as, at most: 2^20 is
 * 5.8 hours at 50 rows. A longer interval (a thread blocked for days, or
 * a damaged timestamp) is counted for its first cells only (clipped). */
#define PD_OFFCPU_MAX_PIECES (1u << 20)

/* A task's sample tail kept while it is blocked (its own copy). */
struct pd_offcpu_tail {
	int64_t pid, tid, cpu;
	char *text; /* comm, kinds, stack, cgroup, back to back */
	uint32_t comm_n, kinds_n, stack_n, cgroup_n;
};

struct pd_offcpu_open {
	uint64_t out, wake;                   /* wake 0: not woken (yet) */
	struct pd_offcpu_tail blocked, waker; /* waker.text NULL: none */
};

struct pd_offcpu_stats {
	uint64_t intervals;  /* closed and written */
	uint64_t blocked_ns; /* their total */
	uint64_t woken;      /* of them, ended by a recorded wakeup */
	uint64_t unpaired;   /* a blocked thread seen blocking again: the first dropped */
	uint64_t overflow;   /* not tracked: max_open threads blocked */
	uint64_t at_end;     /* still blocked at the end: counted up to the last time */
	uint64_t clipped;    /* longer than PD_OFFCPU_MAX_PIECES cells: cut there */
};

typedef void (*pd_offcpu_piece_fn)(void *ctx, const struct fp_sample *s);

struct pd_offcpu {
	unsigned rows;
	size_t max_open;
	uint32_t max_pieces;  /* PD_OFFCPU_MAX_PIECES unless set after init */
	struct fp_map by_tid; /* tid -> index in open[] */
	struct pd_offcpu_open *open;
	size_t n, cap;
	uint64_t last_time;
	struct pd_offcpu_stats st;
	pd_offcpu_piece_fn piece;
	void *ctx;
};

void pd_offcpu_init(struct pd_offcpu *o, unsigned rows, size_t max_open, pd_offcpu_piece_fn piece,
		    void *ctx);
void pd_offcpu_free(struct pd_offcpu *o);
/* Thread tail->tid blocked at time, with tail's comm, stack, ...: 0, or -1
 * when max_open threads are blocked already (not tracked, counted). */
int pd_offcpu_block(struct pd_offcpu *o, uint64_t time, const struct fp_sample *tail);
/* Thread tid was woken at time by the task of waker (its first wakeup
 * counts). 1 if tid was blocked. */
int pd_offcpu_wakeup(struct pd_offcpu *o, uint64_t time, int64_t tid,
		     const struct fp_sample *waker);
/* Thread tid runs again at time: its interval, if any, is written. */
void pd_offcpu_run(struct pd_offcpu *o, uint64_t time, int64_t tid);
/* A time seen in the input (the end of intervals still open at the end). */
static inline void pd_offcpu_time(struct pd_offcpu *o, uint64_t time)
{
	if (time > o->last_time)
		o->last_time = time;
}
/* Writes every interval still open, ended at the last time seen. */
void pd_offcpu_end(struct pd_offcpu *o);
size_t pd_offcpu_blocked_now(const struct pd_offcpu *o);
/* 1 if tid is blocked and no wakeup of it was seen yet. */
int pd_offcpu_waiting(const struct pd_offcpu *o, int64_t tid);

/* The fields of the tracepoints' raw data (PERF_SAMPLE_RAW), as the
 * kernel's format files have them on 64-bit kernels since Linux 4.x
 * (/sys/kernel/tracing/events/sched/sched_switch/format): 0, or -1 if raw
 * is too short. The caller checks prev_pid against the sample's tid. */
int pd_sched_switch_fields(const unsigned char *raw, uint32_t n, int32_t *prev_pid,
			   int64_t *prev_state, int32_t *next_pid);
int pd_sched_wakeup_pid(const unsigned char *raw, uint32_t n, int32_t *pid);
/* prev_state of a switch-out that blocked (not TASK_RUNNING, i.e. not a
 * preemption, and not an exiting task). */
int pd_sched_state_blocked(int64_t prev_state);

#endif
