/* watchdog.c: the stages' process groups die with the runner (watchdog.h).
 *
 * Messages on the pipe are one int32 each: a process group to watch (> 0)
 * or 0, goodbye. A group whose every process has gone is forgotten when
 * the next one comes (kill(-pgid, 0) fails), so a number the kernel gave
 * to someone else since is not signalled. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "watchdog.h"

#define WATCH_MAX 256
#define READ_FD 3

static pid_t watchdog_pid; /* reaped by fp_watchdog_done */

static void sleep_s(int s)
{
	struct timespec ts = { .tv_sec = s };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void forget_gone(pid_t *groups, size_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++)
		if (kill(-groups[i], 0) == 0 || errno == EPERM)
			groups[k++] = groups[i];
	*n = k;
}

static _Noreturn void watch(void)
{
	pid_t groups[WATCH_MAX];
	size_t n = 0;
	int32_t msg;
	ssize_t r;

	for (;;) {
		r = read(READ_FD, &msg, sizeof msg);
		if (r < 0 && errno == EINTR)
			continue;
		if (r != (ssize_t)sizeof msg)
			break; /* the runner is gone */
		if (msg == 0)
			_exit(0); /* goodbye: it ended normally */
		forget_gone(groups, &n);
		if (n < WATCH_MAX)
			groups[n++] = (pid_t)msg;
	}
	forget_gone(groups, &n);
	for (size_t i = 0; i < n; i++)
		kill(-groups[i], SIGTERM);
	if (n) {
		sleep_s(FP_WATCHDOG_GRACE);
		for (size_t i = 0; i < n; i++)
			kill(-groups[i], SIGKILL);
	}
	_exit(0);
}

int fp_watchdog_start(void)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		/* nothing of the runner's: a FIFO hold kept open here would
		 * keep a stage from ever seeing EOF */
		if (dup2(p[0], READ_FD) != READ_FD)
			_exit(1);
		close_range(READ_FD + 1, ~0u, 0);
		int null = open("/dev/null", O_RDWR); /* nor its stdout: a reader's EOF */

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			if (null > READ_FD)
				close(null);
		}
		setpgid(0, 0); /* a terminal's Ctrl-C is the runner's to handle */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		prctl(PR_SET_NAME, "fp-watchdog");
		watch();
	}
	close(p[0]);
	watchdog_pid = pid;
	return p[1];
}

void fp_watchdog_watch(int fd, pid_t pgid)
{
	int32_t msg = (int32_t)pgid;

	if (fd >= 0 && pgid > 0 && write(fd, &msg, sizeof msg) != (ssize_t)sizeof msg) {
		/* a watchdog that is gone cannot help: the stages still get
		 * their parent-death signal */
	}
}

void fp_watchdog_done(int fd)
{
	int32_t msg = 0;

	if (fd < 0)
		return;
	if (write(fd, &msg, sizeof msg) != (ssize_t)sizeof msg) {
		/* gone already */
	}
	close(fd);
	/* it exits at once: reap it, so no zombie outlives the runner (the
	 * event loop that reaps children has stopped by now) */
	while (watchdog_pid > 0 && waitpid(watchdog_pid, NULL, 0) < 0 && errno == EINTR)
		;
	watchdog_pid = 0;
}
