/* pipeline_run.h: start a pipeline of stages on FIFOs and supervise it.
 *
 * This is the API behind `flamepipe run` and `flamepipe report`, and the
 * one `flamepipe live` / `flamepipe serve` (runner/live.c, runner/serve.c)
 * are meant to use. One run per process (it owns SIGINT/SIGTERM/SIGHUP/
 * SIGQUIT, SIGCHLD and the libev default loop).
 *
 * Calling sequence:
 *
 *	struct fp_run_opts o;
 *	fp_run_opts_init(&o);                  // then override fields
 *	struct fp_run *r = fp_run_new(&o);     // private FIFO dir (dies 111/100)
 *	struct fp_vars v; fp_vars_init(&v);
 *	fp_run_default_vars(r, &v);            // FIFODIR, INPUT, OUTDIR, ROWS, *_ARGS
 *	... fp_vars_set(&v, "INPUT", file); fp_vars_define(&v, "-D arg", 0) ...
 *	int rc = fp_run_load(r, "examples/default.pipeline", &v);  // 0 or exit code
 *	if (rc == 0) rc = fp_run_start(r);     // FIFOs, holds, control FIFO, spawn
 *	... add own watchers on fp_run_loop(r) (timers, progress) ...
 *	if (rc == 0) rc = fp_run_wait(r);      // until every stage has finished
 *	fp_run_free(r);                        // removes FIFOs and the dir
 *	return rc;                             // the documented exit code
 *
 * The FIFO directory and its FIFOs are also removed by an atexit handler
 * (only in the process that created them), so fp_die() on any path after
 * fp_run_new() leaves nothing behind; stages still running then are killed.
 *
 * Exit codes returned by fp_run_load/fp_run_start/fp_run_wait (fp_error.h):
 *	FP_EXIT_OK            every stage finished successfully
 *	FP_EXIT_DATA          the stage that failed exited 1 (bad input data)
 *	FP_EXIT_STAGE         a stage failed otherwise
 *	FP_EXIT_USAGE         pipeline file error, program not found, exec failed
 *	FP_EXIT_SYS           a system call failed in the runner
 */
#ifndef FP_PIPELINE_RUN_H
#define FP_PIPELINE_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <ev.h>

#include "pipeline.h"

#define FP_RUN_DRAIN_TIMEOUT 5.0 /* s after a stop before TERM to all */
#define FP_RUN_KILL_TIMEOUT 3.0  /* s after a TERM before SIGKILL */
#define FP_RUN_CTL_NAME "runner.ctl"

struct fp_run_opts {
	const char *fifo_dir; /* NULL: mkdtemp $TMPDIR/flamepipe.XXXXXX */
	const char *dir_file; /* write the FIFO dir path here, or NULL */
	double drain_timeout; /* FP_RUN_DRAIN_TIMEOUT */
	double kill_timeout;  /* FP_RUN_KILL_TIMEOUT */
	int in_fd, out_fd;    /* first stage's stdin, last stage's stdout: 0, 1 */
	int announce_dir;     /* print "flamepipe: fifo dir DIR" on stderr */
	int verbose;          /* also log starts and exits with code 0 */
	const char *user;     /* run every stage but the first as this user
				 * (name or uid; needs root), or NULL */
	unsigned privileged;  /* with user: how many leading stages keep
				 * root (0 means 1; `live` keeps perf record
				 * and perf script) */
	int pass_fd;          /* given to the stage named pass_fd_stage (every
				 * start of it) as fd FP_RUN_PASS_FD; -1: none.
				 * live's listening socket: bound before perf
				 * starts, the same port after a restart */
	const char *pass_fd_stage;
	int first_signal_ends_source; /* a first SIGINT/SIGHUP ends the
				       * source only (fp_run_end_source): the
				       * views stay until the next signal */
};
#define FP_RUN_PASS_FD 4

struct fp_run;

void fp_run_opts_init(struct fp_run_opts *o);
/* Makes the private FIFO directory and installs signal watchers and the
 * cleanup. Dies (111, or 100 for an unusable --fifo-dir) on failure. */
