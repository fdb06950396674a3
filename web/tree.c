/* tree.c: folded stacks -> FlameScope's flame graph JSON tree.
 *
 * Input is a plain folded text as written by `fp-fold --plain --all`
 * (frames annotated `_[k]` kernel, `_[j]` JIT, `_[i]` inlined). The table
 * is merged (sorted frame-wise, equal stacks summed) and its tree is
 * render's (flametree.h, the one that flame.svg draws), written here in
 * FlameScope's shape.
 *
 * Shape (what FlameScope 0.3 returns, so its scripts keep working): every
 * node is {"n":name,"l":libtype,"v":self samples,"c":[children]}; libtype
 * is "" for the root and comm frames (and the event's above them with
 * allevents), "kernel", "jit", "inlined" or
 * "user". /differential/ and /elided/ use FlameScope's other node shape,
 * {"name","libtype","value","children"} (+ "delta"), see serve.h. The d3-flame-graph shape, the SVG, and the
 * differential/elided tables come from render/ (flamegraph.h, diff.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fp_error.h"
#include "flametree.h"
#include "folded.h"
#include "fp_strtab.h"
#include "serve.h"

#define ANNOT_LEN 4 /* "_[k]" */

struct emitter {
	struct fp_sink *s;
	/* differential and elided */
	const struct fp_strtab *other; /* paths of the other profile, self counts */
	uint64_t ta, tb;               /* totals: this tree's and the other's */
	int long_keys;                 /* name/libtype/value/children (FlameScope's
				 * differential and elided shape) */
	int elided;                    /* value: 0 if the path is in `other`, else
				 * self scaled by tb / ta */
	size_t roots;                  /* levels of root frames, libtype "" (TREE_ROOTS) */
};

static const char *frame_libtype(const char *p, size_t n, int root, size_t *name_len)
{
	*name_len = n;
	if (n > ANNOT_LEN && p[n - 4] == '_' && p[n - 3] == '[' && p[n - 1] == ']') {
		const char *t = NULL;
		switch (p[n - 2]) {
		case 'k':
			t = "kernel";
			break;
		case 'j':
			t = "jit";
			break;
		case 'i':
			t = "inlined";
			break;
		}
		if (t) {
			*name_len = n - ANNOT_LEN;
			return t;
		}
	}
	return root ? "" : "user";
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

/* The tree (render/flametree.h, flame.svg's too) written in FlameScope's
 * shape: nodes come in pre-order, so a node closes when one of its depth
 * or shallower comes. The root's value is 0 (FlameScope's). */
static void emit_tree(struct emitter *e, const struct fp_folded *t)
{
	struct fp_sink *s = e->s;
	struct fp_flame_tree tr;
	int with_diff = e->other && !e->elided;
	int first = 1;   /* the next node is its parent's first child */
	size_t open = 0; /* nodes open below the root */

	fp_flame_tree_build(&tr, t);
	if (e->long_keys)
		fp_sink_str(s, "{\"name\":\"root\",\"libtype\":\"\",\"value\":0");
	else
		fp_sink_str(s, "{\"n\":\"root\",\"l\":\"\",\"v\":0");
	if (with_diff)
		fp_sink_str(s, e->long_keys ? ",\"delta\":0" : ",\"d\":0");
	fp_sink_str(s, e->long_keys ? ",\"children\":[" : ",\"c\":[");
	for (size_t i = 1; i < tr.len; i++) {
		const struct fp_flame_node *n = &tr.n[i];
		size_t level = n->depth - 1;
		for (; open > level; open--, first = 0)
			close_node(e);
		size_t nlen;
		const char *lt = frame_libtype(n->name, n->name_len, level < e->roots, &nlen);
		size_t plen = (size_t)(n->name + n->name_len - n->path);
		uint64_t self = n->self;
		int64_t dv = with_diff ? diff_value(e, n->path, plen, self) : 0;
		if (e->elided)
			self = elided_value(e, n->path, plen, self);
		open_node(e, n->name, nlen, lt, self, with_diff, dv, first);
		open++;
		first = 1;
	}
	for (; open > 0; open--)
		close_node(e);
	fp_sink_str(s, "]}");
	fp_flame_tree_free(&tr);
}

static void load(struct fp_folded *t, const char *buf, size_t len)
{
	fp_folded_init(t);
	fp_folded_parse_buffer(t, buf, len, FP_FOLDED_REF);
	fp_folded_merge(t);
}

void tree_json(struct fp_sink *s, const char *folded, size_t len, size_t roots)
{
	struct fp_folded t;
	load(&t, folded, len);
	struct emitter e = { .s = s, .roots = roots };
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
static void compare_json(struct fp_sink *s, const char *a, size_t alen, const char *b, size_t blen,
			 int elided, size_t roots)
{
	struct fp_folded ta, tb;
	struct fp_strtab other;

	load(&ta, a, alen);
	load(&tb, b, blen);
	struct fp_folded *drawn = elided ? &tb : &ta, *counted = elided ? &ta : &tb;

	path_map(&other, counted);
	struct emitter e = { .s = s,
			     .other = &other,
			     .long_keys = 1,
			     .elided = elided,
			     .roots = roots,
			     .ta = drawn->total,
			     .tb = counted->total };
	emit_tree(&e, drawn);
	fp_strtab_free(&other);
	fp_folded_free(&ta);
	fp_folded_free(&tb);
}

void tree_differential_json(struct fp_sink *s, const char *a, size_t alen, const char *b,
			    size_t blen, size_t roots)
{
	compare_json(s, a, alen, b, blen, 0, roots);
}

void tree_elided_json(struct fp_sink *s, const char *a, size_t alen, const char *b, size_t blen,
		      size_t roots)
{
	compare_json(s, a, alen, b, blen, 1, roots);
}
