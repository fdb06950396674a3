/* fp_strtab.c: the interning table (see fp_strtab.h). */
#include "fp_strtab.h"

#include <stdlib.h>
#include <string.h>

#include "fp_bytes.h"
#include "fp_error.h"
#include "fp_hash.h"

#define SLOTS_MIN 256u /* power of two */
#define LOAD_NUM 7     /* grow above 7/10 full */
#define LOAD_DEN 10
#define TEXT_MIN 4096u
#define ENT_MIN 64u

/* A slot: 0 empty, else the top SLOT_TAG_BITS of the string's hash and
 * 1 + the offset of its header in text. The header (struct head) sits
 * right before the string's bytes: a lookup that hits reads the slot, then
 * one place in text (header and string share a cache line), never ent[]. */
#define SLOT_TAG_BITS 24u
#define SLOT_OFF_BITS (64u - SLOT_TAG_BITS)
#define SLOT_OFF_MASK ((UINT64_C(1) << SLOT_OFF_BITS) - 1)

struct head {
	uint32_t id, len;
};

/* The front cache: 2^FRONT_BITS entries of 16 bytes (64 KiB, in L2). An
 * entry is a string's first 8 bytes (zero-padded), its length + 1 (0: an
 * empty entry) and its id. */
#define FRONT_BITS 12u
struct fp_strtab_front {
	uint64_t head;
	uint32_t len1, id;
};

static uint64_t slot_of(uint64_t h, size_t head_off)
{
	return (h >> SLOT_OFF_BITS) << SLOT_OFF_BITS | ((uint64_t)head_off + 1);
}

void fp_strtab_init(struct fp_strtab *t)
{
	memset(t, 0, sizeof *t);
	t->slots = fp_xcalloc_touched(SLOTS_MIN, sizeof *t->slots);
	t->mask = SLOTS_MIN - 1;
}

void fp_strtab_front_cache(struct fp_strtab *t)
{
	if (!t->front)
		t->front = fp_xcalloc((size_t)1 << FRONT_BITS, sizeof *t->front);
}

void fp_strtab_free(struct fp_strtab *t)
{
	free(t->front);
	free(t->text);
	free(t->ent);
	free(t->slots);
	memset(t, 0, sizeof *t);
}

void fp_strtab_clear(struct fp_strtab *t)
{
	if (t->front)
		memset(t->front, 0, ((size_t)1 << FRONT_BITS) * sizeof *t->front);
	memset(t->slots, 0, (t->mask + 1) * sizeof *t->slots);
	t->n = 0;
	t->text_len = 0;
	t->total = 0;
}

static void grow_slots(struct fp_strtab *t)
{
	size_t nslots = (t->mask + 1) * 2;
	uint64_t *slots = fp_xcalloc_touched(nslots, sizeof *slots);

	for (size_t id = 0; id < t->n; id++) {
		size_t j = t->ent[id].hash & (nslots - 1);

		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = slot_of(t->ent[id].hash, t->ent[id].off - sizeof(struct head));
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

/* The slot of p[0..n) with hash h: where it is (*id its id), or the empty
 * one where it would go. */
static size_t find_slot(const struct fp_strtab *t, const char *p, size_t n, uint64_t h,
			uint32_t *id)
{
	const uint64_t tag = (h >> SLOT_OFF_BITS) << SLOT_OFF_BITS;
	size_t i = h & t->mask;

	for (uint64_t v; (v = t->slots[i]); i = (i + 1) & t->mask) {
		if ((v & ~SLOT_OFF_MASK) != tag)
			continue;
		const char *at = t->text + (v & SLOT_OFF_MASK) - 1;
		struct head hd;

		memcpy(&hd, at, sizeof hd);
		if (hd.len == n && !memcmp(at + sizeof hd, p, n)) {
			*id = hd.id;
			break;
		}
	}
	return i;
}

uint32_t fp_strtab_find(const struct fp_strtab *t, const char *p, size_t n)
{
	uint32_t id = FP_STRTAB_NONE;

	find_slot(t, p, n, fp_hash_bytes(p, n), &id);
	return id;
}

/* The first 8 bytes of p[0..n), zero-padded: the front cache's key. */
static inline uint64_t head_word(const char *p, size_t n)
{
	uint64_t w;

	if (n >= 8) {
		memcpy(&w, p, 8);
		return w;
	}
	return n ? fp_hash_tail(p, n) : 0; /* exactly the n bytes, zero-padded */
}

static inline struct fp_strtab_front *front_entry(const struct fp_strtab *t, uint64_t head,
						  size_t n)
{
	return &t->front[((head ^ n) * 0x9e3779b97f4a7c15ull) >> (64 - FRONT_BITS)];
}

/* The id of p[0..n) if the front cache has it, else FP_STRTAB_NONE. */
static inline uint32_t front_find(const struct fp_strtab *t, const struct fp_strtab_front *f,
				  uint64_t head, const char *p, size_t n)
{
	if (f->len1 != n + 1 || f->head != head)
		return FP_STRTAB_NONE;
	if (n > 8 && !fp_bytes_equal(t->text + t->ent[f->id].off, p, n))
		return FP_STRTAB_NONE;
	return f->id;
}

uint32_t fp_strtab_intern(struct fp_strtab *t, const char *p, size_t n, int *added)
{
	struct fp_strtab_front *f = NULL;
	uint64_t head = 0;
	uint32_t id;

	if (t->front && n < UINT32_MAX) {
		head = head_word(p, n);
		f = front_entry(t, head, n);
		if ((id = front_find(t, f, head, p, n)) != FP_STRTAB_NONE) {
			if (added)
				*added = 0;
			return id;
		}
	}
	const uint64_t h = fp_hash_bytes(p, n);
	size_t i = find_slot(t, p, n, h, &id);

	if (t->slots[i]) {
		if (f)
			*f = (struct fp_strtab_front){ head, (uint32_t)n + 1, id };
		if (added)
			*added = 0;
		return id;
	}
	if (t->n >= FP_STRTAB_MAX)
		fp_die(FP_EXIT_SYS, "string table: more than %u entries", FP_STRTAB_MAX);
	if (n > UINT32_MAX || t->text_len + sizeof(struct head) + n >= SLOT_OFF_MASK)
		fp_die(FP_EXIT_SYS, "string table: a string of %zu bytes does not fit", n);
	struct head hd = { (uint32_t)t->n, (uint32_t)n };
	size_t need = sizeof hd + n + 1;
	if (t->text_cap - t->text_len < need) {
		t->text_cap = grown(t->text_cap, TEXT_MIN, t->text_len + need);
		t->text = fp_xrealloc(t->text, t->text_cap);
	}
	if (t->n == t->cap) {
		t->cap = grown(t->cap, ENT_MIN, t->n + 1);
		t->ent = fp_xrealloc(t->ent, t->cap * sizeof *t->ent);
	}
	memcpy(t->text + t->text_len, &hd, sizeof hd);
	memcpy(t->text + t->text_len + sizeof hd, p, n);
	t->text[t->text_len + sizeof hd + n] = '\0';
	t->ent[t->n] = (struct fp_strtab_ent){ t->text_len + sizeof hd, n, h, 0 };
	t->slots[i] = slot_of(h, t->text_len);
	t->text_len += need;
	t->n++;
	if (f)
		*f = (struct fp_strtab_front){ head, (uint32_t)n + 1, hd.id };
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
