/* supervise.c: start a pipeline's stages on held FIFOs and supervise them
 * (pipeline_run.h is the API, docs/flamepipe.md the behaviour).
 *
 * Links. Stage i writes link i, stage i+1 reads it. The runner keeps its
 * own read end (hold_r) and write end (hold_w) of every link, so a stage
 * that dies or restarts never makes its neighbours see EOF or EPIPE, and
 * bytes already in the pipe survive (s6-svscan's never-closing logger
 * pipe). hold_w of link i is closed when stage i has finished for good:
 * then stage i+1 reads the rest and sees EOF, so EOF travels down the
 * chain. hold_r of link i is closed when stage i+1 has finished: a writer
 * that is still running then gets EPIPE instead of blocking for ever.
 *
 * Each stage runs in its own process group (a terminal's Ctrl-C reaches
 * only the runner, which decides what the stages get), with signals reset,
 * SIGPIPE back to default and a parent-death signal. exec failures come
 * back through a close-on-exec notify pipe (git's start_command).
 *
 * Per-stage state machine: IDLE -> RUNNING -> (exit) -> BACKOFF ->
 * RUNNING ... -> DONE. A pending control operation (restart, replace)
 * turns the next exit into an immediate spawn.
 */
#include <dirent.h>
#include <grp.h>
#include <pwd.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ev.h>

#include "fp_error.h"
#include "fp_fifo.h"
#include "fp_io.h"
#include "pipeline.h"
#include "pipeline_run.h"
#include "stage_fsm.h"

#define MIN_SPAWN_INTERVAL 1.0	/* s between two spawns of one stage */
#define MAX_BACKOFF 30.0	/* s, longest wait before a restart */
#define FAST_FAILURE_WINDOW 10.0 /* s: a failure sooner than this is "fast" */
#define CTL_LINE_MAX 4096	/* PIPE_BUF: one atomic write per command */
#define CTL_READ_CHUNK 4096
#define EXIT_DESC_MAX 64
#define DIR_TEMPLATE "flamepipe.XXXXXX"
#define DEFAULT_ROWS "50"
#define HIGH_FD 10		/* where child fds are parked before dup2 */
#define FIFO_MODE 0600
#define FP_READER_PROGRAM "fp-read"	/* the stage that starts the stream */
#define PROGRESS_FD 3		/* fp-read's progress socket (FLAMEPIPE_PROGRESS_FD) */
#define PROGRESS_MSG_MAX 64
#define SHELL_SIGNAL_BASE 128	/* exit code 128+N: "died of signal N" */
#define INSERTED_WHERE "ctl insert"	/* a stage added at run time has no file:line */

enum stage_op { OP_NONE, OP_RESTART, OP_REPLACE, OP_INSERT };
enum stop_cause { STOP_SIGNAL, STOP_FAILURE, STOP_REQUEST };

struct stage {
	struct fp_run *run;
	size_t index;
	struct fp_stage_spec *spec;
	enum fp_stage_state state;	/* stage_fsm.h decides what happens next */
	pid_t pid;
	ev_tstamp spawned_at;
	unsigned starts;
	unsigned fast_failures;	/* in a row */
	int term_sent;		/* we sent SIGTERM to the current process */
	int kill_sent;		/* ... and SIGKILL */
	int ok;			/* when DONE: finished successfully */
	enum stage_op op;
	char **next_argv;	/* OP_REPLACE, OP_INSERT */
	char *insert_name;	/* OP_INSERT: the new stage, after this one */
	char *next_path;
	size_t next_argc;
	int reply_fd;		/* ctl client waiting for the op, or -1 */
	char last[EXIT_DESC_MAX];
	int last_ok, last_code;	/* how the last process ended, for a late finish */
	int last_plain;		/* ... with exit code 0 */
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
	int dir_ours;		/* made by us: remove it and all in it */
	char **made;		/* FIFOs we created */
	size_t nmade;
	struct fp_pipeline pl;
	int loaded;
	struct stage **stages;	/* each allocated alone: watchers must not move */
	size_t n;
	struct link *links;	/* n - 1 */
	char *ctl_path;
	int ctl_fd, ctl_keep;
	ev_io ctl_w;
	char ctl_buf[CTL_LINE_MAX];
	size_t ctl_len;
	int ctl_skipping;
	ev_signal sig_int, sig_term, sig_hup, sig_quit;
	ev_timer drain_w;
	int stopping;
	int stop_signal;
	int signals_seen;
	int exit_code;		/* first failure's code */
	int progress[2];	/* datagram socketpair: fp-read stages report samples */
	ev_io progress_w;	/* keeps it drained: the latest report is kept */
	long long samples;	/* the latest report, or -1 */
	long long bytes_read;	/* ... its input bytes, or -1 */
	int drop_user;		/* --user: stages after the first run as uid/gid */
	uid_t uid;
	gid_t gid;
	int done;
};

static struct fp_run *cleanup_run;	/* for the atexit path */

static void progress_read_cb(struct ev_loop *loop, ev_io *w, int revents);

/* ---- small helpers ------------------------------------------------------ */

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "flamepipe: ..." on stderr in one write (stages share the terminal). */
static void logmsg(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int n = snprintf(msg, sizeof msg, "%s: ", fp_prog());

	va_start(ap, fmt);
	n += vsnprintf(msg + n, sizeof msg - n, fmt, ap);
	va_end(ap);
	if ((size_t)n >= sizeof msg - 1)
		n = sizeof msg - 2;
	msg[n++] = '\n';
	fwrite(msg, 1, (size_t)n, stderr);
	fflush(stderr);
}

static const char *signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

static void describe_status(int status, char *buf, size_t len)
{
	char sig[32];

	if (WIFEXITED(status))
		snprintf(buf, len, "exited with code %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %s",
			 signal_name(WTERMSIG(status), sig, sizeof sig));
	else
		snprintf(buf, len, "status 0x%x", (unsigned)status);
}

static char *path_in(const char *dir, const char *name)
{
	size_t d = strlen(dir), n = strlen(name);
	char *s = fp_xmalloc(d + 1 + n + 1);

	memcpy(s, dir, d);
	s[d] = '/';
	memcpy(s + d + 1, name, n + 1);
	return s;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void send_group(struct stage *st, int sig)
{
	if (st->pid <= 0)
		return;
	/* The stage is its process group; fall back to the pid if the
	 * group is not there (setpgid lost a race with exec). */
	if (kill(-st->pid, sig) < 0)
		kill(st->pid, sig);
}

const char *fp_run_bindir(void)
{
	static char dir[PATH_MAX];
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof dir - 1);
	if (n <= 0) {
		dir[0] = '\0';
		return NULL;
	}
	dir[n] = '\0';
	char *slash = strrchr(dir, '/');

	if (slash)
		*slash = '\0';
	return dir;
}

/* ---- cleanup (normal, error and signal paths) --------------------------- */

/* Removes what we made; only in the process that made it (a forked
 * child that failed to exec must not). */
