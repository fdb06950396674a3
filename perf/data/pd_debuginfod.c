/* pd_debuginfod.c: files by build-id from debuginfod servers, asked by
 * the workers of a fetch pool with a time limit per look-up
 * (pd_debuginfod.h, pd_fetchpool.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>

#include "fp_error.h"
#include "pd_debuginfod.h"
#include "pd_fetchpool.h"

#define WORKERS 4 /* look-ups under way at once (network-bound) */
#define ID_MAX 64 /* libdebuginfod's MAX_BUILD_ID_BYTES */
/* look-ups waiting for a worker at most: a recording's DSOs are far
 * fewer; past it one more would wait longer than anyone waits */
#define QUEUE_MAX 4096

struct request {
	struct pd_fetch f; /* first: the pool's part */
	unsigned char id[ID_MAX];
	size_t n;
	enum pd_di_kind kind;
};

static struct pd_fetchpool di = PD_FETCHPOOL_INIT;

static void why_of(int err, char *buf, size_t cap)
{
	switch (err) {
	case ENOENT:
		snprintf(buf, cap, "the servers do not have it");
		break;
	case ETIME:
	case ECANCELED:
		pd_fetchpool_late_why(&di, buf, cap);
		break;
	default:
		snprintf(buf, cap, "%s", strerror(err));
		break;
	}
}

/* libdebuginfod calls this about once a second while it waits: non-zero
 * cancels the look-up. */
static int progress(debuginfod_client *c, long a, long b)
{
	const struct request *r = debuginfod_get_user_data(c);

	return pd_fetchpool_stopping(&di) || pd_fetch_now() >= r->f.deadline;
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

/* Each worker has its own client: a debuginfod_client is not
 * thread-safe. */
static int client_begin(int w, void **ctx, char *why, size_t cap)
{
	debuginfod_client *c = debuginfod_begin();

	if (!c) {
		snprintf(why, cap, "libdebuginfod could not start a client");
		return -1;
	}
	debuginfod_set_progressfn(c, progress);
	*ctx = c;
	return 0;
}

static void client_end(void *ctx)
{
	if (ctx)
		debuginfod_end(ctx);
}

/* One look-up on a worker's client. */
static int look_up(struct pd_fetch *f, int w, void *ctx, char **path, char *why, size_t cap)
{
	struct request *r = (struct request *)f;
	debuginfod_client *c = ctx;

	debuginfod_set_user_data(c, r);
	int fd = r->kind == PD_DI_EXECUTABLE ? debuginfod_find_executable(c, r->id, (int)r->n, path)
					     : debuginfod_find_debuginfo(c, r->id, (int)r->n, path);
	int late = pd_fetch_now() >= f->deadline;
	if (fd < 0 && (late || pd_fetchpool_stopping(&di)))
		forget_cancelled(r);
	/* no byte came from any server: the next ones would wait as long */
	if (late && !debuginfod_get_url(c))
		pd_fetchpool_refuse(&di, "an earlier look-up got no answer from the servers");
	if (fd >= 0)
		close(fd);
	if (fd >= 0 && *path)
		return 0;
	why_of(late ? ETIME : fd < 0 ? -fd : ENOENT, why, cap);
	return -1;
}

static const struct pd_fetchpool_ops ops = {
	.begin = client_begin,
	.end = client_end,
	.run = look_up,
};

int pd_debuginfod_start(double limit_s)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);

	if (di.on || !urls || !urls[strspn(urls, " ")])
		return di.on;
	return pd_fetchpool_start(&di, &ops, WORKERS, limit_s, QUEUE_MAX) > 0;
}

int pd_debuginfod_on(void)
{
	return di.on;
}

struct key {
	const unsigned char *id;
	size_t n;
	enum pd_di_kind kind;
};

static int same(const struct pd_fetch *f, const void *key)
{
	const struct request *r = (const struct request *)f;
	const struct key *k = key;

	return r->kind == k->kind && r->n == k->n && memcmp(r->id, k->id, k->n) == 0;
}

static struct pd_fetch *make(const void *key)
{
	const struct key *k = key;
	struct request *r = fp_xcalloc(1, sizeof *r);

	memcpy(r->id, k->id, k->n);
	r->n = k->n;
	r->kind = k->kind;
	return &r->f;
}

enum pd_di_state pd_debuginfod_get(const unsigned char *id, size_t n, enum pd_di_kind kind,
				   int wait, const char **path, const char **why)
{
	struct key k = { id, n, kind };

	if (!di.on || n == 0 || n > ID_MAX)
		return PD_DI_OFF;
	struct pd_fetch *f = pd_fetchpool_ask(&di, same, make, &k);
	return f ? pd_fetchpool_state(&di, f, wait, path, why) : PD_DI_OFF;
}

enum pd_di_state pd_debuginfod_peek(const unsigned char *id, size_t n, enum pd_di_kind kind,
				    const char **path)
{
	struct key k = { id, n, kind };

	if (!di.on)
		return PD_DI_OFF;
	struct pd_fetch *f = pd_fetchpool_ask(&di, same, NULL, &k);
	return f ? pd_fetchpool_state(&di, f, 0, path, NULL) : PD_DI_OFF;
}

unsigned pd_debuginfod_answers(void)
{
	return pd_fetchpool_answers(&di);
}

void pd_debuginfod_stats(struct pd_fetch_stats *st)
{
	pd_fetchpool_stats(&di, st);
}

void pd_debuginfod_stop(double wait_s)
{
	pd_fetchpool_stop(&di, wait_s);
}
