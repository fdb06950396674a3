/* spawn.c: starting a stage's process on its links (supervise.h):
 * fork, the child's plumbing (own process group, signals reset, fds,
 * --user), exec, and exec failures back through a close-on-exec pipe
 * (git's start_command). */
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
#include "fp_runnermsg.h"
#include "negotiate.h"
#include "supervise.h"
#include "watchdog.h"

static int open_link_reader(const char *path);
static int reports_progress(const struct stage *st);
static void child_exec(struct stage *st, int in_fd, int out_fd, int notify_fd, pid_t parent);

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

static int is_program(const struct stage *st, const char *name)
{
	const char *prog = strrchr(st->spec->path, '/');

	return !strcmp(prog ? prog + 1 : st->spec->path, name);
}

/* fp-read reports its progress; fp-render what it wrote to stacks.folded,
 * so that the report's summary need not read the file again. */
static int reports_progress(const struct stage *st)
{
	return is_program(st, FP_READER_PROGRAM) || is_program(st, FP_RENDER_PROGRAM);
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
	/* a full-snapshot request that comes before fp-fold set its handler
	 * is moot (its first snapshot is full), never fatal */
	signal(SIGUSR1, fp_negotiate_writes_deltas(st->spec) ? SIG_IGN : SIG_DFL);
	/* Park both fds above 2 first, so dup2 onto 0 and 1 cannot clobber
	 * one with the other. */
	in_fd = fcntl(in_fd, F_DUPFD_CLOEXEC, HIGH_FD);
	out_fd = fcntl(out_fd, F_DUPFD_CLOEXEC, HIGH_FD);
	if (in_fd < 0 || out_fd < 0 || dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0)
		goto fail;
	/* fp-read reports its sample count for the progress line, fp-render
	 * its stacks.folded's totals for the summary. */
	if (reports_progress(st) && r->progress[1] >= 0 &&
	    dup2(r->progress[1], PROGRESS_FD) == PROGRESS_FD)
		setenv(FP_RUNNERMSG_ENV, "3", 1); /* PROGRESS_FD */
	else
		unsetenv(FP_RUNNERMSG_ENV);
	/* dup2 clears close-on-exec: only this stage gets it */
	if (r->opts.pass_fd >= 0 && r->opts.pass_fd_stage &&
	    !strcmp(st->spec->name, r->opts.pass_fd_stage) &&
	    dup2(r->opts.pass_fd, FP_RUN_PASS_FD) != FP_RUN_PASS_FD)
		goto fail;
	execv(st->spec->path, st->spec->argv);
fail:
	e = errno;
	if (write(notify_fd, &e, sizeof e) < 0) {
		/* nothing more we can do */
	}
	_exit(127);
}

/* A reader of fp-fold's delta snapshots has just started (restarted,
 * replaced, inserted or bypassed, or at the start): it has no table
 * until a full snapshot, so each fp-fold before it that writes deltas is
 * asked for one now rather than within FULL_EVERY intervals
 * (fold/fp_foldsnap.h, SIGUSR1 in stages/fp-fold.c). */
static void request_full_snapshots(const struct fp_run *r, size_t reader)
{
	for (size_t k = 0; k < reader; k++) {
		const struct stage *f = r->stages[k];

		if (f->state == FP_ST_RUNNING && f->pid > 0 && fp_negotiate_writes_deltas(f->spec))
			kill(f->pid, SIGUSR1);
	}
}

/* Starts stage st on its links. 0, or -1 after printing why. */
int sv_spawn_stage(struct stage *st)
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
	setpgid(pid, pid); /* also in the parent: no window for signals */
	fp_watchdog_watch(r->watchdog_fd, pid);
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
		sv_log("stage '%s' (%s): cannot run %s: %s", st->spec->name, st->spec->argv[0],
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
		sv_log("stage '%s' (%s) started, pid %ld", st->spec->name, st->spec->argv[0],
		       (long)pid);
	request_full_snapshots(r, i);
	return 0;

fail_fds:
	if (i > 0 && in_fd >= 0)
		close(in_fd);
	if (i + 1 < r->n && out_fd >= 0)
		close(out_fd);
	return -1;
}

/* --user NAME or a numeric uid: the uid and primary group stages run as. */
void sv_resolve_user(struct fp_run *r, const char *user)
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
		return; /* already that user: nothing to drop */
	if (geteuid() != 0)
		fp_die(FP_EXIT_USAGE, "--user %s: only root can run stages as another user", user);
	if (r->uid == 0)
		fp_die(FP_EXIT_USAGE, "--user %s: expected an unprivileged user, not uid 0", user);
	r->drop_user = 1;
}
