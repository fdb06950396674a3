/* fp-latency: pair start/end events per key and report their latency.
 *
 * Interface:
 *	fp-latency --pair NAME=START[@KEY],END[@KEY][,CANCEL[@KEY]] ...
 *		[--key pid|tid|field:NAME] [--format auto|perf|events]
 *		[--window DURATION] [--interval DURATION] [--tsv FILE]
 *		[--max-open N] [--max-pending N] [FILE]
 *
 * Input (stdin or FILE, gzip ok): raw event text, NOT the flamepipe stream.
 * fp-latency is a standalone sink; it reads either
 *  - perf script text with tracepoint events:
 *	`comm pid/tid [cpu] secs.frac: [period] event: fields...`
 *    (frame lines, blank lines and `#` lines are skipped), or
 *  - the event text format, one event per line (what the bpftrace programs in
 *    examples/latency/ print):
 *	`<nsecs> <pid> <tid> <event> [name=value ...]`
 * --format auto (default) decides per line: three leading integers are the
 * event format, anything else is perf script.
 *
 * Pairing: for each --pair, a START event opens an interval for its key (pid,
 * tid, or the value of a field such as sched_process_fork's child_pid), the
 * next END event with the same key closes it; an optional CANCEL event (e.g.
 * sched:sched_process_exit) discards the open starts of its key. Starts nest:
 * each key holds a stack, an END closes the most recent START (LIFO), up to
 * FP_PAIRING_NEST deep (a deeper START pushes the oldest out: counted
 * `replaced`). The pairing engine is stages/fp-latency/fp_pairing.c.
 * Events are put back in time order through a reorder window (--window,
 * default 1 s): an event is paired once an event at least WINDOW later has
 * been read, or at end of input. An event older than what was already paired
 * is paired anyway and counted `late`.
 *
 * Memory is bounded: at most --max-open (default MAX_OPEN_DEFAULT) keys hold
 * open starts, about 700 bytes each with the table's slack; a START that
 * would open one more key is dropped and counted (dropped_starts=, one
 * warning). At most --max-pending (default MAX_PENDING_DEFAULT) events wait
 * in the reorder window, 88 bytes each; past it the oldest is paired early
 * (counted early=): nothing is lost, the window is only shorter.
 *
 * Output (stdout) at end of input, on SIGUSR1 and every --interval: a summary
 * table (pair count avg_ns min_ns max_ns open replaced cancelled
 * unmatched_ends) and one bpftrace-style log2 histogram per pair. --tsv FILE
 * gets one row per interval: pair key start_ns end_ns latency_ns.
 * The report's first line counts the input; lost_events= sums perf's
 * PERF_RECORD_LOST and bpftrace's `Lost N events` lines: with a loss,
 * intervals may be missing and unmatched counts are not the program's fault.
 * All times are integer nanoseconds; no floating point on the pairing path.
 *
 * Signals: SIGINT/SIGTERM end the input (pending events are paired, the final
 * report is written); SIGUSR1 writes a snapshot report.
 * Exit codes: 0 ok (bad lines are counted and warned about), 1 bad gzip
 * input, 100 usage, 111 system error, 141 the reader went away.
 * docs/fp-latency.md has the details and examples.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "fp_error.h"
#include "fp_io.h"
#include "fp_opts.h"
#include "fp_pairing.h"
#include "fp_perfparse.h"
#include "fp_record.h"

#define USAGE                                                                         \
	"usage: fp-latency --pair NAME=START[@KEY],END[@KEY][,CANCEL[@KEY]] ... "     \
	"[--key pid|tid|field:NAME] [--format auto|perf|events] [--window DURATION] " \
	"[--interval DURATION] [--tsv FILE] [--max-open N] [--max-pending N] [FILE]"

#define STAGE_NAME "latency"
#define MAX_PAIRS 32
#define MAX_OPEN_DEFAULT 100000u     /* keys with open starts: ~70 MB */
#define MAX_PENDING_DEFAULT 1000000u /* events in the reorder window: ~88 MB */
#define DEFAULT_WINDOW_NS FP_NSEC_PER_SEC
#define MAX_WARNINGS 10 /* then only counted */
#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull

#define ROLE_START FP_ROLE_START
#define ROLE_END FP_ROLE_END
#define ROLE_COUNT FP_ROLE_COUNT
enum key_kind { KEY_UNSET, KEY_PID, KEY_TID, KEY_FIELD };
enum input_format { FORMAT_AUTO, FORMAT_PERF, FORMAT_EVENTS };

