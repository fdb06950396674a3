/* exports.h: the samples fp-render receives, kept for the export formats
 * (render/pprof.h) that want each sample with its labels.
 *
 * fp-render hands every S record to fp_exports_add; each wanted export
 * gets the parsed struct fp_sample. A representation that keeps stacks and
 * per-sample references instead of S records feeds the exports the same
 * way, through fp_pprof_add with one fp_sample per reference.
 */
#ifndef FP_EXPORTS_H
#define FP_EXPORTS_H

#include <stddef.h>
#include <stdint.h>

#include "fp_fold.h"
#include "fp_record.h"
#include "pprof.h"
#include "speedscope.h"

struct fp_exports {
	int pprof_on, speedscope_on;
	struct fp_pprof pprof;
	struct fp_speedscope speedscope;
	uint64_t bad; /* S records that did not parse */
};

/* pprof, speedscope: whether each is wanted; max_samples bounds speedscope. */
void fp_exports_init(struct fp_exports *e, int pprof, int speedscope, size_t max_samples);
void fp_exports_free(struct fp_exports *e);
/* One S record (the whole line); malformed ones are counted in e->bad. */
void fp_exports_add(struct fp_exports *e, const char *line, size_t len);
/* One sample: fp-render gives each R record with its stack's frames
 * (render/timeline.h, fp_timeline_ref_sample). */
void fp_exports_add_sample(struct fp_exports *e, const struct fp_sample *s);
/* C reset: the samples are about to be sent again. */
void fp_exports_reset(struct fp_exports *e);

/* Shared by the exports: */

/* Folds s with fp-fold's default rules (comm root, no annotations) into f
 * and k, and gives the frames after the comm root: *frames (nframes bytes,
 * ';'-joined, root first; names exactly as in stacks.folded) and *kinds
 * (one per frame). 0, or -1 if s's kinds do not match its frames. */
int fp_export_fold(struct fp_fold_buf *f, struct fp_fold_buf *k, const struct fp_sample *s,
		   const char **frames, size_t *nframes, const char **kinds, size_t *nkinds);
/* Whether an event is a clock (cpu-clock, task-clock, with or without
 * :modifiers), whose periods are nanoseconds. */
int fp_export_clock_event(const char *ev, size_t n);
/* The name of a frame kind: "[user]", "[kernel]", "[jit]", "[inlined]",
 * "[unknown]". */
const char *fp_export_kind_name(char kind);

#endif
