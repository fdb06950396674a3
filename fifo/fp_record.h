/* fp_record.h: the stream protocol as code: classify, parse and write every
 * record type of fifo/PROTOCOL.md. Every stage, render/ and web/ go through
 * it; no other file looks at a record's tag or spells a record by hand.
 *
 * Builds without libev: writers put their bytes through a struct fp_wr
 * (fp_io.h's fp_out_wr() for a pump's output, fp_sink_wr() for render/'s
 * sink, fp_wmem for a growable buffer). Parsing never allocates: fields
 * point into the caller's line.
 *
 * Calling sequence of a filter stage:
 *
 *	tag = fp_record_tag(line, &len);       // the CR rule applied to len
 *	if (fp_sample_records(&handlers, ctx, tag, line, len))  // S, K, P
 *		return;
 *	switch (tag) {
 *	case FP_REC_HEADER: fp_header_require(line, len, in_name, lineno);
 *	case FP_REC_CONTROL: fp_control_parse(line, len, &c);
 *		if (c.kind == FP_CTL_RESET) ...
 *	...
 *	}
 *	pass it on: fp_write_line(w, line, len);
 */
#ifndef FP_RECORD_H
#define FP_RECORD_H

#include "fp_num.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FP_PROTO_VERSION 1
#define FP_PROTO_HEADER "%flamepipe\t1"

/* Frame kinds, one character per frame in a sample's kinds field. */
#define FP_KIND_KERNEL 'k'
#define FP_KIND_USER 'u'
#define FP_KIND_JIT 'j'
#define FP_KIND_INLINED 'i'
#define FP_KIND_UNKNOWN 'x'

#define FP_NSEC_PER_SEC 1000000000ull
#define FP_I64_TEXT_MAX 24 /* "-9223372036854775808", a separator, NUL */

/* Record tags: for fifo/'s own writers (fp_perfparse.c builds S records in
 * place); everyone else uses fp_record_tag() and the fp_write_*() below. */
#define FP_TAG_SAMPLE 'S'
#define FP_TAG_GEOMETRY 'G'
#define FP_TAG_CELL 'H'
#define FP_TAG_FOLDED 'F'
#define FP_TAG_FOLDED_ID 'E'
#define FP_TAG_CONTROL 'C'
#define FP_TAG_WARNING 'W'
#define FP_TAG_INFO 'I'
#define FP_TAG_HEADER '%'
#define FP_TAG_COMMENT '#'
#define FP_TAG_STACK 'D'
#define FP_TAG_REF 'R'
#define FP_TAG_TAIL 'K'
#define FP_TAG_TAIL_SAMPLE 'P'

/* pid, tid and cpu are -1 (unknown) or 0 .. FP_ID_MAX: one rule for every
 * stage (fp-read turns a larger number perf printed into -1, and an S
 * record with another value is malformed everywhere: fp-bucket, fp-range
 * and fp-fold drop it alike, so heatmap and flame graph agree). */
#define FP_ID_MAX INT32_MAX

struct fp_str {
	const char *p;
	size_t n;
};

int fp_str_eq(struct fp_str a, const char *s);

/* ---- output: where writers put their bytes ------------------------------ */

struct fp_wr {
	void (*write)(void *ctx, const void *p, size_t n);
	void *ctx;
	/* Optional: writes p and an LF in one step (fp_write_line, the
	 * records a stage passes on); NULL: write, then write the LF. */
	void (*line)(void *ctx, const void *p, size_t n);
};

/* A growable memory buffer (allocation failure exits, fp_error.h). */
struct fp_wmem {
	char *p;
	size_t len, cap;
};
struct fp_wr fp_wmem_wr(struct fp_wmem *m);
void fp_wmem_add(struct fp_wmem *m, const void *p, size_t n);
void fp_wmem_free(struct fp_wmem *m);

/* ---- the tag: one rule for every reader --------------------------------- */

enum fp_rec {
	FP_REC_EMPTY,       /* an empty line */
	FP_REC_OTHER,       /* an unknown tag: passed on, never an error */
	FP_REC_HEADER,      /* %... */
	FP_REC_COMMENT,     /* #... */
	FP_REC_SAMPLE,      /* S */
	FP_REC_GEOMETRY,    /* G */
	FP_REC_CELL,        /* H */
	FP_REC_FOLDED,      /* F */
	FP_REC_FOLDED_ID,   /* E: a snapshot's stack named by its D record's id */
	FP_REC_CONTROL,     /* C */
	FP_REC_WARNING,     /* W */
	FP_REC_INFO,        /* I */
	FP_REC_STACK,       /* D: a folded stack, defined once */
	FP_REC_REF,         /* R: a folded sample of a defined stack */
	FP_REC_TAIL,        /* K: a sample tail (event comm kinds stack), defined once */
	FP_REC_TAIL_SAMPLE, /* P: a sample whose tail is a K record's id */
};

