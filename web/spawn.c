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
#include <inttypes.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fp_error.h"
#include "fp_io.h"
#include "serve.h"

#define MAX_STAGES 8
#define READ_CHUNK (64u << 10)
#define CANCEL_MSG "the client went away: chain stopped\n"
#define BUDGET_TICK_MS 100 /* how often CPU and time are looked at */

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

/* Starts one stage: stdin prev, stdout out, stderr err. Returns
 * posix_spawn's error (0 when it runs) and its pid in *pid. */
static int spawn_stage(const struct job *job, char *const *argv, int prev, int out, int err,
		       pid_t *pid, char *path, size_t path_n)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def, none;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, prev, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, err, 2);
	posix_spawnattr_init(&at);
	/* children get default SIGPIPE so `head`-like readers work, and
	 * an empty signal mask */
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	snprintf(path, path_n, "%s/%s", job->srv->bin_dir, argv[0]);
	rc = posix_spawn(pid, path, &fa, &at, argv,
			 job->srv->child_env ? job->srv->child_env : environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return rc;
}

/* The chain's stdout, split into lines for on_line. */
struct line_reader {
	char *buf;
	size_t cap, start, end;
	int too_long;              /* a line past FP_LINE_MAX: stages never write one */
	uint64_t bytes, max_bytes; /* output so far, the budget (0: none) */
	int over;                  /* past max_bytes: nothing more is delivered */
	void (*on_line)(void *ctx, char *line, size_t len);
	void *ctx;
};

/* Makes room for one more read (keeps the partial line). */
static void reader_room(struct line_reader *lr)
{
	if (lr->cap - lr->end >= READ_CHUNK)
		return;
	if (lr->start > 0) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
	}
	if (lr->cap - lr->end >= READ_CHUNK)
		return;
	if (lr->cap >= FP_LINE_MAX * 2) {
		lr->too_long = 1;
		lr->end = lr->start = 0;
	} else {
		lr->cap *= 2;
		lr->buf = fp_xrealloc(lr->buf, lr->cap + 1);
	}
}

/* One read of fd: 1 while it stays open (EINTR too), 0 at its end (the
 * last line without LF is delivered), -1 on an error. */
static int reader_read(struct line_reader *lr, int fd)
{
	reader_room(lr);
	ssize_t n = read(fd, lr->buf + lr->end, lr->cap - lr->end);

	if (n < 0)
		return errno == EINTR ? 1 : -1;
	if (n == 0) {
		if (lr->end > lr->start) { /* last line without LF */
			lr->buf[lr->end] = '\0';
			lr->on_line(lr->ctx, lr->buf + lr->start, lr->end - lr->start);
		}
		return 0;
	}
	lr->end += (size_t)n;
	lr->bytes += (uint64_t)n;
	if (lr->max_bytes && lr->bytes > lr->max_bytes)
		lr->over = 1;
	if (lr->over) {
		lr->start = lr->end = 0;
		return 1;
	}
	for (;;) {
		char *lf = memchr(lr->buf + lr->start, '\n', lr->end - lr->start);
		if (!lf)
			break;
		*lf = '\0';
		lr->on_line(lr->ctx, lr->buf + lr->start, (size_t)(lf - (lr->buf + lr->start)));
		lr->start = (size_t)(lf - lr->buf) + 1;
	}
	if (lr->start == lr->end)
		lr->start = lr->end = 0;
	return 1;
}

/* CPU ms (user + system) the running stages have used so far. */
static uint64_t stages_cpu_ms(const pid_t *pid, size_t started)
{
	static long tck;
	uint64_t ticks = 0;

	if (!tck)
		tck = sysconf(_SC_CLK_TCK);
	for (size_t i = 0; i < started; i++) {
		char path[64], buf[1024];
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid[i]);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = '\0';
		/* fields after ") ": state is field 3, utime 14, stime 15 */
		const char *p = strrchr(buf, ')');
		unsigned long long ut, st;
		if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
				&st) == 2)
			ticks += ut + st;
	}
	return tck > 0 ? ticks * 1000 / (uint64_t)tck : 0;
}

static void kill_all(const pid_t *pid, size_t started, int sig)
{
	for (size_t i = 0; i < started; i++)
		kill(pid[i], sig);
}

/* The request's budget spent (CPU or wall time)? Then every stage is
 * killed (SIGKILL: a stage deep in an inflate loop must not run on) and
 * res says why. */
static void check_budget(const struct job *job, const pid_t *pid, size_t started,
			 struct pipeline_result *res, size_t *err_used)
{
	const struct budget *b = job->budget;
	const struct limits *l = &job->srv->limits;
	char msg[256];
	int m = 0;

	if (!b || res->over_budget)
		return;
	if (b->deadline_ms && budget_now_ms() >= b->deadline_ms)
		m = snprintf(msg, sizeof msg,
			     "the request took longer than its time budget "
			     "of %" PRIu64 " s (--max-time): stopped",
			     l->wall_ms / 1000);
	else if (l->cpu_ms && b->cpu_ms_used + stages_cpu_ms(pid, started) > l->cpu_ms)
		m = snprintf(msg, sizeof msg,
			     "the request used more than its CPU budget of "
			     "%" PRIu64 ".%03" PRIu64 " s (--max-cpu): stopped",
			     l->cpu_ms / 1000, l->cpu_ms % 1000);
	if (!m)
		return;
	kill_all(pid, started, SIGKILL);
	res->over_budget = 503;
	*err_used = 0; /* this is the message, not what the stages said */
	err_append(res, err_used, msg, (size_t)m);
	err_append(res, err_used, "\n", 1);
}

