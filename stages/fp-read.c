/* fp-read: turn `perf script` text into a flamepipe stream of S records.
 *
 * Interface:
 *	fp-read [--name NAME] [-q] [FILE]
 *
 * Input: `perf script` output (any -F field list that includes the time,
 * with or without -g, --header, --show-lost-events), plain or gzip
 * (detected by content, concatenated members too), from FILE or stdin.
 * A FIFO works as FILE. CRLF line ends are accepted.
 *
 * Output (fifo/PROTOCOL.md): `%flamepipe 1`, one S record per sample, in
 * input order (root-first stacks, see fifo/fp_perfparse.h for the rules),
 * W records for bad input, and at end of input one
 *	I TAB read TAB lines=.. samples=.. frames=.. bad_lines=.. lost_events=..
 *	lost_records=.. other_records=.. skipped_lines=.. too_long_lines=..
 *	dropped_samples=.. bytes=..
 * Only the sample being read is held in memory.
 *
 * Bad input: a line that is not perf script is counted, reported in a W
 * record and on stderr (the first WARNINGS_SHOWN, then a summary), and the
 * sample it interrupts is ended. If no sample was found and bad lines were
 * (the input is not perf script at all), fp-read stops and exits 1 naming
 * the first bad line.
 *
 * Signals: SIGINT/SIGTERM end the input at a line boundary; the pending
 * sample and the I record are written.
 * Exit codes: 0 ok, 1 bad input (not perf script, corrupt or truncated
 * gzip; the samples before the damage were written), 100 usage, 111 cannot
 * open or read the input, 141 the reader went away.
 * docs/fp-read.md has the details.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "fp_error.h"
#include "fp_io.h"
#include "fp_perfparse.h"
#include "fp_record.h"

#define USAGE "usage: fp-read [--name NAME] [-q] [FILE]"

#define DEFAULT_STAGE_NAME "read"
/* Warnings (W records and stderr lines) shown before only counting them. */
#define WARNINGS_SHOWN 10
/* Bad lines with no sample yet after which the input is taken for
 * something that is not perf script, and reading stops. */
#define BAD_LINES_BEFORE_GIVING_UP 10
/* How much of a bad line a message quotes. */
#define EXCERPT_MAX 40
#define MSG_MAX 512

struct reader {
	struct fp_pump pump;
	struct fp_perf_parser parser;
	int quiet;
	uint64_t warnings, warnings_hidden;
	int not_perf;			/* gave up: the input is not perf script */
	char first_bad[EXCERPT_MAX + 8];	/* quoted excerpt of the first bad line */
};

/* Quotes at most EXCERPT_MAX bytes of a line for a message, with bytes that
 * are not printable ASCII shown as '?'. */
