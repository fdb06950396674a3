/* fp_perfpar.c: perf script text parsed ahead on threads (fp_perfpar.h). */
#include "fp_perfpar.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_io.h" /* FP_LINE_MAX: the pump's line rule */

struct slot {
	struct fp_perfpar_chunk c;
	int ready;
	char *buf;
	size_t len, cap;
	uint32_t *lens;
	size_t nlens, lcap;
};

struct fp_perfpar {
	const char *map;
	size_t size;
	size_t *bounds;      /* chunk i is [bounds[i], bounds[i + 1]) */
	size_t nbounds;      /* found so far: the workers cut as they go */
	size_t nchunks;      /* known once the last chunk is cut, else SIZE_MAX */
	size_t serial_chunk; /* the last, left to the caller whole, or SIZE_MAX */
	int srcline;

	pthread_mutex_t mu;
	pthread_cond_t ready_cv; /* a slot was filled */
	pthread_cond_t space_cv; /* a slot was released, or stop */
	size_t next_parse;       /* the next chunk a worker takes */
	size_t next_take;        /* the next chunk the caller takes */
	int stop;

	struct slot *slots; /* chunk k in slots[k % nslots] */
	size_t nslots;
	pthread_t threads[FP_PERFPAR_THREADS_MAX];
	unsigned nthreads;
};

/* Where the chunk that starts at `from` ends: just after the first empty
 * line at least FP_PERFPAR_CHUNK on, or the map's size for the last
 * chunk; SIZE_MAX when there is no empty line within FP_PERFPAR_SEEK
 * after that (CRLF text, perf script without -g, not perf script at all):
 * the rest of the file is then the caller's, so no chunk outgrows
 * FP_PERFPAR_CHUNK + FP_PERFPAR_SEEK. */
static size_t cut_after(const struct fp_perfpar *pp, size_t from)
{
	size_t at = from + FP_PERFPAR_CHUNK;

	if (at >= pp->size)
		return pp->size;
	size_t lim = pp->size - at > FP_PERFPAR_SEEK ? at + FP_PERFPAR_SEEK : pp->size;
	const char *q = memmem(pp->map + at - 1, lim - at + 1, "\n\n", 2);

	if (!q)
		return lim == pp->size ? pp->size : SIZE_MAX;
	size_t b = (size_t)(q - pp->map) + 2;

	return b < pp->size ? b : pp->size;
}

/* Chunk k's end, cut now if no worker has (under pp->mu). Cut as the
 * workers go, so the map's pages are touched in order. */
static void cut_chunk(struct fp_perfpar *pp, size_t k)
{
	if (k + 1 < pp->nbounds)
		return;
	size_t b = cut_after(pp, pp->bounds[k]);

	if (b == SIZE_MAX) {
		pp->serial_chunk = k;
		b = pp->size;
	}
	pp->bounds[pp->nbounds++] = b;
	if (b == pp->size)
		pp->nchunks = k + 1;
}

/* ---- a worker's parser ------------------------------------------------ */

struct worker {
	struct fp_perfpar *pp;
	struct fp_perf_parser parser;
	struct slot *s;
	int problem; /* the chunk needs the caller's serial parse */
};

static void on_record(void *ctx, const char *rec, size_t len)
{
	struct worker *w = ctx;
	struct slot *s = w->s;

	if (s->len + len > s->cap) {
		s->cap = s->cap ? s->cap : FP_PERFPAR_CHUNK / 2;
		while (s->len + len > s->cap)
			s->cap *= 2;
		s->buf = fp_xrealloc(s->buf, s->cap);
	}
	if (s->nlens == s->lcap) {
		s->lcap = s->lcap ? s->lcap * 2 : 4096;
		s->lens = fp_xrealloc(s->lens, s->lcap * sizeof *s->lens);
	}
	memcpy(s->buf + s->len, rec, len);
	s->len += len;
	s->lens[s->nlens++] = (uint32_t)len;
}

