/* fp-read: turn `perf script` text into a flamepipe stream of S records.
 *
 * Interface:
 *	fp-read [--name NAME] [--live] [--live-buffer BYTES] [--srcline] [--stack-ids]
 *		[--threads N] [-q] [FILE]
 *
 * --threads N: a regular uncompressed FILE is mapped and parsed by N
 * threads, 4 MiB chunks cut at empty lines (perf/script/fp_perfpar.h),
 * the records written in file order: the stream of one parser (0, the
 * default: one thread per CPU this process may use, lib/fp_cpus.h).
 *
 * --stack-ids: the stack-id stream (fifo/PROTOCOL.md; the runner asks for
 * it when every stage that reads the samples reads it): each distinct
 * sample tail (event, comm, kinds, stack) once as a K record, each sample
 * as a P record naming it, instead of S records.
 *
 * --srcline: input from `perf script -F +srcline`: each frame's name gets
 * `:file.c:12` from the line after it (stackcollapse-perf.pl --srcline), so
 * the graph folds by source line.
 *
 * Input: `perf script` output (any -F field list that includes the time,
 * with or without -g, --header, --show-lost-events), plain or gzip
 * (detected by content, concatenated members too), from FILE or stdin.
 * A FIFO works as FILE. CRLF line ends are accepted.
 *
 * Output (fifo/PROTOCOL.md): `%flamepipe 1`, one S record per sample, in
 * input order (root-first stacks, see perf/script/fp_perfparse.h for the rules),
 * W records for bad input, and at end of input one
 *	I TAB read TAB lines=.. samples=.. frames=.. bad_lines=.. lost_events=..
 *	lost_records=.. other_records=.. skipped_lines=.. too_long_lines=..
 *	dropped_samples=.. bytes=..
 * (bytes: perf script text read, after gzip inflation, so every input form
 * gives the same output).
 * Only the sample being read is held in memory (with threads, the records
 * of a few chunks).
 *
 * Live mode (--live, used by `flamepipe live`; docs/live.md): the source
 * (perf) must never be blocked by a slow chain, so input is always read
 * (FP_PUMP_NEVER_BLOCK). While more than --live-buffer bytes (default
 * FP_OUT_HIGH) wait for the next stage, whole samples are dropped and
 * counted instead of written.
 * When the output has room again (at most once per FP_DROP_REPORT_INTERVAL)
 * a `W read - dropped N samples ...` record, an `I read dropped=N` record
 * (N counts every drop so far) and a line on stderr report them. In live
 * mode the full I record (with dropped=N added) is also written about once
 * per STATS_INTERVAL while samples arrive, so views can show live counts.
 *
 * Bad input: a line that is not perf script is counted, reported in a W
 * record and on stderr as `fp-read: FILE:LINE: ...` with non-printable
 * bytes escaped as \xHH (the first FP_WARNINGS_SHOWN of each kind, then a
 * total per kind at end of input), and the
 * sample it interrupts is ended. If no sample was found and bad lines were
 * (the input is not perf script at all), fp-read stops and exits 1 naming
 * the first bad line.
 *
 * Progress: when flamepipe sets FLAMEPIPE_PROGRESS_FD (a datagram socket),
 * `samples=N bytes=M` (M: bytes read from the input, before gunzip) is
 * sent there every PROGRESS_EVERY samples and at the end, for the
 * runner's progress and summary lines; never blocking.
 *
 * Signals: SIGINT/SIGTERM end the input at a line boundary; the pending
 * sample and the I record are written.
 * A recording (fifo/fp_recording.h) with damaged batches: they are
 * skipped, every other batch is read, a W record says what was skipped
 * and the I record counts it (damaged_batches= damaged_samples=
 * damaged_bytes= damaged_regions=); the exit code is 1 unless
 * --damage-ok (fp-serve's, which shows the count instead).
 * Exit codes: 0 ok, 1 bad input (not perf script, corrupt or truncated
 * gzip, a damaged recording; the samples around the damage were written), 100 usage, 111 cannot
 * open or read the input, 141 the reader went away.
 * docs/fp-read.md has the details.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "fp_cpus.h"
#include "fp_error.h"
#include "fp_io.h"
#include "fp_opts.h"
#include "fp_perfpar.h"
#include "fp_perfparse.h"
#include "fp_quote.h"
#include "fp_record.h"
#include "fp_runnermsg.h"
#include "fp_tails.h"
#include "fp_warnings.h"
#include "fp_recording.h"

#define USAGE                                                                             \
	"usage: fp-read [--name NAME] [--live] [--live-buffer BYTES] [--time START,END] " \
	"[--index] [--srcline] [--stack-ids] [--damage-ok] [--threads N] [-q] [FILE]"

#define DEFAULT_STAGE_NAME "read"
/* Warnings of one kind (W records and stderr lines) shown before the rest
 * of that kind are only counted; the count is reported at end of input. */
