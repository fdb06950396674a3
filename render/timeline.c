/* timeline.c: samples by time for range flame graphs (see timeline.h). */
#include "timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fp_bytes.h"
#include "fp_container.h"
#include "fp_error.h"
#include "fp_fmt.h"
#include "fp_map.h"
#include "fp_record.h"
#include "fp_strsort.h"

#define SAMPLES_MIN 4096u
#define ARRAY_MIN 1024u
/* Stacks (folded strings and kinds) take at most this much: past it new
 * stacks are refused and their samples counted as overflow like past
 * max_samples (each unique stack needs a sample, so max_samples alone would
 * allow gigabytes). */
#define TEXT_MAX ((size_t)256 << 20)
#define NO_STACK UINT32_MAX

/* docs/fp-render.md promises it: the timeline's memory per sample */
_Static_assert(sizeof(struct fp_tl_sample) == 32, "a kept sample is 32 bytes");

void fp_timeline_init(struct fp_timeline *tl, size_t max_samples)
{
	memset(tl, 0, sizeof *tl);
	tl->max_samples = max_samples;
	fp_strtab_init(&tl->stacks);
	fp_strtab_init(&tl->kinds);
	fp_strtab_init(&tl->labels);
	fp_strtab_init(&tl->names);
	fp_strtab_front_cache(&tl->names);
	fp_strtab_init(&tl->owner_keys);
	tl->frame_off = fp_xgrow(NULL, &tl->frame_off_cap, 1, sizeof *tl->frame_off, ARRAY_MIN);
	tl->frame_off[0] = 0;
}

void fp_timeline_free(struct fp_timeline *tl)
{
	free(tl->s);
	fp_strtab_free(&tl->stacks);
	fp_strtab_free(&tl->kinds);
	fp_strtab_free(&tl->labels);
	fp_strtab_free(&tl->names);
	fp_strtab_free(&tl->owner_keys);
	fp_map_free(&tl->name_alt);
	FP_FREE_ALL(tl->stack_kinds, tl->stack_alt, tl->ext, tl->name_kind, tl->alt, tl->frames,
		    tl->frame_off, tl->owner, tl->key, tl->root_last);
	memset(tl, 0, sizeof *tl);
}

void fp_timeline_reset(struct fp_timeline *tl)
{
	tl->n = 0;
	tl->overflow = 0;
}

/* How many bytes a and b (n each at least) start with in common. */
static size_t common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return i + (size_t)__builtin_ctzll(x ^ y) / 8;
#else
			break;
#endif
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* The frames the stack at p (len bytes) shares with the latest stack
 * under its root name (frame 0, already in frames[]): their ids appended
 * (they are the same strings), and the offset of the first frame not
 * shared returned (len when all are). A system-wide capture's new stacks
 * come from many processes at once, so the stack before is seldom the
 * relative; the one of the same comm shares a third of the frames, which
 * are not looked up again (the lookups were a quarter of fp-render). */
static size_t shared_frames(struct fp_timeline *tl, uint32_t root, const char *p, size_t len,
			    size_t at)
{
	if (root >= tl->root_last_cap || !tl->root_last[root])
		return at;
	uint32_t rel = tl->root_last[root] - 1;
	size_t rlen;
	const char *r = fp_strtab_str(&tl->stacks, rel, &rlen);
	size_t common = common_prefix(p, r, len < rlen ? len : rlen);

	for (size_t k = tl->frame_off[rel] + 1; k < tl->frame_off[rel + 1]; k++) {
		size_t nlen, b;

		fp_strtab_str(&tl->names, tl->frames[k], &nlen);
		b = at + nlen; /* the end of frame k in both */
		if (b > common || (b < len && p[b] != ';'))
			break;
		if (tl->frames_len == tl->frames_cap)
			tl->frames = fp_xgrow(tl->frames, &tl->frames_cap, tl->frames_len + 1,
					      sizeof *tl->frames, ARRAY_MIN);
		tl->frames[tl->frames_len++] = tl->frames[k];
		at = b < len ? b + 1 : len;
	}
	return at;
}

/* A frame's kind as name_kind holds it (0 for a root). */
static char frame_kind(const char *kinds, size_t klen, size_t frame)
{
	char k = frame < klen ? kinds[frame] : 0;

	return k == FP_KIND_ROOT ? 0 : k;
}

/* A frame of another kind than its name's first: the (name, kind) pair
 * numbered once, for the page. */
static void add_alt(struct fp_timeline *tl, uint32_t id, char kind)
{
	if (fp_map_put(&tl->name_alt, id, (uint8_t)kind, (uint32_t)tl->nalt) != tl->nalt)
		return;
	tl->alt = fp_xgrow(tl->alt, &tl->alt_cap, tl->nalt + 1, sizeof *tl->alt, ARRAY_MIN);
	tl->alt[tl->nalt++] = (uint64_t)id << 8 | (uint8_t)kind;
}

/* The frames of a new stack whose kind is not their name's first; 1 if
 * there is one (the page writes the other stacks' name ids as they are).
 * A byte compare a frame: it runs over every frame of every stack. */
