/* fp_strtab.c: the interning table (see fp_strtab.h). */
#include "fp_strtab.h"

#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_hash.h"

#define SLOTS_MIN 256u		/* power of two */
#define LOAD_NUM 7		/* grow above 7/10 full */
#define LOAD_DEN 10
#define TEXT_MIN 4096u
#define ENT_MIN 64u

void fp_strtab_init(struct fp_strtab *t)
{
	memset(t, 0, sizeof *t);
	t->slots = fp_xcalloc(SLOTS_MIN, sizeof *t->slots);
	t->mask = SLOTS_MIN - 1;
}

void fp_strtab_free(struct fp_strtab *t)
{
	free(t->text);
	free(t->ent);
	free(t->slots);
	memset(t, 0, sizeof *t);
}

void fp_strtab_clear(struct fp_strtab *t)
{
	memset(t->slots, 0, (t->mask + 1) * sizeof *t->slots);
	t->n = 0;
	t->text_len = 0;
	t->total = 0;
}

static void grow_slots(struct fp_strtab *t)
{
	size_t nslots = (t->mask + 1) * 2;
	uint32_t *slots = fp_xcalloc(nslots, sizeof *slots);

	for (size_t id = 0; id < t->n; id++) {
		size_t j = t->ent[id].hash & (nslots - 1);

		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = (uint32_t)id + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = nslots - 1;
}

static size_t grown(size_t cap, size_t min, size_t need)
{
	if (!cap)
		cap = min;
	while (cap < need)
		cap *= 2;
	return cap;
}

/* The slot of p[0..n) with hash h: where it is, or the empty one where it
 * would go. */
static size_t find_slot(const struct fp_strtab *t, const char *p, size_t n, uint64_t h)
{
	size_t i = h & t->mask;

	for (; t->slots[i]; i = (i + 1) & t->mask) {
		const struct fp_strtab_ent *e = &t->ent[t->slots[i] - 1];

		if (e->hash == h && e->len == n && !memcmp(t->text + e->off, p, n))
			break;
	}
	return i;
}

uint32_t fp_strtab_find(const struct fp_strtab *t, const char *p, size_t n)
{
	size_t i = find_slot(t, p, n, fp_hash_bytes(p, n));

	return t->slots[i] ? t->slots[i] - 1 : FP_STRTAB_NONE;
}

uint32_t fp_strtab_intern(struct fp_strtab *t, const char *p, size_t n, int *added)
{
	uint64_t h = fp_hash_bytes(p, n);
	size_t i = find_slot(t, p, n, h);

	if (t->slots[i]) {
		if (added)
			*added = 0;
		return t->slots[i] - 1;
	}
	if (t->n >= FP_STRTAB_MAX)
		fp_die(FP_EXIT_SYS, "string table: more than %u entries", FP_STRTAB_MAX);
	if (t->text_cap - t->text_len < n + 1) {
		t->text_cap = grown(t->text_cap, TEXT_MIN, t->text_len + n + 1);
		t->text = fp_xrealloc(t->text, t->text_cap);
	}
	if (t->n == t->cap) {
		t->cap = grown(t->cap, ENT_MIN, t->n + 1);
		t->ent = fp_xrealloc(t->ent, t->cap * sizeof *t->ent);
	}
	memcpy(t->text + t->text_len, p, n);
	t->text[t->text_len + n] = '\0';
	t->ent[t->n] = (struct fp_strtab_ent){ t->text_len, n, h, 0 };
	t->text_len += n + 1;
	t->slots[i] = (uint32_t)++t->n;
	if (t->n * LOAD_DEN > (t->mask + 1) * LOAD_NUM)
		grow_slots(t);
	if (added)
		*added = 1;
	return (uint32_t)t->n - 1;
}

const char *fp_strtab_str(const struct fp_strtab *t, uint32_t id, size_t *n)
{
	if (n)
		*n = t->ent[id].len;
	return t->text + t->ent[id].off;
}

void fp_strtab_zero(struct fp_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		t->ent[i].count = 0;
	t->total = 0;
}
