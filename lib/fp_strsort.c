/* fp_strsort.c: a multikey quicksort of strtab ids (see fp_strsort.h). */
#include "fp_strsort.h"

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

/* Sorts a group whose keys share [0, d). */
static void sort_group(struct group g)
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
		int big = 0;

		for (int k = 1; k < 3; k++)
			if (part[k].n > part[big].n)
				big = k;
		for (int k = 0; k < 3; k++)
			if (k != big && part[k].n > 1)
				sort_group(part[k]);
		g = part[big];
	}
	if (g.n > 1)
		insertion(g.a, g.n, g.d);
}

void fp_strtab_sort_ids(const struct fp_strtab *t, uint32_t *ids, size_t n)
{
	if (n < 2)
		return;
	struct key *k = fp_xmalloc(n * sizeof *k);

	for (size_t i = 0; i < n; i++) {
		k[i].p = (const unsigned char *)fp_strtab_str(t, ids[i], &k[i].len);
		k[i].id = ids[i];
	}
	sort_group((struct group){ k, n, 0, 0 });
	for (size_t i = 0; i < n; i++)
		ids[i] = k[i].id;
	free(k);
}