static int index_alt_kinds(struct fp_timeline *tl, size_t first, const char *kinds, size_t klen)
{
	const uint32_t *f = tl->frames + first;
	const char *nk = tl->name_kind;
	size_t n = tl->frames_len - first, m = n < klen ? n : klen;
	int alt = 0;

	for (size_t j = 0; j < m; j++)
		if (__builtin_expect(kinds[j] != nk[f[j]], 0) &&
		    !(kinds[j] == FP_KIND_ROOT && nk[f[j]] == 0)) {
			add_alt(tl, f[j], frame_kind(kinds, klen, j));
			alt = 1;
		}
	for (size_t j = m; j < n; j++) /* frames past the kinds: kind 0 */
		if (nk[f[j]] != 0) {
			add_alt(tl, f[j], 0);
			alt = 1;
		}
	return alt;
}

/* The names of a new stack's frames into the name index; a name's kind is
 * that of its first occurrence (flame.svg's colour of the name), and a
 * frame of another kind gets a name of its own for the page. */
static void index_stack(struct fp_timeline *tl, uint32_t stack)
{
	size_t len, klen, root = FP_STRTAB_NONE;
	const char *start = fp_strtab_str(&tl->stacks, stack, &len), *p = start, *end = start + len;
	const char *kinds = fp_strtab_str(&tl->kinds, tl->stack_kinds[stack], &klen);
	size_t first = tl->frames_len;
	struct fp_byte_iter semis;

	fp_byte_iter_init(&semis, ';', p, end);
	for (size_t frame = 0;; frame++) {
		const char *semi = fp_byte_next(&semis);
		const char *fe = semi ? semi : end;
		int added;
		uint32_t id = fp_strtab_intern(&tl->names, p, (size_t)(fe - p), &added);

		if (added) {
			tl->name_kind = fp_xgrow(tl->name_kind, &tl->name_kind_cap, (size_t)id + 1,
						 1, ARRAY_MIN);
			tl->name_kind[id] = frame_kind(kinds, klen, frame);
		}
		if (tl->frames_len == tl->frames_cap) /* a call per frame was ~4 % of a D */
			tl->frames = fp_xgrow(tl->frames, &tl->frames_cap, tl->frames_len + 1,
					      sizeof *tl->frames, ARRAY_MIN);
		tl->frames[tl->frames_len++] = id;
		if (!semi)
			break;
		p = semi + 1;
		if (frame == 0) {
			root = id;
			size_t at = shared_frames(tl, id, start, len, (size_t)(p - start));

			frame += tl->frames_len - first - 1;
			if (at == len)
				break;
			p = start + at;
			fp_byte_iter_init(&semis, ';', p, end); /* on past the shared ones */
		}
	}
	tl->stack_alt = fp_xgrow(tl->stack_alt, &tl->stack_alt_cap, (size_t)stack + 1, 1,
				 ARRAY_MIN);
	tl->stack_alt[stack] = (uint8_t)index_alt_kinds(tl, first, kinds, klen);
	if (root == FP_STRTAB_NONE)
		root = tl->frames[first];
	if (root >= tl->root_last_cap)
		tl->root_last = fp_xgrow_zeroed(tl->root_last, &tl->root_last_cap, root + 1,
						sizeof *tl->root_last);
	tl->root_last[root] = stack + 1;
	tl->frame_off = fp_xgrow(tl->frame_off, &tl->frame_off_cap, (size_t)stack + 2,
				 sizeof *tl->frame_off, ARRAY_MIN);
	tl->frame_off[stack + 1] = tl->frames_len;
}

int fp_timeline_define(struct fp_timeline *tl, const struct fp_stack_def *d)
{
	uint32_t stack;
	int added = 0;

	if (d->id > tl->next)
		return -1;
	/* one lookup: interned (a redefinition may name a known stack), or,
	 * past the bound, only looked up */
	if (tl->stacks.text_len + tl->kinds.text_len + d->folded.n + d->kinds.n <= TEXT_MAX)
		stack = fp_strtab_intern(&tl->stacks, d->folded.p, d->folded.n, &added);
	else if ((stack = fp_strtab_find(&tl->stacks, d->folded.p, d->folded.n)) == FP_STRTAB_NONE)
		stack = NO_STACK; /* its samples count as overflow */
	if (added) {
		tl->stack_kinds = fp_xgrow(tl->stack_kinds, &tl->stack_kinds_cap, (size_t)stack + 1,
					   sizeof *tl->stack_kinds, ARRAY_MIN);
		tl->stack_kinds[stack] = fp_strtab_intern(&tl->kinds, d->kinds.p, d->kinds.n, NULL);
		tl->nstacks = (size_t)stack + 1;
		index_stack(tl, stack);
	}
	if (d->id == tl->next) {
		tl->ext = fp_xgrow(tl->ext, &tl->ext_cap, tl->next + 1, sizeof *tl->ext, ARRAY_MIN);
		tl->next++;
	}
	tl->ext[d->id] = stack;
	return 0;
}

