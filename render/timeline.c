/* timeline.c: samples by time for range flame graphs (see timeline.h). */
#include "timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fp_error.h"
#include "fp_hash.h"
#include "fp_record.h"

#define SLOTS_MIN 1024u		/* power of two */
#define LOAD_NUM 7		/* grow above 7/10 full */
#define LOAD_DEN 10
#define TEXT_MIN 65536u
#define SAMPLES_MIN 4096u
/* Interned stacks (folded strings and kinds) take at most this much: past
 * it new samples are counted as overflow like past max_samples (each unique
 * stack needs a sample, so max_samples alone would allow gigabytes). */
#define TEXT_MAX ((size_t)256 << 20)

void fp_timeline_init(struct fp_timeline *tl, size_t max_samples)
{
	memset(tl, 0, sizeof *tl);
	tl->fold = (struct fp_fold_opts)FP_FOLD_OPTS_DEFAULT;
	tl->max_samples = max_samples;
	tl->slots = fp_xcalloc(SLOTS_MIN, sizeof *tl->slots);
	tl->mask = SLOTS_MIN - 1;
}

static void free_index(struct fp_timeline *tl)
{
	free(tl->names);
	free(tl->name_slots);
	free(tl->frames);
	free(tl->frame_off);
	tl->names = NULL;
	tl->name_slots = NULL;
	tl->frames = NULL;
	tl->frame_off = NULL;
	tl->nnames = tl->names_cap = tl->frames_len = tl->frames_cap = 0;
	tl->indexed_stacks = 0;
}

void fp_timeline_free(struct fp_timeline *tl)
{
	free_index(tl);
	free(tl->s);
	free(tl->stacks);
	free(tl->slots);
	free(tl->text);
	fp_fold_buf_free(&tl->folded);
	fp_fold_buf_free(&tl->kinds);
	memset(tl, 0, sizeof *tl);
}

void fp_timeline_reset(struct fp_timeline *tl)
{
	tl->n = 0;
	tl->overflow = 0;
}

/* key=value fields after "C TAB fold-options". */
int fp_timeline_options(struct fp_timeline *tl, const char *line, size_t len)
{
	enum { MAX_FIELDS = 16 };
	struct fp_str f[MAX_FIELDS];
	size_t n = fp_split_fields(line, len, f, MAX_FIELDS);
	struct fp_fold_opts o = FP_FOLD_OPTS_DEFAULT;
	int period = 0, bad = 0;

	for (size_t i = 2; i < n; i++) {
		if (fp_str_eq(f[i], "root=comm")) o.root_id = FP_FOLD_ROOT_COMM;
		else if (fp_str_eq(f[i], "root=pid")) o.root_id = FP_FOLD_ROOT_PID;
		else if (fp_str_eq(f[i], "root=tid")) o.root_id = FP_FOLD_ROOT_TID;
		else if (fp_str_eq(f[i], "kernel=1")) o.annotate_kernel = 1;
		else if (fp_str_eq(f[i], "jit=1")) o.annotate_jit = 1;
		else if (fp_str_eq(f[i], "event-root=1")) o.event_root = 1;
		else if (fp_str_eq(f[i], "weight=period")) period = 1;
		else if (!fp_str_eq(f[i], "kernel=0") && !fp_str_eq(f[i], "jit=0") &&
			 !fp_str_eq(f[i], "event-root=0") && !fp_str_eq(f[i], "weight=samples"))
			bad = 1;
	}
	/* Other options (a fold stage replaced while live): the stacks kept so
	 * far are named differently, so they go. */
	if (memcmp(&o, &tl->fold, sizeof o) || period != tl->weight_period) {
		size_t max = tl->max_samples;
		fp_timeline_free(tl);
		fp_timeline_init(tl, max);
	}
	tl->fold = o;
	tl->weight_period = period;
	return bad ? -1 : 0;
}

static void text_reserve(struct fp_timeline *tl, size_t more)
{
	if (tl->text_cap - tl->text_len >= more)
		return;
	size_t cap = tl->text_cap ? tl->text_cap : TEXT_MIN;
	while (cap - tl->text_len < more)
		cap *= 2;
	tl->text = fp_xrealloc(tl->text, cap);
	tl->text_cap = cap;
}

static void grow_slots(struct fp_timeline *tl)
{
	size_t nslots = (tl->mask + 1) * 2;
	uint32_t *slots = fp_xcalloc(nslots, sizeof *slots);

	for (size_t i = 0; i <= tl->mask; i++) {
		if (!tl->slots[i])
			continue;
		size_t j = tl->stacks[tl->slots[i] - 1].hash & (nslots - 1);
		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = tl->slots[i];
	}
	free(tl->slots);
	tl->slots = slots;
	tl->mask = nslots - 1;
}