struct key_spec {
	enum key_kind kind;
	const char *field; /* KEY_FIELD: the field name */
	size_t field_len;
};

struct event_spec {
	const char *name; /* NULL: no such role (CANCEL is optional) */
	size_t name_len;
	struct key_spec key;
};

struct pair {
	const char *name;
	struct event_spec ev[ROLE_COUNT];
};

/* One event as read from a line; fields point into the line. */
struct event {
	uint64_t ts_ns;
	int64_t pid, tid;
	struct fp_str name;
	struct fp_str fields; /* the rest of the line */
};

struct input_stats {
	uint64_t lines, events, actions, bad_lines, ignored_lines;
	uint64_t missing_key, too_long;
	uint64_t lost_records, lost_events; /* the tracer dropped events */
};

struct latency_state {
	struct fp_pump pump;
	struct pair pairs[MAX_PAIRS];
	size_t npairs;
	struct key_spec default_key;
	enum input_format format;
	uint64_t window_ns;
	size_t max_open, max_pending;
	double interval_s;
	const char *tsv_path;
	int tsv_fd;
	struct fp_out tsv;
	struct fp_pairing pairing;
	struct input_stats in;
	ev_signal sig_usr1;
	ev_timer report_timer;
};

/* ---- small parsing helpers --------------------------------------------- */

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static const char *skip_spaces(const char *p, const char *end)
{
	while (p < end && is_space(*p))
		p++;
	return p;
}

static const char *token_end(const char *p, const char *end)
{
	while (p < end && !is_space(*p))
		p++;
	return p;
}

/* A decimal integer with an optional leading '-'. */
static int is_integer(const char *s, size_t n)
{
	if (n > 1 && s[0] == '-')
		return fp_all_digits(s + 1, n - 1);
	return fp_all_digits(s, n);
}

/* Parses "N[ns|us|ms|s]" (default unit: seconds for --interval style,
 * given by default_unit) into ns. 0 on success. */
static int parse_duration_ns(const char *s, uint64_t default_unit, uint64_t *ns)
{
	char *end;
	uint64_t unit = default_unit;

	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	if (!strcmp(end, "ns"))
		unit = 1;
	else if (!strcmp(end, "us"))
		unit = NS_PER_US;
	else if (!strcmp(end, "ms"))
		unit = NS_PER_MS;
	else if (!strcmp(end, "s"))
		unit = FP_NSEC_PER_SEC;
	else if (*end)
		return -1;
	if (v > UINT64_MAX / unit)
		return -1;
	*ns = v * unit;
	return 0;
}

/* ---- option parsing ---------------------------------------------------- */

static int parse_key_spec(const char *s, size_t n, struct key_spec *k)
{
	static const char field_prefix[] = "field:";
	const size_t prefix_len = sizeof field_prefix - 1;

	if (n == 3 && !memcmp(s, "pid", 3)) {
		k->kind = KEY_PID;
	} else if (n == 3 && !memcmp(s, "tid", 3)) {
		k->kind = KEY_TID;
	} else if (n > prefix_len && !memcmp(s, field_prefix, prefix_len)) {
		k->kind = KEY_FIELD;
		k->field = fp_xstrndup(s + prefix_len, n - prefix_len);
		k->field_len = n - prefix_len;
	} else {
		return -1;
	}
	return 0;
}

/* EVENT[@KEY] */
static void parse_event_spec(const char *s, size_t n, struct event_spec *e, const char *arg)
{
	const char *at = memchr(s, '@', n);
	size_t name_len = at ? (size_t)(at - s) : n;

	if (name_len == 0)
		fp_die(FP_EXIT_USAGE, "--pair %s: empty event name", arg);
	for (size_t i = 0; i < name_len; i++)
		if (is_space(s[i]))
			fp_die(FP_EXIT_USAGE, "--pair %s: event names have no spaces", arg);
	e->name = fp_xstrndup(s, name_len);
	e->name_len = name_len;
	e->key.kind = KEY_UNSET;
	if (at && parse_key_spec(at + 1, n - name_len - 1, &e->key) < 0)
		fp_die(FP_EXIT_USAGE, "--pair %s: bad key '%.*s' (expected pid, tid or field:NAME)",
		       arg, (int)(n - name_len - 1), at + 1);
}

