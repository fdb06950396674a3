/* pd_fetchpool.c: worker threads fetching requests within a deadline
 * each, a bounded queue, answers and their counts (pd_fetchpool.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fp_error.h"
#include "pd_fetchpool.h"

double pd_fetch_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

void pd_fetchpool_late_why(const struct pd_fetchpool *p, char *buf, size_t cap)
{
	snprintf(buf, cap, "no answer within the time limit (%g s)", p->limit);
}

/* Under the lock: f answered (path and why are the pool's now). */
static void answer(struct pd_fetchpool *p, struct pd_fetch *f, enum pd_di_state state, char *path,
		   char *why)
{
	f->state = state;
	f->path = path;
	f->why = why;
	p->answers++;
	if (state == PD_DI_FOUND)
		p->st.found++;
	else
		p->st.failed++;
	pthread_cond_broadcast(&p->answered);
}

/* Under the lock: f answered FAILED, timed out. */
static void answer_late(struct pd_fetchpool *p, struct pd_fetch *f)
{
	char why[128];

	pd_fetchpool_late_why(p, why, sizeof why);
	answer(p, f, PD_DI_FAILED, NULL, fp_xstrdup(why));
}

/* Under the lock: the oldest queued request, or NULL. */
static struct pd_fetch *dequeue(struct pd_fetchpool *p)
{
	if (!p->qlen)
		return NULL;
	struct pd_fetch *f = p->queue[p->qhead];
	p->qhead = (p->qhead + 1) % p->queue_max;
	p->qlen--;
	return f;
}

static void *worker_main(void *arg)
{
	const struct pd_fetch_worker *wk = arg;
	struct pd_fetchpool *p = wk->pool;
	const struct pd_fetchpool_ops *ops = p->ops;
	char broken[PD_FETCH_WHY_MAX] = "";
	void *ctx = NULL;
	int w = wk->w;

	if (ops->begin && ops->begin(w, &ctx, broken, sizeof broken) < 0 && !broken[0])
		snprintf(broken, sizeof broken, "the worker could not start");
	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct pd_fetch *f = NULL;
		while (!p->stopping && !(f = dequeue(p)))
			pthread_cond_wait(&p->queued, &p->lock);
		if (p->stopping)
			break;
		if (f->state != PD_DI_PENDING) /* a waiter gave up on it */
			continue;
		if (broken[0] || p->refused) {
			answer(p, f, PD_DI_FAILED, NULL,
			       fp_xstrdup(broken[0] ? broken : p->refused));
			continue;
		}
		if (pd_fetch_now() >= f->deadline) {
			answer_late(p, f);
			continue;
		}
		pthread_mutex_unlock(&p->lock);
		/* f stays: requests are never freed */
		char why[PD_FETCH_WHY_MAX] = "", *path = NULL;
		int rc = ops->run(f, w, ctx, &path, why, sizeof why);
		int late = pd_fetch_now() >= f->deadline;
		pthread_mutex_lock(&p->lock);
		if (late && f->state == PD_DI_PENDING)
			p->st.timed_out++;
		if (f->state != PD_DI_PENDING) { /* a waiter gave up on it */
			if (ops->drop)
				ops->drop(f, path);
			free(path);
			continue;
		}
		if (rc == 0 && path)
			answer(p, f, PD_DI_FOUND, path, NULL);
		else {
			free(path);
			answer(p, f, PD_DI_FAILED, NULL, fp_xstrdup(why));
		}
	}
	pthread_mutex_unlock(&p->lock);
	if (ops->end)
		ops->end(ctx);
	pthread_mutex_lock(&p->lock);
	if (!--p->alive)
		pthread_cond_broadcast(&p->idle);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int pd_fetchpool_start(struct pd_fetchpool *p, const struct pd_fetchpool_ops *ops, int nworkers,
		       double limit_s, size_t queue_max)
{
	if (p->on)
		return p->nworkers;
	if (nworkers > PD_FETCHPOOL_WORKERS_MAX)
		nworkers = PD_FETCHPOOL_WORKERS_MAX;
	pthread_mutex_lock(&p->lock);
	p->ops = ops;
	p->limit = limit_s;
	p->stopping = 0;
	p->queue_max = queue_max ? queue_max : 1;
	p->queue = fp_xcalloc(p->queue_max, sizeof *p->queue);
	for (int i = 0; i < nworkers; i++) {
		struct pd_fetch_worker *wk = &p->workers[p->nworkers];
		wk->pool = p;
		wk->w = p->nworkers;
		if (pthread_create(&wk->thread, NULL, worker_main, wk) == 0) {
			p->nworkers++;
			p->alive++;
		}
	}
	p->on = p->nworkers > 0;
	pthread_mutex_unlock(&p->lock);
	return p->nworkers;
}

