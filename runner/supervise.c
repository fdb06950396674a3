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
 * RUNNING ... -> DONE, as a (state, event) -> action table in
 * stage_fsm.c; stage_event() here carries out the actions. A pending
 * control operation (restart, replace, insert) turns the next exit into an
 * immediate spawn. The other parts: spawn.c (processes), control.c (the
 * control FIFO), fifodir.c (the directory and the FIFOs); supervise.h has
 * what they share.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
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
#include "fp_runnermsg.h"
#include "summary.h"
#include "supervise.h"
#include "negotiate.h"
#include "watchdog.h"

static struct fp_run *cleanup_run; /* for the atexit path */

static void send_group(struct stage *st, int sig);
static void cleanup_at_exit(void);
static void record_failure(struct fp_run *r, size_t i, int code);
static void check_all_done(struct fp_run *r);
static void kill_stage(struct stage *st);
static void kill_timer_cb(struct ev_loop *loop, ev_timer *w, int revents);
static void drain_timer_cb(struct ev_loop *loop, ev_timer *w, int revents);
static void signal_cb(struct ev_loop *loop, ev_signal *w, int revents);
static int downstream_finished(const struct stage *st);
static int exit_is_success(const struct stage *st, int status);
static int failure_code(int status);
static int input_pending(const struct stage *st);
static void schedule_restart(struct stage *st, int failed);
static void restart_timer_cb(struct ev_loop *loop, ev_timer *w, int revents);
static void report_loss(struct stage *st);
static unsigned next_fast_failures(const struct stage *st);
static void read_progress(struct fp_run *r);
static void progress_read_cb(struct ev_loop *loop, ev_io *w, int revents);

/* "flamepipe: ..." on stderr in one write (stages share the terminal). */
void sv_log(const char *fmt, ...)
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

char *sv_path_in(const char *dir, const char *name)
{
	size_t d = strlen(dir), n = strlen(name);
	char *s = fp_xmalloc(d + 1 + n + 1);

	memcpy(s, dir, d);
	s[d] = '/';
	memcpy(s + d + 1, name, n + 1);
	return s;
}

void sv_close_fd(int *fd)
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

static void cleanup_at_exit(void)
{
	struct fp_run *r = cleanup_run;

	if (!r || getpid() != r->owner)
		return;
	/* Exiting with stages still up (a fatal error): leave no orphans. */
	for (size_t i = 0; i < r->n; i++)
		if (r->stages[i]->pid > 0)
			send_group(r->stages[i], SIGKILL);
	sv_remove_files(r);
}

void fp_run_opts_init(struct fp_run_opts *o)
{
	memset(o, 0, sizeof *o);
	o->drain_timeout = FP_RUN_DRAIN_TIMEOUT;
	o->kill_timeout = FP_RUN_KILL_TIMEOUT;
	o->in_fd = 0;
	o->out_fd = 1;
	o->announce_dir = 1;
	o->pass_fd = -1;
}

void fp_vars_builtin(struct fp_vars *v, const char *fifodir)
{
	static const char *const lists[] = {
		"READ_ARGS", "BUCKET_ARGS", "RANGE_ARGS",
		"FOLD_ARGS", "RENDER_ARGS", "SOURCE_SETTINGS",
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

static void record_failure(struct fp_run *r, size_t i, int code)
{
	if (r->exit_code == 0) {
		r->exit_code = code;
		r->first_failed = i + 1;
	}
}

static void check_all_done(struct fp_run *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->stages[i]->state != FP_ST_DONE)
			return;
	r->done = 1;
	ev_break(r->loop, EVBREAK_ALL);
}

/* Stage i has finished for good: pass EOF down, EPIPE up. */
void sv_stage_finish(struct stage *st, int ok, int code)
{
	struct fp_run *r = st->run;
	size_t i = st->index;

	if (st->state == FP_ST_DONE)
		return;
	ev_timer_stop(r->loop, &st->restart_w);
	st->state = FP_ST_DONE;
	st->ok = ok;
	if (st->op != OP_NONE)
		sv_finish_op(st, "error: stage '%s' has finished", st->spec->name);
	if (i + 1 < r->n)
		sv_close_fd(&r->links[i].hold_w);
	if (i > 0)
		sv_close_fd(&r->links[i - 1].hold_r);
	if (!ok) {
		record_failure(r, i, code);
		sv_begin_stop(r, STOP_FAILURE, i);
	}
	check_all_done(r);
}

void sv_term_stage(struct stage *st)
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
	sv_log("stage '%s' (%s) did not stop: sending SIGKILL", st->spec->name, st->spec->argv[0]);
	send_group(st, SIGKILL);
}

