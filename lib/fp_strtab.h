/* fp_strtab.h: byte strings -> dense ids 0, 1, 2 ..., with a saturating
 * count per id: the one interning table of flamepipe.
 *
 * fp-fold counts its folded stacks in it, fp-range interns sample tails,
 * fp-render's timeline its stacks and frame names, the exports
 * (render/pprof.c, render/speedscope.c) number frame names, stacks, comms
 * and aggregation keys with it. The hash is lib/fp_hash.h's. Strings are copied into one
 * growing arena and NUL-terminated (protobuf-c wants C strings); ids stay
 * valid until fp_strtab_clear or fp_strtab_free. The table is bounded by
 * what the caller interns: FP_STRTAB_MAX ids at most (fp_die past it).
 * A slot holds a tag of the hash and where the string is; each string has
 * its id and length right before it, so a lookup that finds its string
 * touches the slot and that one place (one cache miss, not two, in a
 * table larger than the cache).
 *
 *	struct fp_strtab t; fp_strtab_init(&t);
 *	uint32_t id = fp_strtab_intern(&t, p, n, NULL);
 *	const char *s = fp_strtab_str(&t, id, &len);
 *	fp_strtab_add(&t, id, 1);            // counts stick at UINT64_MAX
 *	fp_strtab_free(&t);
 */
#ifndef FP_STRTAB_H
#define FP_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#define FP_STRTAB_MAX (UINT32_MAX - 1u)
#define FP_STRTAB_NONE UINT32_MAX /* fp_strtab_find: not there */

struct fp_strtab_ent {
	size_t off, len;
	uint64_t hash;
	uint64_t count; /* fp_strtab_count's sum */
};

struct fp_strtab {
	char *text;
	size_t text_len, text_cap;
	struct fp_strtab_ent *ent;
	size_t n, cap;
	uint64_t *slots; /* 0 empty, else a hash tag and where the string is; open addressing */
	size_t mask;
	uint64_t total;                /* of every count */
	struct fp_strtab_front *front; /* fp_strtab_front_cache: NULL none */
};

/* a + b, or UINT64_MAX instead of wrapping (2^64 ns of cpu-clock is 584
 * years: only corrupt periods get there). Every counter of the stages
 * adds this way. */
static inline uint64_t fp_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void fp_strtab_init(struct fp_strtab *t);
void fp_strtab_free(struct fp_strtab *t);
/* Forgets every string (the memory is kept for reuse). */
void fp_strtab_clear(struct fp_strtab *t);
/* A table that looks up few distinct strings many times (a capture's
 * frame names: the mixed bench capture's 5.3 M frames are 5,789 names)
 * answers from a direct-mapped cache by the string's first 8 bytes and
 * length, checked against the table's copy, before it hashes and probes:
 * fp-render's frame names took a fifth of its time. Until fp_strtab_free. */
void fp_strtab_front_cache(struct fp_strtab *t);
/* The id of the n bytes at p, added if new (*added = 1 then, if not NULL). */
uint32_t fp_strtab_intern(struct fp_strtab *t, const char *p, size_t n, int *added);
/* The id of the n bytes at p, or FP_STRTAB_NONE (nothing is added). */
uint32_t fp_strtab_find(const struct fp_strtab *t, const char *p, size_t n);
/* The string of an id (NUL-terminated); its length in *n if not NULL. */
const char *fp_strtab_str(const struct fp_strtab *t, uint32_t id, size_t *n);
static inline size_t fp_strtab_count(const struct fp_strtab *t)
{
	return t->n;
}
/* Every count and the total back to 0 (strings and ids stay). */
void fp_strtab_zero(struct fp_strtab *t);
/* Adds c to the count of id and to the total (saturating). */
static inline void fp_strtab_add(struct fp_strtab *t, uint32_t id, uint64_t c)
{
	t->ent[id].count = fp_add_sat(t->ent[id].count, c);
	t->total = fp_add_sat(t->total, c);
}

#endif
