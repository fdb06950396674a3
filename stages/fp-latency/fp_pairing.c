/* fp_pairing.c: start/end pairing through a reorder window (see
 * fp_pairing.h). */
#include "fp_pairing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_hash.h"
#include "fp_io.h"
#include "fp_map.h"

#define HEAP_MIN_ACTIONS 256u
#define HIST_BAR_WIDTH 52 /* as bpftrace's hist() */
#define HIST_LABEL_WIDTH 16
#define HIST_COUNT_WIDTH 8
#define OPEN_MIN 256u /* keys with open starts, at first */

/* Open starts of one (pair, key). */
struct fp_open_entry {
	uint64_t hash;
	uint16_t pair;
	uint8_t key_len;
	uint8_t depth; /* open starts, 1 .. FP_PAIRING_NEST */
	char key[FP_PAIRING_KEY_MAX];
	uint64_t starts_ns[FP_PAIRING_NEST]; /* oldest first */
};

/* ---- the reorder window: a heap by (time, input order) ------------------ */

static int action_before(const struct fp_action *a, const struct fp_action *b)
{
	return a->ts_ns < b->ts_ns || (a->ts_ns == b->ts_ns && a->seq < b->seq);
}

static void heap_push(struct fp_pairing *h, const struct fp_action *a)
{
	if (h->nheap == h->capheap) {
		h->capheap = h->capheap ? 2 * h->capheap : HEAP_MIN_ACTIONS;
		h->heap = fp_xrealloc(h->heap, h->capheap * sizeof *h->heap);
	}
	size_t i = h->nheap++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!action_before(a, &h->heap[parent]))
			break;
		h->heap[i] = h->heap[parent];
		i = parent;
	}
	h->heap[i] = *a;
}

static void heap_pop(struct fp_pairing *h, struct fp_action *out)
{
	*out = h->heap[0];
	struct fp_action last = h->heap[--h->nheap];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->nheap)
			break;
		if (c + 1 < h->nheap && action_before(&h->heap[c + 1], &h->heap[c]))
			c++;
		if (!action_before(&h->heap[c], &last))
			break;
		h->heap[i] = h->heap[c];
		i = c;
	}
	if (h->nheap > 0)
		h->heap[i] = last;
}

/* ---- open starts: a dense array, indexed by their key's hash in an fp_map */

static uint64_t key_hash(uint16_t pair, const char *key, size_t n)
{
	return fp_hash_bytes(key, n) ^ ((uint64_t)pair * 0x9e3779b97f4a7c15ull);
}

/* The index of (pair, key)'s open starts, or FP_MAP_NONE; *pos its map
 * entry. Keys of one hash are told apart by their bytes. */
static uint32_t open_find(const struct fp_pairing *t, uint64_t h, uint16_t pair, const char *key,
			  size_t n, size_t *pos)
{
	uint32_t i;

	for (i = fp_map_first(&t->open_by_key, h, 0, pos); i != FP_MAP_NONE;
	     i = fp_map_next(&t->open_by_key, pos)) {
		const struct fp_open_entry *e = &t->open[i];
		if (e->pair == pair && e->key_len == n && !memcmp(e->key, key, n))
			break;
	}
	return i;
}

/* The map entry of index i (its entry is there: i < t->used). */
static size_t open_pos(const struct fp_pairing *t, uint32_t i)
{
	size_t pos = 0;
	uint32_t v = fp_map_first(&t->open_by_key, t->open[i].hash, 0, &pos);

	while (v != i)
		v = fp_map_next(&t->open_by_key, &pos);
	return pos;
}

static uint32_t open_add(struct fp_pairing *t, uint64_t h, const struct fp_action *a)
{
	if (t->used == t->capopen) {
		t->capopen = t->capopen ? 2 * t->capopen : OPEN_MIN;
		t->open = fp_xrealloc(t->open, t->capopen * sizeof *t->open);
	}
	uint32_t i = (uint32_t)t->used++;
	struct fp_open_entry *e = &t->open[i];

	e->hash = h;
	e->pair = a->pair;
	e->key_len = a->key_len;
	e->depth = 0;
	memcpy(e->key, a->key, a->key_len);
	fp_map_add(&t->open_by_key, h, 0, i);
	return i;
}

/* Forgets the open starts at index i (map entry pos): the last entry moves
 * into its place, so the array stays dense. */