/* The record type of line[0..*len). The CR rule: a CR that ends the line
 * (a CRLF file) is not part of the record: *len drops it, and a stage that
 * passes the record on passes it without the CR. A one-letter tag is the
 * whole first field: "S" or "S TAB ..." is a sample, "Sx ..." is unknown. */
enum fp_rec fp_record_tag(const char *line, size_t *len);

/* The records that carry samples: S, and the stack-id stream's K and P
 * (fifo/PROTOCOL.md). A stage that takes samples names its handler of each
 * in a static const table and gives every record to fp_sample_records first:
 * 1 if it was one of them (handled), 0 if not. Inline, and with the table a
 * constant the calls are direct: this is the per-record path.
 *
 * Each handler returns 0, or nonzero when the record is malformed (for K
 * and P: the FP_TAILS_* error of fp_tails.h); fp_sample_records then gives
 * the problem's text to the stage's one `bad` handler, which counts the
 * record where malformed S records are counted and writes it as the W
 * record: every stage drops a bad S, K or P record alike (PROTOCOL.md). A
 * stage with a more detailed message of its own writes it and returns 0. */
struct fp_sample_handlers {
	int (*sample)(void *ctx, const char *line, size_t len);      /* S */
	int (*tail)(void *ctx, const char *line, size_t len);        /* K */
	int (*tail_sample)(void *ctx, const char *line, size_t len); /* P */
	void (*bad)(void *ctx, const char *problem);                 /* a record refused */
};

/* The W record's text for a malformed S record; fp_tails_problem(err) for
 * a K or P record (fp_tails.c). */
#define FP_SAMPLE_DROPPED \
	"malformed S record (expected 10 or 11 TAB-separated fields, see PROTOCOL.md): dropped"
const char *fp_tails_problem(int err);

static inline int fp_sample_records(const struct fp_sample_handlers *h, void *ctx, enum fp_rec tag,
				    const char *line, size_t len)
{
	int err;

	switch (tag) {
	case FP_REC_SAMPLE:
		if (h->sample(ctx, line, len))
			h->bad(ctx, FP_SAMPLE_DROPPED);
		return 1;
	case FP_REC_TAIL:
		err = h->tail(ctx, line, len);
		break;
	case FP_REC_TAIL_SAMPLE:
		err = h->tail_sample(ctx, line, len);
		break;
	default:
		return 0;
	}
	if (err)
		h->bad(ctx, fp_tails_problem(err));
	return 1;
}

/* Passes a record on unchanged: line[0..len) and its LF. */
void fp_write_line(struct fp_wr w, const char *line, size_t len);

/* ---- % header ------------------------------------------------------------ */

/* The header's major version, or -1 if the line is not a header. */
int fp_header_version(const char *line, size_t len);
/* 0 if line is a header of FP_PROTO_VERSION, else -1. */
int fp_header_check(const char *line, size_t len);
/* fp_header_check, or exit FP_EXIT_USAGE with the one message:
 * `prog: WHERE:LINE: unsupported stream header "..": unsupported stream
 * version (expected "%flamepipe<TAB>1")`. */
void fp_header_require(const char *line, size_t len, const char *where, uint64_t lineno);
void fp_write_header(struct fp_wr w);

/* ---- S sample ------------------------------------------------------------ */

struct fp_sample {
	uint64_t time_ns;
	int64_t pid, tid;
	int64_t cpu;
	uint64_t period;
	struct fp_str event;  /* "-" when absent */
	struct fp_str comm;   /* "?" when absent */
	struct fp_str kinds;  /* one char per frame, root first */
	struct fp_str stack;  /* frames root first, ';'-joined */
	struct fp_str cgroup; /* the task's cgroup path; empty when the
				 * record has no 11th field (PROTOCOL.md) */
};

/* Parses an S record (the whole line, tag included, no LF).
 * Returns 0, or -1 if the line is not a well-formed S record (pid, tid
 * or cpu outside -1 .. FP_ID_MAX included). */