static void kill_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	sv_stage_event(w->data, FP_EV_KILL);
}

/* The drain deadline: whatever still runs gets SIGTERM now. */
static void drain_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct fp_run *r = w->data;

	for (size_t i = 0; i < r->n; i++)
		sv_stage_event(r->stages[i], FP_EV_TERM);
}

void sv_begin_stop(struct fp_run *r, enum stop_cause cause, size_t failed)
{
	if (r->stopping)
		return;
	r->stopping = 1;
	for (size_t i = 0; i < r->n; i++) {
		struct stage *st = r->stages[i];

		if (st->op != OP_NONE && st->state != FP_ST_RUNNING)
			sv_finish_op(st, "error: the pipeline is stopping");
		sv_stage_event(st, FP_EV_STOP);
	}
	if (cause == STOP_FAILURE) {
		/* Upstream of the failure is pointless; downstream drains
		 * what reached it and sees EOF. */
		for (size_t i = 0; i < failed; i++)
			sv_stage_event(r->stages[i], FP_EV_TERM);
	} else {
		/* Stop the source; EOF then flows down the chain and every
		 * stage writes its final tables. */
		for (size_t i = 0; i < r->n; i++)
			if (r->stages[i]->state == FP_ST_RUNNING) {
				sv_stage_event(r->stages[i], FP_EV_TERM);
				break;
			}
	}
	ev_timer_set(&r->drain_w, r->opts.drain_timeout, 0.);
	ev_timer_start(r->loop, &r->drain_w);
	check_all_done(r);
}

void fp_run_stop(struct fp_run *r)
{
	sv_begin_stop(r, STOP_REQUEST, 0);
}

void fp_run_first_signal_ends_source(struct fp_run *r, int on)
{
	r->opts.first_signal_ends_source = on;
}

void fp_run_end_source(struct fp_run *r)
{
	struct stage *st = r->n ? r->stages[0] : NULL;

	if (!st || r->stopping || st->state == FP_ST_DONE)
		return;
	st->ending = 1;
	if (st->state == FP_ST_RUNNING)
		sv_term_stage(st);
	else /* waiting for a (unit) restart, or never started */
		sv_stage_finish(st, 1, 0);
}

static void signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct fp_run *r = w->data;
	char name[32];

	if (w->signum == SIGQUIT) {
		sv_log("%s: killing every stage", fp_signal_name(w->signum, name, sizeof name));
		r->stop_signal = w->signum;
		sv_begin_stop(r, STOP_SIGNAL, 0);
		for (size_t i = 0; i < r->n; i++)
			sv_stage_event(r->stages[i], FP_EV_KILL);
		return;
	}
	r->signals_seen++;
	/* a web view on the ended capture: the first Ctrl-C ends the
	 * capture, the second the session (docs/live.md, "Stopping") */
	if (r->opts.first_signal_ends_source && w->signum != SIGTERM) {
		const struct stage *src = r->n ? r->stages[0] : NULL;

		r->opts.first_signal_ends_source = 0; /* once */
		/* once the capture has ended (by itself, --duration), the
		 * first Ctrl-C is already the session's end */
		if (src && src->state != FP_ST_DONE && !src->ending) {
			sv_log("%s: ending the capture (the views stay; again ends the session)",
			       fp_signal_name(w->signum, name, sizeof name));
			fp_run_end_source(r);
			r->signals_seen--; /* the next one is the first of a stop */
			return;
		}
	}
	if (r->signals_seen == 1) {
		r->stop_signal = w->signum;
		sv_log("%s: stopping (the source first, then the rest drains)",
		       fp_signal_name(w->signum, name, sizeof name));
		sv_begin_stop(r, STOP_SIGNAL, 0);
	} else if (r->signals_seen == 2) {
		sv_log("%s again: sending SIGTERM to every stage",
		       fp_signal_name(w->signum, name, sizeof name));
		for (size_t i = 0; i < r->n; i++)
			sv_stage_event(r->stages[i], FP_EV_TERM);
	} else {
		for (size_t i = 0; i < r->n; i++)
			sv_stage_event(r->stages[i], FP_EV_KILL);
	}
}

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
	     (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE)) &&
	    downstream_finished(st))
		return 1;
	/* Our own SIGTERM while stopping: stopped as asked (a stage blocked
	 * in a write exits 128+SIGTERM the way a shell reports it). */
	if (((WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) ||
	     (WIFEXITED(status) && WEXITSTATUS(status) == SHELL_SIGNAL_BASE + SIGTERM)) &&
	    st->term_sent && (st->run->stopping || st->ending))
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

