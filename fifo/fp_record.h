/* fp_record.h: parse and format protocol records (see PROTOCOL.md).
 *
 * Parsing never allocates: fields point into the caller's line buffer.
 */
#ifndef FP_RECORD_H
#define FP_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "fp_io.h"

#define FP_PROTO_VERSION 1
#define FP_PROTO_HEADER "%flamepipe\t1"

/* Record tags. */
#define FP_TAG_SAMPLE 'S'
#define FP_TAG_GEOMETRY 'G'
#define FP_TAG_CELL 'H'
#define FP_TAG_FOLDED 'F'
#define FP_TAG_CONTROL 'C'
#define FP_TAG_WARNING 'W'
#define FP_TAG_INFO 'I'
#define FP_TAG_HEADER '%'

/* Frame kinds, one character per frame in a sample's kinds field. */
#define FP_KIND_KERNEL 'k'
#define FP_KIND_USER 'u'
#define FP_KIND_JIT 'j'
#define FP_KIND_INLINED 'i'
#define FP_KIND_UNKNOWN 'x'

#define FP_NSEC_PER_SEC 1000000000ull

struct fp_str {
	const char *p;
	size_t n;
};

struct fp_sample {
	uint64_t time_ns;
	int64_t pid, tid;
	int64_t cpu;
	uint64_t period;
	struct fp_str event;	/* "-" when absent */
	struct fp_str comm;	/* "?" when absent */
	struct fp_str kinds;	/* one char per frame, root first */
	struct fp_str stack;	/* frames root first, ';'-joined */
};

/* Parses an S record (the whole line, tag included, no LF).
 * Returns 0, or -1 if the line is not a well-formed S record. */
int fp_sample_parse(const char *line, size_t len, struct fp_sample *s);

/* Writes an S record with its LF. */
void fp_sample_write(struct fp_out *o, const struct fp_sample *s);

/* Splits line at TABs into at most max fields (the last one takes the
 * rest). Returns the number of fields. */
size_t fp_split_fields(const char *line, size_t len, struct fp_str *f, size_t max);

/* Strict decimal parsing of a whole field; 0 on success, -1 otherwise. */
int fp_parse_u64(const char *s, size_t n, uint64_t *out);
int fp_parse_i64(const char *s, size_t n, int64_t *out);

/* Parses "SECONDS[.FRACTION]" (up to 9 fraction digits) into ns; used for
 * perf timestamps and range bounds. 0 on success, -1 otherwise. */
int fp_parse_seconds_ns(const char *s, size_t n, uint64_t *ns);

/* Checks a '%' header line; returns its version, or -1 if malformed. */
int fp_header_version(const char *line, size_t len);

/* Number of frames in a stack field (0 for an empty stack). */
size_t fp_stack_depth(struct fp_str stack);

int fp_str_eq(struct fp_str a, const char *s);

#endif
