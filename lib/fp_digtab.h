/* fp_digtab.h: byte strings -> dense ids 0, 1, 2 ..., known by a 128-bit
 * digest alone: the table keeps none of their bytes.
 *
 * For a writer that numbers long strings it never reads back: the
 * stack-id stream's tails (fp_tails.h), ~800 bytes each, 66 MB of them in
 * a system-wide capture, held in an fp_strtab only to be compared on each
 * hit. Here a string is its XXH3-128 digest under a secret drawn from
 * getrandom for each table, so two strings share an id only if their
 * digests collide: ~n^2 / 2^129, 10^-27 for a million distinct strings,
 * and input cannot be made to collide without knowing the secret.
 *
 *	struct fp_digtab t; fp_digtab_init(&t);
 *	struct fp_digest d = fp_digtab_digest(&t, p, n);
 *	uint32_t id = fp_digtab_intern(&t, d, &added);
 *	fp_digtab_free(&t);
 */
#ifndef FP_DIGTAB_H
#define FP_DIGTAB_H

#include <stddef.h>
#include <stdint.h>

#define FP_DIGTAB_NONE UINT32_MAX /* fp_digtab_find: not there */
#define FP_DIGTAB_SECRET 192      /* XXH3_SECRET_DEFAULT_SIZE */

struct fp_digest {
	uint64_t lo, hi;
};

struct fp_digtab_slot {
	uint64_t lo, hi;
	uint32_t id1; /* 0 empty, else id + 1 */
};

struct fp_digtab {
	struct fp_digtab_slot *slots; /* open addressing by lo */
	size_t mask, n;
	unsigned char secret[FP_DIGTAB_SECRET];
};

void fp_digtab_init(struct fp_digtab *t);
void fp_digtab_free(struct fp_digtab *t);
/* The digest of the n bytes at p under t's secret. */
struct fp_digest fp_digtab_digest(const struct fp_digtab *t, const void *p, size_t n);
/* A hint for a lookup of d a little later (the table may change meanwhile). */
static inline void fp_digtab_prefetch(const struct fp_digtab *t, struct fp_digest d)
{
	__builtin_prefetch(&t->slots[d.lo & t->mask]);
}
/* The id of d, or FP_DIGTAB_NONE (nothing is added). */
uint32_t fp_digtab_find(const struct fp_digtab *t, struct fp_digest d);
/* The id of d, added if new (*added = 1 then, if not NULL). */
uint32_t fp_digtab_intern(struct fp_digtab *t, struct fp_digest d, int *added);
static inline size_t fp_digtab_count(const struct fp_digtab *t)
{
	return t->n;
}

#endif
