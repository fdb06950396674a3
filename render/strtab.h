/* strtab.h: byte strings -> dense ids 0, 1, 2 ... (an interning table).
 *
 * The exports (render/pprof.c, render/speedscope.c) number frame names,
 * stacks, comms and aggregation keys with it. Strings are copied into one
 * growing arena and NUL-terminated (protobuf-c wants C strings); ids stay
 * valid until fp_strtab_clear or fp_strtab_free. The table is bounded by
 * what the caller interns: FP_STRTAB_MAX ids at most (fp_die past it).
 *
 *	struct fp_strtab t; fp_strtab_init(&t);
 *	uint32_t id = fp_strtab_intern(&t, p, n, NULL);
 *	const char *s = fp_strtab_str(&t, id, &len);
 *	fp_strtab_free(&t);
 */
#ifndef FP_STRTAB_H
#define FP_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#define FP_STRTAB_MAX (UINT32_MAX - 1u)

struct fp_strtab_ent {
	size_t off, len;
	uint64_t hash;
};

struct fp_strtab {
	char *text;
	size_t text_len, text_cap;
	struct fp_strtab_ent *ent;
	size_t n, cap;
	uint32_t *slots;	/* id + 1, 0 empty; open addressing */
	size_t mask;
};

void fp_strtab_init(struct fp_strtab *t);
void fp_strtab_free(struct fp_strtab *t);
/* Forgets every string (the memory is kept for reuse). */
void fp_strtab_clear(struct fp_strtab *t);
/* The id of the n bytes at p, added if new (*added = 1 then, if not NULL). */
uint32_t fp_strtab_intern(struct fp_strtab *t, const char *p, size_t n, int *added);
/* The string of an id (NUL-terminated); its length in *n if not NULL. */
const char *fp_strtab_str(const struct fp_strtab *t, uint32_t id, size_t *n);
static inline size_t fp_strtab_count(const struct fp_strtab *t) { return t->n; }

#endif
