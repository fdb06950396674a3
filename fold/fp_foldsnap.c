/* fp_foldsnap.c: full and delta folded snapshots, read (fp_foldsnap.h). */
#include <string.h>

#include "fp_foldsnap.h"

void fp_foldsnap_init(struct fp_foldsnap *s)
{
	memset(s, 0, sizeof *s);
	fp_strtab_init(&s->cur);
	fp_strtab_init(&s->next);
}

void fp_foldsnap_free(struct fp_foldsnap *s)
{
	fp_strtab_free(&s->cur);
	fp_strtab_free(&s->next);
}

/* count of stack id in t set to c, t's total and *stacks kept right */
static void set_count(struct fp_strtab *t, uint32_t id, uint64_t c, size_t *stacks)
{
	uint64_t old = t->ent[id].count;

	*stacks += (c != 0) - (old != 0);
	t->total = fp_add_sat(t->total - old, c); /* old is part of total */
	t->ent[id].count = c;
}

void fp_foldsnap_folded(struct fp_foldsnap *s, const struct fp_folded_rec *f)
{
	if (s->in == FP_FSNAP_IN_SKIP)
		return;
	if (s->in == FP_FSNAP_IN_FULL) {
		uint32_t id = fp_strtab_intern(&s->next, f->stack.p, f->stack.n, NULL);

		fp_strtab_add(&s->next, id, f->count); /* a stack twice: the sum */
		return;
	}
	int added = 0;
	uint32_t id = fp_strtab_intern(&s->cur, f->stack.p, f->stack.n, &added);
	uint64_t c = f->count;

	if (s->in == FP_FSNAP_IN_NONE) /* outside a snapshot: adds */
		c = fp_add_sat(s->cur.ent[id].count, c);
	set_count(&s->cur, id, c, &s->stacks);
}

int fp_foldsnap_end_fields(const struct fp_control *c, uint64_t *stacks, uint64_t *total)
{
	if (c->nargs < 3 || fp_parse_u64(c->arg[1].p, c->arg[1].n, stacks) < 0 ||
	    fp_parse_u64(c->arg[2].p, c->arg[2].n, total) < 0)
		return -1;
	return 0;
}

/* The end record's STACKS TOTAL against the table. */
static int end_matches(const struct fp_foldsnap *s, const struct fp_control *c)
{
	uint64_t stacks, total;

	if (fp_foldsnap_end_fields(c, &stacks, &total) < 0)
		return 1; /* nothing to check against (hand-written input) */
	return stacks == s->stacks && total == s->cur.total;
}

static enum fp_fsnap_result end_snapshot(struct fp_foldsnap *s, const struct fp_control *c,
					 enum fp_fsnap_in what)
{
	if (what == FP_FSNAP_IN_DELTA && s->in == FP_FSNAP_IN_SKIP) {
		s->in = FP_FSNAP_IN_NONE;
		s->skipped++;
		return FP_FSNAP_SKIPPED;
	}
	if (s->in != what)
		return FP_FSNAP_END_ALONE;
	if (what == FP_FSNAP_IN_FULL) {
		struct fp_strtab t = s->cur;

		s->cur = s->next;
		s->next = t;
		fp_strtab_clear(&s->next);
		s->stacks = 0;
		for (size_t id = 0; id < fp_strtab_count(&s->cur); id++)
			s->stacks += s->cur.ent[id].count != 0;
		s->have_full = 1;
	} else {
		s->deltas++;
	}
	s->in = FP_FSNAP_IN_NONE;
	s->complete++;
	/* a full snapshot is the table whatever its end says (hand-written
	 * streams end with anything); a delta is checked */
	return what == FP_FSNAP_IN_FULL || end_matches(s, c) ? FP_FSNAP_DONE : FP_FSNAP_MISMATCH;
}

enum fp_fsnap_result fp_foldsnap_control(struct fp_foldsnap *s, const struct fp_control *c)
{
	int full_begin = fp_control_is(c, FP_CTL_BEGIN, FP_FOLDSNAP_FULL);
	int delta_begin = fp_control_is(c, FP_CTL_BEGIN, FP_FOLDSNAP_DELTA);

	if (full_begin || delta_begin) {
		enum fp_fsnap_result r = s->in ? FP_FSNAP_BEGUN_INSIDE : FP_FSNAP_BEGUN;

		fp_strtab_clear(&s->next);
		s->in = fp_foldsnap_entered(full_begin, s->have_full);
		return r;
	}
	if (fp_control_is(c, FP_CTL_END, FP_FOLDSNAP_FULL))
		return end_snapshot(s, c, FP_FSNAP_IN_FULL);
	if (fp_control_is(c, FP_CTL_END, FP_FOLDSNAP_DELTA))
		return end_snapshot(s, c, FP_FSNAP_IN_DELTA);
	return FP_FSNAP_NOTHING;
}