/* Seconds until st may start again: the spawn interval, doubled for each
 * fast failure in a row after the first (at most MAX_BACKOFF). */
double sv_restart_delay(const struct stage *st, int failed)
{
	double interval = MIN_SPAWN_INTERVAL, delay;

	if (failed) {
		for (unsigned k = 1; k < st->fast_failures && interval < MAX_BACKOFF; k++)
			interval *= 2;
		if (interval > MAX_BACKOFF)
			interval = MAX_BACKOFF;
	}
	delay = st->spawned_at + interval - ev_now(st->run->loop);
	return delay < 0 ? 0 : delay;
}

static void schedule_restart(struct stage *st, int failed)
{
	struct fp_run *r = st->run;
	double delay = sv_restart_delay(st, failed);

	st->state = FP_ST_BACKOFF;
	if (failed)
		sv_log("stage '%s': restarting in %.1f s (fast failure %u of %u allowed)",
		       st->spec->name, delay, st->fast_failures, st->spec->retries);
	else
		sv_log("stage '%s': restarting in %.1f s (restart=always)", st->spec->name, delay);
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
	sv_stage_event(st, input_pending(st) ? FP_EV_TIMER : FP_EV_TIMER_DRAINED);
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
int sv_link_is_stream(const struct fp_run *r, size_t i)
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

	sv_log("stage '%s': lost the records it had read and not yet passed on "
	       "(for an aggregating stage, its table since its last snapshot)",
	       st->spec->name);
	if (st->index + 1 >= r->n || r->links[st->index].hold_w < 0 ||
	    !sv_link_is_stream(r, st->index))
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
		sv_log("stage '%s': no room in its output FIFO for the loss warning",
		       st->spec->name);
	fp_wmem_free(&m);
}

/* give-up=bypass: the stage failed retries times fast in a row; a
 * pass-through takes its place so the rest of the chain runs on (a view
 * must never stop the capture). In the middle of the chain it copies its
 * input to its output (fp-render --passthrough did the same, so the next
 * stage sees the stream it saw); as the last stage it reads and discards,
 * so the stage before it is never blocked. Said on stderr and in-band. */
