/* timeline.h: the samples of a capture by time, so a page can draw the
 * flame graph of any heatmap range offline, and the exports can go
 * through every sample.
 *
 * fp-render stores here what fp-fold --pass-samples sends: each folded
 * stack once (a D record: its folded string, exactly as in stacks.folded,
 * and the kind of each frame), then per sample an R record (time, pid,
 * tid, cpu, period, count, event, comm) naming the stack by id. Nothing is
 * folded here. From that it gives
 *  - the folded table of any time range [from, to) (the same table
 *    `flamepipe report --from --to` makes, tests compare them),
 *  - a compact JSON for index.html: unique frame names with their colour,
 *    stacks as lists of name ids, and per heatmap cell the (stack, count)
 *    pairs, so the page sums the cells of a selection,
 *  - the kind of each frame name (k kernel, u user, j JIT, i inlined) for
 *    the flame graph's colours, without `_[k]` annotations in the names,
 *  - each sample with its labels (fp_timeline_sample), in arrival order.
 *
 *	struct fp_timeline tl; fp_timeline_init(&tl, max_samples);
 *	fp_timeline_define(&tl, &stack_def);   // each D record
 *	fp_timeline_add(&tl, &ref);            // each R record
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
#include "fp_map.h"
#include "fp_record.h"
#include "fp_strtab.h"
#include "heatmap.h"
#include "sink.h"

/* A kept sample: 32 bytes. Its pid, tid, cpu, comm and event (the
 * "owner" the views group it by) are interned once per distinct owner. */
struct fp_tl_sample {
	uint64_t time_ns;
	uint64_t count; /* what fp-fold counted: 1, or the period */
	uint64_t period;
	uint32_t stack; /* in stacks */
	uint32_t owner; /* in owners */
};

/* cpus whose latest sample's owner is remembered (a power of two) */
#define FP_TL_OWNER_CACHE 256u

/* pid, tid, cpu, comm, event and cgroup of samples; comm, event, the
 * cgroup's path and its container name (fp_container.h) in labels, the
 * last two FP_TL_NO_LABEL for a sample without a cgroup */
#define FP_TL_NO_LABEL UINT32_MAX
struct fp_tl_owner {
	int64_t pid, tid, cpu;
	uint32_t comm, event;
	uint32_t cgroup, container;
};

struct fp_timeline {
	size_t max_samples; /* beyond it samples are counted, not kept */
	uint64_t overflow;  /* samples not kept */
	uint64_t bad;       /* R records of a stack never defined */
	int weight_period;  /* a count was not 1: fp-fold weighed by period */
	struct fp_tl_sample *s;
	size_t n, cap;
	/* stacks: folded strings, each with the id of its kinds string */
	struct fp_strtab stacks, kinds, labels;
	uint32_t *stack_kinds;
	size_t nstacks, stack_kinds_cap;
	/* owners: their keys (pid, tid, cpu, comm TAB event as bytes) and
	 * what they stand for; labels get a comm or event the first time an
	 * owner has it, so in the order the samples first name them */
	struct fp_strtab owner_keys;
	struct fp_tl_owner *owner;
	size_t owner_cap;
	int has_cgroups; /* an owner has a cgroup: the page's owners say it */
	char *key;       /* an owner key being looked up */
	size_t key_cap;
	/* per cpu (its number modulo the size): the owner of its latest
	 * sample + 1, 0 none; checked before the owner's key is looked up */
	uint32_t owner_last[FP_TL_OWNER_CACHE];
	/* the D record ids of the stream -> stacks (a restarted fp-fold
	 * numbers from 0 again: a known id is redefined) */
	uint32_t *ext;
	size_t next, ext_cap;
	/* frame names of every stack, first seen first, with the kind of
	 * their first occurrence; frames: per stack its name ids,
	 * frame_off[i] .. frame_off[i+1] (kept up to date as stacks come) */
	struct fp_strtab names;
	char *name_kind;
	size_t name_kind_cap;
	/* a name also seen with another kind (kernel and user strlen, a
	 * comm named like a function): (name id, kind) -> its number among
	 * these, and each one's name id << 8 | kind; the page names it
	 * apart, after the names, so its frames have their own kinds */
	struct fp_map name_alt;
	uint64_t *alt;
	size_t nalt, alt_cap;
	uint8_t *stack_alt; /* per stack: 1 if a frame of it is one of these */
	size_t stack_alt_cap;
	uint32_t *frames;
	size_t *frame_off;
	size_t frames_len, frames_cap, frame_off_cap;
	/* per root name id: the latest stack under it + 1, 0 none (a new
	 * stack takes the ids of the frames it shares with it) */
	uint32_t *root_last;
	size_t root_last_cap;
};

