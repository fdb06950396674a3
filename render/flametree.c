/* flametree.c: the flame graph's tree of a sorted folded table (see
 * flametree.h). */
#include "flametree.h"

#include <stdlib.h>
#include <string.h>

#include "fp_error.h"

static size_t tree_add(struct fp_flame_tree *t, const char *name, size_t len, uint32_t depth,
		       uint64_t x, const char *path)
{
	if (t->len == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 4096;
		t->n = fp_xrealloc(t->n, t->cap * sizeof *t->n);
	}
	struct fp_flame_node *n = &t->n[t->len];
	n->name = name;
	n->name_len = (uint32_t)len;
	n->depth = depth;
	n->x = x;
	n->w = 0;
	n->self = n->self1 = 0;
	n->path = path;
	return t->len++;
}

struct fp_flame_keep {
	int (*fn)(void *ctx, uint64_t w, uint64_t total);
	void *ctx;
	uint64_t total;
};

struct frame_ref {
	size_t end; /* offset of the frame's end in its stack (and in every
			 * stack that shares it: the bytes before are the same) */
	size_t node;
};

/* How many of the open path's frames the stack s[0..n) shares, given the bytes
 * it shares with the last stack added (the path is that stack's frames):
 * frame d is shared when those bytes reach its end and s has a frame
 * boundary there. A frame the walk below would not make (s empty, or an
 * empty frame after a last ';') is not shared. */
static size_t shared_frames(const struct frame_ref *path, size_t depth, const char *s, size_t n,
			    size_t same)
{
	size_t d = 0;

	while (d < depth) {
		size_t start = d ? path[d - 1].end + 1 : 0, end = path[d].end;

		if (start >= n || end > same || (end != n && s[end] != ';'))
			break;
		d++;
	}
	return d;
}

/* Closes the open frames path[from..depth) at x, deepest first: a frame
 * keep() refuses goes, with its descendants (the nodes after it). */
static void close_frames(struct fp_flame_tree *tr, const struct frame_ref *path, size_t from,
			 size_t depth, uint64_t x, const struct fp_flame_keep *keep)
{
	for (size_t k = depth; k-- > from;) {
		struct fp_flame_node *n = &tr->n[path[k].node];
		n->w = x - n->x;
		if (keep && !keep->fn(keep->ctx, n->w, keep->total))
			tr->len = path[k].node;
	}
}

void fp_flame_tree_build(struct fp_flame_tree *tr, const struct fp_folded *t)
{
	fp_flame_tree_build_kept(tr, t, NULL, NULL);
}

/* The next entry after i that the walk draws (width > 0), or t->n
 * (i = SIZE_MAX: the first). */
static size_t next_drawn(const struct fp_folded *t, size_t i, int diff)
{
	while (++i < t->n && (diff ? t->e[i].count2 : t->e[i].count) == 0)
		;
	return i;
}

/* Each stack keeps the frames it shares with the one before (found from
 * their common bytes, without splitting them again) and opens the rest.
 * With keep_fn, a frame the next stack does not share closes at the next
 * stack with this stack's width alone: when keep_fn refuses that width,
 * the frame and all below it would be made only to be dropped, so the
 * walk stops there (a system-wide capture has millions of such frames and
 * a few thousand drawn ones). */
void fp_flame_tree_build_kept(struct fp_flame_tree *tr, const struct fp_folded *t,
			      int (*keep_fn)(void *ctx, uint64_t w, uint64_t total), void *ctx)
{
	struct fp_flame_keep keep = { keep_fn, ctx, t->two_counts ? t->total2 : t->total };

	memset(tr, 0, sizeof *tr);
	tr->diff = t->two_counts;
	tr->total1 = t->total;
	tree_add(tr, "all", 3, 0, 0, NULL);

	struct frame_ref *path = NULL; /* open frames below the root */
	size_t depth = 0, path_cap = 0;
	size_t same = 0; /* bytes the stack shares with the last one added */
	uint64_t x = 0;
	for (size_t i = next_drawn(t, SIZE_MAX, tr->diff); i < t->n;) {
		const struct fp_folded_entry *e = &t->e[i];
		uint64_t width = tr->diff ? e->count2 : e->count;
		size_t d = shared_frames(path, depth, e->stack, e->len, same);
		/* Close the frames that differ (or lie deeper than the stack). */
		close_frames(tr, path, d, depth, x, keep_fn ? &keep : NULL);
		depth = d;
		size_t next = next_drawn(t, i, tr->diff);
		const struct fp_folded_entry *ne = next < t->n ? &t->e[next] : NULL;
		size_t same_next = ne ? fp_common_prefix(e->stack, e->len, ne->stack, ne->len) : 0;
		int lone_kept = !keep_fn || keep_fn(ctx, width, keep.total);
		const char *end = e->stack + e->len;
		size_t from = d ? path[d - 1].end + 1 : 0;
		const char *p = from < e->len ? e->stack + from : end;
		int cut = 0;      /* frames left unmade: the leaf is not among the nodes */
		while (p < end) { /* the frames it does not share: new nodes */
			const char *semi = memchr(p, ';', (size_t)(end - p));
			const char *fe = semi ? semi : end;
			size_t fl = (size_t)(fe - p), fend = (size_t)(fe - e->stack);
			/* shared_frames' rule, for the next stack */
			int next_shares = ne && (size_t)(p - e->stack) < ne->len &&
					  fend <= same_next &&
					  (fend == ne->len || ne->stack[fend] == ';');
			if (!next_shares && !lone_kept) {
				cut = 1;
				break;
			}
			if (depth == path_cap) {
				path_cap = path_cap ? path_cap * 2 : 64;
				path = fp_xrealloc(path, path_cap * sizeof *path);
			}
			path[depth].end = fend;
			path[depth].node = tree_add(tr, p, fl, (uint32_t)depth + 1, x, e->stack);
			depth++;
			p = semi ? semi + 1 : end;
		}
		if (!cut) {
			size_t leaf = depth ? path[depth - 1].node : 0;
			tr->n[leaf].self += width;
			tr->n[leaf].self1 += tr->diff ? e->count : 0;
		}
		x += width;
		same = same_next;
		i = next;
	}
	close_frames(tr, path, 0, depth, x, keep_fn ? &keep : NULL);
	tr->n[0].w = x;
	tr->total = x;
	free(path);
}

void fp_flame_tree_free(struct fp_flame_tree *tr)
{
	free(tr->n);
	memset(tr, 0, sizeof *tr);
}
