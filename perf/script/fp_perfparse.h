/* fp_perfparse.h: turn `perf script` text into protocol S records.
 *
 * The parser is fed one input line at a time and holds only the sample it
 * is building. It never allocates per line or per frame: the S record is
 * built back to front in one buffer (perf prints the leaf first, the record
 * wants the root first), so each frame name is copied exactly once, and the
 * finished record is handed to ops->record ready to write, LF included.
 *
 * What it accepts (see docs/fp-read.md for the details and examples):
 *  - `#` header lines (skipped), blank lines (end a sample), CRLF.
 *  - event lines `comm pid/tid [cpu] secs.frac: period event: ...` in every
 *    `perf script -F` variant that prints the time; the timestamp is the
 *    first token of the form digits.digits followed by ':'.
 *  - frame lines `\t<hex addr> <sym>+0x<off> (<dso>)`, leaf first, and the
 *    single frame perf prints on the event line when recorded without -g.
 *  - `PERF_RECORD_LOST` lines (counted as lost events, not samples) and
 *    other `PERF_RECORD_*` side-band lines (counted, skipped).
 *  - srcline lines (`-F +srcline`: `  file.c:12`, indented with spaces,
 *    after a frame): skipped, or appended with the srcline option; their
 *    `(inlined)` marker makes a frame without a dso an inlined frame
 *    (kind i), as `(inlined)` in the dso place does.
 *
 * Calling sequence:
 *
 *	struct fp_perf_parser pp;
 *	fp_perf_init(&pp, &my_ops, my_ctx);
 *	for each line: fp_perf_line(&pp, line, len);   // LF removed, CR may stay
 *	(a line that was too long to deliver: fp_perf_line_too_long(&pp))
 *	fp_perf_finish(&pp);        // emits the last sample if it is pending
 *	... pp.st holds the counters ...
 *	fp_perf_free(&pp);
 */
#ifndef FP_PERFPARSE_H
#define FP_PERFPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "fp_record.h" /* struct fp_str */

/* Why a line was not understood or a sample was dropped (ops->problem). */
enum fp_perf_problem {
	FP_PERF_BAD_LINE,       /* neither event, frame, header nor blank line */
	FP_PERF_SAMPLE_TOO_BIG, /* S record would exceed FP_LINE_MAX: dropped */
};

struct fp_perf_ops {
	/* A complete S record, LF included (len <= FP_LINE_MAX). */
	void (*record)(void *ctx, const char *rec, size_t len);
	/* Bad input: what went wrong, and the offending line (may be NULL for
	 * FP_PERF_SAMPLE_TOO_BIG). Optional. */
	void (*problem)(void *ctx, enum fp_perf_problem what, const char *line, size_t len);
};

struct fp_perf_stats {
	uint64_t lines;         /* every line seen, including too long ones */
	uint64_t samples;       /* S records emitted */
	uint64_t frames;        /* frames in the emitted samples */
	uint64_t bad_lines;     /* lines that are not perf script */
	uint64_t lost_events;   /* sum of N over `PERF_RECORD_LOST lost N` */
	uint64_t lost_records;  /* number of PERF_RECORD_LOST* lines */
	uint64_t other_records; /* other PERF_RECORD_* lines (mmap, comm...) */
	uint64_t comment_lines; /* `#` header lines */
	uint64_t skipped_lines; /* indented non-frame lines inside a sample
				 * (e.g. -F srcline), and frames after a too
				 * long line */
	uint64_t too_long_lines;
	uint64_t dropped_samples; /* by a too long line or a too big record */
	uint64_t first_bad_line;  /* line number of the first bad line, or 0 */
};

#define FP_PERF_DSO_CACHE_BITS 6 /* 64 dso names remembered */
#define FP_PERF_DSO_CACHE (1u << FP_PERF_DSO_CACHE_BITS)
#define FP_PERF_DSO_CACHE_TEXT 120 /* longest dso name remembered */
#define FP_PERF_SRCLINE_MAX 512    /* srcline text appended, at most */