enum fp_tl_stack_of fp_timeline_stack(const struct fp_timeline *tl, uint32_t id, uint32_t *stack)
{
	if (id >= tl->next)
		return FP_TL_UNDEFINED;
	*stack = tl->ext[id];
	return *stack == NO_STACK ? FP_TL_NOT_KEPT : FP_TL_STACK;
}

/* Whether owner id is r's pid, tid, cpu, comm, event and cgroup. */
static int owner_is(const struct fp_timeline *tl, uint32_t id, const struct fp_ref *r)
{
	const struct fp_tl_owner *o = &tl->owner[id];
	size_t cn, en, gn = 0;
	const char *comm, *event, *cgroup = "";

	if (o->pid != r->pid || o->tid != r->tid || o->cpu != r->cpu)
		return 0;
	comm = fp_strtab_str(&tl->labels, o->comm, &cn);
	event = fp_strtab_str(&tl->labels, o->event, &en);
	if (o->cgroup != FP_TL_NO_LABEL)
		cgroup = fp_strtab_str(&tl->labels, o->cgroup, &gn);
	return cn == r->comm.n && en == r->event.n && gn == r->cgroup.n &&
	       !memcmp(comm, r->comm.p, cn) && !memcmp(event, r->event.p, en) &&
	       (gn == 0 || !memcmp(cgroup, r->cgroup.p, gn));
}

/* A new owner's cgroup path and container name into labels. */
static void owner_cgroup(struct fp_timeline *tl, struct fp_tl_owner *o, const struct fp_ref *r)
{
	o->cgroup = o->container = FP_TL_NO_LABEL;
	if (r->cgroup.n == 0)
		return;
	size_t cap = r->cgroup.n + FP_CONTAINER_NAME_EXTRA + 1;
	char *name = fp_xmalloc(cap);
	size_t n = fp_container_name(r->cgroup.p, r->cgroup.n, name, cap);
	o->cgroup = fp_strtab_intern(&tl->labels, r->cgroup.p, r->cgroup.n, NULL);
	o->container = fp_strtab_intern(&tl->labels, name, n, NULL);
	free(name);
	tl->has_cgroups = 1;
}

/* The owner of an R record's sample: the one of the sample before on its
 * cpu if it is the same (a task runs on a cpu for a while: most samples),
 * else one lookup of its key (pid, tid, cpu, then comm TAB event: names
 * never hold a TAB); a new owner's comm and event go into labels, comm
 * first, as they would sample by sample. */
static uint32_t owner_of(struct fp_timeline *tl, const struct fp_ref *r)
{
	const int64_t ids[] = { r->pid, r->tid, r->cpu };
	size_t n = sizeof ids + r->comm.n + 1 + r->event.n + (r->cgroup.n ? 1 + r->cgroup.n : 0);
	uint32_t *last = &tl->owner_last[(uint64_t)r->cpu & (FP_TL_OWNER_CACHE - 1)];
	int added;

	if (*last && owner_is(tl, *last - 1, r))
		return *last - 1;

	tl->key = fp_xgrow(tl->key, &tl->key_cap, n, 1, ARRAY_MIN);
	memcpy(tl->key, ids, sizeof ids);
	memcpy(tl->key + sizeof ids, r->comm.p, r->comm.n);
	tl->key[sizeof ids + r->comm.n] = '\t';
	memcpy(tl->key + sizeof ids + r->comm.n + 1, r->event.p, r->event.n);
	if (r->cgroup.n) { /* TAB cgroup: no name holds a TAB */
		tl->key[sizeof ids + r->comm.n + 1 + r->event.n] = '\t';
		memcpy(tl->key + sizeof ids + r->comm.n + 2 + r->event.n, r->cgroup.p, r->cgroup.n);
	}
	uint32_t id = fp_strtab_intern(&tl->owner_keys, tl->key, n, &added);
	if (added) {
		tl->owner = fp_xgrow(tl->owner, &tl->owner_cap, (size_t)id + 1, sizeof *tl->owner,
				     ARRAY_MIN);
		tl->owner[id] = (struct fp_tl_owner){
			.pid = r->pid,
			.tid = r->tid,
			.cpu = r->cpu,
			.comm = fp_strtab_intern(&tl->labels, r->comm.p, r->comm.n, NULL),
			.event = fp_strtab_intern(&tl->labels, r->event.p, r->event.n, NULL),
		};
		owner_cgroup(tl, &tl->owner[id], r);
	}
	*last = id + 1;
	return id;
}

int fp_timeline_add(struct fp_timeline *tl, const struct fp_ref *r)
{
	if (r->id >= tl->next) {
		tl->bad++;
		return -1;
	}
	if (r->count != 1 && !fp_event_is_timed(r->event)) /* off-CPU ns: not a weighing */
		tl->weight_period = 1;
	if (tl->n >= tl->max_samples || tl->ext[r->id] == NO_STACK) {
		tl->overflow++;
		return 0;
	}
	if (tl->n == tl->cap) {
		tl->cap = tl->cap ? tl->cap * 2 : SAMPLES_MIN;
		if (tl->cap > tl->max_samples)
			tl->cap = tl->max_samples;
		tl->s = fp_xrealloc(tl->s, tl->cap * sizeof *tl->s);
	}
	tl->s[tl->n++] = (struct fp_tl_sample){
		.time_ns = r->time_ns,
		.count = r->count,
		.period = r->period,
		.stack = tl->ext[r->id],
		.owner = owner_of(tl, r),
	};
	return 0;
}