static void remove_files(struct fp_run *r)
{
	if (!r || getpid() != r->owner)
		return;
	for (size_t i = 0; i < r->nmade; i++) {
		unlink(r->made[i]);
		free(r->made[i]);
	}
	r->nmade = 0;
	if (r->dir_ours && r->dir) {
		/* Our private directory: reply FIFOs of ctl clients, control
		 * FIFOs made by stages (fp-range --control) go with it. */
		DIR *d = opendir(r->dir);

		if (d) {
			struct dirent *e;

			while ((e = readdir(d)))
				if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
					unlinkat(dirfd(d), e->d_name, 0);
			closedir(d);
		}
		if (rmdir(r->dir) < 0 && errno != ENOENT)
			fp_warn_sys("cannot remove fifo dir %s", r->dir);
		r->dir_ours = 0;
	}
}

static void cleanup_at_exit(void)
{
	struct fp_run *r = cleanup_run;

	if (!r || getpid() != r->owner)
		return;
	/* Exiting with stages still up (a fatal error): leave no orphans. */
	for (size_t i = 0; i < r->n; i++)
		if (r->stages[i]->pid > 0)
			send_group(r->stages[i], SIGKILL);
	remove_files(r);
}

/* ---- options, variables -------------------------------------------------- */

void fp_run_opts_init(struct fp_run_opts *o)
{
	memset(o, 0, sizeof *o);
	o->drain_timeout = FP_RUN_DRAIN_TIMEOUT;
	o->kill_timeout = FP_RUN_KILL_TIMEOUT;
	o->in_fd = 0;
	o->out_fd = 1;
	o->announce_dir = 1;
}

void fp_vars_builtin(struct fp_vars *v, const char *fifodir)
{
	static const char *const lists[] = {
		"READ_ARGS", "BUCKET_ARGS", "RANGE_ARGS", "FOLD_ARGS", "RENDER_ARGS",
	};

	fp_vars_set(v, "FIFODIR", fifodir);
	fp_vars_set(v, "INPUT", "-");
	fp_vars_set(v, "OUTDIR", ".");
	fp_vars_set(v, "ROWS", DEFAULT_ROWS);
	for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
		fp_vars_list(v, lists[i]);
}

void fp_run_default_vars(struct fp_run *r, struct fp_vars *v)
{
	fp_vars_builtin(v, r->dir);
}

/* ---- the FIFO directory -------------------------------------------------- */

/* A user-given directory: made 0700 if missing, else it must be a real
 * directory of ours that nobody else can write to. */
static void use_given_dir(struct fp_run *r, const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) == 0) {
		r->dir_ours = 1;
	} else if (errno != EEXIST) {
		fp_die_sys(FP_EXIT_SYS, "cannot make fifo dir %s", dir);
	} else {
		if (lstat(dir, &st) < 0)
			fp_die_sys(FP_EXIT_SYS, "cannot stat fifo dir %s", dir);
		if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
			fp_die(FP_EXIT_USAGE, "fifo dir %s: exists and is not a directory of ours "
			       "with mode 0700 (refusing to use it)", dir);
	}
	r->dir = fp_xstrdup(dir);
}

static void make_private_dir(struct fp_run *r)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	tmpl = path_in(tmp, DIR_TEMPLATE);
	if (fp_fifo_private_dir(tmpl) < 0)
		fp_die_sys(FP_EXIT_SYS, "cannot make a private fifo dir %s", tmpl);
	r->dir = tmpl;
	r->dir_ours = 1;
}

/* ---- stopping ------------------------------------------------------------ */

static void begin_stop(struct fp_run *r, enum stop_cause cause, size_t failed);
static enum fp_stage_action stage_event(struct stage *st, enum fp_stage_event ev);
static int spawn_stage(struct stage *st);
static struct stage *new_stage(struct fp_run *r, size_t i);
static int insert_after(struct stage *a);

static void record_failure(struct fp_run *r, int code)
{
	if (r->exit_code == 0)
		r->exit_code = code;
}

static void check_all_done(struct fp_run *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->stages[i]->state != FP_ST_DONE)
			return;
	r->done = 1;
	ev_break(r->loop, EVBREAK_ALL);
}

static void reply_line(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void reply_line(int fd, const char *fmt, ...)
{
	char msg[CTL_LINE_MAX];
	va_list ap;
	int n;

	if (fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof msg - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof msg - 2)
		n = sizeof msg - 2;
	msg[n++] = '\n';
	/* Best effort: a client that went away must not hurt the runner. */
	if (write(fd, msg, (size_t)n) < 0) {
		/* ignored */
	}
}

static void finish_op(struct stage *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Ends a pending control operation, answering the waiting client. */
static void finish_op(struct stage *st, const char *fmt, ...)
{
	char msg[CTL_LINE_MAX / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	reply_line(st->reply_fd, "%s", msg);
	close_fd(&st->reply_fd);
	if (st->next_argv) {
		for (size_t k = 0; k < st->next_argc; k++)
			free(st->next_argv[k]);
		free(st->next_argv);
		free(st->next_path);
		st->next_argv = NULL;
		st->next_path = NULL;
	}
	free(st->insert_name);
	st->insert_name = NULL;
	st->op = OP_NONE;
}

/* Stage i has finished for good: pass EOF down, EPIPE up. */
static void stage_finish(struct stage *st, int ok, int code)
{
	struct fp_run *r = st->run;
	size_t i = st->index;

	if (st->state == FP_ST_DONE)
		return;
	ev_timer_stop(r->loop, &st->restart_w);
	st->state = FP_ST_DONE;
	st->ok = ok;
	if (st->op != OP_NONE)
		finish_op(st, "error: stage '%s' has finished", st->spec->name);
	if (i + 1 < r->n)
		close_fd(&r->links[i].hold_w);
	if (i > 0)
		close_fd(&r->links[i - 1].hold_r);
	if (!ok) {
		record_failure(r, code);
		begin_stop(r, STOP_FAILURE, i);
	}
	check_all_done(r);
}

static void term_stage(struct stage *st)
{
	if (st->state != FP_ST_RUNNING || st->pid <= 0 || st->term_sent)
		return;
	st->term_sent = 1;
	send_group(st, SIGTERM);
	/* A stage stopped by SIGSTOP would never see the TERM. */
	send_group(st, SIGCONT);
	ev_timer_set(&st->kill_w, st->run->opts.kill_timeout, 0.);
	ev_timer_start(st->run->loop, &st->kill_w);
}

static void kill_stage(struct stage *st)
{
	if (st->state != FP_ST_RUNNING || st->pid <= 0 || st->kill_sent)
		return;
	st->kill_sent = 1;
	logmsg("stage '%s' (%s) did not stop: sending SIGKILL", st->spec->name, st->spec->argv[0]);
	send_group(st, SIGKILL);
}

static void kill_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	stage_event(w->data, FP_EV_KILL);
}

/* The drain deadline: whatever still runs gets SIGTERM now. */
static void drain_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct fp_run *r = w->data;

	for (size_t i = 0; i < r->n; i++)
		stage_event(r->stages[i], FP_EV_TERM);
}

static void begin_stop(struct fp_run *r, enum stop_cause cause, size_t failed)
{
	if (r->stopping)
		return;
	r->stopping = 1;
	for (size_t i = 0; i < r->n; i++) {
		struct stage *st = r->stages[i];

		if (st->op != OP_NONE && st->state != FP_ST_RUNNING)
			finish_op(st, "error: the pipeline is stopping");
		stage_event(st, FP_EV_STOP);
	}
	if (cause == STOP_FAILURE) {
		/* Upstream of the failure is pointless; downstream drains
		 * what reached it and sees EOF. */
		for (size_t i = 0; i < failed; i++)
			stage_event(r->stages[i], FP_EV_TERM);
	} else {
		/* Stop the source; EOF then flows down the chain and every
		 * stage writes its final tables. */
		for (size_t i = 0; i < r->n; i++)
			if (r->stages[i]->state == FP_ST_RUNNING) {
				stage_event(r->stages[i], FP_EV_TERM);
				break;
			}
	}
	ev_timer_set(&r->drain_w, r->opts.drain_timeout, 0.);
	ev_timer_start(r->loop, &r->drain_w);
	check_all_done(r);
}

void fp_run_stop(struct fp_run *r)
{
	begin_stop(r, STOP_REQUEST, 0);
}

static void signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct fp_run *r = w->data;
	char name[32];

	if (w->signum == SIGQUIT) {
		logmsg("%s: killing every stage", signal_name(w->signum, name, sizeof name));
		r->stop_signal = w->signum;
		begin_stop(r, STOP_SIGNAL, 0);
		for (size_t i = 0; i < r->n; i++)
			stage_event(r->stages[i], FP_EV_KILL);
		return;
	}
	r->signals_seen++;
	if (r->signals_seen == 1) {
		r->stop_signal = w->signum;
		logmsg("%s: stopping (the source first, then the rest drains)",
		       signal_name(w->signum, name, sizeof name));
		begin_stop(r, STOP_SIGNAL, 0);
	} else if (r->signals_seen == 2) {
		logmsg("%s again: sending SIGTERM to every stage", signal_name(w->signum, name, sizeof name));
		for (size_t i = 0; i < r->n; i++)
			stage_event(r->stages[i], FP_EV_TERM);
	} else {
		for (size_t i = 0; i < r->n; i++)
			stage_event(r->stages[i], FP_EV_KILL);
	}
}

