/* strmap.c: a small open-addressing hash map from byte strings to u64,
 * used to compare flame graphs frame path by frame path. */
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "serve.h"

#define STRMAP_MIN_SLOTS 256u	/* power of two */

static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 1099511628211ull;
	}
	return h;
}

void strmap_init(struct strmap *m)
{
	m->nslot = STRMAP_MIN_SLOTS;
	m->n = 0;
	m->slot = fp_xcalloc(m->nslot, sizeof *m->slot);
}

void strmap_free(struct strmap *m)
{
	for (size_t i = 0; i < m->nslot; i++)
		free(m->slot[i].key);
	free(m->slot);
	m->slot = NULL;
	m->nslot = m->n = 0;
}

static struct strmap_entry *probe(const struct strmap *m, const char *key, size_t len)
{
	size_t mask = m->nslot - 1, i = hash_bytes(key, len) & mask;
	while (m->slot[i].key) {
		if (m->slot[i].len == len && memcmp(m->slot[i].key, key, len) == 0)
			break;
		i = (i + 1) & mask;
	}
	return &m->slot[i];
}

static void grow(struct strmap *m)
{
	struct strmap old = *m;
	m->nslot *= 2;
	m->slot = fp_xcalloc(m->nslot, sizeof *m->slot);
	for (size_t i = 0; i < old.nslot; i++)
		if (old.slot[i].key)
			*probe(m, old.slot[i].key, old.slot[i].len) = old.slot[i];
	free(old.slot);
}

struct strmap_entry *strmap_find(const struct strmap *m, const char *key, size_t len)
{
	struct strmap_entry *e = probe(m, key, len);
	return e->key ? e : NULL;
}

struct strmap_entry *strmap_get(struct strmap *m, const char *key, size_t len)
{
	if ((m->n + 1) * 10 > m->nslot * 7)
		grow(m);
	struct strmap_entry *e = probe(m, key, len);
	if (!e->key) {
		e->key = fp_xstrndup(key, len);
		e->len = len;
		e->value = 0;
		m->n++;
	}
	return e;
}