/* The id of the folded stack in tl->folded (with tl->kinds), interned. */
static uint32_t intern(struct fp_timeline *tl)
{
	const char *key = tl->folded.p;
	size_t len = tl->folded.len;
	uint64_t h = fp_hash_bytes(key, len);
	size_t i = h & tl->mask;

	for (; tl->slots[i]; i = (i + 1) & tl->mask) {
		struct fp_tl_stack *e = &tl->stacks[tl->slots[i] - 1];
		if (e->hash == h && e->len == len && !memcmp(tl->text + e->off, key, len))
			return tl->slots[i] - 1;
	}
	if (tl->nstacks == tl->stacks_cap) {
		tl->stacks_cap = tl->stacks_cap ? tl->stacks_cap * 2 : SAMPLES_MIN;
		tl->stacks = fp_xrealloc(tl->stacks, tl->stacks_cap * sizeof *tl->stacks);
	}
	text_reserve(tl, len + tl->kinds.len);
	struct fp_tl_stack *e = &tl->stacks[tl->nstacks];
	e->off = tl->text_len;
	e->len = len;
	e->hash = h;
	memcpy(tl->text + tl->text_len, key, len);
	e->kinds_off = tl->text_len + len;
	e->kinds_len = tl->kinds.len;
	memcpy(tl->text + e->kinds_off, tl->kinds.p, tl->kinds.len);
	tl->text_len += len + tl->kinds.len;
	tl->slots[i] = (uint32_t)++tl->nstacks;
	if (tl->nstacks * LOAD_DEN > (tl->mask + 1) * LOAD_NUM)
		grow_slots(tl);
	return (uint32_t)(tl->nstacks - 1);
}

int fp_timeline_add(struct fp_timeline *tl, const char *line, size_t len)
{
	struct fp_sample s;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (fp_sample_parse(line, len, &s) != 0 ||
	    fp_fold_build(&tl->folded, &s, &tl->fold, &tl->kinds) != 0 ||
	    tl->nstacks >= UINT32_MAX - 1) {
		tl->bad++;
		return -1;
	}
	if (tl->n >= tl->max_samples ||
	    tl->text_len + tl->folded.len + tl->kinds.len > TEXT_MAX) {
		tl->overflow++;
		return 0;
	}
	if (tl->n == tl->cap) {
		tl->cap = tl->cap ? tl->cap * 2 : SAMPLES_MIN;
		if (tl->cap > tl->max_samples)
			tl->cap = tl->max_samples;
		tl->s = fp_xrealloc(tl->s, tl->cap * sizeof *tl->s);
	}
	struct fp_tl_sample *x = &tl->s[tl->n++];
	x->time_ns = s.time_ns;
	/* As fp-fold counts: a period of 0 counts 1. */
	x->count = tl->weight_period && s.period ? s.period : 1;
	x->stack = intern(tl);
	return 0;
}

uint64_t fp_timeline_total(const struct fp_timeline *tl)
{
	uint64_t t = 0;

	for (size_t i = 0; i < tl->n; i++)
		t = t > UINT64_MAX - tl->s[i].count ? UINT64_MAX : t + tl->s[i].count;
	return t;
}

/* ---- range tables ---------------------------------------------------- */

static int entry_bytewise(const void *a, const void *b)
{
	const struct fp_folded_entry *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->stack, y->stack, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

void fp_timeline_range(struct fp_timeline *tl, uint64_t base_ns, uint64_t from_ns,
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
		uint64_t c = counts[x->stack];
		counts[x->stack] = c > UINT64_MAX - x->count ? UINT64_MAX : c + x->count;
	}
	for (size_t i = 0; i < tl->nstacks; i++)
		if (counts[i])
			fp_folded_add(t, tl->text + tl->stacks[i].off, tl->stacks[i].len, counts[i], 0,
				      FP_FOLDED_REF);
	free(counts);
	if (t->n > 1)
		qsort(t->e, t->n, sizeof *t->e, entry_bytewise);
}

/* ---- the name index ---------------------------------------------------- */

static uint32_t name_find(const struct fp_timeline *tl, const char *p, size_t n, uint64_t h,
			  size_t *slot)
{
	size_t i = h & tl->name_mask;

	for (; tl->name_slots[i]; i = (i + 1) & tl->name_mask) {
		const struct fp_tl_name *e = &tl->names[tl->name_slots[i] - 1];
		if (e->hash == h && e->len == n && !memcmp(e->p, p, n))
			break;
	}
	*slot = i;
	return tl->name_slots[i];
}

