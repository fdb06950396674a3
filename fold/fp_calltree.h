/* fp_calltree.h: folded stacks -> a call tree with self and total counts,
 * top-down (root first: callers above callees) or bottom-up (leaf first:
 * each function's callers below it), and the table of functions by self
 * and total. The one call-tree engine: fp-tui draws it; the page's call
 * tree can use it too.
 *
 * Frames are ids the caller interned (a struct fp_strtab of frame names
 * shared by any number of trees); the tree keeps counts only. Node 0 is
 * the root (all samples added); every other node is one frame on one
 * path. A node's total is every count added through it, its self what
 * ended there (top-down: the stack's leaf; bottom-up: its root frame), so
 * total(node) = self(node) + sum of its children's totals, and the root's
 * total is the sum of every count added.
 *
 * Functions: per frame id, self = counts of the stacks it is the leaf of,
 * total = counts of the stacks it is on, once per stack however often it
 * recurses. The first `skip` frames of a stack (fp-fold's root frames:
 * comm, comm-PID, the event) are on the tree but are not functions.
 *
 * Each node has a key, a hash of its path of frame ids, the same in every
 * tree built from the same names: a view keeps what is expanded or
 * selected by key across rebuilds (a live tree is rebuilt every second).
 *
 *	struct fp_calltree t; fp_calltree_init(&t, 0);   // 1: bottom-up
 *	fp_calltree_add(&t, frames, n, skip, count);   // frames root first
 *	fp_calltree_sort(&t);                          // children by total
 *	for (c = t.node[0].child; c != FP_CALLTREE_NONE; c = t.node[c].next) ...
 *	fp_calltree_clear(&t);                         // empty, memory kept
 *	fp_calltree_free(&t);
 *
 * Memory: 48 bytes a node (at most the frames added) and 24 a function.
 */
#ifndef FP_CALLTREE_H
#define FP_CALLTREE_H

#include <stddef.h>
#include <stdint.h>

#include "fp_map.h"

#define FP_CALLTREE_NONE UINT32_MAX

struct fp_calltree_node {
	uint64_t key; /* hash of the path of frame ids */
	uint64_t self, total;
	uint32_t name;                /* frame id; FP_CALLTREE_NONE for the root */
	uint32_t parent, child, next; /* FP_CALLTREE_NONE: none */
	uint32_t depth;               /* root 0 */
};

struct fp_calltree_fn {
	uint64_t self, total;
	uint64_t seen; /* the add that last counted it (once a stack) */
};

struct fp_calltree {
	int bottom_up;
	struct fp_calltree_node *node;
	size_t n, cap;
	struct fp_map kids;        /* (parent node, frame id) -> node */
	struct fp_calltree_fn *fn; /* by frame id */
	size_t nfn;
	uint64_t adds;
};

void fp_calltree_init(struct fp_calltree *t, int bottom_up);
void fp_calltree_free(struct fp_calltree *t);
/* Only the root, with 0 counts (memory kept). */
void fp_calltree_clear(struct fp_calltree *t);
/* One stack, frames[0] the root frame, n >= 1, counted `count` times; the
 * first skip frames are not functions. */
void fp_calltree_add(struct fp_calltree *t, const uint32_t *frames, size_t n, size_t skip,
		     uint64_t count);
/* Each node's children by total, largest first (then by frame id). */
void fp_calltree_sort(struct fp_calltree *t);
/* The frame ids with a count, sorted by self (by_total 0) or total,
 * largest first; how many were written to out (room for t->nfn). */
size_t fp_calltree_functions(const struct fp_calltree *t, int by_total, uint32_t *out);
/* The key of a child path: parent's key and a frame id. */
uint64_t fp_calltree_key(uint64_t parent_key, uint32_t name);

#endif