int fp_sample_parse(const char *line, size_t len, struct fp_sample *s);
/* fp_sample_parse's first part (fp_records.c, with the P parser's number
 * scanner): "S TAB time TAB pid TAB tid TAB cpu TAB period TAB" read into
 * s, *tail_off where the tail starts. 0, or -1. */
int fp_sample_head_parse(const char *line, size_t len, struct fp_sample *s, size_t *tail_off);
/* What is wrong with a line fp_sample_parse refused (for the W record). */
const char *fp_sample_problem(const char *line, size_t len);
void fp_write_sample(struct fp_wr w, const struct fp_sample *s);
/* An S record's head written backwards in front of its stack, for a
 * writer that builds the stack first (the perf script parser): the tag,
 * time, pid, tid, cpu, period, event, comm and kinds fields, each followed
 * by its TAB, end at r[h]; returns where the record now starts. The caller
 * leaves FP_SAMPLE_HEAD_MAX(en, cn, kn) bytes before h. */
#define FP_SAMPLE_HEAD_MAX(en, cn, kn) (2 + 5 * 21 + (en) + 1 + (cn) + 1 + (kn) + 1)
size_t fp_write_sample_head_back(char *r, size_t h, uint64_t time, int64_t pid, int64_t tid,
				 int64_t cpu, uint64_t period, const char *event, size_t en,
				 const char *comm, size_t cn, const char *kinds, size_t kn);

/* ---- G geometry, H cell --------------------------------------------------- */

/* The most heatmap rows (slices of a second) anything accepts: fp-bucket
 * --rows, the runner's --rows, fp-render, fp-serve's rows= (the one
 * definition). */
#define FP_ROWS_MAX 1000

struct fp_geometry {
	uint64_t rows;     /* >= 1 */
	uint64_t base_sec; /* <= UINT64_MAX / FP_NSEC_PER_SEC */
};
struct fp_cell {
	uint64_t col, row, count;
};

int fp_geometry_parse(const char *line, size_t len, struct fp_geometry *g);
int fp_cell_parse(const char *line, size_t len, struct fp_cell *c);
void fp_write_geometry(struct fp_wr w, uint64_t rows, uint64_t base_sec);
void fp_write_cell(struct fp_wr w, uint64_t col, uint64_t row, uint64_t count);

/* ---- F folded stack -------------------------------------------------------- */

struct fp_folded_rec {
	uint64_t count;
	struct fp_str stack; /* comm;frame;...;leaf, never empty */
};

int fp_folded_parse(const char *line, size_t len, struct fp_folded_rec *f);
void fp_write_folded(struct fp_wr w, uint64_t count, const char *stack, size_t n);

/* ---- E folded stack by id (fp-fold --snapshot-ids, negotiated) ---------------- */

/* `E TAB count TAB id`: in a snapshot, the F record of the stack the D
 * record `id` defined (fifo/PROTOCOL.md, "Snapshots by id"). */
struct fp_folded_id_rec {
	uint64_t count;
	uint32_t id; /* below FP_STACK_ID_MAX */
};

int fp_folded_id_parse(const char *line, size_t len, struct fp_folded_id_rec *f);
void fp_write_folded_id(struct fp_wr w, uint64_t count, uint32_t id);

/* ---- D folded stack definition, R folded sample ------------------------------ */

/* The kind of a root frame (comm, comm-PID, event) in a D record's kinds. */
#define FP_KIND_ROOT '-'
/* Stack ids are below this (they index arrays). */
#define FP_STACK_ID_MAX (UINT32_MAX - 1u)

struct fp_stack_def {
	uint32_t id;
	struct fp_str kinds;  /* one per folded frame, FP_KIND_ROOT for roots */
	struct fp_str folded; /* as in F: comm;frame;...;leaf, never empty */
};

struct fp_ref {
	uint32_t id; /* of a D record seen before */
	uint64_t time_ns;
	int64_t pid, tid, cpu;
	uint64_t period;
	uint64_t count; /* what fp-fold added to the stack's count */
	struct fp_str event, comm;
	struct fp_str cgroup; /* empty: the R record has no 11th field */
};

int fp_stack_def_parse(const char *line, size_t len, struct fp_stack_def *d);
int fp_ref_parse(const char *line, size_t len, struct fp_ref *r);
void fp_write_stack_def(struct fp_wr w, uint32_t id, const char *kinds, size_t kn,
			const char *folded, size_t fn);