struct fp_run *fp_run_new(const struct fp_run_opts *o);
const char *fp_run_dir(const struct fp_run *r);
struct ev_loop *fp_run_loop(struct fp_run *r);
/* The directory of the flamepipe binary (where fp-* are looked up first). */
const char *fp_run_bindir(void);
/* Defines the built-in variables with their defaults: FIFODIR, INPUT=-,
 * OUTDIR=., ROWS=50 and the empty lists READ_ARGS, BUCKET_ARGS,
 * RANGE_ARGS, FOLD_ARGS, RENDER_ARGS. */
void fp_run_default_vars(struct fp_run *r, struct fp_vars *v);
/* The same with any FIFODIR value (for `flamepipe check`). */
void fp_vars_builtin(struct fp_vars *v, const char *fifodir);
/* Parses and resolves the pipeline file; prints the error. 0 or 100. */
int fp_run_load(struct fp_run *r, const char *file, const struct fp_vars *v);
/* Creates the FIFOs, holds them, opens the control FIFO and starts every
 * stage, downstream first. 0, or an exit code (after stopping the rest). */
int fp_run_start(struct fp_run *r);
/* Runs the loop until every stage has finished. Returns the exit code. */
int fp_run_wait(struct fp_run *r);
/* Asks the pipeline to stop as on SIGTERM (drain, then TERM, then KILL). */
void fp_run_stop(struct fp_run *r);
/* Ends the source as if it had ended by itself (live --duration): SIGTERM
 * to the first stage, whose exit on it is then a success and never
 * restarted (one waiting for a restart is finished); the rest drains as
 * at the end of the input, with no drain deadline (the views stay). */
void fp_run_end_source(struct fp_run *r);
/* Sets opts.first_signal_ends_source after fp_run_new (live knows its
 * views only then). */
void fp_run_first_signal_ends_source(struct fp_run *r, int on);
void fp_run_free(struct fp_run *r);

size_t fp_run_stage_count(const struct fp_run *r);
const char *fp_run_stage_name(const struct fp_run *r, size_t i);
/* The running process of stage i, or 0. */
pid_t fp_run_stage_pid(const struct fp_run *r, size_t i);
/* How many times stage i was started (more than 1: it was restarted). */
unsigned fp_run_stage_starts(const struct fp_run *r, size_t i);
/* The index of the stage that failed first (the exit code's), or -1. */
long fp_run_failed_stage(const struct fp_run *r);
/* give-up=bypass: "NAME (PROG) given up after N fast failures in a row" once stage i was
 * given up and a pass-through took its place; NULL otherwise. */
const char *fp_run_stage_bypassed(const struct fp_run *r, size_t i);
/* Units (unit=NAME) restarted so far, the seconds they captured nothing
 * (from the failure to the new start) and the bytes of their inner
 * streams dropped (runner/unit.c). */
void fp_run_unit_stats(const struct fp_run *r, unsigned *restarts, double *gap,
		       unsigned long long *dropped_bytes);
/* Samples read so far, as the fp-read stages report them (through
 * FLAMEPIPE_PROGRESS_FD, see stages/fp-read.c), or -1 before the first. */
long long fp_run_samples(struct fp_run *r);
/* Input bytes the fp-read stages had read at their latest report (the
 * last one is sent at the end of the input), or -1 before the first. */
long long fp_run_bytes_read(struct fp_run *r);
/* What fp-render last said it wrote to DIR/stacks.folded (samples, the sum
 * of its counts, and stacks, its lines; through FLAMEPIPE_PROGRESS_FD, see
 * stages/fp-render.c): 0, or -1 if no fp-render stage said so for DIR
 * (the caller counts the file itself). DIR as the stage was given it. */
int fp_run_folded_totals(struct fp_run *r, const char *dir, uint64_t *samples, uint64_t *stacks);
/* Set once a stop was requested by a signal: its number, else 0. */
int fp_run_stop_signal(const struct fp_run *r);

#endif
