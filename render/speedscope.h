/* speedscope.h: samples -> speedscope.json, speedscope's own file format
 * (its JSON schema: the npm package speedscope, dist/release/
 * file-format-schema.json).
 *
 * Input is one struct fp_sample (fifo/fp_record.h) per sample, like
 * render/pprof.h. Unlike pprof the file keeps sample order, so every sample
 * is kept: 24 bytes each (time, thread, stack, weight), at most max_samples
 * (past it they are counted in `overflow` and the file must not be written:
 * fp-render says so instead of writing a partial profile).
 *
 * The file (docs/fp-render.md, "speedscope.json"):
 *  - shared.frames: one per (frame name, kind); names as in stacks.folded
 *    (fp-fold's rules, without the comm root), "file" names the kind:
 *    [user], [kernel], [jit], [inlined], [unknown];
 *  - profiles: one "sampled" profile per thread (pid, tid, comm), named
 *    "comm pid/tid", in the order the threads first appeared (the one
 *    with the most weight is activeProfileIndex); its samples in time order,
 *    each a list of frame indices root first, with its weight: 1 (unit
 *    "none") or, with weight_period, the sample's period (unit
 *    "nanoseconds" when every sample is of a clock event, else "none");
 *    startValue 0, endValue the sum of the weights.
 *
 *	struct fp_speedscope ss; fp_speedscope_init(&ss, max_samples);
 *	fp_speedscope_add(&ss, &sample);
 *	fp_speedscope_reset(&ss);
 *	fp_speedscope_write(&ss, &sink, name, weight_period);
 *	fp_speedscope_free(&ss);
 */
#ifndef FP_SPEEDSCOPE_H
#define FP_SPEEDSCOPE_H

#include <stddef.h>
#include <stdint.h>

#include "fp_fold.h"
#include "fp_record.h"
#include "sink.h"
#include "fp_strtab.h"

struct fp_ss_sample {
	uint64_t time_ns;
	uint64_t period;
	uint32_t thread, stack;
};

struct fp_speedscope {
	size_t max_samples;
	uint64_t overflow; /* samples not kept */
	uint64_t bad;      /* kinds did not match the frames */
	int non_clock;     /* a sample of another event than a clock */
	struct fp_fold_buf folded, kinds, scratch;
	struct fp_strtab frames; /* kind + name -> frame index */
	struct fp_strtab stacks; /* folded NUL kinds -> stack */
	uint32_t *stack_frames;  /* per stack: frame ids root first ... */
	size_t *stack_off;       /* ... stack_off[i] .. stack_off[i + 1] */
	size_t stack_frames_len, stack_frames_cap, stack_off_cap;
	struct fp_strtab threads; /* pid tid comm -> thread */
	struct fp_ss_sample *s;
	size_t n, cap;
};

void fp_speedscope_init(struct fp_speedscope *ss, size_t max_samples);
void fp_speedscope_free(struct fp_speedscope *ss);
/* 0, or -1 if the sample was not kept (bad kinds, or past max_samples). */
int fp_speedscope_add(struct fp_speedscope *ss, const struct fp_sample *s);
void fp_speedscope_reset(struct fp_speedscope *ss);
/* The JSON document into out; name is the file's "name". */
void fp_speedscope_write(struct fp_speedscope *ss, struct fp_sink *out, const char *name,
			 int weight_period);

#endif
