/* tree.c: folded stacks -> FlameScope's flame graph JSON tree.
 *
 * Input is a plain folded text as written by `fp-fold --plain --all`
 * (frames annotated `_[k]` kernel, `_[j]` JIT, `_[i]` inlined). The table
 * is sorted frame-wise (a frame before its descendants, siblings bytewise),
 * so the tree can be written in one pass without building it: a stack of
 * open frames is kept, frames not shared with the previous stack are
 * closed, new ones opened.
 *
 * Shape (what FlameScope 0.3 returns, so its scripts keep working): every
 * node is {"n":name,"l":libtype,"v":self samples,"c":[children]}; libtype
 * is "" for the root and comm frames, "kernel", "jit", "inlined" or
 * "user". /differential/ and /elided/ use FlameScope's other node shape,
 * {"name","libtype","value","children"} (+ "delta"), see serve.h. The d3-flame-graph shape, the SVG, and the
 * differential/elided tables come from render/ (flamegraph.h, diff.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fp_error.h"
#include "folded.h"
#include "fp_strtab.h"
#include "serve.h"

#define ANNOT_LEN 4	/* "_[k]" */

struct frame {
	const char *p;
	size_t n;
};

struct emitter {
	struct fp_sink *s;
	/* open path: frames[0..depth) are open nodes under the root */
	struct frame *fr;
	size_t depth, cap;
	/* differential and elided */
	const struct fp_strtab *other;	/* paths of the other profile, self counts */
	uint64_t ta, tb;	/* totals: this tree's and the other's */
	int long_keys;		/* name/libtype/value/children (FlameScope's
				 * differential and elided shape) */
	int elided;		/* value: 0 if the path is in `other`, else
				 * self scaled by tb / ta */
};

static const char *frame_libtype(const char *p, size_t n, size_t level, size_t *name_len)
{
	*name_len = n;
	if (n > ANNOT_LEN && p[n - 4] == '_' && p[n - 3] == '[' && p[n - 1] == ']') {
		const char *t = NULL;
		switch (p[n - 2]) {
		case 'k': t = "kernel"; break;
		case 'j': t = "jit"; break;
		case 'i': t = "inlined"; break;
		}
		if (t) {
			*name_len = n - ANNOT_LEN;
			return t;
		}
	}
	return level == 0 ? "" : "user";
}

/* d = self - round(other_self * ta / tb); a node absent from the other
 * profile keeps its own value (FlameScope's rule). */
static int64_t diff_value(const struct emitter *e, const char *path, size_t plen, uint64_t self)
{
	uint32_t o = e->other ? fp_strtab_find(e->other, path, plen) : FP_STRTAB_NONE;
	if (o == FP_STRTAB_NONE || e->tb == 0)
		return (int64_t)self;
	long double scaled = (long double)e->other->ent[o].count * e->ta / e->tb;
	return (int64_t)self - (int64_t)llroundl(scaled);
}

/* Elided view (FlameScope's rule): a frame path the other (first)
 * profile also has gets 0; one only this profile has keeps its self count
 * scaled to the other profile's total. */
static uint64_t elided_value(const struct emitter *e, const char *path, size_t plen, uint64_t self)
{
	if (fp_strtab_find(e->other, path, plen) != FP_STRTAB_NONE)
		return 0;
	if (e->ta == 0)
		return self;
	return (uint64_t)llroundl((long double)self * e->tb / e->ta);
}

static void open_node(struct emitter *e, const char *name, size_t n, const char *libtype,
		      uint64_t self, int with_diff, int64_t d, int first_child)
{
	struct fp_sink *s = e->s;
	if (!first_child)
		fp_sink_char(s, ',');
	fp_sink_str(s, e->long_keys ? "{\"name\":" : "{\"n\":");
	fp_json_string(s, name, n);
	fp_sink_str(s, e->long_keys ? ",\"libtype\":\"" : ",\"l\":\"");
	fp_sink_str(s, libtype);
	fp_sink_str(s, e->long_keys ? "\",\"value\":" : "\",\"v\":");
	fp_sink_u64(s, self);
	if (with_diff) {
		fp_sink_str(s, e->long_keys ? ",\"delta\":" : ",\"d\":");
		fp_sink_i64(s, d);
	}
	fp_sink_str(s, e->long_keys ? ",\"children\":[" : ",\"c\":[");
}

static void close_node(struct emitter *e)
{
	fp_sink_str(e->s, "]}");
}

static size_t split_frames(const char *p, size_t n, struct frame **fr, size_t *cap)
{
	size_t k = 0;
	const char *end = p + n;
	for (;;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *fe = semi ? semi : end;
		if (k == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			*fr = fp_xrealloc(*fr, *cap * sizeof **fr);
		}
		(*fr)[k].p = p;
		(*fr)[k].n = (size_t)(fe - p);
		k++;
		if (!semi)
			break;
		p = semi + 1;
	}
	return k;
}

