/* u-pdfetchpool.c: perf/data/pd_fetchpool.c, the worker threads that
 * fetch for pd_debuginfod and pd_remote: a deadline per request, answers
 * kept in the order of asking, a bounded queue, a stop with fetches under
 * way. The jobs here are the test's: each runs until the test releases
 * it (or another job finished, or the pool stops), so every wait below is
 * on a condition, and times are asserted only as upper bounds with a
 * margin for a loaded machine.
 */
#include "unit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fp_error.h"
#include "pd_fetchpool.h"

#define MARGIN_S 1.0  /* what a loaded machine may add to a bound */
#define PATIENCE_S 20 /* how long a condition is waited for at most */
/* a job ends on its own this long after it started: a pool that waits
 * for it past its deadline fails the test instead of hanging it */
#define JOB_MAX_S 5.0
#define NJOBS 8

struct job {
	struct pd_fetch f; /* first, as the pool's owners have it */
	int key;
	int after;       /* -1, or the job that must finish before this one ends */
	int honour_stop; /* gives up when the pool stops */
	int late;        /* fails on its own a little past its deadline */
	/* under lock */
	int release, started, finished;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct job jobs[NJOBS];
static int runs, cancels, order[NJOBS], norder;
static int drops; /* under drops_lock: drop runs under the pool's lock */
static pthread_mutex_t drops_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pd_fetchpool *cur; /* the pool of the test under way */

static void nap(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

static int locked_get(const int *v, pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
	int x = *v;
	pthread_mutex_unlock(m);
	return x;
}

/* Polls until *v (under m) is at least want, PATIENCE_S at most. */
static int wait_at_least(const int *v, pthread_mutex_t *m, int want)
{
	double end = pd_fetch_now() + PATIENCE_S;

	while (locked_get(v, m) < want)
		if (pd_fetch_now() > end)
			return 0;
		else
			nap();
	return 1;
}

static void release(int i)
{
	pthread_mutex_lock(&lock);
	jobs[i].release = 1;
	pthread_mutex_unlock(&lock);
}

static int run_job(struct pd_fetch *f, int w, void *ctx, char **path, char *why, size_t cap)
{
	struct job *j = (struct job *)f;
	double end = pd_fetch_now() + JOB_MAX_S;
	int rc = 0;

	pthread_mutex_lock(&lock);
	j->started = 1;
	runs++;
	pthread_mutex_unlock(&lock);
	for (;;) {
		pthread_mutex_lock(&lock);
		int done = j->release || (j->after >= 0 && jobs[j->after].finished);
		pthread_mutex_unlock(&lock);
		if (done || pd_fetch_now() >= end)
			break;
		if (j->honour_stop && pd_fetchpool_stopping(cur)) {
			snprintf(why, cap, "stopped");
			rc = -1;
			break;
		}
		if (j->late && pd_fetch_now() >= f->deadline + 0.05) {
			snprintf(why, cap, "gave up past its deadline");
			rc = -1;
			break;
		}
		nap();
	}
	if (rc == 0) {
		char buf[32];
		snprintf(buf, sizeof buf, "job-%d", j->key);
		*path = fp_xstrdup(buf);
	}
	pthread_mutex_lock(&lock);
	j->finished = 1;
	order[norder++] = j->key;
	pthread_mutex_unlock(&lock);
	return rc;
}

static void drop_job(struct pd_fetch *f, const char *path)
{
	pthread_mutex_lock(&drops_lock);
	drops++;
	pthread_mutex_unlock(&drops_lock);
}

static void cancel_jobs(void)
{
	pthread_mutex_lock(&lock);
	cancels++;
	pthread_mutex_unlock(&lock);
}

static const struct pd_fetchpool_ops ops = {
	.run = run_job,
	.drop = drop_job,
	.cancel = cancel_jobs,
};

static int same_key(const struct pd_fetch *f, const void *key)
{
	return ((const struct job *)f)->key == *(const int *)key;
}

static struct pd_fetch *make_job(const void *key)
{
	return &jobs[*(const int *)key].f;
}

static struct pd_fetch *ask(int i)
{
	return pd_fetchpool_ask(cur, same_key, make_job, &i);
}

static int fresh_jobs(void **state)
{
	memset(jobs, 0, sizeof jobs);
	for (int i = 0; i < NJOBS; i++) {
		jobs[i].key = i;
		jobs[i].after = -1;
	}
	runs = cancels = norder = drops = 0;
	return 0;
}

/* The answers' strings (the pool's owners never free them: the process
 * ends), so that the leak check sees none. */
static int free_answers(void **state)
{
	for (int i = 0; i < NJOBS; i++) {
		free(jobs[i].f.path);
		free(jobs[i].f.why);
	}
	return 0;
}

/* Under the pool's lock: workers not returned yet. */
static int alive(struct pd_fetchpool *p)
{
	return locked_get(&p->alive, &p->lock);
}

/* Ends what a test left running, then the pool. */
static void finish(struct pd_fetchpool *p)
{
	for (int i = 0; i < NJOBS; i++)
		release(i);
	pd_fetchpool_stop(p, PATIENCE_S);
	assert_int_equal(alive(p), 0);
}

/* ---- the deadline ------------------------------------------------------- */

static void test_waiter_gives_up_at_the_deadline(void **state)
{
	static struct pd_fetchpool p = PD_FETCHPOOL_INIT;
	const char *why = NULL, *path = "x";
	struct pd_fetch_stats st;

	cur = &p;
	assert_int_equal(pd_fetchpool_start(&p, &ops, 1, 0.3, 4), 1);
	struct pd_fetch *f = ask(0); /* never ends by itself */
	double t0 = pd_fetch_now();
	assert_int_equal(pd_fetchpool_state(&p, f, 1, &path, &why), PD_DI_FAILED);
	double waited = pd_fetch_now() - t0;
	assert_string_equal(why, "no answer within the time limit (0.3 s)");
	assert_null(path);
	assert_true(waited < 0.3 + MARGIN_S);
	assert_true(pd_fetch_now() >= f->deadline);
	pd_fetchpool_stats(&p, &st);
	assert_int_equal(st.timed_out, 1);
	assert_int_equal(st.failed, 1);
	/* the worker's late answer is dropped, the timeout stays */
	release(0);
	assert_true(wait_at_least(&drops, &drops_lock, 1));
	assert_int_equal(pd_fetchpool_state(&p, f, 0, NULL, &why), PD_DI_FAILED);
	assert_string_equal(why, "no answer within the time limit (0.3 s)");
	finish(&p);
}

static void test_past_its_deadline_in_the_queue_a_request_is_never_run(void **state)
{
	static struct pd_fetchpool p = PD_FETCHPOOL_INIT;
	const char *why;
	struct pd_fetch_stats st;

	cur = &p;
	assert_int_equal(pd_fetchpool_start(&p, &ops, 1, 0.2, 4), 1);
	ask(0);
	struct pd_fetch *f = ask(1); /* queued behind 0 */
	while (pd_fetch_now() < f->deadline)
		nap();
	unsigned before = pd_fetchpool_answers(&p);
	release(0);
	while (pd_fetchpool_answers(&p) < before + 2)
		nap();
	assert_int_equal(pd_fetchpool_state(&p, f, 0, NULL, &why), PD_DI_FAILED);
	assert_string_equal(why, "no answer within the time limit (0.2 s)");
	assert_int_equal(locked_get(&runs, &lock), 1);
	pd_fetchpool_stats(&p, &st);
	assert_int_equal(st.timed_out, 1); /* 0 ran past its deadline; 1 never ran */
	finish(&p);
}

static void test_a_fetch_ending_past_its_deadline_is_counted_timed_out(void **state)
{
	static struct pd_fetchpool p = PD_FETCHPOOL_INIT;
	const char *why;
	struct pd_fetch_stats st;

	cur = &p;
	assert_int_equal(pd_fetchpool_start(&p, &ops, 1, 0.1, 4), 1);
	jobs[0].late = 1;
	struct pd_fetch *f = ask(0);
	while (pd_fetchpool_answers(&p) < 1)
		nap();
	/* its own why, not the waiter's */
	assert_int_equal(pd_fetchpool_state(&p, f, 0, NULL, &why), PD_DI_FAILED);
	assert_string_equal(why, "gave up past its deadline");
	pd_fetchpool_stats(&p, &st);
	assert_int_equal(st.timed_out, 1);
	assert_int_equal(locked_get(&drops, &drops_lock), 0);
	finish(&p);
}

/* ---- answers ------------------------------------------------------------ */

static void collect(const struct pd_fetch *f, void *ctx)
{
	char **seen = ctx;
	size_t n = strlen(*seen);

	snprintf(*seen + n, 64 - n, "%zu:%s ", f->id, f->path ? f->path : "-");
}

static void test_answers_are_kept_in_the_order_of_asking(void **state)
{
	static struct pd_fetchpool p = PD_FETCHPOOL_INIT;
	char buf[64] = "", *seen = buf;
	const char *path;
	struct pd_fetch_stats st;

	cur = &p;
	assert_int_equal(pd_fetchpool_start(&p, &ops, 4, 30, 8), 4);
	/* each ends after the next one: they finish 3, 2, 1, 0 */
	for (int i = 0; i < 3; i++)
		jobs[i].after = i + 1;
	for (int i = 0; i < 4; i++)
		assert_int_equal(ask(i)->id, (size_t)i);
	release(3);
	assert_int_equal(pd_fetchpool_state(&p, &jobs[0].f, 1, &path, NULL), PD_DI_FOUND);
	assert_string_equal(path, "job-0");
	assert_int_equal(norder, 4);
	assert_int_equal(order[0], 3);
	assert_int_equal(order[3], 0);
	pd_fetchpool_each(&p, collect, &seen);
	assert_string_equal(buf, "0:job-0 1:job-1 2:job-2 3:job-3 ");
	/* asked once: the same request again, not a new one */
	assert_ptr_equal(ask(2), &jobs[2].f);
	pd_fetchpool_stats(&p, &st);
	assert_int_equal(st.asked, 4);
	assert_int_equal(st.found, 4);
	assert_int_equal(locked_get(&runs, &lock), 4);
	finish(&p);
}

/* ---- the bounded queue -------------------------------------------------- */

static void test_queued_requests_are_fetched_in_the_order_asked(void **state)
{
	static struct pd_fetchpool p = PD_FETCHPOOL_INIT;

	cur = &p;
	assert_int_equal(pd_fetchpool_start(&p, &ops, 1, 30, 8), 1);
	for (int i = 0; i < 5; i++) {
		release(i);
		ask(i);
	}
	assert_int_equal(pd_fetchpool_state(&p, &jobs[4].f, 1, NULL, NULL), PD_DI_FOUND);
	for (int i = 0; i < 5; i++)
		assert_int_equal(order[i], i);
	finish(&p);
}

static void test_a_full_queue_refuses_at_once(void **state)
{
	static struct pd_fetchpool p = PD_FETCHPOOL_INIT;
	const char *why, *path;
	struct pd_fetch_stats st;

	cur = &p;
	assert_int_equal(pd_fetchpool_start(&p, &ops, 1, 30, 2), 1);
	ask(0);
	assert_true(wait_at_least(&jobs[0].started, &lock, 1)); /* the worker has it */
	ask(1);
	ask(2); /* the queue's 2 */
	double t0 = pd_fetch_now();
	struct pd_fetch *f = ask(3);
	assert_int_equal(pd_fetchpool_state(&p, f, 1, NULL, &why), PD_DI_FAILED);
	assert_true(pd_fetch_now() - t0 < MARGIN_S);
	assert_string_equal(why, "not asked: 2 requests were already waiting for a worker");
	/* the queued ones are fetched; once it drained there is room again */
	release(0);
	release(1);
	release(2);
	assert_int_equal(pd_fetchpool_state(&p, &jobs[2].f, 1, &path, NULL), PD_DI_FOUND);
	release(4);
	assert_int_equal(pd_fetchpool_state(&p, ask(4), 1, &path, NULL), PD_DI_FOUND);
	assert_string_equal(path, "job-4");
	assert_int_equal(locked_get(&jobs[3].started, &lock), 0);
	pd_fetchpool_stats(&p, &st);
	assert_int_equal(st.asked, 5);
	assert_int_equal(st.failed, 1);
	finish(&p);
}

static void test_after_refuse_every_request_fails_with_its_why(void **state)
{
	static struct pd_fetchpool p = PD_FETCHPOOL_INIT;
	const char *why;

	cur = &p;
	assert_int_equal(pd_fetchpool_start(&p, &ops, 1, 30, 4), 1);
	ask(0);
	assert_true(wait_at_least(&jobs[0].started, &lock, 1));
	struct pd_fetch *queued = ask(1);
	pd_fetchpool_refuse(&p, "the servers did not answer");
	assert_int_equal(pd_fetchpool_state(&p, ask(2), 0, NULL, &why), PD_DI_FAILED);
	assert_string_equal(why, "the servers did not answer");
	release(0);
	assert_int_equal(pd_fetchpool_state(&p, queued, 1, NULL, &why), PD_DI_FAILED);
	assert_string_equal(why, "the servers did not answer");
	assert_int_equal(locked_get(&runs, &lock), 1);
	finish(&p);
}

/* ---- stop --------------------------------------------------------------- */

static void test_stop_ends_fetches_under_way_and_joins(void **state)
{
	static struct pd_fetchpool p = PD_FETCHPOOL_INIT;
	const char *why;

	cur = &p;
	assert_int_equal(pd_fetchpool_start(&p, &ops, 2, 30, 8), 2);
	for (int i = 0; i < 5; i++) {
		jobs[i].honour_stop = 1;
		ask(i);
	}
	assert_true(wait_at_least(&jobs[0].started, &lock, 1));
	assert_true(wait_at_least(&jobs[1].started, &lock, 1));
	double t0 = pd_fetch_now();
	pd_fetchpool_stop(&p, PATIENCE_S);
	assert_true(pd_fetch_now() - t0 < MARGIN_S);
	assert_int_equal(alive(&p), 0);
	assert_int_equal(p.nworkers, 0); /* joined */
	assert_int_equal(locked_get(&cancels, &lock), 1);
	/* under way: answered with their own why; queued: never run */
	assert_int_equal(pd_fetchpool_state(&p, &jobs[0].f, 0, NULL, &why), PD_DI_FAILED);
	assert_string_equal(why, "stopped");
	assert_int_equal(pd_fetchpool_state(&p, &jobs[4].f, 0, NULL, NULL), PD_DI_PENDING);
	assert_int_equal(locked_get(&runs, &lock), 2);
}

static void test_stop_waits_no_longer_than_told_for_a_stuck_fetch(void **state)
{
	static struct pd_fetchpool p = PD_FETCHPOOL_INIT;

	cur = &p;
	assert_int_equal(pd_fetchpool_start(&p, &ops, 1, 30, 4), 1);
	ask(0); /* ignores the stop */
	assert_true(wait_at_least(&jobs[0].started, &lock, 1));
	double t0 = pd_fetch_now();
	pd_fetchpool_stop(&p, 0.2);
	assert_true(pd_fetch_now() - t0 < 0.2 + MARGIN_S);
	assert_int_equal(alive(&p), 1);
	assert_int_equal(p.nworkers, 1); /* left, not joined */
	/* once it ends, the worker returns */
	release(0);
	double end = pd_fetch_now() + PATIENCE_S;
	while (alive(&p) && pd_fetch_now() < end)
		nap();
	assert_int_equal(alive(&p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_waiter_gives_up_at_the_deadline, fresh_jobs,
						free_answers),
		cmocka_unit_test_setup_teardown(
			test_past_its_deadline_in_the_queue_a_request_is_never_run, fresh_jobs,
			free_answers),
		cmocka_unit_test_setup_teardown(
			test_a_fetch_ending_past_its_deadline_is_counted_timed_out, fresh_jobs,
			free_answers),
		cmocka_unit_test_setup_teardown(test_answers_are_kept_in_the_order_of_asking,
						fresh_jobs, free_answers),
		cmocka_unit_test_setup_teardown(test_queued_requests_are_fetched_in_the_order_asked,
						fresh_jobs, free_answers),
		cmocka_unit_test_setup_teardown(test_a_full_queue_refuses_at_once, fresh_jobs,
						free_answers),
		cmocka_unit_test_setup_teardown(test_after_refuse_every_request_fails_with_its_why,
						fresh_jobs, free_answers),
		cmocka_unit_test_setup_teardown(test_stop_ends_fetches_under_way_and_joins,
						fresh_jobs, free_answers),
		cmocka_unit_test_setup_teardown(
			test_stop_waits_no_longer_than_told_for_a_stuck_fetch, fresh_jobs,
			free_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