struct fp_perf_parser {
	const struct fp_perf_ops *ops;
	void *ctx;
	struct fp_perf_stats st;
	/* Option (set after fp_perf_init): the line perf -F +srcline prints
	 * after a frame is appended to its name, `name:file.c:12`, as
	 * stackcollapse-perf.pl --srcline does ([..] parts and the
	 * " (inlined)" marker removed). Without it those lines are skipped. */
	int srcline;

	/* private: the sample being built */
	int in_sample;  /* an event line was seen, sample pending */
	int discarding; /* drop frame lines until the next sample */
	int overflow;   /* the record no longer fits: drop it */
	int line_frame; /* the only frame came from the event line */
	uint64_t time_ns, period;
	int64_t pid, tid, cpu;
	size_t nframes;
	size_t last_len;  /* length of the latest (most rootward) name */
	int srcline_done; /* the latest frame had its srcline line */
	char *rec;        /* record buffer: built from the end down */
	size_t rec_head;  /* stack occupies rec[rec_head .. stack_end) */
	char *kinds;      /* kinds, built from the end down */
	size_t kinds_head;
	char *hdr; /* comm, then event (already sanitized) */
	size_t comm_len, event_len;

	/* Dso names seen lately, with their kind, by a hash of their last 8
	 * bytes: every frame line ends in its dso, and matching that end
	 * against the one entry it hashes to is cheaper than finding the
	 * group and classifying it again, however many dsos a capture has
	 * (a system-wide one has dozens: a list of a few missed most). */
	struct {
		uint32_t len;
		char kind;
		char text[FP_PERF_DSO_CACHE_TEXT];
	} dso_cache[FP_PERF_DSO_CACHE];
};

void fp_perf_init(struct fp_perf_parser *pp, const struct fp_perf_ops *ops, void *ctx);
/* One input line without its LF (a trailing CR is ignored). */
void fp_perf_line(struct fp_perf_parser *pp, const char *line, size_t len);
/* The reader skipped a line longer than FP_LINE_MAX: the pending sample is
 * dropped, and frame lines are ignored until the next event or blank line. */
void fp_perf_line_too_long(struct fp_perf_parser *pp);
/* End of input: emits the pending sample (a last sample without a trailing
 * blank line is kept). */
void fp_perf_finish(struct fp_perf_parser *pp);
void fp_perf_free(struct fp_perf_parser *pp);

/* The header of one perf script event line, for readers that want the
 * event rather than a sample (fp-latency's tracepoints):
 *	comm pid/tid [cpu] secs.frac: [period] event: rest
 * in every -F variant that prints the time (the same rules as the
 * parser's: fp_perf_line uses it too). Fields point into the line. */
struct fp_perf_event {
	uint64_t time_ns, period; /* period 1 when none is printed */
	int64_t pid, tid, cpu;    /* -1: not printed (or not an id) */
	struct fp_str comm;       /* trimmed; n == 0 when absent */
	struct fp_str event;      /* without its ':'; n == 0 when absent */
	struct fp_str rest;       /* after the event: payload or a frame */
	int side_band;            /* a PERF_RECORD_* line (rest is it) */
};
/* 0, or -1 if the line is not a perf event line. */
int fp_perf_event_line(const char *line, size_t n, struct fp_perf_event *ev);

/* Exposed for unit tests. */
/* Parses "digits.digits" (1..9 fraction digits) into ns; 0 or -1. */
int fp_perf_parse_time(const char *s, size_t n, uint64_t *ns);
/* The frame kind of a dso name (FP_KIND_*); n == 0 means "no dso". */
char fp_perf_dso_kind(const char *dso, size_t n);

/* Whether s[0..n) is not empty and all decimal (hex) digits: the token
 * rules of perf script text, for the other parsers of it. */
int fp_all_digits(const char *s, size_t n);
int fp_all_hex(const char *s, size_t n);

#endif