uint64_t fp_timeline_total_untimed(const struct fp_timeline *tl)
{
	uint64_t t = 0;

	for (size_t i = 0; i < tl->n; i++) {
		size_t n;
		const char *ev = fp_strtab_str(&tl->labels, tl->owner[tl->s[i].owner].event, &n);
		if (!fp_event_is_timed((struct fp_str){ ev, n }))
			t = fp_add_sat(t, tl->s[i].count);
	}
	return t;
}

uint64_t fp_timeline_total(const struct fp_timeline *tl)
{
	uint64_t t = 0;

	for (size_t i = 0; i < tl->n; i++)
		t = fp_add_sat(t, tl->s[i].count);
	return t;
}

/* s->stack and s->kinds: the frames of stack after its root frames (comm,
 * comm-PID, the event: they come first). */
static void stack_frames(const struct fp_timeline *tl, uint32_t stack, struct fp_sample *s)
{
	size_t len, klen, roots = 0, skip = 0;
	const char *folded = fp_strtab_str(&tl->stacks, stack, &len);
	const char *kinds = fp_strtab_str(&tl->kinds, tl->stack_kinds[stack], &klen);

	while (roots < klen && kinds[roots] == FP_KIND_ROOT) {
		const char *semi = memchr(folded + skip, ';', len - skip);

		skip = semi ? (size_t)(semi - folded) + 1 : len;
		roots++;
	}
	s->stack = (struct fp_str){ folded + skip, len - skip };
	s->kinds = (struct fp_str){ kinds + roots, klen - roots };
}

void fp_timeline_sample(const struct fp_timeline *tl, size_t i, struct fp_sample *s)
{
	const struct fp_tl_sample *x = &tl->s[i];
	const struct fp_tl_owner *o = &tl->owner[x->owner];

	*s = (struct fp_sample){
		.time_ns = x->time_ns,
		.pid = o->pid,
		.tid = o->tid,
		.cpu = o->cpu,
		.period = x->period,
	};
	stack_frames(tl, x->stack, s);
	s->comm.p = fp_strtab_str(&tl->labels, o->comm, &s->comm.n);
	s->event.p = fp_strtab_str(&tl->labels, o->event, &s->event.n);
	if (o->cgroup != FP_TL_NO_LABEL)
		s->cgroup.p = fp_strtab_str(&tl->labels, o->cgroup, &s->cgroup.n);
}

int fp_timeline_ref_sample(const struct fp_timeline *tl, const struct fp_ref *r,
			   struct fp_sample *s)
{
	if (r->id >= tl->next || tl->ext[r->id] == NO_STACK)
		return -1;
	*s = (struct fp_sample){
		.time_ns = r->time_ns,
		.pid = r->pid,
		.tid = r->tid,
		.cpu = r->cpu,
		.period = r->period,
		.comm = r->comm,
		.event = r->event,
		.cgroup = r->cgroup,
	};
	stack_frames(tl, tl->ext[r->id], s);
	return 0;
}

/* ---- range tables ---------------------------------------------------- */

static int entry_bytewise(const void *a, const void *b)
{
	const struct fp_folded_entry *x = a, *y = b;

	return fp_bytes_cmp(x->stack, x->len, y->stack, y->len);
}

void fp_timeline_range(const struct fp_timeline *tl, uint64_t base_ns, uint64_t from_ns,
		       uint64_t to_ns, struct fp_folded *t)
{
	uint64_t *counts = fp_xcalloc(tl->nstacks ? tl->nstacks : 1, sizeof *counts);

	for (size_t i = 0; i < tl->n; i++) {
		const struct fp_tl_sample *x = &tl->s[i];
		if (x->time_ns < base_ns)
			continue;
		uint64_t off = x->time_ns - base_ns;
		if (off < from_ns || (to_ns != UINT64_MAX && off >= to_ns))
			continue;
		counts[x->stack] = fp_add_sat(counts[x->stack], x->count);
	}
	for (size_t i = 0; i < tl->nstacks; i++)
		if (counts[i]) {
			size_t len;
			const char *p = fp_strtab_str(&tl->stacks, (uint32_t)i, &len);

			fp_folded_add(t, p, len, counts[i], 0, FP_FOLDED_REF);
		}
	free(counts);
	if (t->n > 1)
		qsort(t->e, t->n, sizeof *t->e, entry_bytewise);
}