/* Bad lines with no sample yet after which the input is taken for
 * something that is not perf script, and reading stops. */
#define BAD_LINES_BEFORE_GIVING_UP 10
/* How much of a bad line a message quotes (input bytes). */
#define EXCERPT_MAX 40
#define EXCERPT_CAP FP_QUOTE_CAP(EXCERPT_MAX)
#define MSG_MAX 512
/* How much of the input's name messages show (bytes before escaping). */
#define NAME_SHOWN_MAX 200
#define NAME_CAP FP_QUOTE_CAP(NAME_SHOWN_MAX)
#define EXPECTED_EVENT_LINE                  \
	"expected a perf script event line " \
	"(comm pid/tid [cpu] secs.frac: [period] [event:])"

/* Warnings are throttled per kind: a flood of one kind (a binary file, a
 * wrong -F list) must not hide the first warning of another. */
enum warn_kind { WARN_BAD_LINE, WARN_TOO_LONG, WARN_TOO_BIG, WARN_CUT, WARN_KINDS };

static const char *const warn_kind_name[WARN_KINDS] = {
	[WARN_BAD_LINE] = "bad line",
	[WARN_TOO_LONG] = "line too long",
	[WARN_TOO_BIG] = "sample too big",
	[WARN_CUT] = "input cut",
};
/* Live mode: seconds between two drop reports, and between two live
 * I records (both keep the stream and stderr quiet under sustained load). */
#define STATS_INTERVAL 1.0
/* --live-buffer range: at least a few records, at most what fp_out lets
 * a stage hold without blocking. */
#define LIVE_BUFFER_MIN 4096
/* Samples between two reports to the runner's progress line. */
#define PROGRESS_EVERY 4096
/* perf script --header: one line per event, in attribute order */
#define EVENT_HEADER_PREFIX "# event : name = "
#define EVENTS_MAX 256 /* as fp-perfdata's PD_MAX_EVSELS */
#define LIVE_BUFFER_MAX FP_OUT_HIGH

struct reader {
	struct fp_pump pump;
	struct fp_perf_parser parser;
	unsigned threads;       /* --threads: parsers of a mapped file (0: one a CPU) */
	struct fp_perfpar *par; /* those parsers at work, or NULL */
	int par_tried;
	int stack_ids; /* --stack-ids: K and P records instead of S */
	struct fp_tailw tails;
	int quiet;
	int live;              /* --live: drop samples rather than block */
	size_t live_buffer;    /* drop while more than this is waiting */
	struct fp_drops drops; /* live: samples dropped */
	ev_tstamp last_stats;
	uint64_t stats_samples;      /* samples as of the last live I record */
	struct fp_warnings warnings; /* by warn_kind */
	int not_perf;                /* gave up: the input is not perf script */
	char first_bad[EXCERPT_CAP]; /* quoted excerpt of the first bad line */
	int progress_fd;             /* the runner's progress socket, or 0: none */
	uint64_t progress_next;      /* samples count of the next report */
	uint64_t from_ns, to_ns;     /* --time: samples in [from, to) only */
	uint64_t outside;            /* samples outside --time (not written) */
	/* perf script --header's "# event : name = NAME, ..." lines, in
	 * attribute order (perf report's), sent on as C events before the
	 * first sample */
	char *events[EVENTS_MAX];
	size_t nevents;
	int events_written;
};

/* The input's name as messages show it (escaped, cut). dst: NAME_CAP. */
static const char *shown_name(const struct reader *r, char *dst)
{
	return fp_quote_name(dst, r->pump.in_name, NAME_SHOWN_MAX);
}

/* `prog: FILE:LINE: msg` on stderr in one write (stages share stderr). */
static void say(const struct reader *r, uint64_t lineno, const char *msg)
{
	char name[NAME_CAP], buf[MSG_MAX + NAME_CAP + 64];
	int n = snprintf(buf, sizeof buf, "%s: %s:%llu: %s\n", fp_prog(), shown_name(r, name),
			 (unsigned long long)lineno, msg);

	if (n < 0)
		return;
	if ((size_t)n >= sizeof buf) {
		n = sizeof buf - 1;
		buf[n - 1] = '\n';
	}
	fwrite(buf, 1, (size_t)n, stderr);
}