/* ---- child exits and restarts -------------------------------------------- */

static int downstream_finished(const struct stage *st)
{
	const struct fp_run *r = st->run;

	return st->index + 1 >= r->n || r->stages[st->index + 1]->state == FP_ST_DONE;
}

static int exit_is_success(const struct stage *st, int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	/* EPIPE after the reader finished is not a failure (git's
	 * check_pipe); the runner's stdout closing counts the same. */
	if (((WIFEXITED(status) && WEXITSTATUS(status) == FP_EXIT_PIPE) ||
	     (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE)) && downstream_finished(st))
		return 1;
	/* Our own SIGTERM while stopping: stopped as asked (a stage blocked
	 * in a write exits 128+SIGTERM the way a shell reports it). */
	if (((WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) ||
	     (WIFEXITED(status) && WEXITSTATUS(status) == SHELL_SIGNAL_BASE + SIGTERM)) &&
	    st->term_sent && st->run->stopping)
		return 1;
	return 0;
}

static int failure_code(int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == FP_EXIT_DATA)
		return FP_EXIT_DATA;
	return FP_EXIT_STAGE;
}

/* Whether a new process of the stage would have anything to read: the
 * first stage reads the runner's stdin (a source: assume so); the others
 * while their writer lives, or while bytes are left in their FIFO (the
 * runner's read hold tells). A stage whose input has ended and is drained
 * is never restarted: it would only see EOF again. */
static int input_pending(const struct stage *st)
{
	const struct fp_run *r = st->run;
	int queued = 0;

	if (st->index == 0 || r->stages[st->index - 1]->state != FP_ST_DONE)
		return 1;
	if (r->links[st->index - 1].hold_r < 0 ||
	    ioctl(r->links[st->index - 1].hold_r, FIONREAD, &queued) < 0)
		return 0;
	return queued > 0;
}

static void schedule_restart(struct stage *st, int failed)
{
	struct fp_run *r = st->run;
	double interval = MIN_SPAWN_INTERVAL, delay;

	if (failed) {
		for (unsigned k = 1; k < st->fast_failures && interval < MAX_BACKOFF; k++)
			interval *= 2;
		if (interval > MAX_BACKOFF)
			interval = MAX_BACKOFF;
	}
	delay = st->spawned_at + interval - ev_now(r->loop);
	if (delay < 0)
		delay = 0;
	st->state = FP_ST_BACKOFF;
	if (failed)
		logmsg("stage '%s': restarting in %.1f s (fast failure %u of %u allowed)",
		       st->spec->name, delay, st->fast_failures, st->spec->retries);
	else
		logmsg("stage '%s': restarting in %.1f s (restart=always)", st->spec->name, delay);
	ev_timer_set(&st->restart_w, delay, 0.);
	ev_timer_start(r->loop, &st->restart_w);
}

static void restart_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct stage *st = w->data;

	if (st->run->stopping)
		return;
	/* The input ended (and drained) while we waited: nothing to
	 * restart for (finished as the last process ended). */
	stage_event(st, input_pending(st) ? FP_EV_TIMER : FP_EV_TIMER_DRAINED);
}

/* A stage died and will be restarted: what it held is lost (the FIFOs
 * around it are held by us, so nothing in the pipes is). Say so on stderr
 * and in-band, so the renderer and the web page can show it: a W record
 * on the dead stage's output link, before the new process writes. The
 * leading LF ends a line the dead process may have left half-written
 * (that line, and a line it was reading, are part of the loss). */
/* Whether link i (stage i's output) carries the flamepipe stream: the
 * links before fp-read carry its input (perf script text), where a W
 * record would be a bad line. With no fp-read in the chain, every link
 * is taken for the stream (a chain fed with records). */
static int link_is_stream(const struct fp_run *r, size_t i)
{
	int has_reader = 0;

	for (size_t k = 0; k < r->n; k++) {
		const char *prog = strrchr(r->stages[k]->spec->path, '/');

		prog = prog ? prog + 1 : r->stages[k]->spec->path;
		if (!strcmp(prog, FP_READER_PROGRAM)) {
			if (k <= i)
				return 1;
			has_reader = 1;
		}
	}
	return !has_reader;
}

static void report_loss(struct stage *st)
{
	struct fp_run *r = st->run;
	struct fp_wmem m = { 0 };
	char msg[CTL_LINE_MAX / 2];

	logmsg("stage '%s': lost the records it had read and not yet passed on "
	       "(for an aggregating stage, its table since its last snapshot)", st->spec->name);
	if (st->index + 1 >= r->n || r->links[st->index].hold_w < 0 ||
	    !link_is_stream(r, st->index))
		return;
	snprintf(msg, sizeof msg, "stage %s %s and was restarted: the records inside it were lost",
		 st->spec->name, st->last);
	/* An LF first ends a line the stage may have left half written. Then
	 * the warning for people and `C restarted STAGE` for the stages and
	 * fp-serve (a restarted fp-range forgot its selection). */
	fp_wmem_add(&m, "\n", 1);
	fp_write_warning_at(fp_wmem_wr(&m), fp_prog(), st->spec->where, msg);
	fp_write_restarted(fp_wmem_wr(&m), st->spec->name);
	if (m.len > PIPE_BUF || write(r->links[st->index].hold_w, m.p, m.len) != (ssize_t)m.len)
		logmsg("stage '%s': no room in its output FIFO for the loss warning",
		       st->spec->name);
	fp_wmem_free(&m);
}