/* NAME=START[@KEY],END[@KEY][,CANCEL[@KEY]] */
static void parse_pair(struct latency_state *st, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (st->npairs == MAX_PAIRS)
		fp_die(FP_EXIT_USAGE, "at most %d --pair options", MAX_PAIRS);
	if (!eq || eq == arg)
		fp_die(FP_EXIT_USAGE, "--pair %s: expected NAME=START,END", arg);
	for (const char *c = arg; c < eq; c++)
		if (!(is_digit(*c) || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      *c == '_' || *c == '-' || *c == '.'))
			fp_die(FP_EXIT_USAGE, "--pair %s: a pair name is letters, digits, _ - .",
			       arg);

	struct pair *pr = &st->pairs[st->npairs];
	pr->name = fp_xstrndup(arg, (size_t)(eq - arg));
	const char *p = eq + 1;
	int role = ROLE_START;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (role == ROLE_COUNT)
			fp_die(FP_EXIT_USAGE, "--pair %s: at most START,END,CANCEL", arg);
		parse_event_spec(p, n, &pr->ev[role], arg);
		role++;
		if (!comma)
			break;
		p = comma + 1;
	}
	if (role <= ROLE_END)
		fp_die(FP_EXIT_USAGE, "--pair %s: expected NAME=START,END", arg);
	st->npairs++;
}

static void opt_pair(void *ctx, const char *opt, const char *arg)
{
	parse_pair(ctx, arg);
}

static void opt_key(void *ctx, const char *opt, const char *arg)
{
	struct latency_state *st = ctx;

	free((char *)st->default_key.field);
	st->default_key.field = NULL;
	if (parse_key_spec(arg, strlen(arg), &st->default_key) < 0)
		fp_die(FP_EXIT_USAGE, "--key %s: expected pid, tid or field:NAME", arg);
}

static void opt_window(void *ctx, const char *opt, const char *arg)
{
	struct latency_state *st = ctx;

	if (parse_duration_ns(arg, FP_NSEC_PER_SEC, &st->window_ns) < 0)
		fp_die(FP_EXIT_USAGE, "--window %s: expected a duration like 500ms, 1s, 0", arg);
}

static void opt_interval(void *ctx, const char *opt, const char *arg)
{
	struct latency_state *st = ctx;
	uint64_t ns;

	if (parse_duration_ns(arg, FP_NSEC_PER_SEC, &ns) < 0 || ns == 0)
		fp_die(FP_EXIT_USAGE, "--interval %s: expected a duration like 1s, 500ms", arg);
	/* libev takes seconds as a double; only the timer uses it. */
	st->interval_s = (double)ns / (double)FP_NSEC_PER_SEC;
}

/* --max-open, --max-pending: a count from 1 to UINT32_MAX. */
static void opt_max(void *ctx, const char *opt, const char *arg)
{
	struct latency_state *st = ctx;
	uint64_t v;

	if (fp_parse_u64(arg, strlen(arg), &v) < 0 || v < 1 || v > UINT32_MAX)
		fp_die(FP_EXIT_USAGE, "--%s %s: expected a count from 1 to %u", opt, arg,
		       UINT32_MAX);
	*(strcmp(opt, "max-open") ? &st->max_pending : &st->max_open) = (size_t)v;
}

static void parse_options(int argc, char **argv, struct latency_state *st)
{
	static const char *const formats[] = { "auto", "perf", "events", NULL }; /* enum order */
	const struct fp_opt options[] = {
		{ "pair", FP_OPT_FN, .fn = opt_pair, .short_name = 'p' },
		{ "key", FP_OPT_FN, .fn = opt_key, .short_name = 'k' },
		{ "format", FP_OPT_CHOICE, &st->format, .choices = formats, .short_name = 'f' },
		{ "window", FP_OPT_FN, .fn = opt_window, .short_name = 'w' },
		{ "interval", FP_OPT_FN, .fn = opt_interval, .short_name = 'i' },
		{ "tsv", FP_OPT_STR, &st->tsv_path, .short_name = 't' },
		{ "max-open", FP_OPT_FN, .fn = opt_max },
		{ "max-pending", FP_OPT_FN, .fn = opt_max },
		{ NULL },
	};
	int first;

	st->default_key.kind = KEY_TID;
	st->window_ns = DEFAULT_WINDOW_NS;
	st->max_open = MAX_OPEN_DEFAULT;
	st->max_pending = MAX_PENDING_DEFAULT;
	first = fp_opts_parse(argc, argv, options, USAGE, argc, st);
	if (st->npairs == 0)
		fp_die(FP_EXIT_USAGE, "at least one --pair NAME=START,END is needed\n%s", USAGE);
	if (argc - first > 1)
		fp_die(FP_EXIT_USAGE, "at most one input file\n%s", USAGE);
	/* --key is the default for every event given without @KEY. */
	for (size_t i = 0; i < st->npairs; i++)
		for (int r = 0; r < ROLE_COUNT; r++)
			if (st->pairs[i].ev[r].name && st->pairs[i].ev[r].key.kind == KEY_UNSET)
				st->pairs[i].ev[r].key = st->default_key;
}

