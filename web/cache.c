/* cache.c: fp-serve's result cache and its stage-chain limiter.
 *
 * Results are keyed by the file's identity (device, inode, size, mtime in
 * ns) and the request parameters, so an edited or replaced file is
 * recomputed. Entries are reference counted; the least recently used
 * unreferenced ones are dropped beyond CACHE_MAX_BYTES. Chains wait for
 * a slot in the fair queue (budget.c).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fp_error.h"
#include "http.h"
#include "serve.h"

#define CACHE_MAX_BYTES (256u << 20)

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cache_entry *cache_head;
static size_t cache_bytes;
static uint64_t cache_clock;

/* The keys being made by a request that claimed them (cache_lookup_claim);
 * cache_made is signalled when one is inserted or given up. */
struct claim {
	struct claim *next;
	char *key;
};
static struct claim *claims;
static pthread_cond_t cache_made;
static pthread_once_t cache_made_once = PTHREAD_ONCE_INIT;

static void cache_made_init(void)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&cache_made, &ca);
	pthread_condattr_destroy(&ca);
}

/* pipeline_run once the fair queue (budget.c) gives a slot */
void chain_run(const struct job *job, char *const *const *argv, size_t nstages, int in_fd,
	       void (*on_line)(void *ctx, char *line, size_t len), void *ctx,
	       struct pipeline_result *res)
{
	if (fairq_enter(job) < 0) {
		memset(res, 0, sizeof *res);
		res->over_budget = 503;
		snprintf(res->err, sizeof res->err,
			 "no chain slot became free within the "
			 "request's time budget of %" PRIu64 " s (--max-time): the server is busy",
			 job->srv->limits.wall_ms / 1000);
		return;
	}
	pipeline_run(job, argv, nstages, in_fd, on_line, ctx, res);
	fairq_leave(job);
}

static void entry_free(struct cache_entry *e)
{
	free(e->key);
	heatmap_free(&e->hm);
	free(e->ft.buf);
	http_shared_unref(e->answer);
	free(e);
}

/* Drops unreferenced entries, oldest first, until under budget.
 * Called with cache_lock held. */
static void cache_trim(void)
{
	while (cache_bytes > CACHE_MAX_BYTES) {
		struct cache_entry **victim = NULL;
		for (struct cache_entry **pp = &cache_head; *pp; pp = &(*pp)->next)
			if ((*pp)->refs == 0 &&
			    (!victim || (*pp)->last_used < (*victim)->last_used))
				victim = pp;
		if (!victim)
			return;
		struct cache_entry *e = *victim;
		*victim = e->next;
		cache_bytes -= e->bytes;
		entry_free(e);
	}
}

/* key's entry, referenced, or NULL. Called with cache_lock held. */
static struct cache_entry *find_locked(const char *key)
{
	for (struct cache_entry *e = cache_head; e; e = e->next)
		if (strcmp(e->key, key) == 0) {
			e->refs++;
			e->last_used = ++cache_clock;
			return e;
		}
	return NULL;
}

struct cache_entry *cache_lookup(const char *key)
{
	pthread_mutex_lock(&cache_lock);
	struct cache_entry *found = find_locked(key);
	pthread_mutex_unlock(&cache_lock);
	return found;
}

/* key's claim, or NULL. Called with cache_lock held. */
static struct claim **claim_of(const char *key)
{
	for (struct claim **pp = &claims; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->key, key) == 0)
			return pp;
	return NULL;
}

/* Drops key's claim, if any, and wakes the requests waiting on claims.
 * Called with cache_lock held. */
static void unclaim_locked(const char *key)
{
	struct claim **pp = claim_of(key);

	if (!pp)
		return;
	struct claim *cl = *pp;
	*pp = cl->next;
	free(cl->key);
	free(cl);
	pthread_cond_broadcast(&cache_made);
}

struct cache_entry *cache_lookup_claim(const char *key, const struct job *job, int *claimed)
{
	const struct budget *b = job ? job->budget : NULL;
	long long deadline = b ? b->deadline_ms : 0;
	struct cache_entry *e;

	pthread_once(&cache_made_once, cache_made_init);
	*claimed = 0;
	pthread_mutex_lock(&cache_lock);
	while (!(e = find_locked(key)) && claim_of(key)) {
		if (deadline && budget_now_ms() >= deadline)
			break; /* made by us too, within the fair queue's rules */
		if (deadline) {
			struct timespec ts = { .tv_sec = deadline / 1000,
					       .tv_nsec = (deadline % 1000) * 1000000 };
			pthread_cond_timedwait(&cache_made, &cache_lock, &ts);
		} else {
			pthread_cond_wait(&cache_made, &cache_lock);
		}
	}
	if (!e && !claim_of(key)) {
		struct claim *cl = fp_xcalloc(1, sizeof *cl);

		cl->key = fp_xstrdup(key);
		cl->next = claims;
		claims = cl;
		*claimed = 1;
	}
	pthread_mutex_unlock(&cache_lock);
	return e;
}

void cache_unclaim(const char *key)
{
	pthread_once(&cache_made_once, cache_made_init);
	pthread_mutex_lock(&cache_lock);
	unclaim_locked(key);
	pthread_mutex_unlock(&cache_lock);
}

struct cache_entry *cache_insert(struct cache_entry *e)
{
	pthread_once(&cache_made_once, cache_made_init);
	pthread_mutex_lock(&cache_lock);
	unclaim_locked(e->key); /* the waiting requests find it now */
	/* another thread may have computed the same thing meanwhile */
	for (struct cache_entry *o = cache_head; o; o = o->next)
		if (strcmp(o->key, e->key) == 0) {
			o->refs++;
			o->last_used = ++cache_clock;
			pthread_mutex_unlock(&cache_lock);
			entry_free(e);
			return o;
		}
	e->refs = 1;
	e->last_used = ++cache_clock;
	e->next = cache_head;
	cache_head = e;
	cache_bytes += e->bytes;
	cache_trim();
	pthread_mutex_unlock(&cache_lock);
	return e;
}

void cache_release(struct cache_entry *e)
{
	pthread_mutex_lock(&cache_lock);
	e->refs--;
	cache_trim();
	pthread_mutex_unlock(&cache_lock);
}

int cache_file_key(char *buf, size_t n, const struct stat *st, const char *what)
{
	int m = snprintf(buf, n, "%s|%ju:%ju:%jd:%jd.%09ld|", what, (uintmax_t)st->st_dev,
			 (uintmax_t)st->st_ino, (intmax_t)st->st_size, (intmax_t)st->st_mtim.tv_sec,
			 st->st_mtim.tv_nsec);
	return m;
}