void fp_timeline_range_folded(const struct fp_timeline *tl, const struct fp_heatmap *hm,
			      const char *from_to, struct fp_sink *s)
{
	const char *colon = strchr(from_to, ':'); /* fp-render's options checked it is there */
	uint64_t from = 0, to = UINT64_MAX;
	uint64_t base = hm->rows && hm->base_sec > 0 ? (uint64_t)hm->base_sec * FP_NSEC_PER_SEC : 0;
	struct fp_folded t;

	if (!colon)
		colon = from_to + strlen(from_to); /* FROM alone: no upper bound */
	if (colon > from_to && !(colon - from_to == 1 && *from_to == '-'))
		fp_parse_seconds_ns(from_to, (size_t)(colon - from_to), &from);
	if (*colon && colon[1] && strcmp(colon + 1, "-"))
		fp_parse_seconds_ns(colon + 1, strlen(colon + 1), &to);
	fp_folded_init(&t);
	fp_timeline_range(tl, base, from, to, &t);
	fp_folded_write(s, &t);
	fp_folded_free(&t);
}

/* ---- the name index ---------------------------------------------------- */

char fp_timeline_kind(const struct fp_timeline *tl, const char *name, size_t n)
{
	uint32_t id = fp_strtab_find(&tl->names, name, n);

	return id == FP_STRTAB_NONE ? 0 : tl->name_kind[id];
}

/* ---- the page's JSON ------------------------------------------------------ */

/* One (stack, owner) of a cell on its way into the page: its samples'
 * sum and the earliest of them. key: stack << 32 | owner (the owner's
 * number in the page), so one compare orders by stack, then owner. */
struct cell_entry {
	uint64_t key;
	uint64_t first_ns;
	uint64_t count;
};

#define OWNER_BITS 32
#define MAP_SLOTS_PER_ENTRY 8 /* a table bigger than this per entry is made afresh */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* In a cell, the entries by their first sample: the flame chart's order. */
static int entry_time_cmp(const void *a, const void *b)
{
	const struct cell_entry *x = a, *y = b;
	int c = cmp_u64(x->first_ns, y->first_ns);

	return c ? c : cmp_u64(x->key, y->key);
}

/* A list's number v at d (after a comma if comma); returns the end. The
 * lists of stacks and cells are most of the page's bytes: written in
 * place, space reserved a stack or a cell at a time. */
#define LIST_ITEM_MAX (FP_FMT_U64_MAX + 1)

/* The digits are written in place once their count is known: formatting
 * to a buffer and copying (a call to memcpy per number) was a tenth of
 * fp-render on a capture with many unique stacks. */
static char *put_item(char *d, uint64_t v, int comma)
{
	unsigned n = fp_fmt_u64_len(v);

	if (comma)
		*d++ = ',';
	fp_fmt_u64(d + n, v);
	return d + n;
}

/* Every string of t as a JSON list (escaped for a <script>). */
static void json_strings(struct fp_sink *s, const struct fp_strtab *t)
{
	fp_sink_char(s, '[');
	for (size_t i = 0; i < fp_strtab_count(t); i++) {
		size_t len;
		const char *p = fp_strtab_str(t, (uint32_t)i, &len);

		if (i)
			fp_sink_char(s, ',');
		fp_json_string(s, p, len);
	}
	fp_sink_char(s, ']');
}

/* The page's name i: a name id, or past them one of tl->alt. */
static const char *page_name(const struct fp_timeline *tl, size_t i, size_t *len, char *kind)
{
	size_t n = fp_strtab_count(&tl->names);
	uint32_t id = i < n ? (uint32_t)i : (uint32_t)(tl->alt[i - n] >> 8);

	*kind = i < n ? tl->name_kind[id] : (char)(tl->alt[i - n] & 0xff);
	return fp_strtab_str(&tl->names, id, len);
}

/* Frame k (of stack from..to, kinds its kinds) as the page numbers it. */
static uint64_t page_frame(const struct fp_timeline *tl, size_t k, size_t from, const char *kinds,
			   size_t klen)
{
	uint32_t id = tl->frames[k];
	char kind = frame_kind(kinds, klen, k - from);

	if (kind == tl->name_kind[id])
		return id;
	return fp_strtab_count(&tl->names) + fp_map_get(&tl->name_alt, id, (uint8_t)kind);
}

/* One "rgb(R,G,B)" number, its digits up to stop; -1 when not there. */
static int color_part(const char **p, char stop, unsigned *v)
{
	const char *s = *p;

	*v = 0;
	for (; **p >= '0' && **p <= '9'; (*p)++)
		*v = *v * 10 + (unsigned)(**p - '0');
	if (*p == s || **p != stop)
		return -1;
	(*p)++;
	return 0;
}

/* fp_flame_color_kind's "rgb(R,G,B)" as "#rrggbb", black if it is not
 * that: a colour per name, where sscanf and printf were 6 % of fp-render. */
static void json_color(struct fp_sink *s, const char *rgb)
{
	static const char hex[] = "0123456789abcdef";
	unsigned c[3] = { 0, 0, 0 };
	const char *p = rgb + 4;
	char out[9] = "\"#";

	if (strncmp(rgb, "rgb(", 4) || color_part(&p, ',', &c[0]) || color_part(&p, ',', &c[1]) ||
	    color_part(&p, ')', &c[2]))
		c[0] = c[1] = c[2] = 0;
	for (int i = 0; i < 3; i++) {
		out[2 + 2 * i] = hex[(c[i] >> 4) & 0xf];
		out[3 + 2 * i] = hex[c[i] & 0xf];
	}
	out[8] = '"';
	fp_sink_write(s, out, sizeof out);
}