static void bypass_stage(struct stage *st)
{
	struct fp_run *r = st->run;
	int last = st->index + 1 >= r->n;
	const char *const argv[] = { "sh", "-c", last ? "exec cat >/dev/null" : "exec cat", NULL };
	struct fp_stage_spec *sp = st->spec;
	struct fp_wmem m = { 0 };
	char msg[CTL_LINE_MAX / 2];

	st->fast_failures = next_fast_failures(st);
	sv_log("stage '%s' (%s): giving up after %u fast failures in a row; the rest of the "
	       "pipeline runs on without it (give-up=bypass: %s)",
	       sp->name, sp->argv[0], st->fast_failures,
	       last ? "its input is read and discarded" : "its input is passed on unchanged");
	snprintf(st->gave_up, sizeof st->gave_up,
		 "%s (%s) given up after %u fast failures in a row", sp->name, sp->argv[0],
		 st->fast_failures);
	if (!last && r->links[st->index].hold_w >= 0 && sv_link_is_stream(r, st->index)) {
		snprintf(msg, sizeof msg,
			 "stage %s was given up after %u fast failures in a row "
			 "(the last %s): its input is passed on unchanged",
			 sp->name, st->fast_failures, st->last);
		fp_wmem_add(&m, "\n", 1);
		fp_write_warning_at(fp_wmem_wr(&m), fp_prog(), sp->where, msg);
		fp_write_restarted(fp_wmem_wr(&m), sp->name);
		if (m.len > PIPE_BUF ||
		    write(r->links[st->index].hold_w, m.p, m.len) != (ssize_t)m.len)
			sv_log("stage '%s': no room in its output FIFO for the warning", sp->name);
		fp_wmem_free(&m);
	}
	for (size_t k = 0; k < sp->argc; k++)
		free(sp->argv[k]);
	free(sp->argv);
	free(sp->path);
	sp->argc = sizeof argv / sizeof *argv - 1;
	sp->argv = fp_xcalloc(sp->argc + 1, sizeof *sp->argv);
	for (size_t k = 0; k < sp->argc; k++)
		sp->argv[k] = fp_xstrdup(argv[k]);
	sp->path = fp_xstrdup("/bin/sh");
	st->fast_failures = 0;
	if (sv_spawn_stage(st) < 0)
		sv_stage_finish(st, 0, FP_EXIT_SYS);
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
enum fp_stage_action sv_stage_event(struct stage *st, enum fp_stage_event ev)
{
	enum fp_stage_action a = fp_stage_action(st->state, ev);

	switch (a) {
	case FP_AC_NONE:
	case FP_AC_REJECT: /* the ctl code answers the client */
		break;
	case FP_AC_SPAWN:
		if (sv_spawn_stage(st) < 0)
			sv_stage_finish(st, 0, FP_EXIT_USAGE);
		break;
	case FP_AC_FINISH:
		sv_stage_finish(st, st->last_ok, st->last_ok ? 0 : st->last_code);
		break;
	case FP_AC_FINISH_OK:
		sv_stage_finish(st, 1, 0);
		break;
	case FP_AC_FINISH_FAIL:
		sv_stage_finish(st, 0, FP_EXIT_STAGE);
		break;
	case FP_AC_GIVE_UP:
		st->fast_failures = next_fast_failures(st);
		sv_log("stage '%s': giving up after %u fast failures in a row", st->spec->name,
		       st->fast_failures);
		sv_stage_finish(st, 0, st->last_code);
		break;
	case FP_AC_BYPASS:
		bypass_stage(st);
		break;
	case FP_AC_RESTART:
		/* Every exit that leads to a restart is reported. */
		if (st->last_plain && !st->run->opts.verbose)
			sv_log("stage '%s' (%s) %s", st->spec->name, st->spec->argv[0], st->last);
		st->fast_failures = 0;
		schedule_restart(st, 0);
		break;
	case FP_AC_RESTART_LOSS:
		st->fast_failures = next_fast_failures(st);
		report_loss(st);
		schedule_restart(st, 1);
		break;
	case FP_AC_RESTART_UNIT:
		st->fast_failures = next_fast_failures(st);
		sv_unit_begin(st, st->last);
		break;
	case FP_AC_UNIT_DOWN:
		sv_unit_down(st);
		break;
	case FP_AC_RUN_OP:
		ev_timer_stop(st->run->loop, &st->restart_w);
		sv_run_pending_op(st);
		break;
	case FP_AC_TERM:
		sv_term_stage(st);
		break;
	case FP_AC_KILL:
		kill_stage(st);
		break;
	case FP_AC_BUG:
	case FP_AC_COUNT:
		sv_log("internal error: stage '%s': event %s in state %s ignored", st->spec->name,
		       fp_stage_event_name(ev), fp_stage_state_name(st->state));
		break;
	}
	return a;
}

void child_cb(struct ev_loop *loop, ev_child *w, int revents)
{
	struct stage *st = w->data;
	struct fp_run *r = st->run;
	int status = w->rstatus;
	pid_t pid = w->rpid;
	struct fp_exit_facts f = { 0 };

	ev_child_stop(loop, w);
	ev_timer_stop(loop, &st->kill_w);
	st->pid = 0; /* state stays RUNNING until the table decides */
	fp_status_text(status, st->last, sizeof st->last);
	/* Leftovers of the stage (children of a shell stage) go too. */
	kill(-pid, SIGTERM);
	kill(-pid, SIGCONT);
	st->last_ok = exit_is_success(st, status);
	st->last_code = failure_code(status);
	st->last_plain = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	/* not the SIGTERM of a stop (perf re-raises it) */
	if ((!st->last_plain && !(st->last_ok && st->term_sent)) || r->opts.verbose)
		sv_log("stage '%s' (%s) %s", st->spec->name, st->spec->argv[0], st->last);
	f.ok = st->last_ok;
	f.stopping = r->stopping;
	f.op_pending = st->op != OP_NONE;
	f.input_pending = input_pending(st);
	f.reader_done = downstream_finished(st) && st->index + 1 < r->n;
	f.restart = st->spec->restart;
	f.fast_failures = next_fast_failures(st);
	f.retries = st->spec->retries;
	f.bypass = st->spec->give_up == FP_GIVE_UP_BYPASS && !st->gave_up[0];
	f.in_unit = sv_in_unit(st);
	f.unit_restarting = st->unit_restarting;
	sv_stage_event(st, fp_stage_exit_event(&f));
}

struct fp_run *fp_run_new(const struct fp_run_opts *o)
{
	struct fp_run *r = fp_xcalloc(1, sizeof *r);

	r->opts = *o;
	r->owner = getpid();
	r->ctl_fd = r->ctl_keep = -1;
	r->watchdog_fd = -1;
	r->samples = r->bytes_read = r->folded_stacks = -1;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, r->progress) < 0)
		r->progress[0] = r->progress[1] = -1; /* no sample count: fine */
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
		sv_resolve_user(r, o->user);
	if (o->fifo_dir)
		sv_use_given_dir(r, o->fifo_dir);
	else
		sv_make_private_dir(r);
	/* --user: the stages make control FIFOs in the dir and may reopen
	 * theirs by path, so the dir is theirs (still 0700: nobody else's). */
	if (r->drop_user && !r->dir_ours)
		fp_die(FP_EXIT_USAGE,
		       "--user %s: needs a fifo dir the runner makes (not the existing %s)",
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

struct stage *sv_new_stage(struct fp_run *r, size_t i)
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
		sv_log("%s", err);
		fp_pipeline_free(&r->pl);
		return FP_EXIT_USAGE;
	}
	fp_negotiate_stack_ids(&r->pl);
	fp_negotiate_delta_snapshots(&r->pl);
	fp_negotiate_snapshot_ids(&r->pl);
	r->loaded = 1;
	r->n = r->pl.n;
	r->stages = fp_xcalloc(r->n, sizeof *r->stages);
	for (size_t i = 0; i < r->n; i++)
		r->stages[i] = sv_new_stage(r, i);
	return 0;
}