/* ---- reading event lines ----------------------------------------------- */

/* `<nsecs> <pid> <tid> <event> [fields]`. 0, or -1 if the line is not that. */
static int parse_events_line(const char *line, size_t len, struct event *ev)
{
	const char *end = line + len;
	const char *tok[4], *tend[4];
	const char *p = line;

	for (int i = 0; i < 4; i++) {
		p = skip_spaces(p, end);
		tok[i] = p;
		p = token_end(p, end);
		tend[i] = p;
		if (tok[i] == tend[i])
			return -1;
	}
	if (fp_parse_u64(tok[0], (size_t)(tend[0] - tok[0]), &ev->ts_ns) < 0 ||
	    fp_parse_i64(tok[1], (size_t)(tend[1] - tok[1]), &ev->pid) < 0 ||
	    fp_parse_i64(tok[2], (size_t)(tend[2] - tok[2]), &ev->tid) < 0)
		return -1;
	ev->name.p = tok[3];
	ev->name.n = (size_t)(tend[3] - tok[3]);
	p = skip_spaces(p, end);
	ev->fields.p = p;
	ev->fields.n = (size_t)(end - p);
	return 0;
}

/* `comm pid/tid [cpu] secs.frac: [period] event: fields`: perf's event
 * line, read by perf/script/fp_perfparse.c's rules (the same as fp-read's).
 * 0, or -1 if the line is not a perf event line with an event name. */
static int parse_perf_line(const char *line, size_t len, struct event *ev)
{
	struct fp_perf_event pe;

	if (fp_perf_event_line(line, len, &pe) < 0 || pe.side_band || pe.event.n == 0)
		return -1;
	ev->ts_ns = pe.time_ns;
	ev->pid = pe.pid;
	ev->tid = pe.tid;
	ev->name = pe.event;
	ev->fields = pe.rest;
	return 0;
}

/* Three leading integers: the event text format. */
static int looks_like_events_line(const char *line, size_t len)
{
	const char *end = line + len, *p = skip_spaces(line, end);

	for (int i = 0; i < 3; i++) {
		const char *t = p, *te = token_end(p, end);
		if (!is_integer(t, (size_t)(te - t)))
			return 0;
		p = skip_spaces(te, end);
	}
	return p < end;
}

/* The value of field NAME in `NAME=value` or `NAME: value` form, ending at a
 * space or comma. 0, or -1 when the event has no such field. */
static int find_field(struct fp_str fields, const char *name, size_t name_len, struct fp_str *val)
{
	const char *p = fields.p, *end = fields.p + fields.n;

	while ((size_t)(end - p) > name_len) {
		const char *hit = memmem(p, (size_t)(end - p), name, name_len);
		if (!hit)
			return -1;
		const char *after = hit + name_len;
		int at_boundary = hit == fields.p || hit[-1] == ' ' || hit[-1] == ',';
		if (at_boundary && after < end && (*after == '=' || *after == ':')) {
			const char *v = after + 1;
			if (*after == ':')
				v = skip_spaces(v, end);
			const char *ve = v;
			while (ve < end && *ve != ' ' && *ve != ',')
				ve++;
			val->p = v;
			val->n = (size_t)(ve - v);
			return 0;
		}
		p = hit + 1;
	}
	return -1;
}

/* ---- the reorder window: a min-heap of actions by (time, seq) ---------- */

