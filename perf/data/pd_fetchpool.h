/* pd_fetchpool.h: a small pool of worker threads that fetch things for
 * fp-perfdata off the sample path (pd_debuginfod: files by build-id from
 * debuginfod servers; pd_remote: files from the recording's host over
 * ssh). The owner says what a request is and how it is fetched (ops);
 * the pool keeps the requests, queues them, runs them on its workers and
 * collects their answers.
 *
 * Each request is asked once: pd_fetchpool_ask finds it among those asked
 * before (in the order they were asked, their ids) or makes it. It has a
 * time limit from the moment it is asked (its deadline): a worker never
 * starts it past its deadline, the owner's fetch is expected to give up
 * then, and a caller waiting for it (pd_fetchpool_state with wait) never
 * waits past it: it is answered FAILED then ("no answer within the time
 * limit"), and a worker's later answer is dropped (ops.drop).
 *
 * The queue of requests waiting for a worker is bounded (queue_max): a
 * request asked when it is full is refused, answered FAILED at once
 * without being fetched; so is every request after pd_fetchpool_refuse
 * (the servers do not answer: each would cost its whole limit). Nothing
 * waits for room: the thread that reads samples never blocks on the pool.
 *
 * Requests are never freed (*path / *why stay valid until the process
 * ends), so a worker may still hold one when the pool is stopped.
 */
#ifndef PD_FETCHPOOL_H
#define PD_FETCHPOOL_H

#include <pthread.h>
#include <stddef.h>

enum pd_di_state {
	PD_DI_OFF,     /* no pool running, or never asked */
	PD_DI_PENDING, /* asked, no answer yet */
	PD_DI_FOUND,   /* *path: the fetched file */
	PD_DI_FAILED,  /* *why: not found, unreachable, timed out, refused */
};

#define PD_FETCHPOOL_WORKERS_MAX 8
/* A why from ops.run is cut at this many bytes. */
#define PD_FETCH_WHY_MAX 512

/* One request: the first member of the owner's request, which holds what
 * to fetch. The owner sets nothing here but path (ops.make: a request
 * answered already, found in a cache); the pool sets the rest. */
struct pd_fetch {
	size_t id;       /* its place in the order of asking, from 0 */
	double deadline; /* CLOCK_MONOTONIC seconds (pd_fetch_now) */
	enum pd_di_state state;
	char *path; /* FOUND */
	char *why;  /* FAILED */
};

struct pd_fetchpool;

struct pd_fetchpool_ops {
	/* On worker w's thread before its first request: 0 and *ctx (the
	 * worker's own state, given to run), or -1 and why: that worker
	 * then answers each request it takes FAILED with why. NULL: none. */
	int (*begin)(int w, void **ctx, char *why, size_t cap);
	/* On the worker's thread after its last request (ctx as begin set
	 * it, also after a failed begin). NULL: none. */
	void (*end)(void *ctx);
	/* Fetches f on worker w, no lock held: 0 and *path (malloc'ed, the
	 * pool keeps it), or -1 and why (cap bytes). It should give up at
	 * f->deadline and when pd_fetchpool_stopping. */
	int (*run)(struct pd_fetch *f, int w, void *ctx, char **path, char *why, size_t cap);
	/* A fetched path nobody wants (a waiter gave up on f): before the
	 * pool frees it. path may be NULL. NULL: only freed. */
	void (*drop)(struct pd_fetch *f, const char *path);
	/* At pd_fetchpool_stop, once pd_fetchpool_stopping is 1, no lock
	 * held: cuts the fetches under way short. NULL: none. */
	void (*cancel)(void);
};

/* Counts: requests asked (refused and cache hits included), answered
 * FOUND, answered FAILED (timeouts and refusals included), and timed out:
 * given up on by a waiter at the deadline, or fetched by a worker past
 * it (a request that waited past its deadline in the queue was never
 * fetched: failed, not timed out). */
struct pd_fetch_stats {
	unsigned long asked, found, failed, timed_out;
};

struct pd_fetch_worker {
	struct pd_fetchpool *pool;
	int w; /* its index, given to ops */
	pthread_t thread;
};