/* The samples the stack-id writer still holds (fp_tailw_defer), out
 * before any other record, so the stream keeps its order. */
static void flush_tails(struct reader *r)
{
	if (r->stack_ids)
		fp_tailw_flush(&r->tails, fp_out_wr(&r->pump.out));
}

/* W <stage> <file>:<line> <message> downstream, and the same on stderr
 * unless -q. */
static void write_warning(struct reader *r, const char *msg)
{
	struct fp_pump *p = &r->pump;
	char name[NAME_CAP];

	flush_tails(r);
	if (!r->quiet)
		say(r, p->lineno, msg);
	fp_write_warning(fp_out_wr(&p->out), p->stage, shown_name(r, name), p->lineno, msg);
}

static void say_warning(void *ctx, const char *msg)
{
	write_warning(ctx, msg);
}

/* Rate-limited per kind (fifo/fp_warnings.h): after FP_WARNINGS_SHOWN
 * only counted. */
static void reader_warn(struct reader *r, enum warn_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void reader_warn(struct reader *r, enum warn_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fp_warnings_vsay(&r->warnings, kind, fmt, ap);
	va_end(ap);
}

/* ---- parser callbacks -------------------------------------------------- */

static void report_drops(struct reader *r, int force);

/* `samples=N bytes=M` to the runner's progress line (FLAMEPIPE_PROGRESS_FD, a
 * datagram socket the runner reads): never blocks, never SIGPIPE; a lost
 * report is fine, the next one carries the total. */
static void report_progress(struct reader *r)
{
	if (fp_runnermsg_send_read(r->progress_fd, r->parser.st.samples, r->pump.bytes_in) < 0)
		r->progress_fd = 0; /* not a socket, or gone: stop */
}

/* The time of an S record's text (its second field). */
static uint64_t record_time(const char *rec, size_t len)
{
	struct fp_str f[3];
	uint64_t t = 0;

	if (fp_split_fields(rec, len, f, 3) == 3)
		fp_parse_u64(f[1].p, f[1].n, &t);
	return t;
}

/* A header line "# event : name = NAME, , id = {...}, ..." (perf script
 * --header, one per event in attribute order): NAME kept for C events.
 * perf's dummy event (side-band records, never a sample) is left out. */
static void header_event(struct reader *r, const char *line, size_t len)
{
	size_t pl = sizeof EVENT_HEADER_PREFIX - 1;

	if (len <= pl || memcmp(line, EVENT_HEADER_PREFIX, pl) || r->nevents == EVENTS_MAX)
		return;
	const char *name = line + pl, *end = line + len;
	if (end[-1] == '\r') /* CRLF text: the CR is not part of the name */
		end--;
	const char *comma = name;
	while (comma + 1 < end && !(comma[0] == ',' && comma[1] == ' '))
		comma++;
	size_t n = comma + 1 < end ? (size_t)(comma - name) : (size_t)(end - name);
	if (!n || (n >= 5 && !memcmp(name, "dummy", 5) && (n == 5 || name[5] == ':')))
		return;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return; /* a TAB or control byte: not a name a record can carry */
	r->events[r->nevents++] = fp_xstrndup(name, n);
}

static void write_events(struct reader *r)
{
	r->events_written = 1;
	flush_tails(r);
	if (r->nevents)
		fp_write_control(fp_out_wr(&r->pump.out), FP_EVENTS_VERB,
				 (const char *const *)r->events, r->nevents);
}

static void on_record(void *ctx, const char *rec, size_t len)
{
	struct reader *r = ctx;

	if (__builtin_expect(!r->events_written, 0))
		write_events(r);

	size_t n = len;

	if ((r->from_ns || r->to_ns != UINT64_MAX) && fp_record_tag(rec, &n) == FP_REC_SAMPLE) {
		uint64_t t = record_time(rec, len);

		if (t < r->from_ns || t >= r->to_ns) {
			r->outside++;
			return;
		}
	}

	if (r->progress_fd && r->parser.st.samples >= r->progress_next) {
		report_progress(r);
		r->progress_next = r->parser.st.samples + PROGRESS_EVERY;
	}

	if (r->live) {
		/* Downstream is behind: drop the whole sample, never block. */
		if (r->pump.out.len > r->live_buffer) {
			r->drops.dropped++;
			return;
		}
		if (r->drops.dropped != r->drops.reported)
			report_drops(r, 0);
	}
	n = len;
	if (r->stack_ids && fp_record_tag(rec, &n) == FP_REC_SAMPLE)
		fp_tailw_write_line(&r->tails, fp_out_wr(&r->pump.out), rec, len);
	else {
		flush_tails(r);
		fp_out_write(&r->pump.out, rec, len);
	}
}

static void on_problem(void *ctx, enum fp_perf_problem what, const char *line, size_t len)
{
	struct reader *r = ctx;
	char ex[EXCERPT_CAP];

	switch (what) {
	case FP_PERF_BAD_LINE:
		fp_quote_excerpt(ex, line, len, EXCERPT_MAX);
		if (r->parser.st.bad_lines == 1)
			memcpy(r->first_bad, ex, sizeof ex);
		reader_warn(r, WARN_BAD_LINE,
			    EXPECTED_EVENT_LINE ", a frame line "
						"or a blank line, got %s",
			    ex);
		if (r->parser.st.samples == 0 &&
		    r->parser.st.bad_lines >= BAD_LINES_BEFORE_GIVING_UP) {
			r->not_perf = 1;
			fp_pump_stop(&r->pump);
		}
		break;
	case FP_PERF_SAMPLE_TOO_BIG:
		reader_warn(r, WARN_TOO_BIG,
			    "sample ending here needs a record longer than %u "
			    "bytes: dropped",
			    FP_LINE_MAX);
		break;
	}
}

static const struct fp_perf_ops perf_ops = {
	.record = on_record,
	.problem = on_problem,
};

/* ---- pump callbacks ---------------------------------------------------- */

/* The last line had no LF and a sample is pending: the file was cut (perf
 * ends every sample with a blank line). A frame line cut before its
 * `(dso)` would become an invented frame: dropped. Returns 1 if dropped. */
static int cut_line(struct reader *r, const char *line, size_t len)
{
	int frame = len && (line[0] == '\t' || line[0] == ' ');

	if (!r->parser.in_sample)
		return 0;
	if (len && line[len - 1] == '\r')
		len--;
	if (frame && line[len - 1] != ')') {
		reader_warn(r, WARN_CUT,
			    "the input ends in the middle of a frame line "
			    "(file cut?): the partial frame is dropped, its sample kept");
		r->parser.st.skipped_lines++;
		r->parser.st.lines++;
		return 1;
	}
	reader_warn(r, WARN_CUT,
		    "the input ends without a final newline inside a sample "
		    "(file cut?)");
	return 0;
}

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	struct reader *r = p->ctx;

	if (__builtin_expect(p->unterminated, 0) && cut_line(r, line, len))
		return;
	if (__builtin_expect(len && line[0] == '#', 0) && !r->events_written)
		header_event(r, line, len);
	fp_perf_line(&r->parser, line, len);
}

