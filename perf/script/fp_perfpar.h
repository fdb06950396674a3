/* fp_perfpar.h: `perf script` text of a mapped file parsed ahead on
 * threads, delivered in order.
 *
 * The file is cut into chunks of about FP_PERFPAR_CHUNK bytes, each
 * starting just after an empty line. After an empty line the parser
 * (fp_perfparse.h) holds nothing: the sample before it was emitted and any
 * discarding ended. So a chunk parsed by a fresh parser gives exactly the
 * records the one serial parser would, and worker threads parse chunks
 * side by side while the caller writes the finished ones in file order.
 *
 * A chunk that holds anything whose handling needs the caller's state is
 * not parsed ahead but handed back "serial": the caller feeds its lines to
 * its own parser, with its own line numbers, warnings and counters. That
 * is a line that is not perf script, a sample too big for a record, a
 * line longer than FP_LINE_MAX, and a last line without LF: good input
 * has none, and bad input gets the serial reader's every rule unchanged.
 * A chunk with `#` lines (perf script --header, whose event lines a
 * reader may keep before its first sample) says so.
 *
 * Memory: at most threads + FP_PERFPAR_AHEAD chunks' records wait at any
 * time (workers wait for the caller beyond that).
 *
 *	struct fp_perfpar *pp = fp_perfpar_start(map, size, threads, srcline);
 *	at a chunk's start `pos`:
 *	const struct fp_perfpar_chunk *c = fp_perfpar_next(pp, pos);
 *	if (c && c->parsed) { c's records, c->st; } else { lines to c->end
 *	                                             serially; }
 *	fp_perfpar_release(pp);     // after each chunk, either kind
 *	fp_perfpar_stop(pp);        // joins the workers, frees everything
 */
#ifndef FP_PERFPAR_H
#define FP_PERFPAR_H

#include <stddef.h>
#include <stdint.h>

#include "fp_perfparse.h"

#define FP_PERFPAR_CHUNK (4u << 20)
/* Smaller maps are parsed by the caller alone (one chunk gains nothing). */
#define FP_PERFPAR_MIN_SIZE (2 * (size_t)FP_PERFPAR_CHUNK)
/* The furthest an empty line is looked for past a chunk's nominal end;
 * beyond it the next chunk is merged into this one. */
#define FP_PERFPAR_SEEK (1u << 20)
#define FP_PERFPAR_AHEAD 1 /* chunks parsed beyond one per worker */
#define FP_PERFPAR_THREADS_MAX 16

struct fp_perfpar_chunk {
	size_t start, end; /* bytes [start, end) of the map */
	int parsed;        /* 0: the caller parses it serially */
	int comments;      /* it has `#` lines */
	uint64_t lines;    /* lines in it (also when not parsed) */
	const char *recs;  /* the S records, LF-terminated, back to back */
	const uint32_t *lens;
	size_t nrecs;
	struct fp_perf_stats st; /* of this chunk alone */
};

struct fp_perfpar;

/* NULL when the map is too small to be worth threads (under
 * FP_PERFPAR_MIN_SIZE, or no empty line to cut a second chunk at) or
 * threads < 2. */
struct fp_perfpar *fp_perfpar_start(const char *map, size_t size, unsigned threads, int srcline);
/* The chunk that starts at pos, waiting until it is parsed; NULL if pos
 * is not the start of the next chunk (the caller goes on serially to
 * fp_perfpar_next_start). */
const struct fp_perfpar_chunk *fp_perfpar_next(struct fp_perfpar *pp, size_t pos);
/* Where the next chunk starts (the map's size after the last). */
size_t fp_perfpar_next_start(struct fp_perfpar *pp);
/* The chunk fp_perfpar_next returned is done with: its slot is reused. */
void fp_perfpar_release(struct fp_perfpar *pp);
/* Stops and joins the workers, frees pp (NULL is fine). */
void fp_perfpar_stop(struct fp_perfpar *pp);
/* Adds a chunk's counters to a parser's (every field a sum but
 * first_bad_line, which a parsed chunk never sets). */
void fp_perf_stats_add(struct fp_perf_stats *dst, const struct fp_perf_stats *src);

#endif