struct pd_fetchpool {
	pthread_mutex_t lock;
	pthread_cond_t answered, queued, idle;
	const struct pd_fetchpool_ops *ops;
	int on, stopping;
	int alive; /* workers not returned yet */
	int nworkers;
	struct pd_fetch_worker workers[PD_FETCHPOOL_WORKERS_MAX];
	double limit;
	const char *refused; /* pd_fetchpool_refuse's why, or NULL */
	struct pd_fetch **reqs;
	size_t nreqs, cap;
	struct pd_fetch **queue; /* a ring of queue_max */
	size_t queue_max, qhead, qlen;
	unsigned answers;
	struct pd_fetch_stats st;
};

/* A pool not started: the static value of every pool (its lock is good
 * before pd_fetchpool_start, and every query answers "nothing"). */
#define PD_FETCHPOOL_INIT                                                                \
	{                                                                                \
		.lock = PTHREAD_MUTEX_INITIALIZER, .answered = PTHREAD_COND_INITIALIZER, \
		.queued = PTHREAD_COND_INITIALIZER, .idle = PTHREAD_COND_INITIALIZER     \
	}

/* CLOCK_MONOTONIC now, in seconds: the clock of deadlines. */
double pd_fetch_now(void);

/* Starts nworkers (at most PD_FETCHPOOL_WORKERS_MAX) threads running ops
 * for requests of limit_s seconds each, at most queue_max of them waiting
 * for a worker. Returns the number of workers started (the pool runs if
 * it is not 0). */
int pd_fetchpool_start(struct pd_fetchpool *p, const struct pd_fetchpool_ops *ops, int nworkers,
		       double limit_s, size_t queue_max);
/* The request that match(f, key) takes for one asked before (the first in
 * the order of asking), else, if make is not NULL, make(key)'s, asked now
 * (queued, or refused; found already if make set its path). NULL if none
 * (or the pool is not running). match and make run under the pool's lock. */
struct pd_fetch *pd_fetchpool_ask(struct pd_fetchpool *p,
				  int (*match)(const struct pd_fetch *f, const void *key),
				  struct pd_fetch *(*make)(const void *key), const void *key);
/* f's state, with its *path (FOUND) and *why (FAILED); either pointer may
 * be NULL. wait: first block until f is answered or its deadline passes
 * (then it is answered FAILED, timed out). */
enum pd_di_state pd_fetchpool_state(struct pd_fetchpool *p, struct pd_fetch *f, int wait,
				    const char **path, const char **why);
/* Blocks until f is answered, at most s seconds (f stays asked after). */
void pd_fetchpool_wait_at_most(struct pd_fetchpool *p, struct pd_fetch *f, double s);
/* Calls fn(f, ctx) for each request in the order of asking (ids 0, 1, ...)
 * under the pool's lock: what fn reads of an answered f is final. */
void pd_fetchpool_each(struct pd_fetchpool *p, void (*fn)(const struct pd_fetch *f, void *ctx),
		       void *ctx);
/* From now on every request asked, and every one still queued, is
 * answered FAILED with why (a string that lives as long as the pool). */
void pd_fetchpool_refuse(struct pd_fetchpool *p, const char *why);
/* 1 once pd_fetchpool_stop began (for the owner's fetch to give up). */
int pd_fetchpool_stopping(struct pd_fetchpool *p);
/* "no answer within the time limit (L s)" into buf: the why of a timeout. */
void pd_fetchpool_late_why(const struct pd_fetchpool *p, char *buf, size_t cap);
/* Bumped by every answer: callers with pending requests need to look
 * again only when it changed. */
unsigned pd_fetchpool_answers(struct pd_fetchpool *p);
void pd_fetchpool_stats(struct pd_fetchpool *p, struct pd_fetch_stats *st);
/* Says stop to the workers (ops.cancel cuts their fetches short) and
 * waits at most wait_s seconds for them to end: joins them if they all
 * did, else leaves them to the process's exit. Requests still queued stay
 * PENDING (a waiter gives up on them at their deadline). */
void pd_fetchpool_stop(struct pd_fetchpool *p, double wait_s);

#endif
