/* pprof.h: samples -> a pprof profile (profile.pb.gz), encoded with
 * protobuf-c from render/profile.proto (the public pprof specification).
 *
 * Input is one struct fp_sample (fifo/fp_record.h) per sample: frames and
 * their kinds (root first), pid, tid, cpu, comm, time, period, event. That
 * is the whole interface, so any representation can feed it: fp-render
 * parses S records into it, and a stack table with per-sample references
 * would fill one per reference (stack and kinds pointing at the interned
 * strings). Samples are aggregated on the way in, one pprof Sample per
 * (stack, pid, tid, cpu, comm, event) with its counts, so memory grows with
 * the distinct stacks and threads, not with the samples.
 *
 * The profile (docs/fp-render.md, "pprof"):
 *  - sample types: samples/count, then one per event (its periods): the
 *    clock event cpu-clock (else the first clock event, task-clock) is cpu/nanoseconds, another
 *    clock event EVENT/nanoseconds, any other EVENT/count (EVENT as perf
 *    names it, `period` when absent); a sample has its period in its own
 *    event's column and 0 in the others. default_sample_type: samples;
 *  - functions: one per (frame name, kind), names as in stacks.folded
 *    (fp-fold's rules, without the comm root and without annotations);
 *  - locations: one per frame with the frames inlined into it (kind i) as
 *    further lines, the inlined first (pprof's order); its mapping names
 *    the kind: [user], [kernel], [jit], [unknown];
 *  - labels (strings): pid, tid, cpu (each left out when perf printed
 *    none), comm, event. Strings, as pprof drops numeric labels of value
 *    0 (cpu 0, pid 0) and Pyroscope keeps string labels only;
 *  - duration_nanos: last sample time - first sample time; a comment gives
 *    both on perf's clock (time_nanos stays 0: perf's clock is not a wall
 *    clock).
 *
 * fp-push's profile for Grafana Pyroscope (docs/fp-push.md) is another shape,
 * chosen by setting p.push_rate after fp_pprof_init: sample types
 * samples/count and cpu/nanoseconds (cpu the default), period_type
 * cpu/nanoseconds, period 1e9 / push_rate: a clock event's sample weighs
 * its period, any other event's 1e9 / push_rate ns (perf's -F frequency:
 * Pyroscope's process_cpu, whatever the event); the comm is the root frame
 * (as in the folded body); labels only those in push_labels; time_nanos
 * and duration_nanos as the caller sets them (wall clock).
 *
 *	struct fp_pprof p; fp_pprof_init(&p);
 *	fp_pprof_add(&p, &sample);	// per sample
 *	fp_pprof_reset(&p);		// C reset: forget the samples
 *	fp_pprof_write(&p, &sink);	// gzip'd Profile
 *	fp_pprof_free(&p);
 */
#ifndef FP_PPROF_H
#define FP_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "fp_fold.h"
#include "fp_record.h"
#include "sink.h"
#include "fp_strtab.h"

struct fp_pprof_sample {
	uint64_t count, period;
};

struct fp_pprof {
	struct fp_fold_buf folded, kinds, scratch; /* for one sample */
	struct fp_strtab strings;                  /* the profile's string table, 0 = "" */
	struct fp_strtab functions;                /* kind + name -> function index */
	uint32_t *function_name;                   /* per function: its name's string id */
	char *function_kind;
	size_t functions_cap;
	struct fp_strtab locations; /* function ids, inlined first -> location */
	char *location_kind;        /* the mapping: kind of the outermost frame */
	size_t locations_cap;
	struct fp_strtab stacks; /* folded + NUL + kinds -> stack */
	uint32_t *stack_locs;    /* per stack: location ids, leaf first ... */
	size_t *stack_off;       /* ... stack_off[i] .. stack_off[i + 1] */
	size_t stack_locs_len, stack_locs_cap, stack_off_cap;
	struct fp_strtab comms, events;  /* ids for the aggregation key */
	struct fp_strtab keys;           /* (stack, pid, tid, cpu, comm, event) */
	struct fp_pprof_sample *samples; /* per key */
	size_t samples_cap;
	uint64_t first_ns, last_ns, n_samples;
	uint64_t first_period; /* the profile's period */
	uint64_t bad;          /* samples whose kinds did not match */
	/* fp-push's shape (set after fp_pprof_init; 0: fp-render's profile) */
	uint64_t push_rate;                 /* perf's sampling frequency, Hz */
	unsigned push_labels;               /* FP_PPROF_LABEL_* kept on samples */
	int64_t time_nanos, duration_nanos; /* the profile's wall-clock time */
};

/* Sample labels fp-push may keep (each one a series label in Pyroscope). */
enum {
	FP_PPROF_LABEL_PID = 1,
	FP_PPROF_LABEL_TID = 2,
	FP_PPROF_LABEL_CPU = 4,
	FP_PPROF_LABEL_COMM = 8,
};

void fp_pprof_init(struct fp_pprof *p);
void fp_pprof_free(struct fp_pprof *p);
/* Adds one sample: 0, or -1 if its kinds do not have one per frame
 * (counted in p->bad, not added). */
int fp_pprof_add(struct fp_pprof *p, const struct fp_sample *s);
/* Forgets the samples (stacks, functions and locations stay). */
void fp_pprof_reset(struct fp_pprof *p);
/* The gzip'd serialized Profile into s. */
void fp_pprof_write(struct fp_pprof *p, struct fp_sink *s);

#endif