/* A mapped file: its chunks parsed ahead on r->threads threads
 * (perf/script/fp_perfpar.h), each one's records written here in file
 * order as if this stage's parser had made them. A chunk the threads left
 * to us, and anything before the first chunk, goes line by line. */
static size_t on_map_block(struct fp_pump *p, const char *map, size_t size, size_t pos,
			   uint64_t *lines, size_t *serial_end)
{
	struct reader *r = p->ctx;

	if (!r->par_tried && pos == 0 && !r->live && size >= FP_PERFPAR_MIN_SIZE) {
		/* (the cgroup files are read only for a file this big) */
		unsigned n = r->threads ? r->threads : fp_cpus_usable(FP_PERFPAR_THREADS_MAX);

		r->par = fp_perfpar_start(map, size, n, r->parser.srcline);
	}
	r->par_tried = 1;
	if (!r->par) {
		*serial_end = size;
		return 0;
	}
	const struct fp_perfpar_chunk *c = fp_perfpar_next(r->par, pos);

	if (!c) {
		*serial_end = fp_perfpar_next_start(r->par);
		return 0;
	}
	if (!c->parsed || (c->comments && !r->events_written)) {
		/* (perf script --header's event lines: header_event's) */
		*serial_end = c->end;
		fp_perfpar_release(r->par);
		return 0;
	}
	const char *rec = c->recs;

	for (size_t i = 0; i < c->nrecs; rec += c->lens[i++])
		on_record(r, rec, c->lens[i]);
	fp_perf_stats_add(&r->parser.st, &c->st);
	*lines = c->lines;
	size_t n = c->end - c->start;

	fp_perfpar_release(r->par);
	return n;
}

