/* snapshot.c: fp-fold's snapshots, their stacks shared with the timeline
 * (snapshot.h). */
#include "snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "fp_error.h"

#define IDS_MIN 1024u

static void table_init(struct fp_snap_table *st)
{
	memset(st, 0, sizeof *st);
	fp_folded_init(&st->t);
}

static void table_free(struct fp_snap_table *st)
{
	fp_folded_free(&st->t);
	free(st->stack);
	memset(st, 0, sizeof *st);
}

void fp_snapshot_init(struct fp_snapshot *sn)
{
	table_init(&sn->table);
	table_init(&sn->pending);
}

void fp_snapshot_free(struct fp_snapshot *sn)
{
	table_free(&sn->table);
	table_free(&sn->pending);
}

void fp_snapshot_begin(struct fp_snapshot *sn)
{
	fp_folded_clear(&sn->pending.t);
}

void fp_snapshot_add(struct fp_snapshot *sn, const struct fp_timeline *tl, int pending,
		     const char *stack, size_t n, uint64_t count)
{
	struct fp_snap_table *st = pending ? &sn->pending : &sn->table;
	uint32_t id = fp_strtab_find(&tl->stacks, stack, n);

	st->stack = fp_xgrow(st->stack, &st->cap, st->t.n + 1, sizeof *st->stack, IDS_MIN);
	st->stack[st->t.n] = id;
	if (id == FP_STRTAB_NONE)
		fp_folded_add(&st->t, stack, n, count, 0, FP_FOLDED_COPY);
	else	/* the timeline's copy (re-pointed before use) */
		fp_folded_add(&st->t, fp_strtab_str(&tl->stacks, id, NULL), n, count, 0,
			      FP_FOLDED_REF);
}

void fp_snapshot_end(struct fp_snapshot *sn)
{
	struct fp_snap_table t = sn->table;

	sn->table = sn->pending;
	sn->pending = t;
	fp_folded_clear(&sn->pending.t);
}

const struct fp_folded *fp_snapshot_table(struct fp_snapshot *sn, const struct fp_timeline *tl)
{
	struct fp_snap_table *st = &sn->table;

	for (size_t i = 0; i < st->t.n; i++)
		if (st->stack[i] != FP_STRTAB_NONE)
			st->t.e[i].stack = fp_strtab_str(&tl->stacks, st->stack[i], NULL);
	return &st->t;
}