/* Swaps in the replacement program of a pending `replace`. */
static void apply_replacement(struct stage *st)
{
	struct fp_stage_spec *sp = st->spec;

	for (size_t k = 0; k < sp->argc; k++)
		free(sp->argv[k]);
	free(sp->argv);
	free(sp->path);
	sp->argv = st->next_argv;
	sp->argc = st->next_argc;
	sp->path = st->next_path;
	st->next_argv = NULL;
	st->next_path = NULL;
	st->fast_failures = 0;
}


/* A pending restart/replace/insert: the old process is gone, start the
 * new one now (the user asked; no throttling). */
static void run_pending_op(struct stage *st)
{
	int replacing = st->op == OP_REPLACE;

	if (st->op == OP_INSERT) {
		if (insert_after(st) < 0) {
			finish_op(st, "error: cannot insert stage '%s'", st->insert_name);
			stage_finish(st, 0, FP_EXIT_SYS);
		}
		return;
	}
	if (replacing)
		apply_replacement(st);
	if (spawn_stage(st) < 0) {
		finish_op(st, "error: stage '%s': cannot start %s", st->spec->name, st->spec->argv[0]);
		stage_finish(st, 0, FP_EXIT_USAGE);
		return;
	}
	finish_op(st, "ok: stage '%s' %s, pid %ld", st->spec->name,
		  replacing ? "replaced" : "restarted", (long)st->pid);
}

/* The fast failures in a row if this failure is counted (not stored:
 * only a restart or a give-up keeps it). */
static unsigned next_fast_failures(const struct stage *st)
{
	if (ev_now(st->run->loop) - st->spawned_at < FAST_FAILURE_WINDOW)
		return st->fast_failures + 1;
	return 1;
}

/* Carries out what the state table says for (st->state, ev). */
static enum fp_stage_action stage_event(struct stage *st, enum fp_stage_event ev)
{
	enum fp_stage_action a = fp_stage_action(st->state, ev);

	switch (a) {
	case FP_AC_NONE:
	case FP_AC_REJECT:	/* the ctl code answers the client */
		break;
	case FP_AC_SPAWN:
		if (spawn_stage(st) < 0)
			stage_finish(st, 0, FP_EXIT_USAGE);
		break;
	case FP_AC_FINISH: stage_finish(st, st->last_ok, st->last_ok ? 0 : st->last_code); break;
	case FP_AC_FINISH_OK: stage_finish(st, 1, 0); break;
	case FP_AC_FINISH_FAIL: stage_finish(st, 0, FP_EXIT_STAGE); break;
	case FP_AC_GIVE_UP:
		st->fast_failures = next_fast_failures(st);
		logmsg("stage '%s': giving up after %u fast failures in a row",
		       st->spec->name, st->fast_failures);
		stage_finish(st, 0, st->last_code);
		break;
	case FP_AC_RESTART:
		/* Every exit that leads to a restart is reported. */
		if (st->last_plain && !st->run->opts.verbose)
			logmsg("stage '%s' (%s) %s", st->spec->name, st->spec->argv[0], st->last);
		st->fast_failures = 0;
		schedule_restart(st, 0);
		break;
	case FP_AC_RESTART_LOSS:
		st->fast_failures = next_fast_failures(st);
		report_loss(st);
		schedule_restart(st, 1);
		break;
	case FP_AC_RUN_OP:
		ev_timer_stop(st->run->loop, &st->restart_w);
		run_pending_op(st);
		break;
	case FP_AC_TERM: term_stage(st); break;
	case FP_AC_KILL: kill_stage(st); break;
	case FP_AC_BUG:
	case FP_AC_COUNT:
		logmsg("internal error: stage '%s': event %s in state %s ignored", st->spec->name,
		       fp_stage_event_name(ev), fp_stage_state_name(st->state));
		break;
	}
	return a;
}

static void child_cb(struct ev_loop *loop, ev_child *w, int revents)
{
	struct stage *st = w->data;
	struct fp_run *r = st->run;
	int status = w->rstatus;
	pid_t pid = w->rpid;
	struct fp_exit_facts f = { 0 };

	ev_child_stop(loop, w);
	ev_timer_stop(loop, &st->kill_w);
	st->pid = 0;	/* state stays RUNNING until the table decides */
	describe_status(status, st->last, sizeof st->last);
	/* Leftovers of the stage (children of a shell stage) go too. */
	kill(-pid, SIGTERM);
	kill(-pid, SIGCONT);
	st->last_ok = exit_is_success(st, status);
	st->last_code = failure_code(status);
	st->last_plain = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	if (!st->last_plain || r->opts.verbose)
		logmsg("stage '%s' (%s) %s", st->spec->name, st->spec->argv[0], st->last);
	f.ok = st->last_ok;
	f.stopping = r->stopping;
	f.op_pending = st->op != OP_NONE;
	f.input_pending = input_pending(st);
	f.reader_done = downstream_finished(st) && st->index + 1 < r->n;
	f.restart = st->spec->restart;
	f.fast_failures = next_fast_failures(st);
	f.retries = st->spec->retries;
	stage_event(st, fp_stage_exit_event(&f));
}

/* ---- spawning ------------------------------------------------------------ */

/* The reading end of a link for a new reader, blocking as stages expect
 * (O_NONBLOCK first: the open must not wait for a writer). */