static void json_header(const struct fp_timeline *tl, struct fp_sink *s,
			const struct fp_heatmap *hm, const struct fp_heatmap_axis *ax,
			const struct fp_flame_opts *o)
{
	char color[20];
	unsigned rows = hm->rows ? hm->rows : 1;

	fp_sink_printf(s, "{\"rows\":%u,\"base_sec\":%lld,\"total\":", rows,
		       (long long)hm->base_sec);
	fp_sink_u64(s, fp_timeline_total(tl));
	fp_sink_str(s, ",\"countname\":");
	fp_json_string(s, o->countname, strlen(o->countname));
	/* The flame graph options the page's graph follows too. */
	fp_sink_printf(s,
		       ",\"width\":%u,\"frameheight\":%u,\"fontsize\":%u,\"inverted\":%d,"
		       "\"minwidth\":%.4g,\"minwidth_pct\":%d,\"searchcolor\":",
		       o->width, o->frame_height, o->fontsize, o->inverted ? 1 : 0, o->minwidth,
		       o->minwidth_pct ? 1 : 0);
	fp_json_string(s, o->search_color, strlen(o->search_color));
	fp_flame_color_kind(o->palette, "all", 3, 0, color);
	fp_sink_str(s, ",\"all_color\":");
	json_color(s, color);
	/* the heatmap's axis: drawn columns, and their seconds when cut */
	fp_sink_printf(s, ",\"ncols\":%zu", ax->col ? ax->n : (size_t)(hm->ncols));
	if (ax->col && ax->cut) {
		fp_sink_str(s, ",\"cut\":");
		fp_sink_u64(s, ax->cut);
		fp_sink_str(s, ",\"colmap\":");
		fp_heatmap_axis_list(s, ax);
	}
}

/* names, their kinds (one character each, '-' for roots), colours and the
 * stacks as name ids */
static void json_names(const struct fp_timeline *tl, struct fp_sink *s,
		       const struct fp_flame_opts *o)
{
	char color[20], kind;
	size_t n = fp_strtab_count(&tl->names) + tl->nalt, len;

	fp_sink_str(s, ",\n\"names\":[");
	for (size_t i = 0; i < n; i++) {
		const char *name = page_name(tl, i, &len, &kind);

		if (i)
			fp_sink_char(s, ',');
		fp_json_string(s, name, len);
	}
	fp_sink_str(s, "],\n\"kinds\":\"");
	for (size_t i = 0; i < n; i++) {
		page_name(tl, i, &len, &kind);
		fp_sink_char(s, kind ? kind : FP_KIND_ROOT);
	}
	fp_sink_str(s, "\",\n\"colors\":[");
	for (size_t i = 0; i < n; i++) {
		const char *name = page_name(tl, i, &len, &kind);

		fp_flame_color_kind(o->palette, name, len, kind, color);
		if (i)
			fp_sink_char(s, ',');
		json_color(s, color);
	}
	fp_sink_str(s, "],\n\"stacks\":[");
	for (size_t i = 0; i < tl->nstacks; i++) {
		size_t from = tl->frame_off[i], to = tl->frame_off[i + 1], klen;
		const char *kinds = fp_strtab_str(&tl->kinds, tl->stack_kinds[i], &klen);
		char *d = fp_sink_reserve(s, (to - from + 1) * LIST_ITEM_MAX + 2), *at = d;

		if (i)
			*at++ = ',';
		*at++ = '[';
		if (!tl->stack_alt[i])
			for (size_t k = from; k < to; k++)
				at = put_item(at, tl->frames[k], k > from);
		else
			for (size_t k = from; k < to; k++)
				at = put_item(at, page_frame(tl, k, from, kinds, klen), k > from);
		*at++ = ']';
		fp_sink_commit(s, (size_t)(at - d));
	}
	fp_sink_char(s, ']');
}

/* The page's cells: the samples on the heatmap's axis grouped by cell,
 * in the cells' order, each cell's samples in arrival order; the owners
 * numbered in the order the page first names them. */
struct page_cells {
	uint64_t *key; /* per cell (first seen first): col * rows + row */
	size_t ncells, key_cap;
	uint32_t *order;      /* the cells, sorted by key */
	size_t *start;        /* per sorted cell: its first in sample[] (ncells + 1) */
	uint32_t *sample;     /* sample indices, cell by cell */
	uint32_t *owner_page; /* owner -> its number in the page, or NO_STACK */
	uint32_t *page_owner; /* the page's owners, in order */
	size_t npage_owners;
};

/* a cell's key and number, to sort the cells by key */
struct cell_order {
	uint64_t key;
	uint32_t cell;
};

static int cell_key_cmp(const void *a, const void *b)
{
	return cmp_u64(((const struct cell_order *)a)->key, ((const struct cell_order *)b)->key);
}

/* The cell of sample x on the axis (its column's place on it unless the
 * axis is cut, heatmap.h), or UINT64_MAX when the axis does not show it. */