int fp_run_start(struct fp_run *r)
{
	int rc;

	if (!r->loaded)
		return FP_EXIT_USAGE;
	if ((rc = sv_make_links(r)) || (rc = sv_open_control(r)))
		return rc;
	if (r->opts.announce_dir)
		sv_log("fifo dir %s", r->dir);
	if (r->opts.dir_file && (rc = sv_write_dir_file(r)))
		return rc;
	r->watchdog_fd = fp_watchdog_start();
	/* Downstream first: every reader is in place before its writer. */
	for (size_t k = r->n; k-- > 0;) {
		if (r->stopping)
			break;
		if (sv_stage_event(r->stages[k], FP_EV_START) == FP_AC_SPAWN &&
		    r->stages[k]->state == FP_ST_DONE)
			break; /* it could not start */
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
			sv_finish_op(st, "error: the runner is exiting");
	}
	for (size_t i = 0; r->links && i + 1 < r->n; i++) {
		sv_close_fd(&r->links[i].hold_r);
		sv_close_fd(&r->links[i].hold_w);
		free(r->links[i].path);
	}
	fp_watchdog_done(r->watchdog_fd); /* the groups were killed above */
	r->watchdog_fd = -1;
	if (r->ctl_fd >= 0) {
		ev_io_stop(r->loop, &r->ctl_w);
		sv_close_fd(&r->ctl_fd);
		sv_close_fd(&r->ctl_keep);
	}
	ev_timer_stop(r->loop, &r->drain_w);
	if (r->progress[0] >= 0)
		ev_io_stop(r->loop, &r->progress_w);
	sv_close_fd(&r->progress[0]);
	sv_close_fd(&r->progress[1]);
	/* The run is over. A Ctrl-C now (a user's second one, as the stages
	 * end) would find the default action once the watchers are gone and
	 * kill us before the FIFO directory is removed, exit 130 after a
	 * clean session: blocked, it dies with the process. Children
	 * unblock every signal before exec (spawn.c). */
	sigset_t late;
	sigemptyset(&late);
	sigaddset(&late, SIGINT);
	sigaddset(&late, SIGTERM);
	sigaddset(&late, SIGHUP);
	sigprocmask(SIG_BLOCK, &late, NULL);
	ev_signal_stop(r->loop, &r->sig_int);
	ev_signal_stop(r->loop, &r->sig_term);
	ev_signal_stop(r->loop, &r->sig_hup);
	ev_signal_stop(r->loop, &r->sig_quit);
	sv_remove_files(r);
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

long fp_run_failed_stage(const struct fp_run *r)
{
	return (long)r->first_failed - 1;
}

const char *fp_run_stage_bypassed(const struct fp_run *r, size_t i)
{
	return i < r->n && r->stages[i]->gave_up[0] ? r->stages[i]->gave_up : NULL;
}

unsigned fp_run_stage_starts(const struct fp_run *r, size_t i)
{
	return i < r->n ? r->stages[i]->starts : 0;
}

/* Datagrams (fifo/fp_runnermsg.h): fp-read's progress and fp-render's
 * stacks.folded totals; the last one of each is current. Read as they
 * come, so the socket never fills and fp-read's last report (at the end
 * of its input) is never the one dropped. */
static void read_progress(struct fp_run *r)
{
	char msg[FP_RUNNERMSG_MAX + 1];
	struct fp_runnermsg m;
	ssize_t n;

	while (r->progress[0] >= 0 &&
	       (n = recv(r->progress[0], msg, sizeof msg - 1, MSG_DONTWAIT)) > 0) {
		msg[n] = '\0';
		fp_runnermsg_parse(msg, &m);
		if (m.kind == FP_RUNNERMSG_FOLDED && strlen(m.dir) < sizeof r->folded_dir) {
			r->folded_samples = m.samples;
			r->folded_stacks = m.stacks;
			strcpy(r->folded_dir, m.dir);
		}
		if (m.kind == FP_RUNNERMSG_READ && m.samples >= 0)
			r->samples = m.samples;
		if (m.kind == FP_RUNNERMSG_READ && m.bytes >= 0)
			r->bytes_read = m.bytes;
	}
}

int fp_run_folded_totals(struct fp_run *r, const char *dir, uint64_t *samples, uint64_t *stacks)
{
	read_progress(r);
	if (r->folded_stacks < 0 || strcmp(dir, r->folded_dir))
		return -1;
	*samples = (uint64_t)r->folded_samples;
	*stacks = (uint64_t)r->folded_stacks;
	return 0;
}

static void progress_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	read_progress(w->data);
}

long long fp_run_samples(struct fp_run *r)
{
	read_progress(r);
	/* with the counts of readers a unit restart replaced */
	if (r->samples < 0)
		return r->samples_base > 0 ? r->samples_base : -1;
	return r->samples_base + r->samples;
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