static void emit_tree(struct emitter *e, struct fp_folded *t)
{
	struct fp_sink *s = e->s;
	struct frame *cur = NULL;
	size_t curcap = 0;
	int root_has_child = 0;
	/* child_seen[i]: open node i already has a child written */
	unsigned char *child_seen = NULL;

	int with_diff = e->other && !e->elided;
	if (e->long_keys)
		fp_sink_str(s, "{\"name\":\"root\",\"libtype\":\"\",\"value\":0");
	else
		fp_sink_str(s, "{\"n\":\"root\",\"l\":\"\",\"v\":0");
	if (with_diff)
		fp_sink_str(s, e->long_keys ? ",\"delta\":0" : ",\"d\":0");
	fp_sink_str(s, e->long_keys ? ",\"children\":[" : ",\"c\":[");
	e->depth = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct fp_folded_entry *en = &t->e[i];
		if (en->len == 0)
			continue;
		size_t k = split_frames(en->stack, en->len, &cur, &curcap);
		size_t common = 0;
		while (common < e->depth && common < k && e->fr[common].n == cur[common].n &&
		       memcmp(e->fr[common].p, cur[common].p, cur[common].n) == 0)
			common++;
		if (common == k && common == e->depth) {
			/* same path as the open leaf: cannot happen after
			 * fp_folded_merge; skip rather than write it twice */
			continue;
		}
		while (e->depth > common) {
			e->depth--;
			close_node(e);
		}
		if (k > e->cap) {
			e->cap = k * 2;
			e->fr = fp_xrealloc(e->fr, e->cap * sizeof *e->fr);
			child_seen = fp_xrealloc(child_seen, e->cap);
		}
		for (size_t d = common; d < k; d++) {
			int first = d == 0 ? !root_has_child : !child_seen[d - 1];
			if (d == 0)
				root_has_child = 1;
			else
				child_seen[d - 1] = 1;
			size_t nlen;
			const char *lt = frame_libtype(cur[d].p, cur[d].n, d, &nlen);
			uint64_t self = d + 1 == k ? en->count : 0;
			size_t plen = (size_t)(cur[d].p + cur[d].n - en->stack);
			int64_t dv = with_diff ? diff_value(e, en->stack, plen, self) : 0;
			if (e->elided)
				self = elided_value(e, en->stack, plen, self);
			open_node(e, cur[d].p, nlen, lt, self, with_diff, dv, first);
			e->fr[d] = cur[d];
			child_seen[d] = 0;
		}
		e->depth = k;
	}
	while (e->depth > 0) {
		e->depth--;
		close_node(e);
	}
	fp_sink_str(s, "]}");
	free(cur);
	free(child_seen);
	free(e->fr);
	e->fr = NULL;
	e->cap = 0;
}

static void load(struct fp_folded *t, const char *buf, size_t len)
{
	fp_folded_init(t);
	fp_folded_parse_buffer(t, buf, len, FP_FOLDED_REF);
	fp_folded_merge(t);
}

void tree_json(struct fp_sink *s, const char *folded, size_t len)
{
	struct fp_folded t;
	load(&t, folded, len);
	struct emitter e = { .s = s };
	emit_tree(&e, &t);
	fp_folded_free(&t);
}

/* Every frame path of t (each prefix ending at a frame boundary) -> the
 * self count of that path (0 for a path that is only a prefix). */
static void path_map(struct fp_strtab *m, const struct fp_folded *t)
{
	fp_strtab_init(m);
	for (size_t i = 0; i < t->n; i++) {
		const struct fp_folded_entry *en = &t->e[i];
		for (size_t j = 0; j < en->len; j++)
			if (en->stack[j] == ';')
				fp_strtab_intern(m, en->stack, j, NULL);
		fp_strtab_add(m, fp_strtab_intern(m, en->stack, en->len, NULL), en->count);
	}
}

/* A comparison tree of a and b: the tree of one drawn with the other's
 * path counts beside it. elided: b's tree, with a's counts ("this" total
 * is b's, "other" a's); else a's tree with b's. */
static void compare_json(struct fp_sink *s, const char *a, size_t alen, const char *b,
			 size_t blen, int elided)
{
	struct fp_folded ta, tb;
	struct fp_strtab other;

	load(&ta, a, alen);
	load(&tb, b, blen);
	struct fp_folded *drawn = elided ? &tb : &ta, *counted = elided ? &ta : &tb;

	path_map(&other, counted);
	struct emitter e = { .s = s, .other = &other, .long_keys = 1, .elided = elided,
			     .ta = drawn->total, .tb = counted->total };
	emit_tree(&e, drawn);
	fp_strtab_free(&other);
	fp_folded_free(&ta);
	fp_folded_free(&tb);
}

void tree_differential_json(struct fp_sink *s, const char *a, size_t alen,
			    const char *b, size_t blen)
{
	compare_json(s, a, alen, b, blen, 0);
}

void tree_elided_json(struct fp_sink *s, const char *a, size_t alen,
		      const char *b, size_t blen)
{
	compare_json(s, a, alen, b, blen, 1);
}
