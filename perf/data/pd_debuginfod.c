/* pd_debuginfod.c: files by build-id from debuginfod servers, asked by
 * worker threads with a time limit per look-up (pd_debuginfod.h).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>

#include "fp_error.h"
#include "pd_debuginfod.h"

#define WORKERS 4 /* look-ups under way at once (network-bound) */
#define ID_MAX 64 /* libdebuginfod's MAX_BUILD_ID_BYTES */

struct request {
	unsigned char id[ID_MAX];
	size_t n;
	enum pd_di_kind kind;
	enum pd_di_state state;
	int taken;       /* a worker has it */
	double deadline; /* CLOCK_MONOTONIC seconds */
	char *path;      /* FOUND */
	char *why;       /* FAILED */
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t answered, queued, idle;
	int on, stopping, unresponsive;
	int alive; /* workers not returned yet */
	pthread_t workers[WORKERS];
	int nworkers;
	double limit;
	struct request **reqs;
	size_t nreqs, cap;
	unsigned answers;
	struct pd_di_stats st;
} di = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
	 PTHREAD_COND_INITIALIZER };

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *why_of(int err)
{
	char buf[256];

	switch (err) {
	case ENOENT:
		return fp_xstrdup("the servers do not have it");
	case ETIME:
	case ECANCELED:
		snprintf(buf, sizeof buf, "no answer within the time limit (%g s)", di.limit);
		return fp_xstrdup(buf);
	default:
		snprintf(buf, sizeof buf, "%s", strerror(err));
		return fp_xstrdup(buf);
	}
}

/* Under the lock: r answered. */
static void answer(struct request *r, enum pd_di_state state, char *path, char *why)
{
	r->state = state;
	r->path = path;
	r->why = why;
	di.answers++;
	if (state == PD_DI_FOUND)
		di.st.found++;
	else
		di.st.failed++;
	pthread_cond_broadcast(&di.answered);
}

/* libdebuginfod calls this about once a second while it waits: non-zero
 * cancels the look-up. */
static int progress(debuginfod_client *c, long a, long b)
{
	const struct request *r = debuginfod_get_user_data(c);

	return di.stopping || now_mono() >= r->deadline;
}

static struct request *next_request(void)
{
	for (size_t i = 0; i < di.nreqs; i++)
		if (di.reqs[i]->state == PD_DI_PENDING && !di.reqs[i]->taken)
			return di.reqs[i];
	return NULL;
}

/* libdebuginfod's cache directory, as it picks it. */
static int cache_dir(char *buf, size_t cap)
{
	const char *env = getenv(DEBUGINFOD_CACHE_PATH_ENV_VAR), *home = getenv("HOME");
	const char *xdg = getenv("XDG_CACHE_HOME");
	struct stat st;
	int n;

	if (env && *env)
		n = snprintf(buf, cap, "%s", env);
	else if (snprintf(buf, cap, "%s/.debuginfod_client_cache", home ? home : "/") > 0 &&
		 stat(buf, &st) == 0)
		n = (int)strlen(buf);
	else if (xdg && *xdg)
		n = snprintf(buf, cap, "%s/debuginfod_client", xdg);
	else
		n = snprintf(buf, cap, "%s/.cache/debuginfod_client", home ? home : "/");
	return n > 0 && (size_t)n < cap;
}

/* A look-up cancelled (its time limit, the end) leaves an empty file in
 * libdebuginfod's cache, which it takes for "the servers do not have it"
 * for the next 10 minutes: a cancel is not that, so the file goes. */
static void forget_cancelled(const struct request *r)
{
	char dir[PATH_MAX], path[PATH_MAX + 2 * ID_MAX + 32];
	char hex[2 * ID_MAX + 1];
	struct stat st;

	if (!cache_dir(dir, sizeof dir))
		return;
	for (size_t i = 0; i < r->n; i++)
		snprintf(hex + 2 * i, 3, "%02x", r->id[i]);
	snprintf(path, sizeof path, "%s/%s/%s", dir, hex,
		 r->kind == PD_DI_EXECUTABLE ? "executable" : "debuginfo");
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		unlink(path);
}

static void *worker_main(void *arg)
{
	debuginfod_client *c = debuginfod_begin();

	if (c)
		debuginfod_set_progressfn(c, progress);
	pthread_mutex_lock(&di.lock);
	for (;;) {
		struct request *r;
		while (!di.stopping && !(r = next_request()))
			pthread_cond_wait(&di.queued, &di.lock);
		if (di.stopping)
			break;
		r->taken = 1;
		if (!c || di.unresponsive || now_mono() >= r->deadline) {
			if (r->state == PD_DI_PENDING)
				answer(r, PD_DI_FAILED, NULL,
				       !c ? fp_xstrdup("libdebuginfod could not start a client")
				       : di.unresponsive ? fp_xstrdup("an earlier look-up got no "
								      "answer from the servers")
							 : why_of(ETIME));
			continue;
		}
		pthread_mutex_unlock(&di.lock);
		/* r stays: requests are never freed while workers run */
		char *path = NULL;
		debuginfod_set_user_data(c, r);
		int fd = r->kind == PD_DI_EXECUTABLE
				 ? debuginfod_find_executable(c, r->id, (int)r->n, &path)
				 : debuginfod_find_debuginfo(c, r->id, (int)r->n, &path);
		int late = now_mono() >= r->deadline;
		if (fd < 0 && (late || di.stopping))
			forget_cancelled(r);
		/* no byte came from any server: the next ones would wait as long */
		int silent = late && !debuginfod_get_url(c);
		if (fd >= 0)
			close(fd);
		pthread_mutex_lock(&di.lock);
		if (late && r->state == PD_DI_PENDING)
			di.st.timed_out++;
		if (silent)
			di.unresponsive = 1;
		if (r->state != PD_DI_PENDING) { /* a waiter gave up on it */
			free(path);
			continue;
		}
		if (fd >= 0 && path)
			answer(r, PD_DI_FOUND, path, NULL);
		else {
			free(path);
			answer(r, PD_DI_FAILED, NULL, why_of(late ? ETIME : fd < 0 ? -fd : ENOENT));
		}
	}
	pthread_mutex_unlock(&di.lock);
	if (c)
		debuginfod_end(c);
	pthread_mutex_lock(&di.lock);
	if (!--di.alive)
		pthread_cond_broadcast(&di.idle);
	pthread_mutex_unlock(&di.lock);
	return NULL;
}

