/* timeline.h: the samples of a capture by time, so a page can draw the
 * flame graph of any heatmap range offline.
 *
 * fp-render keeps every S record that fp-fold --pass-samples passes on:
 * its folded stack (folded again here with fifo/fp_fold.c and the options
 * of fp-fold's `C fold-options` record, so names are exactly those of
 * stacks.folded), interned once, plus 24 bytes per sample (time, stack id,
 * count). From that it gives
 *  - the folded table of any time range [from, to) (the same table
 *    `flamepipe report --from --to` makes, tests compare them),
 *  - a compact JSON for index.html: unique frame names with their colour,
 *    stacks as lists of name ids, and per heatmap cell the (stack, count)
 *    pairs, so the page sums the cells of a selection,
 *  - the kind of each frame name (k kernel, u user, j JIT, i inlined) for
 *    the flame graph's colours, without `_[k]` annotations in the names.
 *
 *	struct fp_timeline tl; fp_timeline_init(&tl, max_samples);
 *	fp_timeline_options(&tl, line, len);   // C fold-options
 *	fp_timeline_add(&tl, line, len);       // each S record
 *	fp_timeline_range(&tl, base_ns, from_ns, to_ns, &table);
 *	fp_timeline_json(&tl, &sink, &hm, palette);
 *	fp_timeline_free(&tl);
 */
#ifndef FP_TIMELINE_H
#define FP_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "flamegraph.h"
#include "folded.h"
#include "fp_fold.h"
#include "heatmap.h"
#include "sink.h"

struct fp_tl_sample {
	uint64_t time_ns;
	uint64_t count;
	uint32_t stack;
};

struct fp_tl_stack {
	size_t off, len;	/* folded string in text */
	size_t kinds_off, kinds_len;	/* one kind per frame in text, after the string */
	uint64_t hash;
};

struct fp_tl_name {
	const char *p;
	size_t len;
	uint64_t hash;
	char kind;
};

struct fp_timeline {
	struct fp_fold_opts fold;
	int weight_period;
	size_t max_samples;	/* beyond it samples are counted, not kept */
	uint64_t overflow;	/* samples not kept */
	uint64_t bad;		/* S records that could not be parsed or folded */
	struct fp_tl_sample *s;
	size_t n, cap;
	struct fp_tl_stack *stacks;
	size_t nstacks, stacks_cap;
	uint32_t *slots;	/* stack id + 1, 0 empty; open addressing */
	size_t mask;
	char *text;		/* folded strings and kinds */
	size_t text_len, text_cap;
	struct fp_fold_buf folded, kinds;
	/* name index, rebuilt when stacks were added (see fp_timeline_kind) */
	struct fp_tl_name *names;
	size_t nnames, names_cap;
	uint32_t *name_slots;
	size_t name_mask;
	uint32_t *frames;	/* per stack: name ids; frame_off[i] .. frame_off[i+1] */
	size_t *frame_off;
	size_t frames_len, frames_cap;
	size_t indexed_stacks;	/* stacks covered by the name index */
};

void fp_timeline_init(struct fp_timeline *tl, size_t max_samples);
void fp_timeline_free(struct fp_timeline *tl);
/* Forgets every sample (C reset); interned stacks stay. */
void fp_timeline_reset(struct fp_timeline *tl);
/* `C fold-options root=comm kernel=0 ...`: how fp-fold folded. -1 if malformed. */
int fp_timeline_options(struct fp_timeline *tl, const char *line, size_t len);
/* An S record. 0, or -1 if it is malformed (counted in tl->bad). */
int fp_timeline_add(struct fp_timeline *tl, const char *line, size_t len);
/* Sum of the kept samples' counts. */
uint64_t fp_timeline_total(const struct fp_timeline *tl);

/* The folded table of the samples with from_ns <= time - base_ns < to_ns
 * (UINT64_MAX: open end), sorted bytewise like fp-fold's snapshots. The
 * strings are referenced: keep tl unchanged while t is used. */
void fp_timeline_range(struct fp_timeline *tl, uint64_t base_ns, uint64_t from_ns,
		       uint64_t to_ns, struct fp_folded *t);

/* The kind of a frame name: 'k', 'j', 'i', 'u', 'x', or 0 if unknown (root
 * frames). Builds the name index when stacks were added. */
char fp_timeline_kind(struct fp_timeline *tl, const char *name, size_t n);

/* The page's JSON (see docs/fp-render.md):
 *	{"rows":R,"base_sec":B,"total":N,"names":["all","comm",...],
 *	 "colors":["#rrggbb",...],"stacks":[[1,2,3],...],
 *	 "cells":[col,row,k,stack,count,...(k pairs)...]}
 * cells are those of the heatmap geometry hm; names escaped for a <script>.
 * Colours come from fp_flame_color with the names' kinds. */
void fp_timeline_json(struct fp_timeline *tl, struct fp_sink *s, const struct fp_heatmap *hm,
		      const struct fp_flame_opts *o);

#endif