static void warn_line(struct latency_state *st, const char *what, const char *line, size_t len)
{
	uint64_t n = st->in.bad_lines + st->in.missing_key;
	const int shown = 60;

	if (n > MAX_WARNINGS)
		return;
	if (n == MAX_WARNINGS) {
		fp_warn("%s:%llu: more problems: only counted from now on", st->pump.in_name,
			(unsigned long long)st->pump.lineno);
		return;
	}
	fp_warn("%s:%llu: %s: '%.*s%s'", st->pump.in_name, (unsigned long long)st->pump.lineno,
		what, (int)(len > (size_t)shown ? (size_t)shown : len), line,
		len > (size_t)shown ? "..." : "");
}

/* Fills a->key from ev by spec. 0, or -1 when the event has no such key. */
static int event_key(const struct event *ev, const struct key_spec *k, struct fp_action *a)
{
	struct fp_str v;
	char num[24];
	int n;

	switch (k->kind) {
	case KEY_PID:
	case KEY_TID:
		if ((k->kind == KEY_PID ? ev->pid : ev->tid) < 0)
			return -1;
		n = snprintf(num, sizeof num, "%lld",
			     (long long)(k->kind == KEY_PID ? ev->pid : ev->tid));
		v.p = num;
		v.n = (size_t)n;
		break;
	case KEY_FIELD:
		if (find_field(ev->fields, k->field, k->field_len, &v) < 0 || v.n == 0)
			return -1;
		break;
	default:
		return -1;
	}
	if (v.n > FP_PAIRING_KEY_MAX)
		return -1;
	memcpy(a->key, v.p, v.n);
	a->key_len = (uint8_t)v.n;
	return 0;
}

static void handle_event(struct latency_state *st, const struct event *ev, const char *line,
			 size_t len)
{
	int matched = 0;

	for (size_t i = 0; i < st->npairs; i++) {
		for (int r = 0; r < ROLE_COUNT; r++) {
			const struct event_spec *es = &st->pairs[i].ev[r];
			struct fp_action a;

			if (!es->name || es->name_len != ev->name.n ||
			    memcmp(es->name, ev->name.p, ev->name.n) != 0)
				continue;
			matched = 1;
			if (event_key(ev, &es->key, &a) < 0) {
				warn_line(st, "event without its key", line, len);
				st->in.missing_key++;
				continue;
			}
			fp_pairing_add(&st->pairing, ev->ts_ns, (uint16_t)i, (enum fp_role)r, a.key,
				       a.key_len);
			st->in.actions++;
		}
	}
	if (!matched)
		return;
	st->in.events++;
	fp_pairing_release(&st->pairing, 0);
}

static int starts_with(const char *s, size_t n, const char *prefix)
{
	size_t pn = strlen(prefix);
	return n >= pn && !memcmp(s, prefix, pn);
}

/* The decimal number after `marker` in the line, or 1 (a loss of unknown
 * size is at least one event). */
static uint64_t count_after(const char *line, size_t len, const char *marker)
{
	size_t mn = strlen(marker);
	const char *m = memmem(line, len, marker, mn);
	uint64_t v;

	if (!m)
		return 1;
	const char *d = m + mn, *e = d;
	while (e < line + len && is_digit(*e))
		e++;
	if (fp_parse_u64(d, (size_t)(e - d), &v) < 0)
		return 1;
	return v;
}

/* Side-band lines are not events, but a loss means intervals may be
 * missing or mis-paired, so it is counted and shown in the report:
 * perf's `... PERF_RECORD_LOST lost N` (also _LOST_SAMPLES; other
 * PERF_RECORD_ lines are ignored) and bpftrace's `Lost N events`.
 * 1 if the line was one of those. */