static uint64_t sample_cell(const struct fp_tl_sample *x, const struct fp_heatmap_axis *ax,
			    uint64_t base_ns, unsigned rows)
{
	if (x->time_ns < base_ns)
		return UINT64_MAX;
	uint64_t sec = (x->time_ns - base_ns) / FP_NSEC_PER_SEC;
	size_t col = ax->col                      ? fp_heatmap_axis_index(ax, sec, 0)
		     : sec < FP_HEATMAP_AXIS_COLS ? (size_t)sec
						  : SIZE_MAX;
	if (col == SIZE_MAX)
		return UINT64_MAX;
	return (uint64_t)col * rows + (x->time_ns % FP_NSEC_PER_SEC) * rows / FP_NSEC_PER_SEC;
}

static void group_cells(const struct fp_timeline *tl, const struct fp_heatmap *hm,
			const struct fp_heatmap_axis *ax, struct page_cells *pc)
{
	unsigned rows = hm->rows ? hm->rows : 1;
	uint64_t base_ns = hm->base_sec > 0 ? (uint64_t)hm->base_sec * FP_NSEC_PER_SEC : 0;
	uint32_t *cell_of = fp_xmalloc((tl->n ? tl->n : 1) * sizeof *cell_of);
	size_t nowners = fp_strtab_count(&tl->owner_keys), *count = NULL, count_cap = 0;
	struct fp_map cells;

	memset(pc, 0, sizeof *pc);
	fp_map_init(&cells);
	pc->owner_page = fp_xmalloc((nowners ? nowners : 1) * sizeof *pc->owner_page);
	pc->page_owner = fp_xmalloc((nowners ? nowners : 1) * sizeof *pc->page_owner);
	for (size_t i = 0; i < nowners; i++)
		pc->owner_page[i] = NO_STACK;
	uint64_t last_key = UINT64_MAX;
	uint32_t c = NO_STACK;
	for (size_t i = 0; i < tl->n; i++) {
		const struct fp_tl_sample *x = &tl->s[i];
		uint64_t key = sample_cell(x, ax, base_ns, rows);
		cell_of[i] = NO_STACK;
		if (key == UINT64_MAX)
			continue;
		/* samples come by time: most are in the cell of the one before */
		if (key != last_key)
			c = fp_map_put(&cells, key, 0, (uint32_t)pc->ncells);
		last_key = key;
		if (c == pc->ncells) {
			pc->key = fp_xgrow(pc->key, &pc->key_cap, (size_t)c + 1, sizeof *pc->key,
					   ARRAY_MIN);
			count = fp_xgrow(count, &count_cap, (size_t)c + 1, sizeof *count,
					 ARRAY_MIN);
			pc->key[c] = key;
			count[c] = 0;
			pc->ncells = (size_t)c + 1;
		}
		count[c]++;
		cell_of[i] = c;
		if (pc->owner_page[x->owner] == NO_STACK) {
			pc->owner_page[x->owner] = (uint32_t)pc->npage_owners;
			pc->page_owner[pc->npage_owners++] = x->owner;
		}
	}
	fp_map_free(&cells);
	/* a counting sort of the samples by cell, stable */
	pc->order = fp_xmalloc((pc->ncells ? pc->ncells : 1) * sizeof *pc->order);
	pc->start = fp_xmalloc((pc->ncells + 1) * sizeof *pc->start);
	struct cell_order *by_key = fp_xmalloc((pc->ncells ? pc->ncells : 1) * sizeof *by_key);
	for (size_t c = 0; c < pc->ncells; c++)
		by_key[c] = (struct cell_order){ pc->key[c], (uint32_t)c };
	qsort(by_key, pc->ncells, sizeof *by_key, cell_key_cmp);
	for (size_t k = 0; k < pc->ncells; k++)
		pc->order[k] = by_key[k].cell;
	free(by_key);
	size_t *at = fp_xmalloc((pc->ncells ? pc->ncells : 1) * sizeof *at), sum = 0;
	for (size_t k = 0; k < pc->ncells; k++) {
		pc->start[k] = sum;
		at[pc->order[k]] = sum;
		sum += count[pc->order[k]];
	}
	pc->start[pc->ncells] = sum;
	pc->sample = fp_xmalloc((sum ? sum : 1) * sizeof *pc->sample);
	for (size_t i = 0; i < tl->n; i++)
		if (cell_of[i] != NO_STACK)
			pc->sample[at[cell_of[i]]++] = (uint32_t)i;
	FP_FREE_ALL(cell_of, count, at);
}

static void page_cells_free(struct page_cells *pc)
{
	FP_FREE_ALL(pc->key, pc->order, pc->start, pc->sample, pc->owner_page, pc->page_owner);
}