void fp_timeline_init(struct fp_timeline *tl, size_t max_samples);
void fp_timeline_free(struct fp_timeline *tl);
/* Forgets every sample (C reset); stacks and their ids stay. */
void fp_timeline_reset(struct fp_timeline *tl);
/* A D record. 0, or -1 if its id skips ahead (ids come 0, 1, 2, ...; an
 * id already defined is redefined) or the stacks outgrew their bound. */
int fp_timeline_define(struct fp_timeline *tl, const struct fp_stack_def *d);
/* What a D record's id names (fp_timeline_stack). */
enum fp_tl_stack_of {
	FP_TL_STACK,     /* a stack: *stack its index in tl->stacks */
	FP_TL_UNDEFINED, /* no D record defined the id */
	FP_TL_NOT_KEPT,  /* defined, but past the stacks' bound (its text is not kept) */
};
/* The stack the D record id defined (its latest definition), by id: an
 * array, no lookup of its text. */
enum fp_tl_stack_of fp_timeline_stack(const struct fp_timeline *tl, uint32_t id, uint32_t *stack);
/* An R record. 0 (kept, or counted in overflow), or -1 if its stack was
 * never defined (counted in tl->bad). */
int fp_timeline_add(struct fp_timeline *tl, const struct fp_ref *r);
/* Sum of the kept samples' counts. */
uint64_t fp_timeline_total(const struct fp_timeline *tl);
/* The same without the samples of timed events (off-CPU time, which
 * fp-fold --timed-apart passes for the views but keeps out of its table). */
uint64_t fp_timeline_total_untimed(const struct fp_timeline *tl);

/* Sample i (0 .. tl->n - 1, in arrival order) as an S record would give it:
 * s->stack the folded frames after the root ones (comm, pid, event), names
 * exactly as in stacks.folded, s->kinds one per frame. Pointers stay valid
 * until the next define. */
void fp_timeline_sample(const struct fp_timeline *tl, size_t i, struct fp_sample *s);
/* The same for an R record of a defined stack (whether kept or not): 0, or
 * -1 if its stack is unknown. Comm and event point into r's line. */
int fp_timeline_ref_sample(const struct fp_timeline *tl, const struct fp_ref *r,
			   struct fp_sample *s);

/* The folded table of the samples with from_ns <= time - base_ns < to_ns
 * (UINT64_MAX: open end), sorted bytewise like fp-fold's snapshots. The
 * strings are referenced: keep tl unchanged while t is used. */
void fp_timeline_range(const struct fp_timeline *tl, uint64_t base_ns, uint64_t from_ns,
		       uint64_t to_ns, struct fp_folded *t);

/* --range-folded FROM:TO (seconds on hm's axis, "-" or empty: open):
 * that range's table written as stacks.folded is, which a --from/--to
 * report's stacks.folded equals (tests/t5007). */
void fp_timeline_range_folded(const struct fp_timeline *tl, const struct fp_heatmap *hm,
			      const char *from_to, struct fp_sink *s);

/* The kind of a frame name: 'k', 'j', 'i', 'u', 'x', or 0 if unknown (root
 * frames). */
char fp_timeline_kind(const struct fp_timeline *tl, const char *name, size_t n);

/* The page's JSON (see docs/fp-render.md):
 *	{"rows":R,"base_sec":B,"total":N,"names":["all","comm",...],
 *	 "colors":["#rrggbb",...],"stacks":[[1,2,3],...],
 *	 "cells":[col,row,k,stack,count,...(k pairs)...]}
 * cells are those of the heatmap geometry hm; names escaped for a <script>.
 * Colours come from fp_flame_color with the names' kinds. members (NULL:
 * none) are more JSON members of the caller's, written last. */
void fp_timeline_json(const struct fp_timeline *tl, struct fp_sink *s, const struct fp_heatmap *hm,
		      const struct fp_flame_opts *o, const char *members);

#endif