static void on_problem(void *ctx, enum fp_perf_problem what, const char *line, size_t len)
{
	struct worker *w = ctx;

	(void)what, (void)line, (void)len;
	w->problem = 1;
}

static const struct fp_perf_ops worker_ops = {
	.record = on_record,
	.problem = on_problem,
};

/* Parses chunk k into w->s with the pump's line rules; a line those rules
 * or the parser would report marks the chunk for the caller instead. */
static void parse_chunk(struct worker *w, size_t k, int whole)
{
	struct fp_perfpar *pp = w->pp;
	struct slot *s = w->s;
	const char *p = pp->map + pp->bounds[k], *end = pp->map + pp->bounds[k + 1];
	uint64_t lines = 0;
	int comments = 0;

	s->len = s->nlens = 0;
	w->problem = whole; /* the rest of the file, not parsed here */
	memset(&w->parser.st, 0, sizeof w->parser.st);
	while (p < end && !w->problem) {
		size_t avail = (size_t)(end - p);
		const char *nl = memchr(p, '\n', avail < FP_LINE_MAX ? avail : FP_LINE_MAX);

		if (!nl) { /* too long, or a last line without LF */
			w->problem = 1;
			break;
		}
		if (nl > p && p[0] == '#')
			comments = 1;
		fp_perf_line(&w->parser, p, (size_t)(nl - p));
		lines++;
		p = nl + 1;
	}
	if (!w->problem && pp->bounds[k + 1] == pp->size)
		fp_perf_finish(&w->parser); /* a last sample without its empty line */
	s->c = (struct fp_perfpar_chunk){
		.start = pp->bounds[k],
		.end = pp->bounds[k + 1],
		.parsed = !w->problem,
		.comments = comments,
		.lines = lines,
		.recs = s->buf,
		.lens = s->lens,
		.nrecs = s->nlens,
		.st = w->parser.st,
	};
	if (w->problem) { /* its state is mid-sample: start clean */
		int srcline = w->parser.srcline;

		fp_perf_free(&w->parser);
		fp_perf_init(&w->parser, &worker_ops, w);
		w->parser.srcline = srcline;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct fp_perfpar *pp = w->pp;

	fp_perf_init(&w->parser, &worker_ops, w);
	w->parser.srcline = pp->srcline;
	pthread_mutex_lock(&pp->mu);
	for (;;) {
		while (!pp->stop && pp->next_parse < pp->nchunks &&
		       pp->next_parse >= pp->next_take + pp->nslots)
			pthread_cond_wait(&pp->space_cv, &pp->mu);
		if (pp->stop || pp->next_parse >= pp->nchunks)
			break;
		size_t k = pp->next_parse++;

		cut_chunk(pp, k);
		int whole = k == pp->serial_chunk;

		w->s = &pp->slots[k % pp->nslots];
		pthread_mutex_unlock(&pp->mu);
		parse_chunk(w, k, whole);
		pthread_mutex_lock(&pp->mu);
		w->s->ready = 1;
		pthread_cond_broadcast(&pp->ready_cv);
	}
	pthread_mutex_unlock(&pp->mu);
	fp_perf_free(&w->parser);
	free(w);
	return NULL;
}

/* ---- the caller's side ------------------------------------------------ */

void fp_perfpar_stop(struct fp_perfpar *pp)
{
	if (!pp)
		return;
	pthread_mutex_lock(&pp->mu);
	pp->stop = 1;
	pthread_cond_broadcast(&pp->space_cv);
	pthread_mutex_unlock(&pp->mu);
	for (unsigned i = 0; i < pp->nthreads; i++)
		pthread_join(pp->threads[i], NULL);
	for (size_t i = 0; i < pp->nslots; i++) {
		free(pp->slots[i].buf);
		free(pp->slots[i].lens);
	}
	free(pp->slots);
	free(pp->bounds);
	pthread_cond_destroy(&pp->space_cv);
	pthread_cond_destroy(&pp->ready_cv);
	pthread_mutex_destroy(&pp->mu);
	free(pp);
}

struct fp_perfpar *fp_perfpar_start(const char *map, size_t size, unsigned threads, int srcline)
{
	if (threads < 2 || size < FP_PERFPAR_MIN_SIZE)
		return NULL;
	if (threads > FP_PERFPAR_THREADS_MAX)
		threads = FP_PERFPAR_THREADS_MAX;

	struct fp_perfpar *pp = fp_xcalloc(1, sizeof *pp);

	pp->map = map;
	pp->size = size;
	pp->srcline = srcline;
	pp->bounds = fp_xmalloc((size / FP_PERFPAR_CHUNK + 2) * sizeof *pp->bounds);
	pp->bounds[0] = 0;
	pp->nbounds = 1;
	pp->nchunks = SIZE_MAX;
	pp->serial_chunk = SIZE_MAX;
	pp->nslots = threads + FP_PERFPAR_AHEAD;
	pp->slots = fp_xcalloc(pp->nslots, sizeof *pp->slots);
	pthread_mutex_init(&pp->mu, NULL);
	pthread_cond_init(&pp->ready_cv, NULL);
	pthread_cond_init(&pp->space_cv, NULL);
	cut_chunk(pp, 0);
	if (pp->nchunks == 1) { /* no second chunk */
		fp_perfpar_stop(pp);
		return NULL;
	}

	/* Workers take no signals: the stage's loop handles them. Faults
	 * stay deliverable (a file that shrinks raises SIGBUS in whichever
	 * thread touches the page: the pump's handler says so). */
	sigset_t all, old;

	sigfillset(&all);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (unsigned i = 0; i < threads; i++) {
		struct worker *w = fp_xcalloc(1, sizeof *w);

		w->pp = pp;
		if (pthread_create(&pp->threads[pp->nthreads], NULL, worker_main, w) != 0) {
			free(w);
			break;
		}
		pp->nthreads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pp->nthreads == 0) {
		fp_perfpar_stop(pp);
		return NULL;
	}
	return pp;
}

/* (The workers cut chunks and count them under pp->mu.) */
size_t fp_perfpar_next_start(struct fp_perfpar *pp)
{
	pthread_mutex_lock(&pp->mu);
	size_t at = pp->next_take < pp->nbounds ? pp->bounds[pp->next_take] : pp->size;
	pthread_mutex_unlock(&pp->mu);
	return at;
}

const struct fp_perfpar_chunk *fp_perfpar_next(struct fp_perfpar *pp, size_t pos)
{
	struct slot *s = &pp->slots[pp->next_take % pp->nslots];

	pthread_mutex_lock(&pp->mu);
	if (pp->next_take >= pp->nchunks || pp->next_take >= pp->nbounds ||
	    pp->bounds[pp->next_take] != pos) {
		pthread_mutex_unlock(&pp->mu);
		return NULL;
	}
	while (!s->ready)
		pthread_cond_wait(&pp->ready_cv, &pp->mu);
	pthread_mutex_unlock(&pp->mu);
	return &s->c;
}

void fp_perfpar_release(struct fp_perfpar *pp)
{
	pthread_mutex_lock(&pp->mu);
	pp->slots[pp->next_take % pp->nslots].ready = 0;
	pp->next_take++;
	pthread_cond_broadcast(&pp->space_cv);
	pthread_mutex_unlock(&pp->mu);
}

void fp_perf_stats_add(struct fp_perf_stats *dst, const struct fp_perf_stats *src)
{
	dst->lines += src->lines;
	dst->samples += src->samples;
	dst->frames += src->frames;
	dst->bad_lines += src->bad_lines;
	dst->lost_events += src->lost_events;
	dst->lost_records += src->lost_records;
	dst->other_records += src->other_records;
	dst->comment_lines += src->comment_lines;
	dst->skipped_lines += src->skipped_lines;
	dst->too_long_lines += src->too_long_lines;
	dst->dropped_samples += src->dropped_samples;
	if (!dst->first_bad_line && src->first_bad_line)
		dst->first_bad_line = src->first_bad_line;
}