/* Under the lock: f (made by the owner) asked now. */
static void add(struct pd_fetchpool *p, struct pd_fetch *f)
{
	f->id = p->nreqs;
	f->deadline = pd_fetch_now() + p->limit;
	f->state = f->path ? PD_DI_FOUND : PD_DI_PENDING;
	p->reqs = fp_xgrow(p->reqs, &p->cap, p->nreqs + 1, sizeof *p->reqs, 16);
	p->reqs[p->nreqs++] = f;
	p->st.asked++;
	if (f->path) { /* found in a cache: nobody waits for it */
		p->st.found++;
	} else if (p->refused) {
		answer(p, f, PD_DI_FAILED, NULL, fp_xstrdup(p->refused));
	} else if (p->qlen == p->queue_max) {
		char why[128];
		snprintf(why, sizeof why,
			 "not asked: %zu requests were already waiting for a worker", p->qlen);
		answer(p, f, PD_DI_FAILED, NULL, fp_xstrdup(why));
	} else {
		p->queue[(p->qhead + p->qlen++) % p->queue_max] = f;
		pthread_cond_signal(&p->queued);
	}
}

struct pd_fetch *pd_fetchpool_ask(struct pd_fetchpool *p,
				  int (*match)(const struct pd_fetch *f, const void *key),
				  struct pd_fetch *(*make)(const void *key), const void *key)
{
	struct pd_fetch *f = NULL;

	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; p->on && i < p->nreqs && !f; i++)
		if (match(p->reqs[i], key))
			f = p->reqs[i];
	if (p->on && !f && make) {
		f = make(key);
		add(p, f);
	}
	pthread_mutex_unlock(&p->lock);
	return f;
}

/* Under the lock: waits for f within its deadline. */
static void wait_answer(struct pd_fetchpool *p, struct pd_fetch *f)
{
	while (f->state == PD_DI_PENDING) {
		double left = f->deadline - pd_fetch_now();
		if (left <= 0) {
			/* the worker may still be at it: its answer is dropped */
			p->st.timed_out++;
			answer_late(p, f);
			break;
		}
		struct timespec ts = realtime_in(left);
		pthread_cond_timedwait(&p->answered, &p->lock, &ts);
	}
}

enum pd_di_state pd_fetchpool_state(struct pd_fetchpool *p, struct pd_fetch *f, int wait,
				    const char **path, const char **why)
{
	pthread_mutex_lock(&p->lock);
	if (wait)
		wait_answer(p, f);
	enum pd_di_state s = f->state;
	if (path)
		*path = f->path;
	if (why)
		*why = f->why;
	pthread_mutex_unlock(&p->lock);
	return s;
}

void pd_fetchpool_wait_at_most(struct pd_fetchpool *p, struct pd_fetch *f, double s)
{
	struct timespec until = realtime_in(s);

	pthread_mutex_lock(&p->lock);
	while (f->state == PD_DI_PENDING &&
	       pthread_cond_timedwait(&p->answered, &p->lock, &until) == 0)
		;
	pthread_mutex_unlock(&p->lock);
}

void pd_fetchpool_each(struct pd_fetchpool *p, void (*fn)(const struct pd_fetch *f, void *ctx),
		       void *ctx)
{
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->nreqs; i++)
		fn(p->reqs[i], ctx);
	pthread_mutex_unlock(&p->lock);
}

void pd_fetchpool_refuse(struct pd_fetchpool *p, const char *why)
{
	pthread_mutex_lock(&p->lock);
	p->refused = why;
	pthread_mutex_unlock(&p->lock);
}

int pd_fetchpool_stopping(struct pd_fetchpool *p)
{
	pthread_mutex_lock(&p->lock);
	int s = p->stopping;
	pthread_mutex_unlock(&p->lock);
	return s;
}

unsigned pd_fetchpool_answers(struct pd_fetchpool *p)
{
	pthread_mutex_lock(&p->lock);
	unsigned a = p->answers;
	pthread_mutex_unlock(&p->lock);
	return a;
}

void pd_fetchpool_stats(struct pd_fetchpool *p, struct pd_fetch_stats *st)
{
	pthread_mutex_lock(&p->lock);
	*st = p->st;
	pthread_mutex_unlock(&p->lock);
}

void pd_fetchpool_stop(struct pd_fetchpool *p, double wait_s)
{
	struct timespec until = realtime_in(wait_s);

	if (!p->on)
		return;
	pthread_mutex_lock(&p->lock);
	p->stopping = 1;
	pthread_cond_broadcast(&p->queued);
	pthread_mutex_unlock(&p->lock);
	if (p->ops->cancel)
		p->ops->cancel();
	pthread_mutex_lock(&p->lock);
	while (p->alive && pthread_cond_timedwait(&p->idle, &p->lock, &until) == 0)
		;
	int all = !p->alive;
	pthread_mutex_unlock(&p->lock);
	/* all returned: joined, so their thread-exit cleanups (OpenSSL's
	 * per-thread state) have run; else they are left to the exit */
	for (int i = 0; all && i < p->nworkers; i++)
		pthread_join(p->workers[i].thread, NULL);
	p->nworkers = all ? 0 : p->nworkers;
}