void fp_write_ref(struct fp_wr w, const struct fp_ref *r);
/* The same with r's time_ns pid tid cpu period given as their text
 * head[0..n) ("time TAB pid TAB tid TAB cpu TAB period", canonical as the
 * writers write them: a P record's, fp_tail_ref_parse_head): fp-fold
 * --pass-samples copies it rather than formatting five numbers again. */
void fp_write_ref_head(struct fp_wr w, const struct fp_ref *r, const char *head, size_t n);

/* ---- K sample tail, P sample of a tail: the stack-id stream --------------------- */

/* A source asked for it (--stack-ids; the runner negotiates it, PROTOCOL.md)
 * writes each distinct tail of its S records once, as a K record, and each
 * sample as a P record: the S record's first five fields and the tail's id.
 * fifo/fp_tails.h keeps the definitions for a reader and turns a P back
 * into the struct fp_sample its S record would have parsed to. */
struct fp_tail_def {
	uint32_t id;
	struct fp_str event, comm, kinds, stack; /* as in S */
	struct fp_str cgroup;                    /* as in S: empty when the K has no 7th field */
	struct fp_str text; /* "event TAB comm TAB kinds TAB stack [TAB cgroup]" */
};

struct fp_tail_ref {
	uint64_t time_ns;
	int64_t pid, tid, cpu; /* -1 .. FP_ID_MAX, as in S */
	uint64_t period;
	uint32_t id; /* of a K record seen before */
};

/* 0, or -1 if not a well-formed K record (its tail as an S record's). */
int fp_tail_def_parse(const char *line, size_t len, struct fp_tail_def *d);
/* 0, or -1 if not a well-formed P record. */
int fp_tail_ref_parse(const char *line, size_t len, struct fp_tail_ref *r);
/* fp_tail_ref_parse, and how the line stands to fp_write_tail_ref's:
 * *head_n is the length of "P TAB time TAB pid TAB tid TAB cpu TAB period"
 * (the TAB before the id follows it), *canonical 1 when every number is
 * written as the writers write it (no leading zero, no "-0"), so that
 * fp_write_tail_ref(r) writes the line itself. */
int fp_tail_ref_parse_head(const char *line, size_t len, struct fp_tail_ref *r, size_t *head_n,
			   int *canonical);
/* K id event comm kinds stack [cgroup] */
void fp_write_tail_def(struct fp_wr w, uint32_t id, const struct fp_sample *s);
/* The same, the tail given as its text "event TAB comm TAB kinds TAB stack". */
void fp_write_tail_def_text(struct fp_wr w, uint32_t id, const char *text, size_t n);
/* P time pid tid cpu period id */
void fp_write_tail_ref(struct fp_wr w, const struct fp_tail_ref *r);
/* The same, its first five fields the text "time TAB pid TAB tid TAB cpu
 * TAB period" taken verbatim from a well-formed S record. */
void fp_write_tail_ref_head(struct fp_wr w, const char *head, size_t n, uint32_t id);

/* ---- C control ------------------------------------------------------------- */

enum fp_ctl {
	FP_CTL_OTHER,     /* an unknown verb: passed on */
	FP_CTL_RESET,     /* C reset */
	FP_CTL_FLUSH,     /* C flush */
	FP_CTL_RANGE,     /* C range FROM TO */
	FP_CTL_FILTER,    /* C filter SPEC */
	FP_CTL_BEGIN,     /* C begin WHAT */
	FP_CTL_END,       /* C end WHAT [FIELD]... */
	FP_CTL_RESTARTED, /* C restarted STAGE */
	FP_CTL_EVENTS,    /* C events NAME [NAME]... */
};

#define FP_CTL_ARGS_MAX 16

struct fp_control {
	enum fp_ctl kind;
	struct fp_str verb;
	/* the fields after the verb, at most FP_CTL_ARGS_MAX (the last one
	 * keeps any further TABs) */
	struct fp_str arg[FP_CTL_ARGS_MAX];
	size_t nargs;
	struct fp_str rest; /* everything after the verb's TAB ("" if none) */
};

/* 0, or -1 if the line is not a C record, or a known verb lacks its
 * fields (range: 2, filter, begin, end, restarted, events: 1; kind is then
 * FP_CTL_OTHER). Extra fields after a known verb's are allowed. */
int fp_control_parse(const char *line, size_t len, struct fp_control *c);
/* 1 if c is `begin WHAT` / `end WHAT` (the snapshot brackets). */
int fp_control_is(const struct fp_control *c, enum fp_ctl kind, const char *what);