static void excerpt(char *dst, size_t cap, const char *line, size_t len)
{
	size_t n = len < EXCERPT_MAX ? len : EXCERPT_MAX, j = 0;

	dst[j++] = '"';
	for (size_t i = 0; i < n && j + 5 < cap; i++) {
		unsigned char c = (unsigned char)line[i];
		dst[j++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	dst[j++] = '"';
	if (n < len && j + 4 < cap) {
		memcpy(dst + j, "...", 3);
		j += 3;
	}
	dst[j] = '\0';
}

/* W <stage> <file>:<line> <message> downstream, and the same on stderr
 * unless -q. Rate-limited: after WARNINGS_SHOWN only counted. */
static void reader_warn(struct reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void write_warning(struct reader *r, const char *msg)
{
	struct fp_pump *p = &r->pump;

	if (!r->quiet)
		fp_warn("%s:%llu: %s", p->in_name, (unsigned long long)p->lineno, msg);
	fp_out_write(&p->out, "W\t", 2);
	fp_out_str(&p->out, p->stage);
	fp_out_char(&p->out, '\t');
	fp_out_str(&p->out, p->in_name);
	fp_out_char(&p->out, ':');
	fp_out_u64(&p->out, p->lineno);
	fp_out_char(&p->out, '\t');
	fp_out_str(&p->out, msg);
	fp_out_char(&p->out, '\n');
}

static void reader_warn(struct reader *r, const char *fmt, ...)
{
	char msg[MSG_MAX];
	va_list ap;

	if (r->warnings++ >= WARNINGS_SHOWN) {
		r->warnings_hidden++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	for (char *c = msg; *c; c++)	/* W fields never hold TAB or LF */
		if (*c == '\t' || *c == '\n' || *c == '\r')
			*c = ' ';
	write_warning(r, msg);
}

/* ---- parser callbacks -------------------------------------------------- */

static void on_record(void *ctx, const char *rec, size_t len)
{
	struct reader *r = ctx;

	fp_out_write(&r->pump.out, rec, len);
}

static void on_problem(void *ctx, enum fp_perf_problem what, const char *line, size_t len)
{
	struct reader *r = ctx;
	char ex[sizeof r->first_bad];

	switch (what) {
	case FP_PERF_BAD_LINE:
		excerpt(ex, sizeof ex, line, len);
		if (r->parser.st.bad_lines == 1)
			memcpy(r->first_bad, ex, sizeof ex);
		reader_warn(r, "expected a perf script event line, frame line or "
			    "blank line, got %s", ex);
		if (r->parser.st.samples == 0 &&
		    r->parser.st.bad_lines >= BAD_LINES_BEFORE_GIVING_UP) {
			r->not_perf = 1;
			fp_pump_stop(&r->pump);
		}
		break;
	case FP_PERF_SAMPLE_TOO_BIG:
		reader_warn(r, "sample ending here needs a record longer than %u "
			    "bytes: dropped", FP_LINE_MAX);
		break;
	}
}

static const struct fp_perf_ops perf_ops = {
	.record = on_record,
	.problem = on_problem,
};

/* ---- pump callbacks ---------------------------------------------------- */

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	struct reader *r = p->ctx;

	fp_perf_line(&r->parser, line, len);
}

static void on_too_long(struct fp_pump *p, uint64_t lineno)
{
	struct reader *r = p->ctx;
	int had_sample = r->parser.in_sample;

	(void)lineno;	/* == p->lineno, which reader_warn prints */
	fp_perf_line_too_long(&r->parser);
	reader_warn(r, "line longer than %u bytes skipped%s", FP_LINE_MAX,
		    had_sample ? ", its sample dropped" : "");
}

static void write_stats(struct reader *r)
{
	const struct fp_perf_stats *st = &r->parser.st;
	struct fp_out *o = &r->pump.out;
	const struct { const char *key; uint64_t value; } stats[] = {
		{ "lines", st->lines },
		{ "samples", st->samples },
		{ "frames", st->frames },
		{ "bad_lines", st->bad_lines },
		{ "lost_events", st->lost_events },
		{ "lost_records", st->lost_records },
		{ "other_records", st->other_records },
		{ "skipped_lines", st->skipped_lines },
		{ "too_long_lines", st->too_long_lines },
		{ "dropped_samples", st->dropped_samples },
		{ "bytes", r->pump.bytes_in },
	};

	fp_out_write(o, "I\t", 2);
	fp_out_str(o, r->pump.stage);
	for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++) {
		fp_out_char(o, '\t');
		fp_out_str(o, stats[i].key);
		fp_out_char(o, '=');
		fp_out_u64(o, stats[i].value);
	}
	fp_out_char(o, '\n');
}

static void on_eof(struct fp_pump *p)
{
	struct reader *r = p->ctx;

	fp_perf_finish(&r->parser);
	if (r->warnings_hidden) {
		char msg[MSG_MAX];

		snprintf(msg, sizeof msg, "%llu more warnings not shown "
			 "(bad_lines=%llu too_long_lines=%llu dropped_samples=%llu)",
			 (unsigned long long)r->warnings_hidden,
			 (unsigned long long)r->parser.st.bad_lines,
			 (unsigned long long)r->parser.st.too_long_lines,
			 (unsigned long long)r->parser.st.dropped_samples);
		write_warning(r, msg);
	}
	write_stats(r);
}

static const struct fp_pump_ops pump_ops = {
	.line = on_line,
	.eof = on_eof,
	.too_long = on_too_long,
};

/* ---- main -------------------------------------------------------------- */

struct options {
	const char *stage;
	const char *path;
	int quiet;
};

static _Noreturn void usage(void)
{
	fp_die(FP_EXIT_USAGE, "%s", USAGE);
}

static void parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_NAME = 256 };
	static const struct option longopts[] = {
		{ "name", required_argument, NULL, OPT_NAME },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->stage = DEFAULT_STAGE_NAME;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_NAME:
			if (!*optarg || strpbrk(optarg, "\t\n"))
				fp_die(FP_EXIT_USAGE, "--name: want a name without TAB or LF");
			o->stage = optarg;
			break;
		case 'q': o->quiet = 1; break;
		case 'h':
			printf("%s\n", USAGE);
			exit(FP_EXIT_OK);
		default: usage();
		}
	}
	if (argc - optind > 1)
		usage();
	o->path = optind < argc ? argv[optind] : NULL;
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

int main(int argc, char **argv)
{
	static struct reader r;
	struct options o = { 0 };

	fp_set_prog(argv[0]);
	parse_options(argc, argv, &o);
	int in_fd = open_input(o.path);

	r.quiet = o.quiet;
	fp_perf_init(&r.parser, &perf_ops, &r);
	fp_pump_init(&r.pump, EV_DEFAULT, in_fd, 1, &pump_ops, &r, FP_PUMP_GZIP);
	if (in_fd != 0)
		r.pump.in_name = o.path;
	r.pump.stage = o.stage;

	fp_out_str(&r.pump.out, FP_PROTO_HEADER "\n");
	int rc = fp_pump_run(&r.pump);

	if (r.not_perf || (r.parser.st.samples == 0 && r.parser.st.bad_lines > 0)) {
		fp_die(FP_EXIT_DATA, "%s: line %llu: expected a perf script event line "
		       "(comm pid/tid [cpu] secs.frac: [period] [event:]), got %s",
		       r.pump.in_name, (unsigned long long)r.parser.st.first_bad_line,
		       r.first_bad);
	}
	fp_perf_free(&r.parser);
	return rc;
}