/* Reads stdout (lines) and stderr (the message) until both end; the
 * client's socket too: when it goes away, the chain is stopped. Returns
 * whether the client went away. */
static int read_chain(const struct job *job, int out_fd, int out_open, int err_fd, const pid_t *pid,
		      size_t started, struct line_reader *lr, struct pipeline_result *res,
		      size_t *err_used)
{
	int err_open = 1, cancelled = 0;
	int timed = job->budget && (job->budget->deadline_ms || job->srv->limits.cpu_ms);
	long long next_check = 0; /* the budget is looked at every tick, not
					 * at every read of a chatty chain */

	while (out_open || err_open) {
		struct pollfd pf[3] = {
			{ .fd = out_open ? out_fd : -1, .events = POLLIN },
			{ .fd = err_open ? err_fd : -1, .events = POLLIN },
			{ .fd = cancelled ? -1 : job->client_fd, .events = POLLRDHUP },
		};
		int pr = poll(pf, 3, timed ? BUDGET_TICK_MS : -1);
		if (pr < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (timed && budget_now_ms() >= next_check) {
			check_budget(job, pid, started, res, err_used);
			next_check = budget_now_ms() + BUDGET_TICK_MS;
		}
		if (lr->over && !res->over_budget) {
			char msg[160];
			int m = snprintf(msg, sizeof msg,
					 "the answer is larger than the output "
					 "budget of %" PRIu64
					 " bytes (--max-output): select less\n",
					 lr->max_bytes);
			kill_all(pid, started, SIGKILL);
			res->over_budget = 413;
			*err_used = 0;
			err_append(res, err_used, msg, (size_t)m);
		}
		if (pf[2].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
			/* nobody will read the answer: SIGTERM ends every stage
			 * promptly (fp_io.h), the pipes then close */
			cancelled = 1;
			for (size_t i = 0; i < started; i++)
				kill(pid[i], SIGTERM);
			err_append(res, err_used, CANCEL_MSG, sizeof CANCEL_MSG - 1);
		}
		if (pf[1].revents) {
			char eb[4096];
			ssize_t n = read(err_fd, eb, sizeof eb);
			if (n > 0 && !res->over_budget)
				err_append(res, err_used, eb, (size_t)n);
			else if (n == 0 || errno != EINTR)
				err_open = 0;
		}
		if (pf[0].revents) {
			int r = reader_read(lr, out_fd);

			out_open = r > 0;
			if (r < 0)
				break;
		}
	}
	return cancelled;
}

/* Waits for every stage; whether all exited 0 (data and usage errors are
 * noted in res). Their CPU time is added to the request's budget. */
static int wait_stages(const struct job *job, const pid_t *pid, size_t started,
		       struct pipeline_result *res)
{
	int all_ok = 1;

	for (size_t i = 0; i < started; i++) {
		int st = 0, r;
		struct rusage ru;
		while ((r = wait4(pid[i], &st, 0, &ru)) < 0 && errno == EINTR)
			;
		if (r >= 0 && job->budget)
			job->budget->cpu_ms_used +=
				(uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
				(uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
		if (r < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			all_ok = 0;
		if (r >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == FP_EXIT_DATA)
			res->data_error = 1;
		if (r >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == FP_EXIT_USAGE)
			res->usage_error = 1;
	}
	return all_ok;
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
	res->over_budget = 0;
	res->data_error = 0;
	res->usage_error = 0;
	res->err[0] = '\0';
	if (nstages == 0 || nstages > MAX_STAGES || make_pipe(errp) < 0) {
		snprintf(res->err, sizeof res->err, "cannot start pipeline");
		return;
	}
	for (size_t i = 0; i < nstages; i++) {
		char path[4096];
		int p[2];

		if (make_pipe(p) < 0) {
			err_append(res, &err_used, "pipe failed", 11);
			break;
		}
		int rc = spawn_stage(job, argv[i], prev, p[1], errp[1], &pid[started], path,
				     sizeof path);
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

	struct line_reader lr = { .cap = READ_CHUNK * 2,
				  .on_line = on_line,
				  .ctx = ctx,
				  .max_bytes = job->budget && !job->unlimited_output
						       ? job->srv->limits.output
						       : 0 };
	int out_open = started == nstages;

	lr.buf = fp_xmalloc(lr.cap + 1);
	if (!out_open && out_fd != in_fd)
		close(out_fd);
	int cancelled = read_chain(job, out_fd, out_open, errp[0], pid, started, &lr, res,
				   &err_used);
	free(lr.buf);
	if (lr.over && !res->over_budget) {
		kill_all(pid, started, SIGKILL);
		res->over_budget = 413;
		snprintf(res->err, sizeof res->err,
			 "the answer is larger than the output budget "
			 "of %" PRIu64 " bytes (--max-output): select less",
			 lr.max_bytes);
	}
	if (started == nstages)
		close(out_fd);
	close(errp[0]);

	int all_ok = wait_stages(job, pid, started, res) && started == nstages && !lr.too_long &&
		     !cancelled && !res->over_budget;
	res->ok = all_ok;
	/* a reader stopped at FP_INFLATE_MAX (fp_io.c): the inflate budget */
	if (!all_ok && !res->over_budget && strstr(res->err, "FP_INFLATE_MAX")) {
		res->over_budget = 413;
		snprintf(res->err, sizeof res->err,
			 "the capture inflates to more than the "
			 "budget of %" PRIu64 " bytes (--max-inflate): stopped",
			 job->srv->limits.inflate);
	}
	if (!all_ok && err_used == 0)
		snprintf(res->err, sizeof res->err, "a stage failed");
}