static void name_grow(struct fp_timeline *tl)
{
	size_t nslots = (tl->name_mask + 1) * 2;
	uint32_t *slots = fp_xcalloc(nslots, sizeof *slots);

	for (size_t i = 0; i <= tl->name_mask; i++) {
		if (!tl->name_slots[i])
			continue;
		size_t j = tl->names[tl->name_slots[i] - 1].hash & (nslots - 1);
		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = tl->name_slots[i];
	}
	free(tl->name_slots);
	tl->name_slots = slots;
	tl->name_mask = nslots - 1;
}

/* Frame names of every stack, first seen first; a name's kind is that of
 * its first occurrence (identical input, identical index). Pointers go into
 * tl->text, which only grows while samples are added: so the index is
 * rebuilt from scratch whenever stacks were added since. */
static void build_index(struct fp_timeline *tl)
{
	if (tl->names && tl->indexed_stacks == tl->nstacks)
		return;
	free_index(tl);
	tl->name_slots = fp_xcalloc(SLOTS_MIN, sizeof *tl->name_slots);
	tl->name_mask = SLOTS_MIN - 1;
	tl->frame_off = fp_xmalloc((tl->nstacks + 1) * sizeof *tl->frame_off);
	for (size_t si = 0; si < tl->nstacks; si++) {
		const struct fp_tl_stack *st = &tl->stacks[si];
		const char *p = tl->text + st->off, *end = p + st->len;
		const char *kinds = tl->text + st->kinds_off;
		size_t frame = 0;

		tl->frame_off[si] = tl->frames_len;
		while (p <= end) {
			const char *semi = memchr(p, ';', (size_t)(end - p));
			const char *fe = semi ? semi : end;
			size_t fl = (size_t)(fe - p), slot;
			uint64_t h = fp_hash_bytes(p, fl);
			uint32_t id = name_find(tl, p, fl, h, &slot);

			if (!id) {
				if (tl->nnames == tl->names_cap) {
					tl->names_cap = tl->names_cap ? tl->names_cap * 2 : SAMPLES_MIN;
					tl->names = fp_xrealloc(tl->names, tl->names_cap * sizeof *tl->names);
				}
				char k = frame < st->kinds_len ? kinds[frame] : 0;
				tl->names[tl->nnames] = (struct fp_tl_name){ p, fl, h,
					k == FP_FOLD_KIND_ROOT ? 0 : k };
				id = tl->name_slots[slot] = (uint32_t)++tl->nnames;
				if (tl->nnames * LOAD_DEN > (tl->name_mask + 1) * LOAD_NUM)
					name_grow(tl);
			}
			if (tl->frames_len == tl->frames_cap) {
				tl->frames_cap = tl->frames_cap ? tl->frames_cap * 2 : SAMPLES_MIN;
				tl->frames = fp_xrealloc(tl->frames, tl->frames_cap * sizeof *tl->frames);
			}
			tl->frames[tl->frames_len++] = id - 1;
			frame++;
			if (!semi)
				break;
			p = semi + 1;
		}
	}
	tl->frame_off[tl->nstacks] = tl->frames_len;
	tl->indexed_stacks = tl->nstacks;
	if (!tl->names)	/* no stacks: an empty index is still an index */
		tl->names = fp_xmalloc(sizeof *tl->names);
}

char fp_timeline_kind(struct fp_timeline *tl, const char *name, size_t n)
{
	size_t slot;
	uint32_t id;

	if (!tl->nstacks)
		return 0;
	build_index(tl);
	id = name_find(tl, name, n, fp_hash_bytes(name, n), &slot);
	return id ? tl->names[id - 1].kind : 0;
}

/* ---- the page's JSON ------------------------------------------------------ */

struct cell_entry {
	uint64_t cell;		/* col * rows + row */
	uint32_t stack;
	uint64_t count;
};

static int cell_cmp(const void *a, const void *b)
{
	const struct cell_entry *x = a, *y = b;

	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	return (x->stack > y->stack) - (x->stack < y->stack);
}