static void on_too_long(struct fp_pump *p, uint64_t lineno)
{
	struct reader *r = p->ctx;
	int had_sample = r->parser.in_sample;

	(void)lineno; /* == p->lineno, which reader_warn prints */
	fp_perf_line_too_long(&r->parser);
	reader_warn(r, WARN_TOO_LONG, "line longer than %u bytes skipped%s", FP_LINE_MAX,
		    had_sample ? ", its sample dropped" : "");
}

static void write_stats(struct reader *r)
{
	uint64_t samples_out = r->parser.st.samples - (r->live ? r->drops.dropped : 0) - r->outside;
	const struct fp_perf_stats *st = &r->parser.st;
	struct fp_out *o = &r->pump.out;
	struct fp_stat stats[] = {
		{ "lines", st->lines },
		{ "samples", samples_out },
		{ "frames", st->frames },
		{ "bad_lines", st->bad_lines },
		{ "lost_events", st->lost_events },
		{ "lost_records", st->lost_records },
		{ "other_records", st->other_records },
		{ "skipped_lines", st->skipped_lines },
		{ "too_long_lines", st->too_long_lines },
		{ "dropped_samples", st->dropped_samples },
		{ "bytes", r->pump.text_bytes }, /* perf text, after gzip */
		{ NULL, 0 },                     /* live: dropped= */
	};
	size_t n = sizeof stats / sizeof stats[0];

	flush_tails(r);
	/* live: the last key is dropped= (samples dropped not to block perf) */
	stats[n - 1] = (struct fp_stat){ "dropped", r->drops.dropped };
	fp_write_info(fp_out_wr(o), r->pump.stage, stats, r->live ? n : n - 1);
}

/* Live mode: W record, `I read dropped=N` and a stderr line for the
 * samples dropped since the last report. Not more than once per
 * FP_DROP_REPORT_INTERVAL unless forced (end of input). The records are small
 * and only written when the output has room again, so they are never lost
 * to the same congestion they report. */
static void report_drops(struct reader *r, int force)
{
	struct fp_pump *p = &r->pump;
	ev_tstamp now = ev_now(p->loop);

	if (!fp_drops_due(&r->drops, now, force))
		return;
	flush_tails(r);
	fp_drops_report(&r->drops, now, force, fp_out_wr(&p->out), p->stage, p->in_name, r->quiet);
}

/* Live mode, input idle for now: catch up on drop reports, and publish the
 * counters now and then while samples arrive. */
static void on_idle(struct fp_pump *p)
{
	struct reader *r = p->ctx;
	ev_tstamp now = ev_now(p->loop);

	flush_tails(r); /* a pausing input: what it gave goes out now */
	if (!r->live || p->out.len > r->live_buffer)
		return;
	report_drops(r, 0);
	if (r->parser.st.samples != r->stats_samples && now - r->last_stats >= STATS_INTERVAL) {
		r->last_stats = now;
		r->stats_samples = r->parser.st.samples;
		write_stats(r);
	}
}

static void on_eof(struct fp_pump *p)
{
	struct reader *r = p->ctx;

	fp_perfpar_stop(r->par); /* the input ended, or the stage stops */
	r->par = NULL;
	fp_perf_finish(&r->parser);
	flush_tails(r);
	if (r->progress_fd)
		report_progress(r);
	if (r->live)
		report_drops(r, 1);
	fp_warnings_end(&r->warnings); /* per kind: how many were not shown */
	write_stats(r);
}

static const struct fp_pump_ops pump_ops = {
	.line = on_line,
	.eof = on_eof,
	.idle = on_idle,
	.too_long = on_too_long,
	.map_block = on_map_block,
};

/* ---- main -------------------------------------------------------------- */

struct options {
	const char *stage;
	const char *path;
	int quiet;
	int live;
	size_t live_buffer;
	int progress_fd;         /* from $FLAMEPIPE_PROGRESS_FD; 0: none */
	uint64_t from_ns, to_ns; /* --time START,END (absolute perf time) */
	int has_time;            /* --time given (else every sample) */
	int index;               /* --index: print a recording's time index */
	int srcline;             /* --srcline: frame names get :file:line */
	int stack_ids;           /* --stack-ids: the stack-id stream (K, P) */
	int damage_ok;           /* --damage-ok: skipped damage does not make exit 1 */
	uint64_t threads;        /* --threads N: parsers of a mapped file (0: one per CPU) */
};

