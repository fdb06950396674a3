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
	fp_strtab_init(&sn->index);
	sn->entry = NULL;
	sn->entry_cap = 0;
	sn->indexed = 0;
	sn->entry_of_stack = NULL;
	sn->entry_of_stack_cap = 0;
	sn->stacks_indexed = 0;
}

void fp_snapshot_free(struct fp_snapshot *sn)
{
	table_free(&sn->table);
	table_free(&sn->pending);
	fp_strtab_free(&sn->index);
	free(sn->entry);
	free(sn->entry_of_stack);
}

static void table_clear(struct fp_snap_table *st)
{
	fp_folded_clear(&st->t);
	st->text = NULL;
	st->moved = 0;
}

void fp_snapshot_begin(struct fp_snapshot *sn)
{
	table_clear(&sn->pending);
}

/* A new entry: timeline stack id (its text), or FP_STRTAB_NONE (a copy
 * of stack[0..n)). */
static void add_entry(struct fp_snapshot *sn, const struct fp_timeline *tl, int pending,
		      uint32_t id, const char *stack, size_t n, uint64_t count)
{
	struct fp_snap_table *st = pending ? &sn->pending : &sn->table;

	if (!pending)
		sn->indexed = sn->stacks_indexed = 0; /* the table changed: index it again */

	st->stack = fp_xgrow(st->stack, &st->cap, st->t.n + 1, sizeof *st->stack, IDS_MIN);
	st->stack[st->t.n] = id;
	if (id == FP_STRTAB_NONE) {
		fp_folded_add(&st->t, stack, n, count, 0, FP_FOLDED_COPY);
		return;
	}
	/* the timeline's copy (re-pointed before use if the text moved) */
	if (st->text != tl->stacks.text) {
		st->moved |= st->text != NULL;
		st->text = tl->stacks.text;
	}
	fp_folded_add(&st->t, stack ? stack : fp_strtab_str(&tl->stacks, id, NULL), n, count, 0,
		      FP_FOLDED_REF);
}

void fp_snapshot_add(struct fp_snapshot *sn, const struct fp_timeline *tl, int pending,
		     const char *stack, size_t n, uint64_t count)
{
	uint32_t id = fp_strtab_find(&tl->stacks, stack, n);

	/* a stack of the timeline: its copy, not the record's bytes */
	add_entry(sn, tl, pending, id, id == FP_STRTAB_NONE ? stack : NULL, n, count);
}

void fp_snapshot_add_stack(struct fp_snapshot *sn, const struct fp_timeline *tl, int pending,
			   uint32_t stack, uint64_t count)
{
	size_t n;
	const char *text = fp_strtab_str(&tl->stacks, stack, &n);

	add_entry(sn, tl, pending, stack, text, n, count);
}

void fp_snapshot_end(struct fp_snapshot *sn)
{
	struct fp_snap_table t = sn->table;

	sn->table = sn->pending;
	sn->pending = t;
	table_clear(&sn->pending);
	sn->indexed = sn->stacks_indexed = 0;
}

/* The string of entry i of the table (its timeline stack's, if it has one:
 * the entry's own pointer may be stale). */
static const char *entry_str(const struct fp_snap_table *st, const struct fp_timeline *tl, size_t i)
{
	return st->stack[i] != FP_STRTAB_NONE ? fp_strtab_str(&tl->stacks, st->stack[i], NULL)
					      : st->t.e[i].stack;
}

static void index_entry(struct fp_snapshot *sn, const char *stack, size_t n, size_t i)
{
	uint32_t id = fp_strtab_intern(&sn->index, stack, n, NULL);

	sn->entry = fp_xgrow(sn->entry, &sn->entry_cap, (size_t)id + 1, sizeof *sn->entry, IDS_MIN);
	sn->entry[id] = i;
}

static void index_table(struct fp_snapshot *sn, const struct fp_timeline *tl)
{
	const struct fp_snap_table *st = &sn->table;

	fp_strtab_clear(&sn->index);
	for (size_t i = 0; i < st->t.n; i++)
		index_entry(sn, entry_str(st, tl, i), st->t.e[i].len, i);
	sn->indexed = 1;
}

void fp_snapshot_set(struct fp_snapshot *sn, const struct fp_timeline *tl, const char *stack,
		     size_t n, uint64_t count)
{
	struct fp_snap_table *st = &sn->table;

	if (!sn->indexed)
		index_table(sn, tl);
	uint32_t id = fp_strtab_find(&sn->index, stack, n);

	if (id == FP_STRTAB_NONE) {
		fp_snapshot_add(sn, tl, 0, stack, n, count);
		index_entry(sn, stack, n, st->t.n - 1);
		sn->indexed = 1; /* still true: the new entry is in it */
		return;
	}
	struct fp_folded_entry *e = &st->t.e[sn->entry[id]];

	st->t.total = st->t.total - e->count + count; /* e->count is part of it */
	e->count = count;
}

/* entry_of_stack: timeline stack -> 1 + its entry in the table, 0 none */
static void index_stacks(struct fp_snapshot *sn, const struct fp_timeline *tl)
{
	const struct fp_snap_table *st = &sn->table;

	sn->entry_of_stack = fp_xgrow(sn->entry_of_stack, &sn->entry_of_stack_cap,
				      tl->nstacks ? tl->nstacks : 1, sizeof *sn->entry_of_stack,
				      IDS_MIN);
	memset(sn->entry_of_stack, 0, sn->entry_of_stack_cap * sizeof *sn->entry_of_stack);
	for (size_t i = 0; i < st->t.n; i++)
		if (st->stack[i] != FP_STRTAB_NONE)
			sn->entry_of_stack[st->stack[i]] = i + 1;
	sn->stacks_indexed = 1;
}

void fp_snapshot_set_stack(struct fp_snapshot *sn, const struct fp_timeline *tl, uint32_t stack,
			   uint64_t count)
{
	struct fp_snap_table *st = &sn->table;

	if (!sn->stacks_indexed || stack >= sn->entry_of_stack_cap)
		index_stacks(sn, tl);
	size_t e = sn->entry_of_stack[stack];

	if (!e) {
		int text_indexed = sn->indexed;
		size_t n, i = st->t.n;
		const char *text = fp_strtab_str(&tl->stacks, stack, &n);

		add_entry(sn, tl, 0, stack, text, n, count);
		if (text_indexed) { /* both indexes stay true with the new entry in */
			index_entry(sn, text, n, i);
			sn->indexed = 1;
		}
		sn->entry_of_stack[stack] = i + 1;
		sn->stacks_indexed = 1;
		return;
	}
	struct fp_folded_entry *en = &st->t.e[e - 1];

	st->t.total = st->t.total - en->count + count; /* en->count is part of it */
	en->count = count;
}

size_t fp_snapshot_stacks(const struct fp_snapshot *sn)
{
	size_t n = 0;

	for (size_t i = 0; i < sn->table.t.n; i++)
		n += sn->table.t.e[i].count != 0;
	return n;
}

const struct fp_folded *fp_snapshot_table(struct fp_snapshot *sn, const struct fp_timeline *tl)
{
	struct fp_snap_table *st = &sn->table;

	if (!st->moved && st->text == tl->stacks.text)
		return &st->t; /* every entry points into the text as it is */
	for (size_t i = 0; i < st->t.n; i++)
		if (st->stack[i] != FP_STRTAB_NONE)
			st->t.e[i].stack = fp_strtab_str(&tl->stacks, st->stack[i], NULL);
	st->text = tl->stacks.text;
	st->moved = 0;
	return &st->t;
}
