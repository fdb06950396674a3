/* flametree.h: the flame graph's tree of a folded table, the one C builder
 * of it: flame.svg and flame.json (flamegraph.c) and fp-serve's
 * FlameScope JSON trees (web/tree.c: plain, differential, elided) walk
 * the same nodes.
 *
 * The table must be sorted frame-wise (fp_folded_sort or fp_folded_merge,
 * or kept in input order for a flame chart): each stack keeps the frames
 * it shares with the one before and opens the rest, so siblings merge.
 * Nodes come in pre-order (a node before its children, children in the
 * table's order); n[0] is the root "all" at depth 0. A stack of no samples
 * (its count, or count2 in a differential table, 0) adds no node.
 *
 *	struct fp_flame_tree tr;
 *	fp_flame_tree_build(&tr, &table);
 *	for (size_t i = 0; i < tr.len; i++) ... tr.n[i] ...
 *	fp_flame_tree_free(&tr);
 */
#ifndef FP_FLAMETREE_H
#define FP_FLAMETREE_H

#include <stddef.h>
#include <stdint.h>

#include "folded.h"

struct fp_flame_node {
	const char *name; /* the frame, inside the table's first stack of it */
	uint32_t name_len;
	uint32_t depth;   /* root 0, a stack's first frame 1 */
	uint64_t x, w;    /* in samples */
	uint64_t self;    /* samples whose stack ends here (count or count2) */
	uint64_t self1;   /* differential: the same for count1 */
	const char *path; /* its frame path is path .. name + name_len (root: NULL) */
};

struct fp_flame_tree {
	struct fp_flame_node *n;
	size_t len, cap;
	uint64_t total;  /* width of the root */
	uint64_t total1; /* differential: sum of count1 */
	int diff;
};

/* Builds the tree of t (sorted as above; its stacks must outlive the tree). */
void fp_flame_tree_build(struct fp_flame_tree *tr, const struct fp_folded *t);
/* The same tree without the nodes keep(ctx, w, total) refuses (w a node's
 * width, total the root's), nor their descendants: keep must not refuse a
 * node and take a narrower one (a child is never wider than its parent).
 * Dropped at once, they cost no memory: a flame graph of a system-wide
 * capture draws a few thousand of its millions of frames. The leaf
 * counts (self) of the nodes kept are those of the whole tree. */
void fp_flame_tree_build_kept(struct fp_flame_tree *tr, const struct fp_folded *t,
			      int (*keep)(void *ctx, uint64_t w, uint64_t total), void *ctx);
void fp_flame_tree_free(struct fp_flame_tree *tr);

#endif