static int open_link_reader(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	int fl;

	if (fd < 0)
		return -1;
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

static int is_reader(const struct stage *st)
{
	const char *prog = strrchr(st->spec->path, '/');

	return !strcmp(prog ? prog + 1 : st->spec->path, FP_READER_PROGRAM);
}

/* In the child, after fork: plumbing, then exec. Never returns. */
static void child_exec(struct stage *st, int in_fd, int out_fd, int notify_fd, pid_t parent)
{
	struct fp_run *r = st->run;
	sigset_t none;
	int e;

	setpgid(0, 0);
	/* --user: the source (stage 0, perf) keeps root; the analysis
	 * stages drop it, groups first (setuid would forbid that after). */
	if (r->drop_user && st->index >= (r->opts.privileged ? r->opts.privileged : 1) &&
	    (setgroups(1, &r->gid) < 0 || setgid(r->gid) < 0 || setuid(r->uid) < 0))
		goto fail;
	/* After setuid, which clears it. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(FP_EXIT_SYS);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	/* Park both fds above 2 first, so dup2 onto 0 and 1 cannot clobber
	 * one with the other. */
	in_fd = fcntl(in_fd, F_DUPFD_CLOEXEC, HIGH_FD);
	out_fd = fcntl(out_fd, F_DUPFD_CLOEXEC, HIGH_FD);
	if (in_fd < 0 || out_fd < 0 || dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0)
		goto fail;
	/* fp-read reports its sample count for the progress line. */
	if (is_reader(st) && r->progress[1] >= 0 &&
	    dup2(r->progress[1], PROGRESS_FD) == PROGRESS_FD)
		setenv("FLAMEPIPE_PROGRESS_FD", "3", 1);
	else
		unsetenv("FLAMEPIPE_PROGRESS_FD");
	execv(st->spec->path, st->spec->argv);
fail:
	e = errno;
	if (write(notify_fd, &e, sizeof e) < 0) {
		/* nothing more we can do */
	}
	_exit(127);
}

/* Starts stage st on its links. 0, or -1 after printing why. */
static int spawn_stage(struct stage *st)
{
	struct fp_run *r = st->run;
	size_t i = st->index;
	int in_fd, out_fd, notify[2], child_errno = 0;
	ssize_t got;
	pid_t pid;

	in_fd = i == 0 ? r->opts.in_fd : open_link_reader(r->links[i - 1].path);
	out_fd = i + 1 == r->n ? r->opts.out_fd : fp_fifo_open_writer(r->links[i].path);
	if (in_fd < 0 || out_fd < 0) {
		fp_warn_sys("stage '%s': cannot open its FIFOs", st->spec->name);
		goto fail_fds;
	}
	if (pipe2(notify, O_CLOEXEC) < 0) {
		fp_warn_sys("stage '%s': pipe", st->spec->name);
		goto fail_fds;
	}
	pid = fork();
	if (pid < 0) {
		fp_warn_sys("stage '%s': fork", st->spec->name);
		close(notify[0]);
		close(notify[1]);
		goto fail_fds;
	}
	if (pid == 0)
		child_exec(st, in_fd, out_fd, notify[1], r->owner);
	setpgid(pid, pid);	/* also in the parent: no window for signals */
	close(notify[1]);
	if (i > 0)
		close(in_fd);
	if (i + 1 < r->n)
		close(out_fd);
	do
		got = read(notify[0], &child_errno, sizeof child_errno);
	while (got < 0 && errno == EINTR);
	close(notify[0]);
	if (got == sizeof child_errno) {
		/* exec failed: the child is gone, reap it here. */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		logmsg("stage '%s' (%s): cannot run %s: %s", st->spec->name, st->spec->argv[0],
		       st->spec->path, strerror(child_errno));
		snprintf(st->last, sizeof st->last, "exec failed");
		return -1;
	}
	st->pid = pid;
	st->state = FP_ST_RUNNING;
	st->term_sent = st->kill_sent = 0;
	st->spawned_at = ev_now(r->loop);
	st->starts++;
	ev_child_set(&st->child_w, pid, 0);
	ev_child_start(r->loop, &st->child_w);
	if (r->opts.verbose)
		logmsg("stage '%s' (%s) started, pid %ld", st->spec->name, st->spec->argv[0], (long)pid);
	return 0;

fail_fds:
	if (i > 0 && in_fd >= 0)
		close(in_fd);
	if (i + 1 < r->n && out_fd >= 0)
		close(out_fd);
	return -1;
}

/* ---- the control FIFO ---------------------------------------------------- */

#define CTL_MAX_WORDS 256

static int open_reply(struct fp_run *r, const char *name)
{
	char *path;
	int fd;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -1;
	path = path_in(r->dir, name);
	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		fp_warn_sys("control: cannot open reply FIFO %s", path);
	free(path);
	return fd;
}

static void ctl_status(struct fp_run *r, int fd)
{
	reply_line(fd, "ok");
	reply_line(fd, "runner\tpid=%ld\tstate=%s\tdir=%s", (long)r->owner,
		   r->stopping ? "stopping" : "running", r->dir);
	for (size_t i = 0; i < r->n; i++) {
		struct stage *st = r->stages[i];
		char cmd[CTL_LINE_MAX / 2];
		size_t len = 0;

		cmd[0] = '\0';
		for (size_t k = 0; k < st->spec->argc && len + 2 < sizeof cmd; k++) {
			int m = snprintf(cmd + len, sizeof cmd - len, "%s%s", k ? " " : "",
					 st->spec->argv[k]);

			if (m < 0)
				break;
			len += (size_t)m;
		}
		if (len >= sizeof cmd)
			len = sizeof cmd - 1;
		reply_line(fd, "stage\tname=%s\tstate=%s\tpid=%ld\tstarts=%u\tlast=%s\tcommand=%s",
			   st->spec->name, fp_stage_state_name(st->state), (long)st->pid, st->starts,
			   st->last[0] ? st->last : "-", cmd);
	}
}

/* restart NAME / replace NAME PROGRAM [ARG]... /
 * insert NEW after|before NAME PROGRAM [ARG]... */
static void ctl_op(struct fp_run *r, int fd, char **w, size_t n, enum stage_op op)
{
	static const char *const usage[] = {
		[OP_RESTART] = "restart NAME",
		[OP_REPLACE] = "replace NAME PROGRAM [ARG]...",
		[OP_INSERT] = "insert NEW after|before NAME PROGRAM [ARG]...",
	};
	size_t need = op == OP_RESTART ? 2 : op == OP_REPLACE ? 3 : 5;
	const char *name = op == OP_INSERT ? w[3] : w[1];
	size_t prog = op == OP_INSERT ? 4 : 2;
	long i;
	struct stage *st;

	if (n < need || (op == OP_INSERT && strcmp(w[2], "after") && strcmp(w[2], "before"))) {
		reply_line(fd, "error: usage: %s", usage[op]);
		close_fd(&fd);
		return;
	}
	i = fp_pipeline_find(&r->pl, name);
	if (i < 0) {
		reply_line(fd, "error: no stage '%s'", name);
		close_fd(&fd);
		return;
	}
	if (op == OP_INSERT) {
		/* Inserting before b is inserting after the stage before b;
		 * the stage whose output moves is restarted. */
		if (!strcmp(w[2], "before"))
			i--;
		if (i < 0 || (size_t)i + 1 >= r->n) {
			reply_line(fd, "error: cannot insert %s the %s stage '%s' (its %s is the runner's)",
				   w[2], i < 0 ? "first" : "last", name, i < 0 ? "input" : "output");
			close_fd(&fd);
			return;
		}
		if (!fp_stage_name_ok(w[1]) || fp_pipeline_find(&r->pl, w[1]) >= 0) {
			reply_line(fd, "error: bad or existing stage name '%s' (expected a new name of "
				   "letters, digits, '_', '-', '.')", w[1]);
			close_fd(&fd);
			return;
		}
	}
	st = r->stages[i];
	if (r->stopping || fp_stage_action(st->state, FP_EV_CTL) == FP_AC_REJECT || st->op != OP_NONE) {
		reply_line(fd, "error: stage '%s' is %s", st->spec->name,
			   r->stopping ? "stopping" : st->op != OP_NONE ? "busy" : fp_stage_state_name(st->state));
		close_fd(&fd);
		return;
	}
	if (op != OP_RESTART) {
		char *path = fp_find_program(w[prog], fp_run_bindir());

		if (!path) {
			reply_line(fd, "error: program '%s' not found (looked in %s and $PATH)",
				   w[prog], fp_run_bindir() ? fp_run_bindir() : "-");
			close_fd(&fd);
			return;
		}
		st->next_path = path;
		st->next_argc = n - prog;
		st->next_argv = fp_xcalloc(n - prog + 1, sizeof *st->next_argv);
		for (size_t k = prog; k < n; k++)
			st->next_argv[k - prog] = fp_xstrdup(w[k]);
		if (op == OP_INSERT)
			st->insert_name = fp_xstrdup(w[1]);
	}
	st->op = op;
	st->reply_fd = fd;
	if (op == OP_INSERT)
		logmsg("control: inserting stage '%s' after '%s' (restarting '%s')", w[1],
		       st->spec->name, st->spec->name);
	else
		logmsg("control: %s stage '%s'", op == OP_REPLACE ? "replacing" : "restarting",
		       st->spec->name);
	/* Waiting for a restart: now. Running: the old process ends its
	 * input and writes its tables on TERM; child_cb starts the new one on
	 * the same (held) FIFOs. */
	stage_event(st, FP_EV_CTL);
}

static void ctl_command(struct fp_run *r, char *line)
{
	char *w[CTL_MAX_WORDS];
	size_t n = 0;
	int fd = -1;
	const char *sep = strchr(line, '\t') ? "\t" : " ";
	char *save = NULL;

	for (char *tok = strtok_r(line, sep, &save); tok && n < CTL_MAX_WORDS;
	     tok = strtok_r(NULL, sep, &save))
		w[n++] = tok;
	if (n > 0 && w[0][0] == '@') {
		fd = open_reply(r, w[0] + 1);
		memmove(w, w + 1, --n * sizeof *w);
	}
	if (n == 0) {
		close_fd(&fd);
		return;
	}
	if (!strcmp(w[0], "status")) {
		ctl_status(r, fd);
	} else if (!strcmp(w[0], "restart") || !strcmp(w[0], "replace") || !strcmp(w[0], "insert")) {
		ctl_op(r, fd, w, n, w[0][0] == 'i' ? OP_INSERT : w[0][2] == 'p' ? OP_REPLACE : OP_RESTART);
		return;	/* the reply fd is answered (and closed) later */
	} else if (!strcmp(w[0], "stop")) {
		logmsg("control: stopping");
		reply_line(fd, "ok: stopping");
		begin_stop(r, STOP_REQUEST, 0);
	} else {
		reply_line(fd, "error: unknown command '%s' (expected status, restart, replace, insert or stop)", w[0]);
		fp_warn("control: unknown command '%s'", w[0]);
	}
	close_fd(&fd);
}

static void ctl_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct fp_run *r = w->data;
	char chunk[CTL_READ_CHUNK];
	ssize_t got = read(r->ctl_fd, chunk, sizeof chunk);

	if (got <= 0)
		return;	/* EAGAIN; never EOF: we hold a write end */
	for (ssize_t k = 0; k < got; k++) {
		char c = chunk[k];

		if (c == '\n') {
			if (!r->ctl_skipping) {
				r->ctl_buf[r->ctl_len] = '\0';
				if (r->ctl_len && r->ctl_buf[r->ctl_len - 1] == '\r')
					r->ctl_buf[r->ctl_len - 1] = '\0';
				ctl_command(r, r->ctl_buf);
			}
			r->ctl_len = 0;
			r->ctl_skipping = 0;
		} else if (r->ctl_len + 1 >= sizeof r->ctl_buf) {
			if (!r->ctl_skipping)
				fp_warn("control: command longer than %d bytes ignored", CTL_LINE_MAX);
			r->ctl_skipping = 1;
		} else if (!r->ctl_skipping) {
			r->ctl_buf[r->ctl_len++] = c;
		}
	}
}