void fp_timeline_json(struct fp_timeline *tl, struct fp_sink *s, const struct fp_heatmap *hm,
		      const struct fp_flame_opts *o)
{
	char color[20];
	unsigned rows = hm->rows ? hm->rows : 1;
	uint64_t base_ns = hm->base_sec > 0 ? (uint64_t)hm->base_sec * FP_NSEC_PER_SEC : 0;
	struct cell_entry *c = fp_xmalloc((tl->n ? tl->n : 1) * sizeof *c);
	size_t nc = 0;
	struct fp_heatmap_axis ax;

	fp_heatmap_axis(hm, &ax);

	build_index(tl);
	fp_sink_printf(s, "{\"rows\":%u,\"base_sec\":%lld,\"total\":", rows, (long long)hm->base_sec);
	fp_sink_u64(s, fp_timeline_total(tl));
	fp_sink_str(s, ",\"countname\":");
	fp_json_string(s, o->countname, strlen(o->countname));
	/* The flame graph options the page's graph follows too. */
	fp_sink_printf(s, ",\"width\":%u,\"frameheight\":%u,\"fontsize\":%u,\"inverted\":%d,"
		       "\"minwidth\":%.4g,\"minwidth_pct\":%d,\"searchcolor\":",
		       o->width, o->frame_height, o->fontsize, o->inverted ? 1 : 0, o->minwidth,
		       o->minwidth_pct ? 1 : 0);
	fp_json_string(s, o->search_color, strlen(o->search_color));
	fp_flame_color_kind(o->palette, "all", 3, 0, color);
	{
		unsigned r, g, b;
		if (sscanf(color, "rgb(%u,%u,%u)", &r, &g, &b) != 3)
			r = g = b = 0;
		fp_sink_printf(s, ",\"all_color\":\"#%02x%02x%02x\"", r & 0xff, g & 0xff, b & 0xff);
	}
	fp_sink_str(s, ",\n\"names\":[");
	for (size_t i = 0; i < tl->nnames; i++) {
		if (i)
			fp_sink_char(s, ',');
		fp_json_string(s, tl->names[i].p, tl->names[i].len);
	}
	fp_sink_str(s, "],\n\"colors\":[");
	for (size_t i = 0; i < tl->nnames; i++) {
		unsigned r, g, b;
		fp_flame_color_kind(o->palette, tl->names[i].p, tl->names[i].len,
				    tl->names[i].kind, color);
		if (sscanf(color, "rgb(%u,%u,%u)", &r, &g, &b) != 3)
			r = g = b = 0;
		fp_sink_printf(s, "%s\"#%02x%02x%02x\"", i ? "," : "", r & 0xff, g & 0xff, b & 0xff);
	}
	fp_sink_str(s, "],\n\"stacks\":[");
	for (size_t i = 0; i < tl->nstacks; i++) {
		fp_sink_str(s, i ? ",[" : "[");
		for (size_t k = tl->frame_off[i]; k < tl->frame_off[i + 1]; k++) {
			if (k > tl->frame_off[i])
				fp_sink_char(s, ',');
			fp_sink_u64(s, tl->frames[k]);
		}
		fp_sink_char(s, ']');
	}
	/* Per cell, the (stack, count) pairs: sort by cell then stack and sum. */
	for (size_t i = 0; i < tl->n; i++) {
		const struct fp_tl_sample *x = &tl->s[i];
		if (x->time_ns < base_ns)
			continue;
		/* cells are indexed by the column's place on the heatmap's axis
		 * (its number unless the axis is cut, heatmap.h) */
		uint64_t sec = (x->time_ns - base_ns) / FP_NSEC_PER_SEC;
		size_t col = ax.col ? fp_heatmap_axis_index(&ax, sec, 0) :
			sec < FP_HEATMAP_AXIS_COLS ? (size_t)sec : SIZE_MAX;
		uint64_t row = (x->time_ns % FP_NSEC_PER_SEC) * rows / FP_NSEC_PER_SEC;
		if (col == SIZE_MAX)
			continue;
		c[nc++] = (struct cell_entry){ (uint64_t)col * rows + row, x->stack, x->count };
	}
	qsort(c, nc, sizeof *c, cell_cmp);
	fp_sink_str(s, "],\n\"cells\":[");
	int first = 1;
	for (size_t i = 0; i < nc;) {
		size_t j = i, pairs = 0;
		while (j < nc && c[j].cell == c[i].cell) {
			if (j == i || c[j].stack != c[j - 1].stack)
				pairs++;
			j++;
		}
		fp_sink_printf(s, "%s%llu,%llu,%zu", first ? "" : ",\n",
			       (unsigned long long)(c[i].cell / rows),
			       (unsigned long long)(c[i].cell % rows), pairs);
		first = 0;
		for (size_t k = i; k < j;) {
			uint64_t sum = 0;
			size_t m = k;
			for (; m < j && c[m].stack == c[k].stack; m++)
				sum = sum > UINT64_MAX - c[m].count ? UINT64_MAX : sum + c[m].count;
			fp_sink_printf(s, ",%u,", c[k].stack);
			fp_sink_u64(s, sum);
			k = m;
		}
		i = j;
	}
	fp_sink_str(s, "]}");
	free(c);
	fp_heatmap_axis_free(&ax);
}