static int side_band(struct latency_state *st, const char *line, size_t len)
{
	static const char perf_lost[] = "PERF_RECORD_LOST";

	if (starts_with(line, len, "Lost ") && len > 5 && is_digit(line[5])) {
		st->in.lost_records++;
		st->in.lost_events += count_after(line, len, "Lost ");
		return 1;
	}
	if (!memmem(line, len, "PERF_RECORD_", sizeof "PERF_RECORD_" - 1))
		return 0;
	if (memmem(line, len, perf_lost, sizeof perf_lost - 1)) {
		st->in.lost_records++;
		st->in.lost_events += count_after(line, len, " lost ");
	} else {
		st->in.ignored_lines++;
	}
	return 1;
}

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	struct latency_state *st = p->ctx;
	struct event ev;
	int r;

	st->in.lines++;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	/* perf frame lines, blank lines and comments carry no events. */
	if (len == 0 || line[0] == '\t' || line[0] == '#' ||
	    skip_spaces(line, line + len) == line + len)
		return;
	if (st->in.lines == 1 && fp_header_version(line, len) >= 0)
		fp_die(FP_EXIT_USAGE,
		       "%s: this is a flamepipe stream; fp-latency reads perf script "
		       "or event text (see docs/fp-latency.md)",
		       p->in_name);
	/* bpftrace's own messages and map dumps are not events. */
	if (starts_with(line, len, "Attaching ") || line[0] == '@') {
		st->in.ignored_lines++;
		return;
	}
	if (side_band(st, line, len))
		return;
	if (st->format == FORMAT_EVENTS ||
	    (st->format == FORMAT_AUTO && looks_like_events_line(line, len)))
		r = parse_events_line(line, len, &ev);
	else
		r = parse_perf_line(line, len, &ev);
	if (r < 0) {
		warn_line(st,
			  st->format == FORMAT_EVENTS
				  ? "not an event line (<nsecs> <pid> <tid> <event> [fields])"
				  : "not an event line",
			  line, len);
		st->in.bad_lines++;
		return;
	}
	handle_event(st, &ev, line, len);
}

static void on_too_long(struct fp_pump *p, uint64_t lineno)
{
	struct latency_state *st = p->ctx;

	st->in.lines++;
	st->in.too_long++;
	st->in.bad_lines++;
	fp_warn("%s:%llu: line longer than %u bytes skipped", p->in_name,
		(unsigned long long)lineno, FP_LINE_MAX);
}

/* ---- the report --------------------------------------------------------- */

static void write_report(struct latency_state *st, const char *kind)
{
	struct fp_out *o = &st->pump.out;
	uint64_t open[MAX_PAIRS];
	char buf[320];

	fp_pairing_open(&st->pairing, open);
	snprintf(buf, sizeof buf,
		 "# fp-latency %s: lines=%llu events=%llu bad_lines=%llu ignored_lines=%llu "
		 "missing_key=%llu late=%llu pending=%zu dropped_starts=%llu early=%llu "
		 "lost_events=%llu\n",
		 kind, (unsigned long long)st->in.lines, (unsigned long long)st->in.events,
		 (unsigned long long)st->in.bad_lines, (unsigned long long)st->in.ignored_lines,
		 (unsigned long long)st->in.missing_key, (unsigned long long)st->pairing.late,
		 fp_pairing_pending(&st->pairing), (unsigned long long)st->pairing.dropped_starts,
		 (unsigned long long)st->pairing.early, (unsigned long long)st->in.lost_events);
	fp_out_str(o, buf);
	fp_out_str(
		o,
		"pair\tcount\tavg_ns\tmin_ns\tmax_ns\topen\treplaced\tcancelled\tunmatched_ends\n");
	for (size_t i = 0; i < st->npairs; i++) {
		const struct fp_pair_stats *ps = &st->pairing.stats[i];

		fp_out_str(o, st->pairs[i].name);
		fp_out_char(o, '\t');
		fp_out_u64(o, ps->count);
		if (ps->count) {
			/* Rounded to the nearest ns, integer math. */
			uint64_t avg = ps->sum_ns / ps->count +
				       ((ps->sum_ns % ps->count) * 2 >= ps->count);
			snprintf(buf, sizeof buf, "\t%llu\t%llu\t%llu", (unsigned long long)avg,
				 (unsigned long long)ps->min_ns, (unsigned long long)ps->max_ns);
			fp_out_str(o, buf);
		} else {
			fp_out_str(o, "\t-\t-\t-");
		}
		snprintf(buf, sizeof buf, "\t%llu\t%llu\t%llu\t%llu\n", (unsigned long long)open[i],
			 (unsigned long long)ps->replaced, (unsigned long long)ps->cancelled,
			 (unsigned long long)ps->unmatched_ends);
		fp_out_str(o, buf);
	}
	fp_out_char(o, '\n');
	for (size_t i = 0; i < st->npairs; i++)
		fp_pairing_write_hist(o, st->pairs[i].name, &st->pairing.stats[i]);
	fp_out_flush(o);
	if (st->tsv_path)
		fp_out_flush(&st->tsv);
}

static void on_eof(struct fp_pump *p)
{
	struct latency_state *st = p->ctx;

	fp_pairing_release(&st->pairing, 1);
	write_report(st, "final");
}