/* ---- setting up ---------------------------------------------------------- */

/* --user NAME or a numeric uid: the uid and primary group stages run as. */
static void resolve_user(struct fp_run *r, const char *user)
{
	struct passwd *pw = getpwnam(user);
	char *end;

	if (!pw) {
		unsigned long id = strtoul(user, &end, 10);

		if (*user && !*end && (pw = getpwuid((uid_t)id)) == NULL) {
			r->uid = (uid_t)id;
			r->gid = (gid_t)id;
		} else if (!pw) {
			fp_die(FP_EXIT_USAGE, "--user: no user '%s'", user);
		}
	}
	if (pw) {
		r->uid = pw->pw_uid;
		r->gid = pw->pw_gid;
	}
	if (r->uid == geteuid() && r->gid == getegid())
		return;	/* already that user: nothing to drop */
	if (geteuid() != 0)
		fp_die(FP_EXIT_USAGE, "--user %s: only root can run stages as another user", user);
	if (r->uid == 0)
		fp_die(FP_EXIT_USAGE, "--user %s: expected an unprivileged user, not uid 0", user);
	r->drop_user = 1;
}

struct fp_run *fp_run_new(const struct fp_run_opts *o)
{
	struct fp_run *r = fp_xcalloc(1, sizeof *r);

	r->opts = *o;
	r->owner = getpid();
	r->ctl_fd = r->ctl_keep = -1;
	r->samples = r->bytes_read = -1;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, r->progress) < 0)
		r->progress[0] = r->progress[1] = -1;	/* no sample count: fine */
	else
		fcntl(r->progress[0], F_SETFL, O_NONBLOCK);
	r->loop = EV_DEFAULT;
	if (!r->loop)
		fp_die(FP_EXIT_SYS, "cannot initialise libev (bad $LIBEV_FLAGS?)");
	signal(SIGPIPE, SIG_IGN);
	/* Signals first: a Ctrl-C during set-up is handled (and cleaned up)
	 * once the loop runs. */
	ev_signal_init(&r->sig_int, signal_cb, SIGINT);
	ev_signal_init(&r->sig_term, signal_cb, SIGTERM);
	ev_signal_init(&r->sig_hup, signal_cb, SIGHUP);
	ev_signal_init(&r->sig_quit, signal_cb, SIGQUIT);
	r->sig_int.data = r->sig_term.data = r->sig_hup.data = r->sig_quit.data = r;
	ev_signal_start(r->loop, &r->sig_int);
	ev_signal_start(r->loop, &r->sig_term);
	ev_signal_start(r->loop, &r->sig_hup);
	ev_signal_start(r->loop, &r->sig_quit);
	ev_timer_init(&r->drain_w, drain_timer_cb, 0., 0.);
	r->drain_w.data = r;
	if (r->progress[0] >= 0) {
		ev_io_init(&r->progress_w, progress_read_cb, r->progress[0], EV_READ);
		r->progress_w.data = r;
		ev_io_start(r->loop, &r->progress_w);
	}
	cleanup_run = r;
	atexit(cleanup_at_exit);
	if (o->user)
		resolve_user(r, o->user);
	if (o->fifo_dir)
		use_given_dir(r, o->fifo_dir);
	else
		make_private_dir(r);
	/* --user: the stages make control FIFOs in the dir and may reopen
	 * theirs by path, so the dir is theirs (still 0700: nobody else's). */
	if (r->drop_user && !r->dir_ours)
		fp_die(FP_EXIT_USAGE, "--user %s: needs a fifo dir the runner makes (not the existing %s)",
		       o->user, r->dir);
	if (r->drop_user && chown(r->dir, r->uid, r->gid) < 0)
		fp_die_sys(FP_EXIT_SYS, "cannot give fifo dir %s to --user %s", r->dir, o->user);
	return r;
}

