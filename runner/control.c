/* control.c: the control FIFO (DIR/runner.ctl) and the operations it
 * starts (supervise.h, docs/flamepipe.md "flamepipe ctl"): one command per
 * line, the reply on the client's FIFO named by `@NAME`; `restart`,
 * `replace` and `insert` wait for the stage's exit (the state table's
 * run-op) and answer then. */
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
#include "supervise.h"

static void reply_line(int fd, const char *fmt, ...);
static void apply_replacement(struct stage *st);
static int open_reply(struct fp_run *r, const char *name);
static void ctl_status(struct fp_run *r, int fd);
static void ctl_op(struct fp_run *r, int fd, char **w, size_t n, enum stage_op op);
static void ctl_command(struct fp_run *r, char *line);
static void ctl_read_cb(struct ev_loop *loop, ev_io *w, int revents);
static int insert_after(struct stage *a);

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

/* Ends a pending control operation, answering the waiting client. */
void sv_finish_op(struct stage *st, const char *fmt, ...)
{
	char msg[CTL_LINE_MAX / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	reply_line(st->reply_fd, "%s", msg);
	sv_close_fd(&st->reply_fd);
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
void sv_run_pending_op(struct stage *st)
{
	int replacing = st->op == OP_REPLACE;

	if (st->op == OP_INSERT) {
		if (insert_after(st) < 0) {
			sv_finish_op(st, "error: cannot insert stage '%s'", st->insert_name);
			sv_stage_finish(st, 0, FP_EXIT_SYS);
		}
		return;
	}
	if (replacing)
		apply_replacement(st);
	if (sv_spawn_stage(st) < 0) {
		sv_finish_op(st, "error: stage '%s': cannot start %s", st->spec->name,
			     st->spec->argv[0]);
		sv_stage_finish(st, 0, FP_EXIT_USAGE);
		return;
	}
	sv_finish_op(st, "ok: stage '%s' %s, pid %ld", st->spec->name,
		     replacing ? "replaced" : "restarted", (long)st->pid);
}

static int open_reply(struct fp_run *r, const char *name)
{
	char *path;
	int fd;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -1;
	path = sv_path_in(r->dir, name);
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
			   st->spec->name, fp_stage_state_name(st->state), (long)st->pid,
			   st->starts, st->last[0] ? st->last : "-", cmd);
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
		sv_close_fd(&fd);
		return;
	}
	i = fp_pipeline_find(&r->pl, name);
	if (i < 0) {
		reply_line(fd, "error: no stage '%s'", name);
		sv_close_fd(&fd);
		return;
	}
	if (op == OP_INSERT) {
		/* Inserting before b is inserting after the stage before b;
		 * the stage whose output moves is restarted. */
		if (!strcmp(w[2], "before"))
			i--;
		if (i < 0 || (size_t)i + 1 >= r->n) {
			reply_line(
				fd, "error: cannot insert %s the %s stage '%s' (its %s is the runner's)",
				w[2], i < 0 ? "first" : "last", name, i < 0 ? "input" : "output");
			sv_close_fd(&fd);
			return;
		}
		if (!fp_stage_name_ok(w[1]) || fp_pipeline_find(&r->pl, w[1]) >= 0) {
			reply_line(fd,
				   "error: bad or existing stage name '%s' (expected a new name of "
				   "letters, digits, '_', '-', '.')",
				   w[1]);
			sv_close_fd(&fd);
			return;
		}
	}
	st = r->stages[i];
	if (r->stopping || fp_stage_action(st->state, FP_EV_CTL) == FP_AC_REJECT ||
	    st->op != OP_NONE) {
		reply_line(fd, "error: stage '%s' is %s", st->spec->name,
			   r->stopping         ? "stopping"
			   : st->op != OP_NONE ? "busy"
					       : fp_stage_state_name(st->state));
		sv_close_fd(&fd);
		return;
	}
	/* The stages of a unit share one stream (runner/unit.c): restarting
	 * one restarts them all; a new program in it or between two of them
	 * would join that stream mid-way. */
	if (sv_in_unit(st) && op == OP_RESTART) {
		reply_line(fd, "ok: stage '%s' is one of unit '%s': the unit is restarting",
			   st->spec->name, st->spec->unit);
		sv_close_fd(&fd);
		sv_log("control: restarting unit '%s' (asked for stage '%s')", st->spec->unit,
		       st->spec->name);
		sv_unit_begin(st, "was restarted by ctl");
		return;
	}
	/* (an insert restarts the stage before the new one: alone) */
	if (sv_in_unit(st) && op != OP_RESTART) {
		reply_line(fd,
			   "error: stage '%s' is one of unit '%s', whose stages share one stream: "
			   "%s refused (it would restart '%s' alone; change the pipeline file, or "
			   "insert after a stage outside the unit)",
			   st->spec->name, st->spec->unit, w[0], st->spec->name);
		sv_close_fd(&fd);
		return;
	}
	if (op != OP_RESTART) {
		char *path = fp_find_program(w[prog], fp_run_bindir());

		if (!path) {
			reply_line(fd, "error: program '%s' not found (looked in %s and $PATH)",
				   w[prog], fp_run_bindir() ? fp_run_bindir() : "-");
			sv_close_fd(&fd);
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
		sv_log("control: inserting stage '%s' after '%s' (restarting '%s')", w[1],
		       st->spec->name, st->spec->name);
	else
		sv_log("control: %s stage '%s'", op == OP_REPLACE ? "replacing" : "restarting",
		       st->spec->name);
	/* Waiting for a restart: now. Running: the old process ends its
	 * input and writes its tables on TERM; child_cb starts the new one on
	 * the same (held) FIFOs. */
	sv_stage_event(st, FP_EV_CTL);
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
		sv_close_fd(&fd);
		return;
	}
	if (!strcmp(w[0], "status")) {
		ctl_status(r, fd);
	} else if (!strcmp(w[0], "restart") || !strcmp(w[0], "replace") ||
		   !strcmp(w[0], "insert")) {
		ctl_op(r, fd, w, n,
		       w[0][0] == 'i'   ? OP_INSERT
		       : w[0][2] == 'p' ? OP_REPLACE
					: OP_RESTART);
		return; /* the reply fd is answered (and closed) later */
	} else if (!strcmp(w[0], "stop")) {
		sv_log("control: stopping");
		reply_line(fd, "ok: stopping");
		sv_begin_stop(r, STOP_REQUEST, 0);
	} else {
		reply_line(fd,
			   "error: unknown command '%s' (expected status, restart, replace, insert "
			   "or stop)",
			   w[0]);
		fp_warn("control: unknown command '%s'", w[0]);
	}
	sv_close_fd(&fd);
}

static void ctl_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct fp_run *r = w->data;
	char chunk[CTL_READ_CHUNK];
	ssize_t got = read(r->ctl_fd, chunk, sizeof chunk);

	if (got <= 0)
		return; /* EAGAIN; never EOF: we hold a write end */
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
				fp_warn("control: command longer than %d bytes ignored",
					CTL_LINE_MAX);
			r->ctl_skipping = 1;
		} else if (!r->ctl_skipping) {
			r->ctl_buf[r->ctl_len++] = c;
		}
	}
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
		sv_log("insert: cannot rename %s to %s: %s", old->path, newpath, strerror(errno));
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
	if (sv_make_link(r, &fresh, a->spec->name) != 0) {
		sv_close_fd(&fresh.hold_r);
		sv_close_fd(&fresh.hold_w);
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
	r->stages[j] = sv_new_stage(r, j);
	for (size_t k = 0; k < r->n; k++) {
		r->stages[k]->index = k;
		r->stages[k]->spec = &r->pl.stages[k];
	}
	sv_log("control: stage '%s' (%s) inserted after '%s'", r->pl.stages[j].name,
	       r->pl.stages[j].argv[0], a->spec->name);
	/* Reader first, as at start. */
	if (sv_spawn_stage(r->stages[j]) < 0) {
		sv_finish_op(a, "error: stage '%s': cannot start %s", r->pl.stages[j].name,
			     r->pl.stages[j].argv[0]);
		sv_stage_finish(r->stages[j], 0, FP_EXIT_USAGE);
		return 0;
	}
	if (sv_spawn_stage(a) < 0) {
		sv_finish_op(a, "error: stage '%s': cannot restart %s", a->spec->name,
			     a->spec->argv[0]);
		sv_stage_finish(a, 0, FP_EXIT_USAGE);
		return 0;
	}
	sv_finish_op(a, "ok: stage '%s' inserted after '%s', pid %ld", r->pl.stages[j].name,
		     a->spec->name, (long)r->stages[j]->pid);
	return 0;
}

int sv_open_control(struct fp_run *r)
{
	int rc;

	r->ctl_path = sv_path_in(r->dir, FP_RUN_CTL_NAME);
	if ((rc = sv_make_fifo(r, r->ctl_path, 0)))
		return rc;
	r->ctl_fd = fp_fifo_open_reader(r->ctl_path, &r->ctl_keep);
	if (r->ctl_fd < 0) {
		sv_log("cannot open control FIFO %s: %s", r->ctl_path, strerror(errno));
		return FP_EXIT_SYS;
	}
	ev_io_init(&r->ctl_w, ctl_read_cb, r->ctl_fd, EV_READ);
	r->ctl_w.data = r;
	ev_io_start(r->loop, &r->ctl_w);
	return 0;
}
