/* timeline.c: samples by time for range flame graphs (see timeline.h). */
#include "timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fp_error.h"
#include "fp_record.h"

#define SAMPLES_MIN 4096u
#define ARRAY_MIN 1024u
/* Stacks (folded strings and kinds) take at most this much: past it new
 * stacks are refused and their samples counted as overflow like past
 * max_samples (each unique stack needs a sample, so max_samples alone would
 * allow gigabytes). */
#define TEXT_MAX ((size_t)256 << 20)
#define NO_STACK UINT32_MAX

void fp_timeline_init(struct fp_timeline *tl, size_t max_samples)
{
	memset(tl, 0, sizeof *tl);
	tl->max_samples = max_samples;
	fp_strtab_init(&tl->stacks);
	fp_strtab_init(&tl->kinds);
	fp_strtab_init(&tl->labels);
	fp_strtab_init(&tl->names);
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
	FP_FREE_ALL(tl->stack_kinds, tl->ext, tl->name_kind, tl->frames, tl->frame_off);
	memset(tl, 0, sizeof *tl);
}

void fp_timeline_reset(struct fp_timeline *tl)
{
	tl->n = 0;
	tl->overflow = 0;
}

/* The names of a new stack's frames into the name index; a name's kind is
 * that of its first occurrence. */
static void index_stack(struct fp_timeline *tl, uint32_t stack)
{
	size_t len, klen;
	const char *p = fp_strtab_str(&tl->stacks, stack, &len), *end = p + len;
	const char *kinds = fp_strtab_str(&tl->kinds, tl->stack_kinds[stack], &klen);

	for (size_t frame = 0;; frame++) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *fe = semi ? semi : end;
		int added;
		uint32_t id = fp_strtab_intern(&tl->names, p, (size_t)(fe - p), &added);

		if (added) {
			char k = frame < klen ? kinds[frame] : 0;

			tl->name_kind = fp_xgrow(tl->name_kind, &tl->name_kind_cap, (size_t)id + 1, 1,
						 ARRAY_MIN);
			tl->name_kind[id] = k == FP_KIND_ROOT ? 0 : k;
		}
		tl->frames = fp_xgrow(tl->frames, &tl->frames_cap, tl->frames_len + 1,
				      sizeof *tl->frames, ARRAY_MIN);
		tl->frames[tl->frames_len++] = id;
		if (!semi)
			break;
		p = semi + 1;
	}
	tl->frame_off = fp_xgrow(tl->frame_off, &tl->frame_off_cap, (size_t)stack + 2,
			     sizeof *tl->frame_off, ARRAY_MIN);
	tl->frame_off[stack + 1] = tl->frames_len;
}

int fp_timeline_define(struct fp_timeline *tl, const struct fp_stack_def *d)
{
	uint32_t stack = fp_strtab_find(&tl->stacks, d->folded.p, d->folded.n);

	if (d->id > tl->next)
		return -1;
	if (stack == FP_STRTAB_NONE) {
		int added;

		if (tl->stacks.text_len + tl->kinds.text_len + d->folded.n + d->kinds.n > TEXT_MAX)
			stack = NO_STACK;	/* its samples count as overflow */
		else {
			stack = fp_strtab_intern(&tl->stacks, d->folded.p, d->folded.n, &added);
			tl->stack_kinds = fp_xgrow(tl->stack_kinds, &tl->stack_kinds_cap, (size_t)stack + 1,
					       sizeof *tl->stack_kinds, ARRAY_MIN);
			tl->stack_kinds[stack] = fp_strtab_intern(&tl->kinds, d->kinds.p, d->kinds.n, NULL);
			tl->nstacks = (size_t)stack + 1;
			index_stack(tl, stack);
		}
	}
	if (d->id == tl->next) {
		tl->ext = fp_xgrow(tl->ext, &tl->ext_cap, tl->next + 1, sizeof *tl->ext, ARRAY_MIN);
		tl->next++;
	}
	tl->ext[d->id] = stack;
	return 0;
}

int fp_timeline_add(struct fp_timeline *tl, const struct fp_ref *r)
{
	if (r->id >= tl->next) {
		tl->bad++;
		return -1;
	}
	if (r->count != 1)
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
		.time_ns = r->time_ns, .count = r->count, .period = r->period,
		.pid = r->pid, .tid = r->tid, .cpu = r->cpu, .stack = tl->ext[r->id],
		.comm = fp_strtab_intern(&tl->labels, r->comm.p, r->comm.n, NULL),
		.event = fp_strtab_intern(&tl->labels, r->event.p, r->event.n, NULL),
	};
	return 0;
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

	*s = (struct fp_sample){
		.time_ns = x->time_ns, .pid = x->pid, .tid = x->tid, .cpu = x->cpu,
		.period = x->period,
	};
	stack_frames(tl, x->stack, s);
	s->comm.p = fp_strtab_str(&tl->labels, x->comm, &s->comm.n);
	s->event.p = fp_strtab_str(&tl->labels, x->event, &s->event.n);
}

