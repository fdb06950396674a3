/* fp_foldsnap.h: fp-fold's folded snapshots as a reader keeps them, full
 * and delta (fifo/PROTOCOL.md, `F`, "Delta snapshots").
 *
 * A full snapshot (`C begin fold`, F records, `C end fold STACKS TOTAL`)
 * replaces the table when it is complete. A delta snapshot (`C begin
 * fold-delta`, F records, `C end fold-delta STACKS TOTAL`), which fp-fold
 * writes only with --delta-snapshots (negotiated by the runner), sets the
 * count of each stack it names to its F record's count as it comes: the
 * table is then the full snapshot fp-fold would have written, and its
 * stacks and total must be the end record's (a check, not a repair; a
 * full snapshot's end is not checked: hand-written streams). A delta
 * that comes before the reader's first full snapshot is skipped whole:
 * it updates a table this reader never got (a reader restarted or added
 * while the capture runs; the runner then asks fp-fold for a full
 * snapshot, runner/spawn.c). F records outside any snapshot add to the
 * table (hand-written input).
 * fp-serve's live view keeps its table here; fp-render keeps its own
 * (render/snapshot.h: stacks shared with its timeline) and takes the
 * bracket names and the end record's fields from here. The runner
 * negotiates deltas by the roles of fp_foldsnap_role_of, and snapshots by
 * id (E records, fp-fold --snapshot-ids) by fp_foldsnap_reads_ids: this
 * table does not take E records (it has no D records), so fp-serve is
 * not a reader of them and gets F records.
 *
 *	struct fp_foldsnap s; fp_foldsnap_init(&s);
 *	switch (fp_foldsnap_control(&s, &c)) { case FP_FSNAP_DONE: ... }
 *	fp_foldsnap_folded(&s, &f);            // an F record
 *	for (id = 0; id < fp_strtab_count(&s.cur); id++) if (s.cur.ent[id].count) ...
 *	fp_foldsnap_free(&s);
 */
#ifndef FP_FOLDSNAP_H
#define FP_FOLDSNAP_H

#include <stdint.h>

#include "fp_record.h"
#include "fp_strtab.h"

#define FP_FOLDSNAP_FULL "fold"                      /* C begin/end WHAT of a full snapshot */
#define FP_FOLDSNAP_DELTA "fold-delta"               /* ... of a delta snapshot */
#define FP_FOLDSNAP_DELTA_OPTION "--delta-snapshots" /* fp-fold's option */
/* fp-fold's option for snapshots of E records (stacks by D id) instead of
 * F records; only with --pass-samples, whose D records define the ids */
#define FP_FOLDSNAP_IDS_OPTION "--snapshot-ids"
#define FP_FOLDSNAP_PASS_SAMPLES_OPTION "--pass-samples"

enum fp_fsnap_in {
	FP_FSNAP_IN_NONE,
	FP_FSNAP_IN_FULL,
	FP_FSNAP_IN_DELTA,
	FP_FSNAP_IN_SKIP, /* a delta before the first full snapshot */
};

struct fp_foldsnap {
	struct fp_strtab cur;  /* the table: stack -> count (0: not in it) */
	struct fp_strtab next; /* the full snapshot being received */
	size_t stacks;         /* stacks of cur with a count */
	enum fp_fsnap_in in;   /* inside which snapshot */
	uint64_t complete;     /* snapshots completed (full and delta) */
	uint64_t deltas;       /* ... of them deltas */
	uint64_t skipped;      /* deltas skipped: no full snapshot yet */
	int have_full;         /* a full snapshot was completed */
};

/* The snapshot a `C begin` enters: a delta before the reader's first
 * full snapshot is skipped (fp-render keeps its own table, the same rule). */
static inline enum fp_fsnap_in fp_foldsnap_entered(int full, int have_full)
{
	return full ? FP_FSNAP_IN_FULL : have_full ? FP_FSNAP_IN_DELTA : FP_FSNAP_IN_SKIP;
}

/* What a C record did to the snapshot. */
enum fp_fsnap_result {
	FP_FSNAP_NOTHING,      /* not a snapshot bracket */
	FP_FSNAP_BEGUN,        /* a snapshot begins */
	FP_FSNAP_BEGUN_INSIDE, /* ... inside another: a full one being received is
				 * dropped, a delta stays applied as far as it came */
	FP_FSNAP_DONE,         /* a snapshot is complete: cur is the new table */
	FP_FSNAP_MISMATCH,     /* a delta complete, but its end record's stacks or
				 * total differ from cur's (a stream lost records) */
	FP_FSNAP_END_ALONE,    /* an end without its begin: ignored */
	FP_FSNAP_SKIPPED,      /* a delta before the first full snapshot ended:
				 * the table is unchanged */
};

void fp_foldsnap_init(struct fp_foldsnap *s);
void fp_foldsnap_free(struct fp_foldsnap *s);
/* A parsed C record: `begin`/`end` of `fold` or `fold-delta`. */
enum fp_fsnap_result fp_foldsnap_control(struct fp_foldsnap *s, const struct fp_control *c);
/* A parsed F record (a count of 0 takes the stack out of the table). */
void fp_foldsnap_folded(struct fp_foldsnap *s, const struct fp_folded_rec *f);
/* The STACKS and TOTAL of a `C end fold[-delta] STACKS TOTAL` record:
 * 0, or -1 if it has none (hand-written input). */
int fp_foldsnap_end_fields(const struct fp_control *c, uint64_t *stacks, uint64_t *total);
/* Inside a snapshot? (readers draw only complete ones) */
static inline int fp_foldsnap_busy(const struct fp_foldsnap *s)
{
	return s->in != FP_FSNAP_IN_NONE;
}

#endif
