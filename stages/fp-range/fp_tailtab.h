/* fp_tailtab: fp-range's interned sample tails and the map from an
 * upstream stack-id stream's ids to them.
 *
 * A tail is the "event TAB comm TAB kinds TAB stack" end of an S record.
 * Each distinct tail text is kept once (fp_strtab), with the offsets of
 * its fields: an S record's tail when it comes, a K record's when the K
 * comes (the K's id then maps to it; nothing else of the K is kept).
 * A tail gets its *own* id (dense from 0, its index in tails) at its
 * first sample (S, or the first P of an upstream id of its text), so the
 * count of tails is the count of distinct tails of samples either way,
 * and the own ids do not depend on the upstream numbering (or a
 * restarted source's).
 *
 * While the upstream ids get own ids of the same number (no two K
 * records of one text, no K without samples before a sampled one: the
 * usual case), a P record can go downstream as it came; the writers
 * below pick the cheapest form that is byte for byte what
 * fp_write_tail_ref / fp_write_tail_def write (a P whose numbers are not
 * written canonically, "007", is written again).
 *
 * Calling sequence:
 *   fp_tailtab_init(&tt);
 *   S record:  id = fp_tailtab_intern_sample(&tt, line, len, &parsed_sample);
 *   K record:  err = fp_tailtab_define_line(&tt, line, len);
 *   P record:  err = fp_tailtab_ref_line(&tt, line, len, &ref);
 *              (err: an FP_TAILS_* code for fp_tails_problem, 0 ok)
 *              fp_tailtab_write_ref(out, line, &ref): the P of the own id
 *   fp_tailtab_text(&tt, id), fp_tailtab_fields(&tt, id, &sample),
 *   fp_tailtab_write_def(&tt, out, id): the K of an own id
 *   fp_tailtab_free(&tt);
 */
#ifndef FP_TAILTAB_H
#define FP_TAILTAB_H

#include <stddef.h>
#include <stdint.h>

#include "fp_record.h"
#include "fp_strtab.h"
#include "fp_tails.h"

#define FP_TAILTAB_NO_OWN 0u /* own id + 1 fields: no sample yet */

/* One distinct tail text (its index is its fp_strtab id): its length and
 * field offsets. */
struct fp_tailtab_text {
	uint32_t len;
	uint32_t event_len, comm_off, comm_len, stack_off, stack_len;
	uint32_t cgroup_off, cgroup_len; /* cgroup_len 0: none */
};

/* One own tail: its text and a verdict cache owned by the caller (zero
 * when the tail gets its own id). */
struct fp_tailtab_tail {
	uint32_t text;        /* index in texts */
	uint32_t verdict_gen; /* the caller's filter generation of the verdict */
	uint8_t verdict;
};

/* An upstream K id: its text, and the text's own id once known (so a P
 * reads this one small entry, not the text's). */
struct fp_tailtab_up {
	uint32_t text; /* index in texts */
	uint32_t own;  /* own id + 1, FP_TAILTAB_NO_OWN: look it up */
};

struct fp_tailtab {
	struct fp_strtab strs;         /* the distinct tail texts */
	struct fp_tailtab_text *texts; /* by strs id */
	uint32_t *text_own;            /* by strs id: own id + 1, or FP_TAILTAB_NO_OWN (an array of
				 * its own: an S sample reads it, a small one stays cached) */
	size_t captexts;
	struct fp_tailtab_tail *tails; /* by own id */
	size_t ntails, captails;
	/* every text got its own id when it was interned (no K record
	 * brought one yet): the own id is the text's, text_own is not read */
	int texts_are_own;
	struct fp_tailtab_up *up; /* by upstream K id */
	size_t up_n, up_cap;      /* upstream ids 0 .. up_n-1 are defined */
};

/* A P record as fp_tailtab_ref_line read it. */
struct fp_tailtab_ref {
	struct fp_tail_ref ref; /* ref.id: the upstream id */
	uint32_t own;           /* the own id of its tail */
	size_t len;             /* of the line (the CR rule applied) */
	size_t head_n;          /* bytes of "P TAB time ... TAB period" */
	int canonical;          /* written as fp_write_tail_ref would */
};

void fp_tailtab_init(struct fp_tailtab *tt);
void fp_tailtab_free(struct fp_tailtab *tt);

/* The text of own tail id, and its fields' offsets. */
static inline const struct fp_tailtab_text *fp_tailtab_info(const struct fp_tailtab *tt,
							    uint32_t id)
{
	return &tt->texts[tt->tails[id].text];
}

static inline const char *fp_tailtab_text(const struct fp_tailtab *tt, uint32_t id)
{
	return fp_strtab_str(&tt->strs, tt->tails[id].text, NULL);
}

/* The own id of an S sample's tail (s parsed from line), interned on first sight. */
uint32_t fp_tailtab_intern_sample(struct fp_tailtab *tt, const char *line, size_t len,
				  const struct fp_sample *s);

/* Fills s's event, comm, kinds, stack and cgroup from own tail id (other fields untouched). */
void fp_tailtab_fields(const struct fp_tailtab *tt, uint32_t id, struct fp_sample *s);

/* A K record: its text kept (once per distinct text) for its upstream
 * id. 0, or an FP_TAILS_* problem. */
int fp_tailtab_define_line(struct fp_tailtab *tt, const char *line, size_t len);

/* A P record: parsed into *r, r->own set to the own id of its tail (the
 * tail gets one at the first sample of its text). 0, or an FP_TAILS_*
 * problem. */
int fp_tailtab_ref_line(struct fp_tailtab *tt, const char *line, size_t len,
			struct fp_tailtab_ref *r);

/* The P record of r's sample with its own id, exactly as
 * fp_write_tail_ref writes it: line itself when it is canonical and the
 * ids coincide, its head and the own id when only canonical. */
void fp_tailtab_write_ref(struct fp_wr w, const char *line, const struct fp_tailtab_ref *r);

/* The K record of own tail id, exactly as fp_write_tail_def writes it. */
void fp_tailtab_write_def(const struct fp_tailtab *tt, struct fp_wr w, uint32_t id);

#endif
