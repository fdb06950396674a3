/* fp_map.c: the integer-keyed hash table (fp_map.h). */
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_map.h"

#define MAP_MIN_SLOTS 64u /* a power of two */
#define LOAD_NUM 1        /* grown before n / slots would pass 1/2 */
#define LOAD_DEN 2

void fp_map_init(struct fp_map *m)
{
	*m = (struct fp_map){ 0 };
}

void fp_map_free(struct fp_map *m)
{
	free(m->slot);
	fp_map_init(m);
}

static size_t nslots(const struct fp_map *m)
{
	return m->slot ? m->mask + 1 : 0;
}

/* Every slot free: every byte 0xff makes val FP_MAP_NONE. */
static void free_all(struct fp_map_slot *s, size_t n)
{
	memset(s, 0xff, n * sizeof *s);
}

void fp_map_clear(struct fp_map *m)
{
	if (m->slot)
		free_all(m->slot, nslots(m));
	m->n = 0;
}

size_t fp_map_bytes(const struct fp_map *m)
{
	return nslots(m) * sizeof *m->slot;
}

/* The first free slot of key's probe run (there is one: never full). */
static struct fp_map_slot *free_slot(const struct fp_map *m, uint64_t key, uint32_t key2)
{
	size_t i = fp_map_home(m, key, key2);

	while (m->slot[i].val != FP_MAP_NONE)
		i = (i + 1) & m->mask;
	return &m->slot[i];
}

static void grow(struct fp_map *m)
{
	size_t old_n = nslots(m), n = old_n ? old_n * 2 : MAP_MIN_SLOTS;
	struct fp_map_slot *old = m->slot;

	m->slot = fp_xmalloc(n * sizeof *m->slot);
	free_all(m->slot, n);
	m->mask = n - 1;
	for (size_t i = 0; i < old_n; i++)
		if (old[i].val != FP_MAP_NONE)
			*free_slot(m, old[i].key, old[i].key2) = old[i];
	free(old);
}

void fp_map_add(struct fp_map *m, uint64_t key, uint32_t key2, uint32_t val)
{
	if (m->n >= FP_MAP_MAX)
		fp_die(FP_EXIT_SYS, "hash table: more than %zu entries", (size_t)FP_MAP_MAX);
	if (val == FP_MAP_NONE)
		fp_die(FP_EXIT_SYS, "hash table: value %u is reserved", (unsigned)val);
	if ((m->n + 1) * LOAD_DEN > nslots(m) * LOAD_NUM)
		grow(m);
	*free_slot(m, key, key2) = (struct fp_map_slot){ .key = key, .key2 = key2, .val = val };
	m->n++;
}

/* Backward-shift deletion: every later entry of the run whose home is not
 * cyclically in (hole, i] moves into the hole, so no probe run breaks. */
void fp_map_del_at(struct fp_map *m, size_t pos)
{
	size_t hole = pos;

	m->slot[hole].val = FP_MAP_NONE;
	m->n--;
	for (size_t i = (hole + 1) & m->mask; m->slot[i].val != FP_MAP_NONE;
	     i = (i + 1) & m->mask) {
		size_t home = fp_map_home(m, m->slot[i].key, m->slot[i].key2);
		int stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);

		if (!stays) {
			m->slot[hole] = m->slot[i];
			m->slot[i].val = FP_MAP_NONE;
			hole = i;
		}
	}
}

int fp_map_del(struct fp_map *m, uint64_t key, uint32_t key2)
{
	size_t pos;

	if (fp_map_first(m, key, key2, &pos) == FP_MAP_NONE)
		return 0;
	fp_map_del_at(m, pos);
	return 1;
}