/* --time START,END: perf timestamps in seconds (as perf script prints
 * them), either may be empty: [START, END). */
static void parse_time(const char *arg, struct options *o)
{
	const char *comma = strchr(arg, ',');

	o->from_ns = 0;
	o->to_ns = UINT64_MAX;
	o->has_time = 1;
	if (!comma ||
	    (comma > arg && fp_parse_seconds_ns(arg, (size_t)(comma - arg), &o->from_ns) < 0) ||
	    (comma[1] && fp_parse_seconds_ns(comma + 1, strlen(comma + 1), &o->to_ns) < 0))
		fp_die(FP_EXIT_USAGE,
		       "--time: expected START,END in seconds (either may be "
		       "empty), got \"%s\"",
		       arg);
}

static void opt_time(void *ctx, const char *opt, const char *arg)
{
	parse_time(arg, ctx);
}

static void parse_options(int argc, char **argv, struct options *o)
{
	uint64_t live_buffer = LIVE_BUFFER_MAX;
	const struct fp_opt options[] = {
		{ "name", FP_OPT_NAME, &o->stage },
		{ "quiet", FP_OPT_FLAG, &o->quiet, .short_name = 'q' },
		{ "live", FP_OPT_FLAG, &o->live },
		{ "live-buffer", FP_OPT_U64, &live_buffer, LIVE_BUFFER_MIN, LIVE_BUFFER_MAX },
		{ "time", FP_OPT_FN, .fn = opt_time },
		{ "index", FP_OPT_FLAG, &o->index },
		{ "srcline", FP_OPT_FLAG, &o->srcline },
		{ "stack-ids", FP_OPT_FLAG, &o->stack_ids },
		{ "damage-ok", FP_OPT_FLAG, &o->damage_ok },
		{ "threads", FP_OPT_U64, &o->threads, 0, FP_PERFPAR_THREADS_MAX },
		{ NULL },
	};
	int first;

	o->stage = DEFAULT_STAGE_NAME;
	first = fp_opts_parse(argc, argv, options, USAGE, 1, o);
	o->live_buffer = (size_t)live_buffer;
	o->path = first < argc ? argv[first] : NULL;
}

static int open_input(const char *path)
{
	if (!path || strcmp(path, "-") == 0)
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fp_die_sys(FP_EXIT_SYS, "cannot open '%s'", path);
	return fd;
}

/* ---- recordings (recording/fp_recording.h) ---------------------------------- */

struct rec_reader {
	struct reader *r;
	struct fp_out out;
	uint64_t samples, bad, bytes;
};

/* W <stage> <file> <message> downstream, and on stderr unless -q. */
static void rec_warn(struct rec_reader *rr, const char *msg)
{
	struct reader *r = rr->r;
	char name[NAME_CAP];

	if (!r->quiet)
		fp_warn("%s: %s", shown_name(r, name), msg);
	fp_write_warning_at(fp_out_wr(&rr->out), r->pump.stage, shown_name(r, name), msg);
}

static void rec_line(void *ctx, char *line, size_t len)
{
	struct rec_reader *rr = ctx;
	struct reader *r = rr->r;
	struct fp_sample s;

	rr->bytes += len + 1;
	enum fp_rec tag = fp_record_tag(line, &len);
	if (tag == FP_REC_CONTROL && !r->events_written) {
		/* every batch repeats the source's C events: passed on once */
		struct fp_control c;
		if (fp_control_parse(line, len, &c) == 0 && c.kind == FP_CTL_EVENTS) {
			r->events_written = 1;
			fp_write_line(fp_out_wr(&rr->out), line, len);
		}
		return;
	}
	if (tag != FP_REC_SAMPLE)
		return; /* the batch's %flamepipe header */
	if (fp_sample_parse(line, len, &s) < 0) {
		rr->bad++;
		return;
	}
	if (s.time_ns < r->from_ns || s.time_ns >= r->to_ns)
		return;
	rr->samples++;
	if (r->stack_ids)
		fp_tailw_write_line(&r->tails, fp_out_wr(&rr->out), line, len);
	else
		fp_write_line(fp_out_wr(&rr->out), line, len);
}