int fp_timeline_ref_sample(const struct fp_timeline *tl, const struct fp_ref *r,
			   struct fp_sample *s)
{
	if (r->id >= tl->next || tl->ext[r->id] == NO_STACK)
		return -1;
	*s = (struct fp_sample){
		.time_ns = r->time_ns, .pid = r->pid, .tid = r->tid, .cpu = r->cpu,
		.period = r->period, .comm = r->comm, .event = r->event,
	};
	stack_frames(tl, tl->ext[r->id], s);
	return 0;
}

/* ---- range tables ---------------------------------------------------- */

static int entry_bytewise(const void *a, const void *b)
{
	const struct fp_folded_entry *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->stack, y->stack, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
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

/* ---- the name index ---------------------------------------------------- */

char fp_timeline_kind(const struct fp_timeline *tl, const char *name, size_t n)
{
	uint32_t id = fp_strtab_find(&tl->names, name, n);

	return id == FP_STRTAB_NONE ? 0 : tl->name_kind[id];
}

/* ---- the page's JSON ------------------------------------------------------ */

/* One sample on its way into the page: its cell, stack, owner (the
 * thread, cpu, comm and event it belongs to, numbered in owners) and
 * time; samples of one (cell, stack, owner) become one entry that keeps
 * the earliest time. */
struct cell_entry {
	uint64_t cell;		/* col * rows + row */
	uint64_t first_ns;	/* earliest sample of the entry */
	uint64_t count;
	uint32_t stack, owner;
};

/* The owner key of a sample, as bytes for the interning table. */
struct owner_key {
	int64_t pid, tid, cpu;
	uint32_t comm, event;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int entry_key_cmp(const void *a, const void *b)
{
	const struct cell_entry *x = a, *y = b;
	int c = cmp_u64(x->cell, y->cell);

	if (!c)
		c = cmp_u64(x->stack, y->stack);
	if (!c)
		c = cmp_u64(x->owner, y->owner);
	return c ? c : cmp_u64(x->first_ns, y->first_ns);
}

/* In a cell, the entries by their first sample: the flame chart's order. */
static int entry_time_cmp(const void *a, const void *b)
{
	const struct cell_entry *x = a, *y = b;
	int c = cmp_u64(x->cell, y->cell);

	if (!c)
		c = cmp_u64(x->first_ns, y->first_ns);
	return c ? c : entry_key_cmp(a, b);
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

static void json_color(struct fp_sink *s, const char *rgb)
{
	unsigned r, g, b;

	if (sscanf(rgb, "rgb(%u,%u,%u)", &r, &g, &b) != 3)
		r = g = b = 0;
	fp_sink_printf(s, "\"#%02x%02x%02x\"", r & 0xff, g & 0xff, b & 0xff);
}

static void json_header(const struct fp_timeline *tl, struct fp_sink *s, const struct fp_heatmap *hm,
			const struct fp_heatmap_axis *ax, const struct fp_flame_opts *o)
{
	char color[20];
	unsigned rows = hm->rows ? hm->rows : 1;

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
static void json_names(const struct fp_timeline *tl, struct fp_sink *s, const struct fp_flame_opts *o)
{
	char color[20];
	size_t n = fp_strtab_count(&tl->names);

	fp_sink_str(s, ",\n\"names\":");
	json_strings(s, &tl->names);
	fp_sink_str(s, ",\n\"kinds\":\"");
	for (size_t i = 0; i < n; i++)
		fp_sink_char(s, tl->name_kind[i] ? tl->name_kind[i] : FP_KIND_ROOT);
	fp_sink_str(s, "\",\n\"colors\":[");
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const char *name = fp_strtab_str(&tl->names, (uint32_t)i, &len);

		fp_flame_color_kind(o->palette, name, len, tl->name_kind[i], color);
		if (i)
			fp_sink_char(s, ',');
		json_color(s, color);
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
	fp_sink_char(s, ']');
}

/* The samples on the axis as entries (one per sample, owners interned in
 * *owners); returns how many. */
static size_t collect_entries(const struct fp_timeline *tl, const struct fp_heatmap *hm,
			      const struct fp_heatmap_axis *ax, struct fp_strtab *owners,
			      struct cell_entry *c)
{
	unsigned rows = hm->rows ? hm->rows : 1;
	uint64_t base_ns = hm->base_sec > 0 ? (uint64_t)hm->base_sec * FP_NSEC_PER_SEC : 0;
	size_t nc = 0;

	for (size_t i = 0; i < tl->n; i++) {
		const struct fp_tl_sample *x = &tl->s[i];
		if (x->time_ns < base_ns)
			continue;
		/* cells are indexed by the column's place on the heatmap's axis
		 * (its number unless the axis is cut, heatmap.h) */
		uint64_t sec = (x->time_ns - base_ns) / FP_NSEC_PER_SEC;
		size_t col = ax->col ? fp_heatmap_axis_index(ax, sec, 0) :
			sec < FP_HEATMAP_AXIS_COLS ? (size_t)sec : SIZE_MAX;
		uint64_t row = (x->time_ns % FP_NSEC_PER_SEC) * rows / FP_NSEC_PER_SEC;
		if (col == SIZE_MAX)
			continue;
		struct owner_key k;
		memset(&k, 0, sizeof k);	/* the padding is part of the key */
		k.pid = x->pid;
		k.tid = x->tid;
		k.cpu = x->cpu;
		k.comm = x->comm;
		k.event = x->event;
		uint32_t owner = fp_strtab_intern(owners, (const char *)&k, sizeof k, NULL);
		c[nc++] = (struct cell_entry){ (uint64_t)col * rows + row, x->time_ns, x->count,
					       x->stack, owner };
	}
	return nc;
}

/* Sums the entries of one (cell, stack, owner); returns how many stay. */
static size_t merge_entries(struct cell_entry *c, size_t nc)
{
	size_t out = 0;

	qsort(c, nc, sizeof *c, entry_key_cmp);
	for (size_t i = 0; i < nc; i++) {
		if (out && c[out - 1].cell == c[i].cell && c[out - 1].stack == c[i].stack &&
		    c[out - 1].owner == c[i].owner) {
			c[out - 1].count = fp_add_sat(c[out - 1].count, c[i].count);
			continue;	/* sorted: the first kept has the earliest time */
		}
		c[out++] = c[i];
	}
	qsort(c, out, sizeof *c, entry_time_cmp);
	return out;
}

static void json_owners(const struct fp_timeline *tl, struct fp_sink *s, const struct fp_strtab *owners)
{
	fp_sink_str(s, ",\n\"labels\":");
	json_strings(s, &tl->labels);
	fp_sink_str(s, ",\n\"owners\":[");
	for (size_t i = 0; i < fp_strtab_count(owners); i++) {
		struct owner_key k;

		memcpy(&k, fp_strtab_str(owners, (uint32_t)i, NULL), sizeof k);
		fp_sink_printf(s, "%s%lld,%lld,%lld,%u,%u", i ? "," : "", (long long)k.pid,
			       (long long)k.tid, (long long)k.cpu, k.comm, k.event);
	}
	fp_sink_char(s, ']');
}

static void json_cells(struct fp_sink *s, const struct cell_entry *c, size_t nc, unsigned rows)
{
	fp_sink_str(s, ",\n\"cells\":[");
	for (size_t i = 0; i < nc;) {
		size_t j = i;
		while (j < nc && c[j].cell == c[i].cell)
			j++;
		fp_sink_printf(s, "%s%llu,%llu,%zu", i ? ",\n" : "",
			       (unsigned long long)(c[i].cell / rows),
			       (unsigned long long)(c[i].cell % rows), j - i);
		for (size_t k = i; k < j; k++) {
			fp_sink_printf(s, ",%u,%u,", c[k].stack, c[k].owner);
			fp_sink_u64(s, c[k].count);
		}
		i = j;
	}
	fp_sink_char(s, ']');
}

void fp_timeline_json(const struct fp_timeline *tl, struct fp_sink *s, const struct fp_heatmap *hm,
		      const struct fp_flame_opts *o, const char *members)
{
	struct cell_entry *c = fp_xmalloc((tl->n ? tl->n : 1) * sizeof *c);
	struct fp_heatmap_axis ax;
	struct fp_strtab owners;
	size_t nc;

	fp_heatmap_axis(hm, &ax);
	fp_strtab_init(&owners);
	json_header(tl, s, hm, &ax, o);
	json_names(tl, s, o);
	nc = merge_entries(c, collect_entries(tl, hm, &ax, &owners, c));
	json_owners(tl, s, &owners);
	json_cells(s, c, nc, hm->rows ? hm->rows : 1);
	if (members) {
		fp_sink_str(s, ",\n");
		fp_sink_str(s, members);
	}
	fp_sink_str(s, "}");
	free(c);
	fp_strtab_free(&owners);
	fp_heatmap_axis_free(&ax);
}
