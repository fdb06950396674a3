/* supervise.h: the supervisor's insides, shared by its files (not an API:
 * pipeline_run.h is). runner/supervise.c runs the stages through the state
 * table (stage_fsm.h), spawn.c starts their processes, control.c answers
 * the control FIFO (status, restart, replace, insert, stop), fifodir.c
 * makes the private directory, the FIFOs and their holds.
 */
#ifndef FP_RUNNER_SUPERVISE_H
#define FP_RUNNER_SUPERVISE_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include <ev.h>

#include "pipeline.h"
#include "pipeline_run.h"
#include "stage_fsm.h"

#define MIN_SPAWN_INTERVAL 1.0   /* s between two spawns of one stage */
#define MAX_BACKOFF 30.0         /* s, longest wait before a restart */
#define FAST_FAILURE_WINDOW 10.0 /* s: a failure sooner than this is "fast" */
#define CTL_LINE_MAX 4096        /* PIPE_BUF: one atomic write per command */
#define CTL_READ_CHUNK 4096
#define EXIT_DESC_MAX 64
#define DIR_TEMPLATE "flamepipe.XXXXXX"
#define DEFAULT_ROWS "50"
#define CTL_MAX_WORDS 256
#define HIGH_FD 10 /* where child fds are parked before dup2 */
#define FIFO_MODE 0600
#define FP_READER_PROGRAM "fp-read"   /* the stage that starts the stream */
#define FP_RENDER_PROGRAM "fp-render" /* the stage that writes stacks.folded */
/* fp-read's progress and fp-render's totals socket (FLAMEPIPE_PROGRESS_FD) */
#define PROGRESS_FD 3
#define SHELL_SIGNAL_BASE 128       /* exit code 128+N: "died of signal N" */
#define INSERTED_WHERE "ctl insert" /* a stage added at run time has no file:line */

enum stage_op { OP_NONE, OP_RESTART, OP_REPLACE, OP_INSERT };
enum stop_cause { STOP_SIGNAL, STOP_FAILURE, STOP_REQUEST };

struct stage {
	struct fp_run *run;
	size_t index;
	struct fp_stage_spec *spec;
	enum fp_stage_state state; /* stage_fsm.h decides what happens next */
	pid_t pid;
	ev_tstamp spawned_at;
	unsigned starts;
	unsigned fast_failures; /* in a row */
	int term_sent;          /* we sent SIGTERM to the current process */
	int kill_sent;          /* ... and SIGKILL */
	int ok;                 /* when DONE: finished successfully */
	enum stage_op op;
	char **next_argv;  /* OP_REPLACE, OP_INSERT */
	char *insert_name; /* OP_INSERT: the new stage, after this one */
	char *next_path;
	size_t next_argc;
	int reply_fd; /* ctl client waiting for the op, or -1 */
	char last[EXIT_DESC_MAX];
	char gave_up[EXIT_DESC_MAX + FP_STAGE_NAME_MAX]; /* bypassed: "NAME (PROG) given up ..." */
	int last_ok, last_code; /* how the last process ended, for a late finish */
	int last_plain;         /* ... with exit code 0 */
	int ending;             /* fp_run_end_source: its SIGTERM exit is the end */
	int unit_restarting;    /* its unit (unit=) is being restarted (unit.c) */
	int unit_failed;        /* ... because of this stage */
	ev_tstamp unit_since;   /* ... since then */
	char unit_why[EXIT_DESC_MAX];
	ev_child child_w;
	ev_timer restart_w;
	ev_timer kill_w;
};

struct link {
	char *path;
	int hold_r, hold_w;
};

struct fp_run {
	struct fp_run_opts opts;
	struct ev_loop *loop;
	pid_t owner;
	char *dir;
	int dir_ours; /* made by us: remove it and all in it */
	char **made;  /* FIFOs we created */
	size_t nmade;
	struct fp_pipeline pl;
	int loaded;
	struct stage **stages; /* each allocated alone: watchers must not move */
	size_t n;
	struct link *links; /* n - 1 */
	char *ctl_path;
	int ctl_fd, ctl_keep;
	int watchdog_fd; /* runner/watchdog.h: stages die with the runner */
	ev_io ctl_w;
	char ctl_buf[CTL_LINE_MAX];
	size_t ctl_len;
	int ctl_skipping;
	ev_signal sig_int, sig_term, sig_hup, sig_quit;
	ev_timer drain_w;
	int stopping;
	int stop_signal;
	int signals_seen;
	int exit_code;          /* first failure's code */
	size_t first_failed;    /* 1 + index of the stage that failed first, or 0 */
	int progress[2];        /* datagram socketpair: fp-read stages report samples */
	ev_io progress_w;       /* keeps it drained: the latest report is kept */
	long long samples;      /* the latest report, or -1 */
	long long bytes_read;   /* ... its input bytes, or -1 */
	long long samples_base; /* the counts of readers a unit restart replaced */
	/* fp-render's last `folded samples=N stacks=M dir=D`: what it wrote
	 * to D/stacks.folded (folded_stacks -1: none yet) */
	long long folded_samples, folded_stacks;
	char folded_dir[PATH_MAX];
	unsigned unit_restarts; /* unit.c: restarts of units, the time without */
	double unit_gap;        /* capture, the bytes dropped inside them */
	unsigned long long unit_dropped_bytes;
	int drop_user; /* --user: stages after the first run as uid/gid */
	uid_t uid;
	gid_t gid;
	int done;
};

/* supervise.c */
void sv_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *sv_path_in(const char *dir, const char *name);
void sv_close_fd(int *fd);
void sv_stage_finish(struct stage *st, int ok, int code);
void sv_begin_stop(struct fp_run *r, enum stop_cause cause, size_t failed);
void sv_term_stage(struct stage *st);
double sv_restart_delay(const struct stage *st, int failed);
int sv_link_is_stream(const struct fp_run *r, size_t i);
enum fp_stage_action sv_stage_event(struct stage *st, enum fp_stage_event ev);
struct stage *sv_new_stage(struct fp_run *r, size_t i);

/* spawn.c */
int sv_spawn_stage(struct stage *st);
void sv_resolve_user(struct fp_run *r, const char *user);

/* unit.c */
void sv_unit_range(const struct stage *st, size_t *lo, size_t *hi);
int sv_in_unit(const struct stage *st);
void sv_unit_begin(struct stage *st, const char *why);
void sv_unit_down(struct stage *st);

/* control.c */
void sv_finish_op(struct stage *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sv_run_pending_op(struct stage *st);
int sv_open_control(struct fp_run *r);

/* fifodir.c */
void sv_remove_files(struct fp_run *r);
void sv_use_given_dir(struct fp_run *r, const char *dir);
void sv_make_private_dir(struct fp_run *r);
int sv_make_fifo(struct fp_run *r, const char *path, int give);
int sv_make_link(struct fp_run *r, struct link *l, const char *writer);
int sv_make_links(struct fp_run *r);
int sv_write_dir_file(struct fp_run *r);

#endif
