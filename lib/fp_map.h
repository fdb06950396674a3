/* fp_map.h: the one integer-keyed hash table of flamepipe: a key (a 64-bit
 * word and a 32-bit one) -> a 32-bit value, in practice the index of an
 * entry in the caller's own dense array. Open addressing with linear
 * probing, 16 bytes a slot; the table doubles before it would be more
 * than half full, and a removal moves the later entries of its probe run
 * back (no tombstones), so probes stay short whatever was added and
 * removed.
 *
 * String keys go to fp_strtab.h (arena + string -> id + counts); this is
 * for numbers: fp-bucket's columns by second, render/'s heatmap cells by
 * cell key, perf.data's processes and threads by pid and tid, its
 * (address, dso id) -> frame caches, and fp_pairing's open starts (by a
 * hash of their key, several entries a key: see "multi-map" below).
 *
 * Calling sequence:
 *
 *	struct fp_map m;
 *	fp_map_init(&m);                         // empty, allocates nothing
 *	v = fp_map_get(&m, key, key2);           // FP_MAP_NONE: not there
 *	v = fp_map_put(&m, key, key2, next);     // key's value; if it had
 *	if (v == next) ... a new entry           //   none, next (added)
 *	fp_map_del(&m, key, key2);               // 1 if it was there
 *	fp_map_clear(&m);                        // empty, memory kept
 *	fp_map_free(&m);
 *
 * key2 is the second part of a key of two ((address, dso id)); a key of
 * one word passes 0. Values are 0 .. FP_MAP_MAX - 1 (FP_MAP_NONE marks a
 * free slot). Multi-map: a key that is a hash standing for a longer key
 * may have several entries, the caller telling them apart:
 *
 *	size_t pos;
 *	for (v = fp_map_first(&m, h, 0, &pos); v != FP_MAP_NONE; v = fp_map_next(&m, &pos))
 *		if (same(entries[v])) break;     // fp_map_del_at(&m, pos) removes it
 *	if (v == FP_MAP_NONE) fp_map_add(&m, h, 0, index);
 *
 * A pos is valid until the next add, put, del, clear or free. Memory: 16
 * bytes a slot, 2 to 4 slots an entry, bounded by what the caller adds
 * (FP_MAP_MAX entries; fp_die past it). Lookups are inline: fp-bucket's
 * and fp-perfdata's per-sample path.
 */
#ifndef FP_MAP_H
#define FP_MAP_H

#include <stddef.h>
#include <stdint.h>

#define FP_MAP_NONE UINT32_MAX
#define FP_MAP_MAX ((size_t)1 << 31)

struct fp_map_slot {
	uint64_t key;
	uint32_t key2;
	uint32_t val; /* FP_MAP_NONE: the slot is free */
};

struct fp_map {
	struct fp_map_slot *slot; /* NULL until the first add */
	size_t mask;              /* slots - 1 */
	size_t n;                 /* entries */
};

/* The slot a key starts probing at: both parts mixed (a multiply and a
 * murmur3 finaliser), so keys that differ only in high bits (seconds,
 * addresses, hashes) spread over the low bits. */
static inline size_t fp_map_home(const struct fp_map *m, uint64_t key, uint32_t key2)
{
	uint64_t h = (key ^ (uint64_t)key2 << 29) * 0x9e3779b97f4a7c15ull;

	h ^= h >> 32;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	return (size_t)h & m->mask;
}

/* From slot i on: the value of the first entry of key, *pos its slot. */
static inline uint32_t fp_map_scan(const struct fp_map *m, size_t i, uint64_t key, uint32_t key2,
				   size_t *pos)
{
	for (;; i = (i + 1) & m->mask) {
		const struct fp_map_slot *s = &m->slot[i];

		if (s->val == FP_MAP_NONE)
			return FP_MAP_NONE;
		if (s->key == key && s->key2 == key2) {
			*pos = i;
			return s->val;
		}
	}
}

static inline uint32_t fp_map_first(const struct fp_map *m, uint64_t key, uint32_t key2,
				    size_t *pos)
{
	if (!m->n)
		return FP_MAP_NONE;
	return fp_map_scan(m, fp_map_home(m, key, key2), key, key2, pos);
}

/* The next entry of the key of the entry at *pos. */
static inline uint32_t fp_map_next(const struct fp_map *m, size_t *pos)
{
	const struct fp_map_slot *s = &m->slot[*pos];

	return fp_map_scan(m, (*pos + 1) & m->mask, s->key, s->key2, pos);
}

/* The value of key, or FP_MAP_NONE. */
static inline uint32_t fp_map_get(const struct fp_map *m, uint64_t key, uint32_t key2)
{
	size_t pos = 0;

	return fp_map_first(m, key, key2, &pos);
}

/* Adds an entry (whether or not key has one: a multi-map's). */
void fp_map_add(struct fp_map *m, uint64_t key, uint32_t key2, uint32_t val);

/* key's value; when it has none, val, added. */
static inline uint32_t fp_map_put(struct fp_map *m, uint64_t key, uint32_t key2, uint32_t val)
{
	uint32_t v = fp_map_get(m, key, key2);

	if (v != FP_MAP_NONE)
		return v;
	fp_map_add(m, key, key2, val);
	return val;
}

void fp_map_init(struct fp_map *m);
void fp_map_free(struct fp_map *m);
/* Removes the entry at pos (from first or next). */
void fp_map_del_at(struct fp_map *m, size_t pos);
/* Removes key's (first) entry: 1, or 0 if it had none. */
int fp_map_del(struct fp_map *m, uint64_t key, uint32_t key2);
/* Removes every entry; the slots are kept for reuse. */
void fp_map_clear(struct fp_map *m);
/* The bytes the table holds (for a cache's memory budget). */
size_t fp_map_bytes(const struct fp_map *m);

#endif