static void open_delete(struct fp_pairing *t, uint32_t i, size_t pos)
{
	uint32_t last = (uint32_t)--t->used;

	fp_map_del_at(&t->open_by_key, pos);
	if (i == last)
		return;
	fp_map_del_at(&t->open_by_key, open_pos(t, last));
	t->open[i] = t->open[last];
	fp_map_add(&t->open_by_key, t->open[i].hash, 0, i);
}

/* ---- pairing ------------------------------------------------------------ */

unsigned fp_pairing_bucket(uint64_t v)
{
	if (v == 0)
		return 1;
	return 2 + (63u - (unsigned)__builtin_clzll(v));
}

static void record_interval(struct fp_pairing *pg, const struct fp_action *end, uint64_t start_ns)
{
	struct fp_pair_stats *ps = &pg->stats[end->pair];
	uint64_t lat = end->ts_ns - start_ns;

	if (ps->count == 0 || lat < ps->min_ns)
		ps->min_ns = lat;
	if (lat > ps->max_ns)
		ps->max_ns = lat;
	ps->count++;
	ps->sum_ns += lat;
	ps->hist[fp_pairing_bucket(lat)]++;
	if (pg->on_interval)
		pg->on_interval(pg->ctx, end, start_ns);
}

static void limit_hit(struct fp_pairing *pg, enum fp_pairing_limit which)
{
	if (pg->warned[which])
		return;
	pg->warned[which] = 1;
	if (pg->on_limit)
		pg->on_limit(pg->ctx, which);
}

static void start(struct fp_pairing *pg, uint32_t i, uint64_t h, const struct fp_action *a)
{
	struct fp_pair_stats *ps = &pg->stats[a->pair];

	if (i == FP_MAP_NONE && pg->used >= pg->max_open) {
		pg->dropped_starts++;
		limit_hit(pg, FP_LIMIT_OPEN);
		return;
	}
	if (i == FP_MAP_NONE)
		i = open_add(pg, h, a);
	struct fp_open_entry *e = &pg->open[i];
	if (e->depth == FP_PAIRING_NEST) {
		memmove(e->starts_ns, e->starts_ns + 1,
			(FP_PAIRING_NEST - 1) * sizeof e->starts_ns[0]);
		e->depth--;
		ps->replaced++;
	}
	e->starts_ns[e->depth++] = a->ts_ns;
}

static void apply_action(struct fp_pairing *pg, const struct fp_action *a)
{
	struct fp_pair_stats *ps = &pg->stats[a->pair];
	uint64_t h = key_hash(a->pair, a->key, a->key_len);
	size_t pos = 0;
	uint32_t i = open_find(pg, h, a->pair, a->key, a->key_len, &pos);
	struct fp_open_entry *e = i == FP_MAP_NONE ? NULL : &pg->open[i];

	if (pg->applied_any && a->ts_ns < pg->last_applied_ns)
		pg->late++;
	else
		pg->last_applied_ns = a->ts_ns;
	pg->applied_any = 1;

	switch (a->role) {
	case FP_ROLE_START:
		start(pg, i, h, a);
		break;
	case FP_ROLE_END:
		/* A start later than the end can only come from a late event. */
		if (!e || e->starts_ns[e->depth - 1] > a->ts_ns) {
			ps->unmatched_ends++;
			break;
		}
		record_interval(pg, a, e->starts_ns[--e->depth]);
		if (e->depth == 0)
			open_delete(pg, i, pos);
		break;
	case FP_ROLE_CANCEL:
		if (!e)
			break;
		ps->cancelled += e->depth;
		open_delete(pg, i, pos);
		break;
	}
}

void fp_pairing_release(struct fp_pairing *pg, int all)
{
	struct fp_action a;

	while (pg->nheap > 0 && (all || pg->heap[0].ts_ns + pg->window_ns <= pg->max_ts_ns)) {
		heap_pop(pg, &a);
		apply_action(pg, &a);
	}
}

void fp_pairing_add(struct fp_pairing *pg, uint64_t ts_ns, uint16_t pair, enum fp_role role,
		    const char *key, size_t key_len)
{
	struct fp_action a = { .ts_ns = ts_ns,
			       .seq = pg->seq++,
			       .pair = pair,
			       .role = (uint8_t)role,
			       .key_len = (uint8_t)key_len };

	memcpy(a.key, key, key_len);
	if (pg->nheap >= pg->max_pending) {
		/* The window is full: the oldest is applied before its time. */
		struct fp_action old;

		limit_hit(pg, FP_LIMIT_PENDING);
		heap_pop(pg, &old);
		apply_action(pg, &old);
		pg->early++;
	}
	heap_push(pg, &a);
	if (ts_ns > pg->max_ts_ns)
		pg->max_ts_ns = ts_ns;
}

