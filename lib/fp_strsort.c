/* fp_strsort.c: a multikey quicksort of strtab ids (see fp_strsort.h). */
#include "fp_strsort.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"

#define CHUNK 8  /* bytes compared at a time: one uint64_t */
#define SMALL 12 /* groups this small are insertion-sorted */

struct key {
	uint64_t c; /* the chunk at the group's depth, big-endian */
	const unsigned char *p;
	size_t len;
	uint32_t id;
};

static uint64_t be64(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof w);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* The CHUNK bytes of k from d, zero-padded past its end: chunks order as
 * the bytes do, except that padding looks like NUL bytes (see
 * finished_first). */
static uint64_t chunk_at(const struct key *k, size_t d)
{
	unsigned char b[CHUNK] = { 0 };

	if (d >= k->len)
		return 0;
	if (k->len - d >= CHUNK)
		return be64(k->p + d);
	memcpy(b, k->p + d, k->len - d);
	return be64(b);
}

/* bytewise from depth d (both share [0, d)), a prefix first */
static int cmp_from(const struct key *a, const struct key *b, size_t d)
{
	return fp_bytes_cmp(a->p + d, a->len - d, b->p + d, b->len - d);
}

static void insertion(struct key *a, size_t n, size_t d)
{
	for (size_t i = 1; i < n; i++) {
		struct key x = a[i];
		size_t j = i;

		for (; j > 0 && cmp_from(&a[j - 1], &x, d) > 0; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static void swap(struct key *a, size_t i, size_t j)
{
	struct key t = a[i];

	a[i] = a[j];
	a[j] = t;
}

static uint64_t median3(uint64_t a, uint64_t b, uint64_t c)
{
	if (a < b)
		return b < c ? b : (a < c ? c : a);
	return a < c ? a : (b < c ? c : b);
}

/* A group whose keys have the same chunk at d: those that end within it
 * (len <= d + CHUNK) go first, shortest first (equal padded chunks: a
 * shorter one is a prefix of a longer one). Returns how many. */
static size_t finished_first(struct key *a, size_t n, size_t d)
{
	size_t f = 0;

	for (size_t i = 0; i < n; i++)
		if (a[i].len <= d + CHUNK)
			swap(a, i, f++);
	for (size_t i = 1; i < f; i++) {
		struct key x = a[i];
		size_t j = i;

		for (; j > 0 && a[j - 1].len > x.len; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
	return f;
}

/* How far the keys of a group (sharing [0, d)) all share their bytes. */
static size_t common_prefix(const struct key *a, size_t n, size_t d)
{
	size_t l = a[0].len;

	for (size_t i = 1; i < n && l > d; i++) {
		size_t m = a[i].len < l ? a[i].len : l, j = d;

		while (j + CHUNK <= m && !memcmp(a[0].p + j, a[i].p + j, CHUNK))
			j += CHUNK;
		while (j < m && a[0].p[j] == a[i].p[j])
			j++;
		l = j;
	}
	return l;
}

struct group {
	struct key *a;
	size_t n, d;
	int valid; /* the keys' c is their chunk at d */
};

struct pool;
static int hand_over(struct pool *pl, struct group g);

/* Sorts a group whose keys share [0, d). With a pool, a part big enough
 * goes to a thread of it that has nothing to do. */
static void sort_group(struct group g, struct pool *pl)
{
	while (g.n > SMALL) {
		if (!g.valid)
			for (size_t i = 0; i < g.n; i++)
				g.a[i].c = chunk_at(&g.a[i], g.d);
		uint64_t pv = median3(g.a[0].c, g.a[g.n / 2].c, g.a[g.n - 1].c);
		/* three ways: [0, lt) below pv, [lt, gt) equal, [gt, n) above */
		size_t lt = 0, i = 0, gt = g.n;

		while (i < gt) {
			if (g.a[i].c < pv)
				swap(g.a, lt++, i++);
			else if (g.a[i].c > pv)
				swap(g.a, i, --gt);
			else
				i++;
		}
		size_t eq = gt - lt, fin = finished_first(g.a + lt, eq, g.d);

		if (eq == g.n && !fin) { /* one group: skip what it all shares */
			g.d = common_prefix(g.a, g.n, g.d + CHUNK);
			g.valid = 0;
			continue;
		}
		struct group part[3] = {
			{ g.a, lt, g.d, 1 },
			{ g.a + lt + fin, eq - fin, g.d + CHUNK, 0 },
			{ g.a + gt, g.n - gt, g.d, 1 },
		};
		int by_size[3] = { 0, 1, 2 }, kept = -1;

		for (int i = 1; i < 3; i++) /* biggest first */
			for (int j = i; j > 0 && part[by_size[j]].n > part[by_size[j - 1]].n; j--) {
				int t = by_size[j];

				by_size[j] = by_size[j - 1];
				by_size[j - 1] = t;
			}
		/* The biggest part not handed over is looped on, the others
		 * recursed into: the stack stays log2 n deep. An idle thread
		 * gets the biggest part there is, so the threads stay even. */
		for (int i = 0; i < 3; i++) {
			struct group p = part[by_size[i]];

			if (p.n < 2 || hand_over(pl, p))
				continue;
			if (kept < 0)
				kept = by_size[i];
			else
				sort_group(p, pl);
		}
		if (kept < 0)
			return;
		g = part[kept];
	}
	if (g.n > 1)
		insertion(g.a, g.n, g.d);
}

/* ---- on threads ---------------------------------------------------------- */

/* The groups are disjoint slices of one key array: threads sort them
 * apart. A thread that splits off a part hands it over only while
 * another thread waits for work, so the pool adds one lock per part
 * handed over, not per part. */
#define POOL_MIN 1024 /* a smaller part is sorted where it was split off */
#define POOL_TASKS 64

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct group task[POOL_TASKS];
	size_t ntasks;
	unsigned idle, threads; /* idle: threads waiting for a task */
};

static int hand_over(struct pool *pl, struct group g)
{
	int taken = 0;

	if (!pl || g.n < POOL_MIN || !__atomic_load_n(&pl->idle, __ATOMIC_RELAXED))
		return 0;
	pthread_mutex_lock(&pl->mu);
	if (pl->idle > pl->ntasks && pl->ntasks < POOL_TASKS) {
		pl->task[pl->ntasks++] = g;
		pthread_cond_signal(&pl->cv);
		taken = 1;
	}
	pthread_mutex_unlock(&pl->mu);
	return taken;
}

/* Takes tasks until every thread waits and none is left. */
static void *pool_work(void *arg)
{
	struct pool *pl = arg;

	pthread_mutex_lock(&pl->mu);
	for (;;) {
		if (pl->ntasks) {
			struct group g = pl->task[--pl->ntasks];

			pthread_mutex_unlock(&pl->mu);
			sort_group(g, pl);
			pthread_mutex_lock(&pl->mu);
			continue;
		}
		if (__atomic_add_fetch(&pl->idle, 1, __ATOMIC_RELAXED) == pl->threads) {
			/* all done */
			pthread_cond_broadcast(&pl->cv);
			break;
		}
		pthread_cond_wait(&pl->cv, &pl->mu);
		if (pl->idle == pl->threads)
			break;
		__atomic_sub_fetch(&pl->idle, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

static void sort_keys(struct key *k, size_t n, unsigned threads)
{
	struct pool pl = { .threads = 1 };
	pthread_t tid[FP_STRSORT_THREADS_MAX];
	unsigned started = 0;

	if (threads > FP_STRSORT_THREADS_MAX)
		threads = FP_STRSORT_THREADS_MAX;
	if (threads < 2 || n < 2 * POOL_MIN) {
		sort_group((struct group){ k, n, 0, 0 }, NULL);
		return;
	}
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.cv, NULL);
	pl.task[pl.ntasks++] = (struct group){ k, n, 0, 0 };
	for (; started + 1 < threads; started++) {
		pthread_mutex_lock(&pl.mu);
		pl.threads++;
		pthread_mutex_unlock(&pl.mu);
		if (pthread_create(&tid[started], NULL, pool_work, &pl) != 0) {
			pthread_mutex_lock(&pl.mu);
			pl.threads--; /* fewer threads: the same order, later */
			pthread_mutex_unlock(&pl.mu);
			break;
		}
	}
	pool_work(&pl);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	pthread_cond_destroy(&pl.cv);
	pthread_mutex_destroy(&pl.mu);
}

void fp_strtab_sort_ids_on(const struct fp_strtab *t, uint32_t *ids, size_t n, unsigned threads)
{
	if (n < 2)
		return;
	struct key *k = fp_xmalloc(n * sizeof *k);

	for (size_t i = 0; i < n; i++) {
		k[i].p = (const unsigned char *)fp_strtab_str(t, ids[i], &k[i].len);
		k[i].id = ids[i];
	}
	sort_keys(k, n, threads);
	for (size_t i = 0; i < n; i++)
		ids[i] = k[i].id;
	free(k);
}

void fp_strtab_sort_ids(const struct fp_strtab *t, uint32_t *ids, size_t n)
{
	fp_strtab_sort_ids_on(t, ids, n, 1);
}
