/* fp_digtab.c: the digest table (see fp_digtab.h). */
#include "fp_digtab.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_generateSecret, exported since 0.8 */
#include <xxhash.h>

#include "fp_error.h"

#define SLOTS_MIN 256u /* power of two */
#define LOAD_NUM 1     /* grow above half full: a miss ends at an empty slot soon */
#define LOAD_DEN 2
#define DIGTAB_MAX (UINT32_MAX - 1u)

_Static_assert(FP_DIGTAB_SECRET == XXH3_SECRET_DEFAULT_SIZE, "the secret's size is XXH3's");

/* Bytes nobody outside this process knows. getrandom does not block once
 * the pool is ready (any running system); before that, the clock and the
 * pid still make a secret no input was written against. */
static void draw_seed(unsigned char *seed, size_t n)
{
	if (getrandom(seed, n, GRND_NONBLOCK) == (ssize_t)n)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t v[4] = { (uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec, (uint64_t)getpid(),
			  (uint64_t)(uintptr_t)seed };
	memset(seed, 0, n);
	memcpy(seed, v, n < sizeof v ? n : sizeof v);
}

void fp_digtab_init(struct fp_digtab *t)
{
	unsigned char seed[32];

	memset(t, 0, sizeof *t);
	t->slots = fp_xcalloc_touched(SLOTS_MIN, sizeof *t->slots);
	t->mask = SLOTS_MIN - 1;
	draw_seed(seed, sizeof seed);
	if (XXH3_generateSecret(t->secret, sizeof t->secret, seed, sizeof seed) != XXH_OK)
		fp_die(FP_EXIT_SYS, "digest table: cannot make a secret");
}

void fp_digtab_free(struct fp_digtab *t)
{
	free(t->slots);
	memset(t, 0, sizeof *t);
}

struct fp_digest fp_digtab_digest(const struct fp_digtab *t, const void *p, size_t n)
{
	XXH128_hash_t h = XXH3_128bits_withSecret(p, n, t->secret, sizeof t->secret);

	return (struct fp_digest){ h.low64, h.high64 };
}

/* The slot of d: where it is, or the empty one where it would go. */
static size_t find_slot(const struct fp_digtab_slot *slots, size_t mask, struct fp_digest d)
{
	size_t i = d.lo & mask;

	while (slots[i].id1 && (slots[i].lo != d.lo || slots[i].hi != d.hi))
		i = (i + 1) & mask;
	return i;
}

static void grow(struct fp_digtab *t)
{
	size_t nslots = (t->mask + 1) * 2;
	struct fp_digtab_slot *slots = fp_xcalloc_touched(nslots, sizeof *slots);

	for (size_t i = 0; i <= t->mask; i++)
		if (t->slots[i].id1) {
			struct fp_digest d = { t->slots[i].lo, t->slots[i].hi };

			slots[find_slot(slots, nslots - 1, d)] = t->slots[i];
		}
	free(t->slots);
	t->slots = slots;
	t->mask = nslots - 1;
}

uint32_t fp_digtab_find(const struct fp_digtab *t, struct fp_digest d)
{
	const struct fp_digtab_slot *s = &t->slots[find_slot(t->slots, t->mask, d)];

	return s->id1 ? s->id1 - 1 : FP_DIGTAB_NONE;
}

uint32_t fp_digtab_intern(struct fp_digtab *t, struct fp_digest d, int *added)
{
	size_t i = find_slot(t->slots, t->mask, d);

	if (added)
		*added = !t->slots[i].id1;
	if (t->slots[i].id1)
		return t->slots[i].id1 - 1;
	if (t->n >= DIGTAB_MAX)
		fp_die(FP_EXIT_SYS, "digest table: more than %u entries", DIGTAB_MAX);
	t->slots[i] = (struct fp_digtab_slot){ d.lo, d.hi, (uint32_t)t->n + 1 };
	t->n++;
	if (t->n * LOAD_DEN > (t->mask + 1) * LOAD_NUM)
		grow(t);
	return (uint32_t)t->n - 1;
}