const char *fp_run_dir(const struct fp_run *r)
{
	return r->dir;
}

struct ev_loop *fp_run_loop(struct fp_run *r)
{
	return r->loop;
}

static struct stage *new_stage(struct fp_run *r, size_t i)
{
	struct stage *st = fp_xcalloc(1, sizeof *st);

	st->run = r;
	st->index = i;
	st->spec = &r->pl.stages[i];
	st->reply_fd = -1;
	ev_child_init(&st->child_w, child_cb, 0, 0);
	ev_timer_init(&st->restart_w, restart_timer_cb, 0., 0.);
	ev_timer_init(&st->kill_w, kill_timer_cb, 0., 0.);
	st->child_w.data = st->restart_w.data = st->kill_w.data = st;
	return st;
}

int fp_run_load(struct fp_run *r, const char *file, const struct fp_vars *v)
{
	char err[FP_PIPELINE_ERR_MAX];

	if (fp_pipeline_parse_file(file, v, &r->pl, err, sizeof err) < 0 ||
	    fp_pipeline_resolve(&r->pl, fp_run_bindir(), err, sizeof err) < 0) {
		logmsg("%s", err);
		fp_pipeline_free(&r->pl);
		return FP_EXIT_USAGE;
	}
	r->loaded = 1;
	r->n = r->pl.n;
	r->stages = fp_xcalloc(r->n, sizeof *r->stages);
	for (size_t i = 0; i < r->n; i++)
		r->stages[i] = new_stage(r, i);
	return 0;
}

/* mkfifo 0600 at a path that must not exist yet: anything already there
 * (a file, a symlink, a FIFO left by someone) is refused, never reused. */
static int make_fifo(struct fp_run *r, const char *path, int give)
{
	if (mkfifo(path, FIFO_MODE) < 0) {
		int e = errno;

		if (e == EEXIST)
			logmsg("%s: exists already (refusing to use it: remove it, or use a fresh --fifo-dir)",
			       path);
		else
			logmsg("cannot make FIFO %s: %s", path, strerror(e));
		return e == EEXIST ? FP_EXIT_USAGE : FP_EXIT_SYS;
	}
	r->made = fp_xrealloc(r->made, (r->nmade + 1) * sizeof *r->made);
	r->made[r->nmade++] = fp_xstrdup(path);
	/* --user: the stages must be able to open a link (reopen by path).
	 * Never the control FIFO: `replace` of the source runs as root. */
	if (give && r->drop_user && chown(path, r->uid, r->gid) < 0) {
		logmsg("cannot chown FIFO %s: %s", path, strerror(errno));
		return FP_EXIT_SYS;
	}
	return 0;
}

/* Makes link l at DIR/WRITER.out and holds both its ends. The write hold
 * is non-blocking: the runner only ever writes a short W record into it
 * and must never wait on a slow reader. */