static void on_usr1(struct ev_loop *loop, ev_signal *w, int revents)
{
	write_report(w->data, "snapshot");
}

static void on_report_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	write_report(w->data, "snapshot");
}

static const struct fp_pump_ops latency_ops = {
	.line = on_line,
	.eof = on_eof,
	.too_long = on_too_long,
};

/* An END closed an interval: its TSV row (the statistics are the engine's). */
static void on_interval(void *ctx, const struct fp_action *end, uint64_t start_ns)
{
	struct latency_state *st = ctx;

	if (!st->tsv_path)
		return;
	fp_out_str(&st->tsv, st->pairs[end->pair].name);
	fp_out_char(&st->tsv, '\t');
	fp_out_write(&st->tsv, end->key, end->key_len);
	fp_out_char(&st->tsv, '\t');
	fp_out_u64(&st->tsv, start_ns);
	fp_out_char(&st->tsv, '\t');
	fp_out_u64(&st->tsv, end->ts_ns);
	fp_out_char(&st->tsv, '\t');
	fp_out_u64(&st->tsv, end->ts_ns - start_ns);
	fp_out_char(&st->tsv, '\n');
}

static void on_limit(void *ctx, enum fp_pairing_limit which)
{
	struct latency_state *st = ctx;

	if (which == FP_LIMIT_OPEN)
		fp_warn("more than %zu keys with open starts (--max-open): further starts of new "
			"keys are dropped and counted (dropped_starts=)",
			st->max_open);
	else
		fp_warn("more than %zu events in the reorder window (--max-pending): the oldest "
			"are paired early and counted (early=)",
			st->max_pending);
}

static void free_state(struct latency_state *st)
{
	for (size_t i = 0; i < st->npairs; i++) {
		free((char *)st->pairs[i].name);
		for (int r = 0; r < ROLE_COUNT; r++) {
			free((char *)st->pairs[i].ev[r].name);
			if (st->pairs[i].ev[r].key.field != st->default_key.field)
				free((char *)st->pairs[i].ev[r].key.field);
		}
	}
	free((char *)st->default_key.field);
	fp_pairing_free(&st->pairing);
}

int main(int argc, char **argv)
{
	static struct latency_state st; /* static: lives as long as the process */
	const char *in_name;
	int in_fd;

	fp_set_prog(argv[0]);
	/* A SIGUSR1 before the loop's handler is up would kill us (the
	 * default action): ignore it until then. */
	signal(SIGUSR1, SIG_IGN);
	parse_options(argc, argv, &st);
	in_fd = fp_open_input(optind < argc ? argv[optind] : NULL, &in_name);
	fp_pairing_init(&st.pairing, st.npairs, st.window_ns, st.max_open, st.max_pending);
	st.pairing.on_interval = on_interval;
	st.pairing.on_limit = on_limit;
	st.pairing.ctx = &st;

	fp_pump_init(&st.pump, EV_DEFAULT, in_fd, 1, &latency_ops, &st, FP_PUMP_GZIP);
	st.pump.in_name = in_name;
	st.pump.stage = STAGE_NAME;
	if (st.tsv_path) {
		st.tsv_fd = open(st.tsv_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (st.tsv_fd < 0)
			fp_die_sys(FP_EXIT_SYS, "open %s", st.tsv_path);
		fp_out_init(&st.tsv, st.pump.loop, st.tsv_fd);
		fp_out_str(&st.tsv, "pair\tkey\tstart_ns\tend_ns\tlatency_ns\n");
	}
	ev_signal_init(&st.sig_usr1, on_usr1, SIGUSR1);
	st.sig_usr1.data = &st;
	ev_signal_start(st.pump.loop, &st.sig_usr1);
	if (st.interval_s > 0) {
		ev_timer_init(&st.report_timer, on_report_timer, st.interval_s, st.interval_s);
		st.report_timer.data = &st;
		ev_timer_start(st.pump.loop, &st.report_timer);
	}

	int rc = fp_pump_run(&st.pump);

	if (st.tsv_path) {
		fp_out_flush_all(&st.tsv);
		fp_out_free(&st.tsv);
		if (close(st.tsv_fd) < 0)
			fp_die_sys(FP_EXIT_SYS, "close %s", st.tsv_path);
	}
	free_state(&st);
	return rc;
}
