/* snapshot.h: fp-fold's folded snapshots as fp-render keeps them: the
 * latest complete table, and the one being received (F records between
 * C begin fold and C end fold).
 *
 * With fp-fold --pass-samples every stack of a snapshot was defined in a
 * D record before, with the same string, and the timeline holds it: such
 * an entry is not copied but points into the timeline's text (which may
 * move as stacks come: fp_snapshot_table re-points the entries first).
 * Other stacks (hand-written input, a chain without --pass-samples) are
 * copied. So the stacks' text is held once, not once more per snapshot.
 *
 *	struct fp_snapshot sn; fp_snapshot_init(&sn);
 *	fp_snapshot_begin(&sn);                      // C begin fold
 *	fp_snapshot_add(&sn, &tl, 1, stack, n, count);   // each F record
 *	fp_snapshot_end(&sn);                        // C end fold: replaces the table
 *	fp_snapshot_set(&sn, &tl, stack, n, count);  // an F record of a delta snapshot
 *	fp_snapshot_add_stack(&sn, &tl, 1, id, count);   // E records (fp-fold
 *	fp_snapshot_set_stack(&sn, &tl, id, count);      //  --snapshot-ids): by timeline stack
 *	const struct fp_folded *t = fp_snapshot_table(&sn, &tl);
 *	fp_snapshot_free(&sn);
 */
#ifndef FP_SNAPSHOT_H
#define FP_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "folded.h"
#include "timeline.h"

/* A table, and per entry the timeline stack its string is (or
 * FP_STRTAB_NONE: copied into the table). */
struct fp_snap_table {
	struct fp_folded t;
	uint32_t *stack;
	size_t cap;
	/* the timeline's text its entries point into, and whether an entry
	 * was pointed into an older place (then all are re-pointed) */
	const char *text;
	int moved;
};

struct fp_snapshot {
	struct fp_snap_table table;   /* the latest complete snapshot */
	struct fp_snap_table pending; /* the snapshot being received */
	/* delta snapshots: the table's stacks -> their entries, made by
	 * the first delta after the table changed otherwise */
	struct fp_strtab index;
	size_t *entry; /* by index id: entry in table.t */
	size_t entry_cap;
	int indexed;
	/* delta snapshots of E records: timeline stack -> 1 + its entry in
	 * table.t (0: not in it), made by the first such delta after the
	 * table changed otherwise */
	size_t *entry_of_stack;
	size_t entry_of_stack_cap;
	int stacks_indexed;
};

void fp_snapshot_init(struct fp_snapshot *sn);
void fp_snapshot_free(struct fp_snapshot *sn);
/* A new snapshot begins: the pending one is dropped. */
void fp_snapshot_begin(struct fp_snapshot *sn);
/* An F record: into the pending snapshot (pending = 1), or straight into
 * the table (an F outside a snapshot: hand-written input). */
void fp_snapshot_add(struct fp_snapshot *sn, const struct fp_timeline *tl, int pending,
		     const char *stack, size_t n, uint64_t count);
/* An E record (fp-fold --snapshot-ids, fifo/PROTOCOL.md): the same with
 * the stack named by its index in tl->stacks (fp_timeline_stack of the
 * record's D id), nothing looked up. */
void fp_snapshot_add_stack(struct fp_snapshot *sn, const struct fp_timeline *tl, int pending,
			   uint32_t stack, uint64_t count);
/* The pending snapshot is complete: it becomes the table. */
void fp_snapshot_end(struct fp_snapshot *sn);
/* An F record of a delta snapshot (fp-fold --delta-snapshots,
 * fifo/PROTOCOL.md): the count of that stack in the table becomes count
 * (a stack not in it is added), as the F record comes. */
void fp_snapshot_set(struct fp_snapshot *sn, const struct fp_timeline *tl, const char *stack,
		     size_t n, uint64_t count);
/* An E record of a delta snapshot: fp_snapshot_set by timeline stack. */
void fp_snapshot_set_stack(struct fp_snapshot *sn, const struct fp_timeline *tl, uint32_t stack,
			   uint64_t count);
/* Entries of the table with a count (a delta's end record says how many). */
size_t fp_snapshot_stacks(const struct fp_snapshot *sn);
/* The table, its entries pointing into tl's text as it is now. */
const struct fp_folded *fp_snapshot_table(struct fp_snapshot *sn, const struct fp_timeline *tl);

#endif
