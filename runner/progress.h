/* progress.h: how far the source stage is, from /proc (the one reader of
 * /proc/PID/io and fdinfo in the runner), and the progress line on stderr.
 *
 * The progress line (run, report): every FP_PROGRESS_INTERVAL, how far the
 * first stage is in its input (a regular file: position of total and
 * percent; anything else: the bytes it read, /proc/PID/io rchar, which
 * also counts its few start-up reads) and MB/s:
 *
 *	struct fp_progress p;
 *	fp_progress_start(&p, run, input_or_NULL, "report");   // after fp_run_start
 *	rc = fp_run_wait(run);
 *	fp_progress_stop(&p);                                   // clears the line
 */
#ifndef FP_RUNNER_PROGRESS_H
#define FP_RUNNER_PROGRESS_H

#include <limits.h>
#include <sys/types.h>
#include <ev.h>

#define FP_PROGRESS_INTERVAL 0.25 /* s between progress line updates */
#define FP_BYTES_PER_MB 1e6

struct fp_run;

/* Bytes process PID has read (rchar of /proc/PID/io), or -1 if unknown
 * (gone, or not ours to read). */
long long fp_proc_rchar(pid_t pid);
/* The file position of PID's open fd on the file whose real path is
 * REAL (fdinfo "pos:"), or -1 if it has none open. */
long long fp_proc_file_pos(pid_t pid, const char *real);
/* rchar of the running stage called NAME, or -1. */
long long fp_run_stage_rchar(struct fp_run *r, const char *name);

struct fp_progress {
	ev_timer w;
	struct fp_run *run;
	const char *label;
	char input_real[PATH_MAX];
	off_t size;
	ev_tstamp start;
	int shown, active;
};
void fp_progress_start(struct fp_progress *p, struct fp_run *r, const char *input,
		       const char *label);
void fp_progress_stop(struct fp_progress *p);

#endif