/* A recording: its S records (those in --time), read batch by batch
 * through the index, up to its last complete batch, and an I record that
 * says which part of the capture it kept. */
static int read_recording(struct reader *r, const struct options *o, int fd, int out_fd,
			  const char *in_name)
{
	static struct rec_reader rr;
	struct fp_rec_index ix = { 0 };
	char err[MSG_MAX / 2], msg[MSG_MAX];
	int rc = FP_EXIT_OK;

	r->pump.in_name = in_name;
	r->pump.stage = o->stage;
	rr.r = r;
	fp_out_init(&rr.out, EV_DEFAULT, out_fd);
	fp_write_header(fp_out_wr(&rr.out));
	if (fp_rec_scan(fd, &ix) < 0)
		fp_die_sys(FP_EXIT_SYS, "cannot read '%s'", in_name);
	struct fp_rec_skips unreadable = { 0 };

	fp_rec_each_line(fd, &ix, r->from_ns, r->to_ns, rec_line, &rr, &unreadable, err,
			 sizeof err);
	struct fp_rec_skips sk = ix.skips; /* the index's damage and the members' */

	sk.members += unreadable.members;
	sk.samples += unreadable.samples;
	sk.bytes += unreadable.bytes;
	if (unreadable.members && (!ix.skips.regions || unreadable.first_at < sk.first_at))
		sk.first_at = unreadable.first_at;
	if (sk.regions || sk.members) {
		size_t used;

		fp_rec_skips_describe(&sk, msg, sizeof msg);
		used = strlen(msg);
		if (unreadable.members && used < sizeof msg)
			snprintf(msg + used, sizeof msg - used, "; the first unreadable one: %.*s",
				 (int)(sizeof msg - used > 40 ? sizeof msg - used - 40 : 0), err);
		rec_warn(&rr, msg);
		if (!o->damage_ok)
			rc = FP_EXIT_DATA;
	}
	if (ix.truncated) {
		snprintf(
			msg, sizeof msg,
			"the recording ends with an incomplete batch at byte %llu "
			"(being written, or the recorder was stopped while writing it): read up to "
			"the last complete batch",
			(unsigned long long)ix.end);
		rec_warn(&rr, msg);
	}
	if (rr.bad) {
		snprintf(msg, sizeof msg, "%llu malformed S records in the recording: skipped",
			 (unsigned long long)rr.bad);
		rec_warn(&rr, msg);
	}
	uint64_t from = UINT64_MAX, to = 0, dropped = ix.n ? ix.m[0].samples_before : 0;

	for (size_t i = 0; i < ix.n; i++) {
		from = ix.m[i].min_ns < from ? ix.m[i].min_ns : from;
		to = ix.m[i].max_ns > to ? ix.m[i].max_ns : to;
	}
	if (dropped) {
		snprintf(msg, sizeof msg,
			 "retention: the recording keeps %.3f..%.3f s (perf time) "
			 "of a capture that began at %.3f s: the %llu oldest samples were dropped",
			 from / 1e9, to / 1e9, ix.m[0].capture_min_ns / 1e9,
			 (unsigned long long)dropped);
		rec_warn(&rr, msg);
	}
	const struct fp_stat stats[] = {
		{ "samples", rr.samples },
		{ "bad_lines", rr.bad },
		{ "bytes", rr.bytes },
		{ "recording", 1 },
		{ "batches", ix.n },
		{ "kept_from_ns", ix.n ? from : 0 },
		{ "kept_to_ns", to },
		{ "retention_dropped", dropped },
		{ "capture_from_ns", ix.n ? ix.m[0].capture_min_ns : 0 },
		{ "damaged_batches", sk.members },
		{ "damaged_samples", sk.samples },
		{ "damaged_bytes", sk.bytes },
		{ "damaged_regions", sk.regions },
	};

	fp_write_info(fp_out_wr(&rr.out), o->stage, stats, sizeof stats / sizeof *stats);
	fp_out_flush_all(&rr.out);
	fp_rec_index_free(&ix);
	return rc;
}

/* Everything fp-read does once its options are parsed: reads in_fd to the
 * end, writes the stream to out_fd and returns the exit code (after saying
 * why, for input that is not perf script). tests/fuzz/fuzz-read.c calls
 * this too, so the fuzzer runs exactly the program's path. */