void fp_write_reset(struct fp_wr w);
void fp_write_flush(struct fp_wr w);
/* from/to: decimal seconds, or "-" for an open end */
void fp_write_range(struct fp_wr w, const char *from, const char *to);
void fp_write_filter(struct fp_wr w, const char *spec, size_t n);
void fp_write_begin(struct fp_wr w, const char *what);
void fp_write_end(struct fp_wr w, const char *what, const uint64_t *fields, size_t n);
void fp_write_restarted(struct fp_wr w, const char *stage);
/* Any C record: C TAB verb [TAB arg]... */
void fp_write_control(struct fp_wr w, const char *verb, const char *const *args, size_t n);
/* C events NAME...: the capture's events in the order perf report shows
 * them (perf.data's attribute order, the order of perf record's -e),
 * written by a source before its first sample. fp_events_first gives the
 * first name of such a record (0), or -1 if c is not one. */
#define FP_EVENTS_VERB "events"
int fp_events_first(const struct fp_control *c, struct fp_str *first);

/* Timed events (PROTOCOL.md, "Off-CPU samples"): the samples a source
 * makes of scheduler tracepoints, whose period is a time in nanoseconds
 * (blocked time; the blocked time a wakeup ended). fp-bucket's cells and
 * fp-fold's counts add their period, not 1, so a heatmap cell and a flame
 * graph of them show time. */
#define FP_EVENT_OFFCPU "offcpu"
#define FP_EVENT_WAKEUP "wakeup"
static inline int fp_event_is_timed(struct fp_str ev)
{
	return ev.n == 6 &&
	       (memcmp(ev.p, FP_EVENT_OFFCPU, 6) == 0 || memcmp(ev.p, FP_EVENT_WAKEUP, 6) == 0);
}

/* ---- W warning, I statistics ---------------------------------------------- */

struct fp_warning {
	struct fp_str stage, where, message;
};

/* 0, or -1 if not a W record with its three fields. */
int fp_warning_parse(const char *line, size_t len, struct fp_warning *w);
/* W stage where message: where is "FILE:LINE", or "-" when file is NULL. TAB, CR and LF in the message become spaces. */
void fp_write_warning(struct fp_wr w, const char *stage, const char *file, uint64_t line,
		      const char *message);
/* The same with where already formatted ("file:line", or NULL for "-"). */
void fp_write_warning_at(struct fp_wr w, const char *stage, const char *where, const char *message);

struct fp_info {
	struct fp_str stage;
	struct fp_str fields; /* key=value TAB key=value ... */
};
struct fp_stat {
	const char *key;
	uint64_t value;
};

int fp_info_parse(const char *line, size_t len, struct fp_info *i);
/* 0 and *v if key=DECIMAL is among i's fields, else -1. */
int fp_info_get(const struct fp_info *i, const char *key, uint64_t *v);
void fp_write_info(struct fp_wr w, const char *stage, const struct fp_stat *kv, size_t n);
/* 0 and *v (not copied) if key=TEXT is among i's fields, else -1. */
int fp_info_get_text(const struct fp_info *i, const char *key, struct fp_str *v);
/* fp_write_info, then one last field key=text (a name: TAB, CR and LF in it
 * become spaces), e.g. I bucket-event samples=3 counted=1 event=cpu-clock. */
void fp_write_info_text(struct fp_wr w, const char *stage, const struct fp_stat *kv, size_t n,
			const char *key, const char *text);

/* ---- fields --------------------------------------------------------------- */

/* Splits line at TABs into at most max fields (the last one takes the
 * rest). Returns the number of fields. */
size_t fp_split_fields(const char *line, size_t len, struct fp_str *f, size_t max);

/* Strict decimal parsing of a whole field: fp_parse_u64 and fp_parse_i64
 * (lib/fp_num.h, included above). */

/* Parses "SECONDS[.FRACTION]" (up to 9 fraction digits) into ns; used for
 * perf timestamps and range bounds. 0 on success, -1 otherwise. */
int fp_parse_seconds_ns(const char *s, size_t n, uint64_t *ns);

/* Number of frames in a stack field (0 for an empty stack). */
size_t fp_stack_depth(struct fp_str stack);
/* 1 if stack has no TAB and kinds one character per frame of it (the
 * frames of an S, K or D record), in one pass over the stack. */
int fp_frames_ok(struct fp_str kinds, struct fp_str stack);

#endif
