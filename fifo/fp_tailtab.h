/* fp_tailtab: fp-range's interned sample tails and the map from an
 * upstream stack-id stream's ids to them.
 *
 * A tail is the "event TAB comm TAB kinds TAB stack" end of an S record,
 * kept once (its id is its index, dense from 0) with the offsets of its
 * fields. Upstream K records are kept by their own ids (struct fp_tails);
 * a tail is interned at the first P sample of an id, so the count of
 * tails is the count of distinct tails of samples either way, and the
 * own ids do not depend on the upstream numbering (or a restarted
 * source's).
 *
 * Calling sequence:
 *   fp_tailtab_init(&tt);
 *   S record:  id = fp_tailtab_intern_sample(&tt, line, len, &parsed_sample);
 *   K record:  err = fp_tailtab_define_line(&tt, line, len);
 *   P record:  err = fp_tailtab_ref_line(&tt, line, len, &ref, &id);
 *              (err: an FP_TAILS_* code for fp_tails_problem, 0 ok)
 *   fp_tailtab_text(&tt, id), fp_tailtab_fields(&tt, id, &sample)
 *   fp_tailtab_free(&tt);
 */
#ifndef FP_TAILTAB_H
#define FP_TAILTAB_H

#include <stddef.h>
#include <stdint.h>

#include "fp_record.h"
#include "fp_strtab.h"
#include "fp_tails.h"

/* One interned tail: its length and field offsets, and a verdict cache
 * owned by the caller (zero when interned). */
struct fp_tailtab_tail {
	uint32_t len;
	uint32_t comm_off, comm_len, stack_off;
	uint32_t event_len;
	uint32_t verdict_gen;	/* the caller's filter generation of the verdict */
	uint8_t verdict;
};

struct fp_tailtab {
	struct fp_strtab strs;	/* tail texts, id = index in tails */
	struct fp_tailtab_tail *tails;
	size_t ntails, captails;
	struct fp_tails up_defs;	/* the upstream K records */
	uint32_t *up_tail;	/* up id -> own tail id + 1, 0: not interned yet */
	size_t up_tail_cap;
};

void fp_tailtab_init(struct fp_tailtab *tt);
void fp_tailtab_free(struct fp_tailtab *tt);

/* The text of tail id. */
static inline const char *fp_tailtab_text(const struct fp_tailtab *tt, uint32_t id)
{
	return fp_strtab_str(&tt->strs, id, NULL);
}

/* The id of an S sample's tail (s parsed from line), interned on first sight. */
uint32_t fp_tailtab_intern_sample(struct fp_tailtab *tt, const char *line, size_t len,
				  const struct fp_sample *s);

/* Fills s's event, comm, kinds and stack from tail id (other fields untouched). */
void fp_tailtab_fields(const struct fp_tailtab *tt, uint32_t id, struct fp_sample *s);

/* A K record: kept by its upstream id. 0, or an FP_TAILS_* problem. */
int fp_tailtab_define_line(struct fp_tailtab *tt, const char *line, size_t len);

/* A P record: parsed into *ref, and *id set to the own id of its tail
 * (interned at the first sample of its upstream id). 0, or an FP_TAILS_*
 * problem. */
int fp_tailtab_ref_line(struct fp_tailtab *tt, const char *line, size_t len,
			struct fp_tail_ref *ref, uint32_t *id);

#endif