static int read_input(struct reader *r, const struct options *o, int in_fd, int out_fd,
		      const char *in_name)
{
	memset(r, 0, sizeof *r);
	fp_warnings_init(&r->warnings, warn_kind_name, WARN_KINDS, say_warning, r);
	r->quiet = o->quiet;
	r->live = o->live;
	r->live_buffer = o->live_buffer;
	r->progress_fd = o->progress_fd;
	r->from_ns = o->has_time ? o->from_ns : 0;
	r->to_ns = o->has_time ? o->to_ns : UINT64_MAX;
	r->stack_ids = o->stack_ids;
	r->threads = (unsigned)o->threads; /* 0: fp_cpus_usable's, for a big file */
	fp_tailw_init(&r->tails);
	if (!o->live && fp_rec_is_recording(in_fd)) {
		int rc = read_recording(r, o, in_fd, out_fd, in_name);
		fp_tailw_free(&r->tails);
		return rc;
	}
	fp_perf_init(&r->parser, &perf_ops, r);
	r->parser.srcline = o->srcline;
	/* a batch: each sample's tail is looked up a little later, its slot
	 * and string asked for meanwhile (a live source writes at once) */
	fp_tailw_defer(&r->tails, !o->live);
	fp_pump_init(&r->pump, EV_DEFAULT, in_fd, out_fd, &pump_ops, r,
		     FP_PUMP_GZIP | FP_PUMP_MMAP | (o->live ? FP_PUMP_NEVER_BLOCK : 0));
	r->pump.in_name = in_name;
	r->pump.stage = o->stage;

	fp_write_header(fp_out_wr(&r->pump.out));
	int rc = fp_pump_run(&r->pump);

	if (r->not_perf || (r->parser.st.samples == 0 && r->parser.st.bad_lines > 0)) {
		char msg[MSG_MAX];

		snprintf(msg, sizeof msg, "not perf script text: " EXPECTED_EVENT_LINE ", got %s",
			 r->first_bad);
		say(r, r->parser.st.first_bad_line, msg);
		rc = FP_EXIT_DATA;
	}
	fp_perfpar_stop(r->par);
	r->par = NULL;
	fp_perf_free(&r->parser);
	fp_tailw_free(&r->tails);
	for (size_t i = 0; i < r->nevents; i++)
		free(r->events[i]);
	return rc;
}

/* --index: one line per batch of a recording (recording/fp_recording.h). */
static int print_index(int fd, const char *name)
{
	struct fp_rec_index ix = { 0 };

	if (!fp_rec_is_recording(fd))
		fp_die(FP_EXIT_DATA, "%s: not a flamepipe recording", name);
	if (fp_rec_scan(fd, &ix) < 0)
		fp_die_sys(FP_EXIT_SYS, "cannot read '%s'", name);
	printf("# offset length min_ns max_ns samples seq samples_before\n");
	for (size_t i = 0; i < ix.n; i++)
		printf("%llu %llu %llu %llu %llu %llu %llu\n", (unsigned long long)ix.m[i].offset,
		       (unsigned long long)ix.m[i].length, (unsigned long long)ix.m[i].min_ns,
		       (unsigned long long)ix.m[i].max_ns, (unsigned long long)ix.m[i].samples,
		       (unsigned long long)ix.m[i].seq, (unsigned long long)ix.m[i].samples_before);
	if (ix.skips.regions)
		printf("# damaged: %llu stretches (%llu bytes, %llu batches, %llu samples) skipped "
		       "from byte %llu\n",
		       (unsigned long long)ix.skips.regions, (unsigned long long)ix.skips.bytes,
		       (unsigned long long)ix.skips.members, (unsigned long long)ix.skips.samples,
		       (unsigned long long)ix.skips.first_at);
	if (ix.truncated)
		printf("# incomplete batch at byte %llu\n", (unsigned long long)ix.end);
	fp_rec_index_free(&ix);
	return fflush(stdout) == 0 ? FP_EXIT_OK : FP_EXIT_SYS;
}

int main(int argc, char **argv)
{
	static struct reader r;
	struct options o = { 0 };

	fp_set_prog(argv[0]);
	parse_options(argc, argv, &o);
	o.progress_fd = fp_runnermsg_fd(); /* set by flamepipe for its progress line */
	int in_fd = open_input(o.path);

	if (o.index)
		return print_index(in_fd, in_fd != 0 ? o.path : "stdin");
	return read_input(&r, &o, in_fd, 1, in_fd != 0 ? o.path : "stdin");
}