static void json_owners(const struct fp_timeline *tl, struct fp_sink *s,
			const struct page_cells *pc)
{
	fp_sink_str(s, ",\n\"labels\":");
	json_strings(s, &tl->labels);
	/* with cgroups an owner has two more fields, the labels of its
	 * cgroup's path and container name (-1: none) */
	if (tl->has_cgroups)
		fp_sink_str(s, ",\n\"owner_fields\":7");
	fp_sink_str(s, ",\n\"owners\":[");
	for (size_t i = 0; i < pc->npage_owners; i++) {
		const struct fp_tl_owner *o = &tl->owner[pc->page_owner[i]];

		if (i)
			fp_sink_char(s, ',');
		fp_sink_i64(s, o->pid);
		fp_sink_char(s, ',');
		fp_sink_i64(s, o->tid);
		fp_sink_char(s, ',');
		fp_sink_i64(s, o->cpu);
		fp_sink_char(s, ',');
		fp_sink_u64(s, o->comm);
		fp_sink_char(s, ',');
		fp_sink_u64(s, o->event);
		if (!tl->has_cgroups)
			continue;
		fp_sink_char(s, ',');
		fp_sink_i64(s, o->cgroup == FP_TL_NO_LABEL ? -1 : (int64_t)o->cgroup);
		fp_sink_char(s, ',');
		fp_sink_i64(s, o->container == FP_TL_NO_LABEL ? -1 : (int64_t)o->container);
	}
	fp_sink_char(s, ']');
}

/* The entries of one cell's samples: one per (stack, owner), summed, in
 * the order of their first samples; returns how many. The samples of a
 * cell come in arrival order, which is their time order unless the
 * capture's is not: the entries are sorted only then. */
static size_t cell_entries(const struct fp_timeline *tl, const struct page_cells *pc,
			   const uint32_t *sample, size_t n, struct cell_entry *e, struct fp_map *m)
{
	size_t out = 0;
	int sorted = 1;

	/* clearing costs the table's size: after a big cell, a small one
	 * starts a fresh table */
	if (fp_map_bytes(m) > MAP_SLOTS_PER_ENTRY * n * sizeof(struct fp_map_slot)) {
		fp_map_free(m);
		fp_map_init(m);
	} else {
		fp_map_clear(m);
	}
	for (size_t k = 0; k < n; k++) {
		const struct fp_tl_sample *x = &tl->s[sample[k]];
		uint64_t key = (uint64_t)x->stack << OWNER_BITS | pc->owner_page[x->owner];
		uint32_t v = fp_map_put(m, key, 0, (uint32_t)out);

		if (v == out) {
			e[out++] = (struct cell_entry){ key, x->time_ns, x->count };
			if (out > 1 && entry_time_cmp(&e[out - 2], &e[out - 1]) > 0)
				sorted = 0;
			continue;
		}
		e[v].count = fp_add_sat(e[v].count, x->count);
		if (x->time_ns < e[v].first_ns) {
			e[v].first_ns = x->time_ns;
			sorted = 0;
		}
	}
	if (!sorted)
		qsort(e, out, sizeof *e, entry_time_cmp);
	return out;
}

static void json_cells(const struct fp_timeline *tl, struct fp_sink *s, const struct page_cells *pc,
		       unsigned rows)
{
	size_t most = 1;

	for (size_t k = 0; k < pc->ncells; k++)
		if (pc->start[k + 1] - pc->start[k] > most)
			most = pc->start[k + 1] - pc->start[k];
	struct cell_entry *e = fp_xmalloc(most * sizeof *e);
	struct fp_map m;

	fp_map_init(&m);
	fp_sink_str(s, ",\n\"cells\":[");
	for (size_t k = 0; k < pc->ncells; k++) {
		uint64_t cell = pc->key[pc->order[k]];
		size_t n = cell_entries(tl, pc, pc->sample + pc->start[k],
					pc->start[k + 1] - pc->start[k], e, &m);

		if (k)
			fp_sink_str(s, ",\n");
		char *d = fp_sink_reserve(s, (3 + 3 * n) * LIST_ITEM_MAX), *at = d;

		at = put_item(at, cell / rows, 0);
		at = put_item(at, cell % rows, 1);
		at = put_item(at, n, 1);
		for (size_t j = 0; j < n; j++) {
			at = put_item(at, e[j].key >> OWNER_BITS, 1);
			at = put_item(at, e[j].key & UINT32_MAX, 1);
			at = put_item(at, e[j].count, 1);
		}
		fp_sink_commit(s, (size_t)(at - d));
	}
	fp_sink_char(s, ']');
	free(e);
	fp_map_free(&m);
}

void fp_timeline_json(const struct fp_timeline *tl, struct fp_sink *s, const struct fp_heatmap *hm,
		      const struct fp_flame_opts *o, const char *members)
{
	struct fp_heatmap_axis ax;
	struct page_cells pc;

	fp_heatmap_axis(hm, &ax);
	json_header(tl, s, hm, &ax, o);
	json_names(tl, s, o);
	group_cells(tl, hm, &ax, &pc);
	json_owners(tl, s, &pc);
	json_cells(tl, s, &pc, hm->rows ? hm->rows : 1);
	if (members) {
		fp_sink_str(s, ",\n");
		fp_sink_str(s, members);
	}
	fp_sink_str(s, "}");
	page_cells_free(&pc);
	fp_heatmap_axis_free(&ax);
}