void fp_pairing_open(const struct fp_pairing *pg, uint64_t *open)
{
	memset(open, 0, pg->npairs * sizeof *open);
	for (size_t i = 0; i < pg->used; i++)
		open[pg->open[i].pair] += pg->open[i].depth;
}

void fp_pairing_init(struct fp_pairing *pg, size_t npairs, uint64_t window_ns, size_t max_open,
		     size_t max_pending)
{
	memset(pg, 0, sizeof *pg);
	pg->stats = fp_xcalloc(npairs ? npairs : 1, sizeof *pg->stats);
	pg->npairs = npairs;
	pg->window_ns = window_ns;
	pg->max_open = max_open;
	pg->max_pending = max_pending;
	fp_map_init(&pg->open_by_key);
}

void fp_pairing_free(struct fp_pairing *pg)
{
	free(pg->stats);
	free(pg->heap);
	free(pg->open);
	fp_map_free(&pg->open_by_key);
	memset(pg, 0, sizeof *pg);
}

/* ---- the histogram ------------------------------------------------------ */

static size_t hist_label(char *buf, size_t cap, unsigned power)
{
	static const char suffix[] = "KMGTPE";
	unsigned s = power / 10;

	if (s == 0)
		return (size_t)snprintf(buf, cap, "%llu", 1ull << power);
	return (size_t)snprintf(buf, cap, "%llu%c", 1ull << (power - 10 * s), suffix[s - 1]);
}

static void write_padded(struct fp_out *o, const char *s, size_t n, size_t width, int right)
{
	static const char spaces[] = "                                                    ";
	size_t pad = n < width ? width - n : 0;

	if (!right)
		fp_out_write(o, s, n);
	while (pad > 0) {
		size_t k = pad < sizeof spaces - 1 ? pad : sizeof spaces - 1;
		fp_out_write(o, spaces, k);
		pad -= k;
	}
	if (right)
		fp_out_write(o, s, n);
}

/* bpftrace's hist(): `[1K, 2K)   3 |@@@@     |`, from the first to the last
 * non-empty bucket. */
void fp_pairing_write_hist(struct fp_out *o, const char *name, const struct fp_pair_stats *ps)
{
	int first = -1, last = -1;
	uint64_t max = 0;

	fp_out_char(o, '@');
	fp_out_str(o, name);
	fp_out_str(o, "_ns:");
	for (int i = 0; i < FP_PAIRING_HIST; i++) {
		if (ps->hist[i] == 0)
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (ps->hist[i] > max)
			max = ps->hist[i];
	}
	if (first < 0) {
		fp_out_str(o, " (no intervals)\n\n");
		return;
	}
	fp_out_char(o, '\n');
	for (int i = first; i <= last; i++) {
		char label[48], lo[16], hi[16], count[24];
		size_t ln;

		if (i == 1) {
			ln = (size_t)snprintf(label, sizeof label, "[0]");
		} else if (i == 2) {
			ln = (size_t)snprintf(label, sizeof label, "[1]");
		} else {
			hist_label(lo, sizeof lo, (unsigned)(i - 2));
			hist_label(hi, sizeof hi, (unsigned)(i - 1));
			ln = (size_t)snprintf(label, sizeof label, "[%s, %s)", lo, hi);
		}
		size_t cn = (size_t)snprintf(count, sizeof count, "%llu",
					     (unsigned long long)ps->hist[i]);
		/* Integer bar length; count * 52 cannot overflow for counts < 2^58. */
		size_t bar = (size_t)(ps->hist[i] * HIST_BAR_WIDTH / max);
		static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";

		write_padded(o, label, ln, HIST_LABEL_WIDTH, 0);
		write_padded(o, count, cn, HIST_COUNT_WIDTH, 1);
		fp_out_str(o, " |");
		fp_out_write(o, ats, bar);
		write_padded(o, "", 0, HIST_BAR_WIDTH - bar, 0);
		fp_out_str(o, "|\n");
	}
	fp_out_char(o, '\n');
}