int pd_debuginfod_start(double limit_s)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
	int started = 0;

	if (di.on || !urls || !urls[strspn(urls, " ")])
		return di.on;
	di.limit = limit_s;
	pthread_mutex_lock(&di.lock);
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&di.workers[di.nworkers], NULL, worker_main, NULL) == 0) {
			di.nworkers++;
			di.alive++;
			started++;
		}
	pthread_mutex_unlock(&di.lock);
	di.on = started > 0;
	return di.on;
}

int pd_debuginfod_on(void)
{
	return di.on;
}

static struct request *find(const unsigned char *id, size_t n, enum pd_di_kind kind)
{
	for (size_t i = 0; i < di.nreqs; i++) {
		struct request *r = di.reqs[i];
		if (r->kind == kind && r->n == n && memcmp(r->id, id, n) == 0)
			return r;
	}
	return NULL;
}

static struct timespec realtime_in(double s);

static void wait_answer(struct request *r)
{
	while (r->state == PD_DI_PENDING) {
		double left = r->deadline - now_mono();
		if (left <= 0) {
			/* the worker may still be at it: its answer is dropped */
			di.st.timed_out++;
			answer(r, PD_DI_FAILED, NULL, why_of(ETIME));
			break;
		}
		struct timespec ts = realtime_in(left);
		pthread_cond_timedwait(&di.answered, &di.lock, &ts);
	}
}

static enum pd_di_state state_of(const struct request *r, const char **path, const char **why)
{
	if (path)
		*path = r->path;
	if (why)
		*why = r->why;
	return r->state;
}

enum pd_di_state pd_debuginfod_get(const unsigned char *id, size_t n, enum pd_di_kind kind,
				   int wait, const char **path, const char **why)
{
	if (!di.on || n == 0 || n > ID_MAX)
		return PD_DI_OFF;
	pthread_mutex_lock(&di.lock);
	struct request *r = find(id, n, kind);
	if (!r) {
		r = fp_xcalloc(1, sizeof *r);
		memcpy(r->id, id, n);
		r->n = n;
		r->kind = kind;
		r->state = PD_DI_PENDING;
		r->deadline = now_mono() + di.limit;
		di.reqs = fp_xgrow(di.reqs, &di.cap, di.nreqs + 1, sizeof *di.reqs, 16);
		di.reqs[di.nreqs++] = r;
		di.st.asked++;
		if (di.unresponsive)
			answer(r, PD_DI_FAILED, NULL,
			       fp_xstrdup("an earlier look-up got no answer from the servers"));
		else
			pthread_cond_signal(&di.queued);
	}
	if (wait)
		wait_answer(r);
	enum pd_di_state s = state_of(r, path, why);
	pthread_mutex_unlock(&di.lock);
	return s;
}

enum pd_di_state pd_debuginfod_peek(const unsigned char *id, size_t n, enum pd_di_kind kind,
				    const char **path)
{
	if (!di.on)
		return PD_DI_OFF;
	pthread_mutex_lock(&di.lock);
	struct request *r = find(id, n, kind);
	enum pd_di_state s = r ? state_of(r, path, NULL) : PD_DI_OFF;
	pthread_mutex_unlock(&di.lock);
	return s;
}

unsigned pd_debuginfod_answers(void)
{
	pthread_mutex_lock(&di.lock);
	unsigned a = di.answers;
	pthread_mutex_unlock(&di.lock);
	return a;
}

void pd_debuginfod_stats(struct pd_di_stats *st)
{
	pthread_mutex_lock(&di.lock);
	*st = di.st;
	pthread_mutex_unlock(&di.lock);
}

/* The absolute CLOCK_REALTIME time s seconds from now (the clock of the
 * conditions). */
static struct timespec realtime_in(double s)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	double end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + s;
	ts.tv_sec = (time_t)end;
	ts.tv_nsec = (long)((end - (double)ts.tv_sec) * 1e9);
	return ts;
}

void pd_debuginfod_stop(double wait_s)
{
	struct timespec until = realtime_in(wait_s);

	pthread_mutex_lock(&di.lock);
	di.stopping = 1;
	pthread_cond_broadcast(&di.queued);
	while (di.alive && pthread_cond_timedwait(&di.idle, &di.lock, &until) == 0)
		;
	int all = !di.alive;
	pthread_mutex_unlock(&di.lock);
	/* all returned: joined, so their thread-exit cleanups (OpenSSL's
	 * per-thread state) have run; else they are left to the exit */
	for (int i = 0; all && i < di.nworkers; i++)
		pthread_join(di.workers[i], NULL);
	di.nworkers = all ? 0 : di.nworkers;
}
