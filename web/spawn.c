/* spawn.c: run a chain of flamepipe stages and read its output.
 *
 * fp-serve computes nothing itself from raw captures: a heatmap is
 * `fp-read < FILE | fp-bucket --rows N`, a flame graph adds fp-range and
 * `fp-fold --plain`. Each stage is started with posix_spawn (safe in a
 * multi-threaded process, unlike fork+exec with locks held elsewhere),
 * stages are joined by pipes, every stage's stderr goes into one pipe whose
 * first bytes become the error message. The calling (connection) thread
 * polls the output and stderr pipes, so other requests are not blocked.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fp_error.h"
#include "fp_io.h"
#include "serve.h"

#define MAX_STAGES 8
#define READ_CHUNK (64u << 10)
#define CANCEL_MSG "the client went away: chain stopped\n"

extern char **environ;

static int make_pipe(int fd[2])
{
	return pipe2(fd, O_CLOEXEC);
}

/* Appends bytes to the error text (keeps the first ones: they say why). */
static void err_append(struct pipeline_result *res, size_t *used, const char *p, size_t n)
{
	size_t room = sizeof res->err - 1 - *used;
	if (n > room)
		n = room;
	memcpy(res->err + *used, p, n);
	*used += n;
	res->err[*used] = '\0';
}

void pipeline_run(const struct job *job, char *const *const *argv, size_t nstages, int in_fd,
		  void (*on_line)(void *ctx, char *line, size_t len), void *ctx,
		  struct pipeline_result *res)
{
	pid_t pid[MAX_STAGES];
	size_t started = 0;
	int errp[2] = { -1, -1 }, out_fd = -1, prev = in_fd;
	size_t err_used = 0;

	res->ok = 0;
	res->data_error = 0;
	res->usage_error = 0;
	res->err[0] = '\0';
	if (nstages == 0 || nstages > MAX_STAGES || make_pipe(errp) < 0) {
		snprintf(res->err, sizeof res->err, "cannot start pipeline");
		return;
	}
	for (size_t i = 0; i < nstages; i++) {
		int p[2];
		if (make_pipe(p) < 0) {
			err_append(res, &err_used, "pipe failed", 11);
			break;
		}
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, prev, 0);
		posix_spawn_file_actions_adddup2(&fa, p[1], 1);
		posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
		posix_spawnattr_t at;
		posix_spawnattr_init(&at);
		/* children get default SIGPIPE so `head`-like readers work, and
		 * an empty signal mask */
		sigset_t def, none;
		sigemptyset(&def);
		sigaddset(&def, SIGPIPE);
		sigaddset(&def, SIGINT);
		sigaddset(&def, SIGTERM);
		sigemptyset(&none);
		posix_spawnattr_setsigdefault(&at, &def);
		posix_spawnattr_setsigmask(&at, &none);
		posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

		char path[4096];
		snprintf(path, sizeof path, "%s/%s", job->srv->bin_dir, argv[i][0]);
		int rc = posix_spawn(&pid[started], path, &fa, &at, argv[i], environ);
		posix_spawn_file_actions_destroy(&fa);
		posix_spawnattr_destroy(&at);
		close(p[1]);
		if (prev != in_fd)
			close(prev);
		prev = p[0];
		if (rc != 0) {
			char msg[512];
			int m = snprintf(msg, sizeof msg, "cannot run %s: %s", path, strerror(rc));
			err_append(res, &err_used, msg, (size_t)m);
			break;
		}
		started++;
	}
	close(errp[1]);
	out_fd = prev;

	/* read stdout (lines) and stderr (message) until both end; the
	 * client's socket too: when it goes away, the chain is stopped */
	int client_fd = job->client_fd, cancelled = 0;
	size_t cap = READ_CHUNK * 2, start = 0, end = 0;
	char *buf = fp_xmalloc(cap + 1);
	int out_open = started == nstages, err_open = 1, too_long = 0;
	if (!out_open && out_fd != in_fd)
		close(out_fd);
	while (out_open || err_open) {
		struct pollfd pf[3] = {
			{ .fd = out_open ? out_fd : -1, .events = POLLIN },
			{ .fd = err_open ? errp[0] : -1, .events = POLLIN },
			{ .fd = cancelled ? -1 : client_fd, .events = POLLRDHUP },
		};
		if (poll(pf, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[2].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
			/* nobody will read the answer: SIGTERM ends every stage
			 * promptly (fp_io.h), the pipes then close */
			cancelled = 1;
			for (size_t i = 0; i < started; i++)
				kill(pid[i], SIGTERM);
			err_append(res, &err_used, CANCEL_MSG, sizeof CANCEL_MSG - 1);
		}
		if (pf[1].revents) {
			char eb[4096];
			ssize_t n = read(errp[0], eb, sizeof eb);
			if (n > 0)
				err_append(res, &err_used, eb, (size_t)n);
			else if (n == 0 || errno != EINTR)
				err_open = 0;
		}
		if (!pf[0].revents)
			continue;
		if (cap - end < READ_CHUNK) {
			if (start > 0) {
				memmove(buf, buf + start, end - start);
				end -= start;
				start = 0;
			}
			if (cap - end < READ_CHUNK) {
				if (cap >= FP_LINE_MAX * 2) {
					too_long = 1;	/* stages never write such lines */
					end = start = 0;
				} else {
					cap *= 2;
					buf = fp_xrealloc(buf, cap + 1);
				}
			}
		}
		ssize_t n = read(out_fd, buf + end, cap - end);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			out_open = 0;
			break;
		}
		if (n == 0) {
			if (end > start) {	/* last line without LF */
				buf[end] = '\0';
				on_line(ctx, buf + start, end - start);
			}
			out_open = 0;
			continue;
		}
		end += (size_t)n;
		for (;;) {
			char *lf = memchr(buf + start, '\n', end - start);
			if (!lf)
				break;
			*lf = '\0';
			on_line(ctx, buf + start, (size_t)(lf - (buf + start)));
			start = (size_t)(lf - buf) + 1;
		}
		if (start == end)
			start = end = 0;
	}
	free(buf);
	if (started == nstages)
		close(out_fd);
	close(errp[0]);

	int all_ok = started == nstages && !too_long && !cancelled;
	for (size_t i = 0; i < started; i++) {
		int st = 0, r;
		while ((r = waitpid(pid[i], &st, 0)) < 0 && errno == EINTR)
			;
		if (r < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			all_ok = 0;
		if (r >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == FP_EXIT_DATA)
			res->data_error = 1;
		if (r >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == FP_EXIT_USAGE)
			res->usage_error = 1;
	}
	res->ok = all_ok;
	if (!all_ok && err_used == 0)
		snprintf(res->err, sizeof res->err, "a stage failed");
}