static int make_link(struct fp_run *r, struct link *l, const char *writer)
{
	char name[FP_STAGE_NAME_MAX + 8];
	int rc;

	l->hold_r = l->hold_w = -1;
	snprintf(name, sizeof name, "%s.out", writer);
	l->path = path_in(r->dir, name);
	if ((rc = make_fifo(r, l->path, 1)))
		return rc;
	/* Read hold first: the write open needs a reader. */
	l->hold_r = open(l->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (l->hold_r >= 0)
		l->hold_w = open(l->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (l->hold_r < 0 || l->hold_w < 0) {
		logmsg("cannot open FIFO %s: %s", l->path, strerror(errno));
		return FP_EXIT_SYS;
	}
	return 0;
}

static int make_links(struct fp_run *r)
{
	int rc;

	r->links = fp_xcalloc(r->n ? r->n - 1 : 1, sizeof *r->links);
	for (size_t i = 0; i + 1 < r->n; i++)
		if ((rc = make_link(r, &r->links[i], r->pl.stages[i].name)))
			return rc;
	return 0;
}

/* ctl insert, once stage a (whose output moves) has stopped:
 *	before:  a -> [a.out] -> b
 *	after:   a -> [a.out, new] -> x -> [x.out, the old a.out renamed] -> b
 * b keeps reading the same pipe (renaming a FIFO does not touch open
 * ends), so b and everything after it run on undisturbed; x starts on the
 * new link, then a again. Returns 0, or -1 after saying why. */
static int insert_after(struct stage *a)
{
	struct fp_run *r = a->run;
	size_t i = a->index, j = i + 1;
	struct fp_stage_spec spec = { 0 };
	struct link *old, fresh;
	char *newpath;
	size_t plen;

	plen = strlen(r->dir) + 1 + strlen(a->insert_name) + sizeof ".out";
	newpath = fp_xmalloc(plen);
	snprintf(newpath, plen, "%s/%s.out", r->dir, a->insert_name);
	old = &r->links[i];
	/* link() then unlink(): unlike rename(), never replaces a path. */
	if (link(old->path, newpath) < 0 || unlink(old->path) < 0) {
		logmsg("insert: cannot rename %s to %s: %s", old->path, newpath, strerror(errno));
		free(newpath);
		return -1;
	}
	for (size_t k = 0; k < r->nmade; k++)
		if (!strcmp(r->made[k], old->path)) {
			free(r->made[k]);
			r->made[k] = fp_xstrdup(newpath);
		}
	free(old->path);
	old->path = newpath;
	if (make_link(r, &fresh, a->spec->name) != 0) {
		close_fd(&fresh.hold_r);
		close_fd(&fresh.hold_w);
		free(fresh.path);
		return -1;
	}
	/* The spec: pl.stages moves, so every stage's spec pointer is reset. */
	spec.name = a->insert_name;
	spec.where = fp_xstrdup(INSERTED_WHERE);
	spec.restart = FP_RESTART_NEVER;
	spec.retries = FP_RETRIES_DEFAULT;
	spec.argv = a->next_argv;
	spec.argc = a->next_argc;
	spec.path = a->next_path;
	a->insert_name = NULL;
	a->next_argv = NULL;
	a->next_path = NULL;
	r->pl.stages = fp_xrealloc(r->pl.stages, (r->pl.n + 1) * sizeof *r->pl.stages);
	memmove(&r->pl.stages[j + 1], &r->pl.stages[j], (r->pl.n - j) * sizeof *r->pl.stages);
	r->pl.stages[j] = spec;
	r->pl.n++;
	r->stages = fp_xrealloc(r->stages, (r->n + 1) * sizeof *r->stages);
	memmove(&r->stages[j + 1], &r->stages[j], (r->n - j) * sizeof *r->stages);
	r->links = fp_xrealloc(r->links, r->n * sizeof *r->links);
	old = &r->links[i];
	memmove(&r->links[i + 1], &r->links[i], (r->n - 1 - i) * sizeof *r->links);
	r->links[i] = fresh;
	r->n++;
	r->stages[j] = new_stage(r, j);
	for (size_t k = 0; k < r->n; k++) {
		r->stages[k]->index = k;
		r->stages[k]->spec = &r->pl.stages[k];
	}
	logmsg("control: stage '%s' (%s) inserted after '%s'", r->pl.stages[j].name,
	       r->pl.stages[j].argv[0], a->spec->name);
	/* Reader first, as at start. */
	if (spawn_stage(r->stages[j]) < 0) {
		finish_op(a, "error: stage '%s': cannot start %s", r->pl.stages[j].name,
			  r->pl.stages[j].argv[0]);
		stage_finish(r->stages[j], 0, FP_EXIT_USAGE);
		return 0;
	}
	if (spawn_stage(a) < 0) {
		finish_op(a, "error: stage '%s': cannot restart %s", a->spec->name, a->spec->argv[0]);
		stage_finish(a, 0, FP_EXIT_USAGE);
		return 0;
	}
	finish_op(a, "ok: stage '%s' inserted after '%s', pid %ld", r->pl.stages[j].name,
		  a->spec->name, (long)r->stages[j]->pid);
	return 0;
}

static int open_control(struct fp_run *r)
{
	int rc;

	r->ctl_path = path_in(r->dir, FP_RUN_CTL_NAME);
	if ((rc = make_fifo(r, r->ctl_path, 0)))
		return rc;
	r->ctl_fd = fp_fifo_open_reader(r->ctl_path, &r->ctl_keep);
	if (r->ctl_fd < 0) {
		logmsg("cannot open control FIFO %s: %s", r->ctl_path, strerror(errno));
		return FP_EXIT_SYS;
	}
	ev_io_init(&r->ctl_w, ctl_read_cb, r->ctl_fd, EV_READ);
	r->ctl_w.data = r;
	ev_io_start(r->loop, &r->ctl_w);
	return 0;
}

/* Written to a temporary name and renamed: a reader never sees half. */
static int write_dir_file(struct fp_run *r)
{
	size_t len = strlen(r->opts.dir_file);
	char *tmp = fp_xmalloc(len + 32);
	FILE *f;

	snprintf(tmp, len + 32, "%s.tmp%ld", r->opts.dir_file, (long)getpid());
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s\n", r->dir) < 0 || fclose(f) != 0 ||
	    rename(tmp, r->opts.dir_file) < 0) {
		logmsg("cannot write %s: %s", r->opts.dir_file, strerror(errno));
		unlink(tmp);
		free(tmp);
		return FP_EXIT_SYS;
	}
	free(tmp);
	return 0;
}

int fp_run_start(struct fp_run *r)
{
	int rc;

	if (!r->loaded)
		return FP_EXIT_USAGE;
	if ((rc = make_links(r)) || (rc = open_control(r)))
		return rc;
	if (r->opts.announce_dir)
		logmsg("fifo dir %s", r->dir);
	if (r->opts.dir_file && (rc = write_dir_file(r)))
		return rc;
	/* Downstream first: every reader is in place before its writer. */
	for (size_t k = r->n; k-- > 0;) {
		if (r->stopping)
			break;
		if (stage_event(r->stages[k], FP_EV_START) == FP_AC_SPAWN &&
		    r->stages[k]->state == FP_ST_DONE)
			break;	/* it could not start */
	}
	return 0;
}

int fp_run_wait(struct fp_run *r)
{
	if (!r->loaded)
		return FP_EXIT_USAGE;
	while (!r->done)
		ev_run(r->loop, 0);
	return r->exit_code;
}

void fp_run_free(struct fp_run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct stage *st = r->stages[i];

		if (st->pid > 0)
			send_group(st, SIGKILL);
		ev_child_stop(r->loop, &st->child_w);
		ev_timer_stop(r->loop, &st->restart_w);
		ev_timer_stop(r->loop, &st->kill_w);
		if (st->op != OP_NONE)
			finish_op(st, "error: the runner is exiting");
	}
	for (size_t i = 0; r->links && i + 1 < r->n; i++) {
		close_fd(&r->links[i].hold_r);
		close_fd(&r->links[i].hold_w);
		free(r->links[i].path);
	}
	if (r->ctl_fd >= 0) {
		ev_io_stop(r->loop, &r->ctl_w);
		close_fd(&r->ctl_fd);
		close_fd(&r->ctl_keep);
	}
	ev_timer_stop(r->loop, &r->drain_w);
	if (r->progress[0] >= 0)
		ev_io_stop(r->loop, &r->progress_w);
	close_fd(&r->progress[0]);
	close_fd(&r->progress[1]);
	ev_signal_stop(r->loop, &r->sig_int);
	ev_signal_stop(r->loop, &r->sig_term);
	ev_signal_stop(r->loop, &r->sig_hup);
	ev_signal_stop(r->loop, &r->sig_quit);
	remove_files(r);
	cleanup_run = NULL;
	free(r->made);
	free(r->links);
	for (size_t i = 0; i < r->n; i++)
		free(r->stages[i]);
	free(r->stages);
	free(r->ctl_path);
	free(r->dir);
	fp_pipeline_free(&r->pl);
	free(r);
}

size_t fp_run_stage_count(const struct fp_run *r)
{
	return r->n;
}

const char *fp_run_stage_name(const struct fp_run *r, size_t i)
{
	return i < r->n ? r->stages[i]->spec->name : NULL;
}

pid_t fp_run_stage_pid(const struct fp_run *r, size_t i)
{
	return i < r->n ? r->stages[i]->pid : 0;
}

/* Datagrams: each is a whole `samples=N bytes=M`; the last one is current.
 * Read as they come, so the socket never fills and fp-read's last report
 * (at the end of its input) is never the one dropped. */
static void read_progress(struct fp_run *r)
{
	char msg[PROGRESS_MSG_MAX];
	ssize_t n;

	while (r->progress[0] >= 0 && (n = recv(r->progress[0], msg, sizeof msg - 1, MSG_DONTWAIT)) > 0) {
		const char *b;

		msg[n] = '\0';
		if (!strncmp(msg, "samples=", 8))
			r->samples = strtoll(msg + 8, NULL, 10);
		if ((b = strstr(msg, " bytes=")))
			r->bytes_read = strtoll(b + 7, NULL, 10);
	}
}

static void progress_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	read_progress(w->data);
}

long long fp_run_samples(struct fp_run *r)
{
	read_progress(r);
	return r->samples;
}

long long fp_run_bytes_read(struct fp_run *r)
{
	read_progress(r);
	return r->bytes_read;
}

int fp_run_stop_signal(const struct fp_run *r)
{
	return r->stop_signal;
}
