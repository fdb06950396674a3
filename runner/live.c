/* live.c: `flamepipe live`: profile the running system and watch the
 * heatmap fill in while the workload runs (docs/live.md).
 *
 *	flamepipe live [-F HZ] [-a | -p PID] [-g] [--duration S] [--rows N]
 *	               [--source perf|bpftrace] [--http [ADDR:]PORT] [-o DIR]
 *	               [options] [-- COMMAND [ARG]...]
 *
 * The chain is a pipeline file (examples/live.pipeline, or
 * examples/live-bpftrace.pipeline for --source bpftrace):
 *	perf record --no-buffering -o - | perf script -i - | fp-read --live |
 *	fp-bucket | fp-range --control ${FIFODIR}/range.ctl | fp-fold --interval
 * and this command appends the views the user asked for:
 *	render  fp-render [--outdir DIR] [--term] [--passthrough]   (-o DIR, a tty)
 *	web     fp-serve --live NAME --control ${FIFODIR}/range.ctl (--http)
 * The chain is linear: with both, fp-render passes the stream on
 * (--passthrough, drawing the terminal view on /dev/tty) to fp-serve. The
 * resulting file is written into the private FIFO directory and run with
 * pipeline_run.h.
 *
 * Stopping: the capture ends at --duration (perf's own `-- sleep S`, so the
 * source ends by itself; for bpftrace a timer started by the first bytes
 * fp-read reads), when COMMAND exits, or on Ctrl-C/SIGTERM (the
 * runner sends SIGTERM to perf record; perf script, then every stage,
 * drain and write their final tables). The web server would serve the
 * ended capture for ever, so once every stage before it has finished it
 * gets SIGTERM (it exits 0; unless --keep-serving: then it stays until
 * Ctrl-C).
 *
 * --user USER (as root): perf record and perf script (or bpftrace) keep
 * root, every analysis stage and the web server run as USER (the runner's
 * fp_run_opts.user/.privileged).
 *
 * fp-read --live never blocks perf: when the chain falls behind, samples
 * are dropped and counted (W record, `I read dropped=N`, stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ev.h>

#include "commands.h"
#include "fp_recording.h"
#include "fp_error.h"
#include "pipeline.h"
#include "pipeline_run.h"

#define DEFAULT_HZ "49"
#define HZ_MAX 100000
#define ROWS_MAX 1000
#define DEFAULT_LIVE_NAME "live"
#define GENERATED_NAME "live.pipeline"
#define FOLDED_NAME "stacks.folded"
#define RECORDING_NAME "recording.fp.gz"	/* in -o DIR, else in the FIFO dir */
#define RECORD_STATS_NAME "record.stats"	/* fp-record --stats, in the FIFO dir */
/* Without -o the recording lives in the private FIFO directory (often
 * tmpfs, so memory) for the session only: bounded unless told otherwise. */
#define TEMP_RECORDING_MAX_SIZE "64M"
#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"
#define WEB_POLL_INTERVAL 0.2	/* s between checks for the end of the capture */
#define DURATION_POLL 0.1	/* s between checks for the first bytes */
#define DURATION_START_MAX 20.0	/* s: then --duration counts anyway */
#define TEXT_MAX 8192
/* perf script can need seconds to load the symbols of a big binary it
 * meets for the first time, and perf record cannot exit while its last
 * write waits for perf script: give both longer than the runner's
 * defaults before TERM/KILL (docs/live.md "Stopping"). */
#define LIVE_DRAIN_TIMEOUT 15.0
#define LIVE_KILL_TIMEOUT 10.0

const char cmd_live_usage[] =
	"live [-F HZ] [-a | -p PID] [-g | --call-graph MODE] [--duration S] [--rows N]\n"
	"        [--source perf|bpftrace] [--http [ADDR:]PORT] [-o DIR] [--name NAME]\n"
	"        [--interval MS] [--serve-dir DIR] [--keep-serving] [--no-term] [--perf-arg A]...\n"
	"        [--max-size BYTES] [--keep DURATION]\n"
	"        [--pipeline FILE] [-D NAME=VALUE]... [-A NAME=WORD]... [--dir-file F]\n"
	"        [--drain-timeout S] [--kill-timeout S] [-u|--user USER] [-v] [-q]\n"
	"        [-- COMMAND [ARG]...]";

enum source { SRC_PERF, SRC_BPFTRACE };

struct live_opts {
	const char *hz, *pid, *call_graph, *http, *outdir, *name, *serve_dir;
	const char *pipeline, *interval;
	const char *max_size, *keep;	/* retention of the recording */
	double duration;	/* 0: until Ctrl-C or COMMAND ends */
	const char *rows;
	enum source source;
	int all_cpus, callgraph, keep_serving, no_term, quiet;
	char **command;		/* NULL-terminated, or NULL */
	char **pending;		/* -D/-A and --perf-arg, as "D..."/"A..." */
	size_t npending;
};

/* What watches the end of the capture to stop the web server. */
/* --duration when the source cannot end by itself (bpftrace): counted
 * from the first bytes the stage named "read" reads (bpftrace takes
 * seconds to compile and attach), as perf's `-- sleep S` starts once perf
 * samples. */
struct duration {
	ev_timer w;
	struct fp_run *run;
	double seconds;
	int started;
	int polled;
	unsigned long long baseline;	/* rchar at the first poll: the loader's reads */
	ev_tstamp since;		/* time of the first poll */
};

static unsigned long long stage_rchar(struct fp_run *r, const char *name)
{
	unsigned long long rchar = 0;

	for (size_t i = 0; i < fp_run_stage_count(r); i++) {
		pid_t pid = fp_run_stage_pid(r, i);
		char path[64], line[128];
		FILE *f;

		if (strcmp(fp_run_stage_name(r, i), name) || pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/io", (long)pid);
		f = fopen(path, "r");
		if (!f)
			return 0;
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "rchar: %llu", &rchar) == 1)
				break;
		fclose(f);
	}
	return rchar;
}

static void duration_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct duration *d = w->data;

	if (d->started) {
		fp_run_stop(d->run);
		return;
	}
	unsigned long long rchar = stage_rchar(d->run, "read");

	if (!d->polled) {
		d->polled = 1;
		d->baseline = rchar;
		d->since = ev_now(loop);
		return;
	}
	/* Still starting: poll again, but not for ever (a source that never
	 * writes must not make --duration hang). */
	if (rchar <= d->baseline && ev_now(loop) - d->since < DURATION_START_MAX)
		return;
	d->started = 1;
	ev_timer_stop(loop, w);
	ev_timer_set(w, d->seconds, 0.);
	ev_timer_start(loop, w);
}

struct web_watch {
	ev_timer w;
	struct fp_run *run;
	size_t index;		/* the web stage */
	int stopped;
};

/* ---- finding files next to the binary ------------------------------------ */

/* <bindir>/../examples/REL, then <bindir>/../share/flamepipe/REL. */
static char *find_data_file(const char *rel)
{
	const char *bindir = fp_run_bindir();
	static const char *const roots[] = { "../examples", "../share/flamepipe" };
	char path[PATH_MAX];

	for (size_t i = 0; bindir && i < sizeof roots / sizeof *roots; i++) {
		snprintf(path, sizeof path, "%s/%s/%s", bindir, roots[i], rel);
		if (access(path, R_OK) == 0)
			return fp_xstrdup(path);
	}
	return NULL;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- can we profile? ----------------------------------------------------- */

static long read_paranoid(void)
{
	FILE *f = fopen(PARANOID_PATH, "r");
	long v = LONG_MIN;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = LONG_MIN;
		fclose(f);
	}
	return v;
}

/* Asks the kernel for the cpu-clock event perf will need (system-wide on
 * CPU 0 for -a, the process for -p, ourselves for a COMMAND), so a refusal
 * is explained before anything starts. Dies with advice on failure. */
static void check_perf_allowed(const struct live_opts *o)
{
	struct perf_event_attr a;
	pid_t pid = -1;
	int cpu = 0, fd;
	long paranoid;
	const char *scope = "system-wide profiling (-a)";

	if (o->pid) {
		pid = (pid_t)strtol(o->pid, NULL, 10);	/* the first of a list */
		cpu = -1;
		scope = "profiling another process (-p)";
	} else if (o->command && !o->all_cpus) {
		pid = 0;
		cpu = -1;
		scope = "profiling a command";
	}
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.disabled = 1;
	a.exclude_kernel = geteuid() != 0;	/* what perf falls back to */
	fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, 0UL);
	if (fd >= 0) {
		close(fd);
		return;
	}
	switch (errno) {
	case EACCES:
	case EPERM:
		paranoid = read_paranoid();
		fp_die(FP_EXIT_SYS, "live: the kernel refuses %s: you are not root and "
		       "kernel.perf_event_paranoid is %ld. Run flamepipe live as root (sudo), "
		       "or allow it: sysctl -w kernel.perf_event_paranoid=%d (-a needs <= 0, "
		       "-p and COMMAND need <= 2; kernel stacks need <= 1), or give the binary "
		       "CAP_PERFMON", scope, paranoid, o->pid || o->command ? 1 : -1);
	case ESRCH:
		fp_die(FP_EXIT_USAGE, "live: -p %s: no such process", o->pid);
	case ENOSYS:
		fp_die(FP_EXIT_SYS, "live: this kernel has no perf events (perf_event_open: "
		       "not implemented); build it with CONFIG_PERF_EVENTS");
	default:
		fp_die_sys(FP_EXIT_SYS, "live: perf_event_open (cpu-clock) failed, so perf "
			   "cannot sample here");
	}
}

static void check_source(const struct live_opts *o)
{
	const char *bindir = fp_run_bindir();

	if (o->source == SRC_BPFTRACE) {
		char *p = fp_find_program("bpftrace", bindir);

		if (!p)
			fp_die(FP_EXIT_SYS, "live: bpftrace is not installed (or not in $PATH): "
			       "install it (Debian/Ubuntu: apt-get install bpftrace) or use "
			       "--source perf");
		free(p);
		if (geteuid() != 0)
			fp_die(FP_EXIT_SYS, "live: --source bpftrace needs root (BPF programs): "
			       "run it with sudo, or use --source perf");
		return;
	}
	char *p = fp_find_program("perf", bindir);

	if (!p)
		fp_die(FP_EXIT_SYS, "live: perf is not installed (or not in $PATH): install it "
		       "(Debian: apt-get install linux-perf; Ubuntu: apt-get install "
		       "linux-tools-common linux-tools-$(uname -r); Fedora: dnf install perf)");
	free(p);
	check_perf_allowed(o);
}

/* ---- options -------------------------------------------------------------- */

static void pend(struct live_opts *o, char kind, const char *var, const char *value)
{
	size_t n = (var ? strlen(var) + 1 : 0) + strlen(value) + 2;
	char *s = fp_xmalloc(n);

	snprintf(s, n, "%c%s%s%s", kind, var ? var : "", var ? "=" : "", value);
	o->pending[o->npending++] = s;
}

static long parse_int(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		fp_die(FP_EXIT_USAGE, "%s: bad value '%s' (expected an integer %ld..%ld)",
		       opt, s, min, max);
	return v;
}

static void check_pid_list(const char *s)
{
	if (!*s || strspn(s, "0123456789,") != strlen(s) || s[0] == ',')
		fp_die(FP_EXIT_USAGE, "-p: bad process id list '%s' (expected PID[,PID]...)", s);
}

/* [ADDR:]PORT: PORT is 0..65535. */
static void check_http(const char *s)
{
	const char *colon = strrchr(s, ':');
	const char *port = colon ? colon + 1 : s;

	parse_int("--http", port, 0, 65535);
	if (colon == s)
		fp_die(FP_EXIT_USAGE, "--http: empty address in '%s' (expected [ADDR:]PORT)", s);
}

enum {
	OPT_DURATION = 256, OPT_ROWS, OPT_SOURCE, OPT_HTTP, OPT_NAME, OPT_SERVE_DIR,
	OPT_KEEP, OPT_NO_TERM, OPT_PERF_ARG, OPT_PIPELINE, OPT_DIR_FILE, OPT_DRAIN,
	OPT_CALL_GRAPH, OPT_INTERVAL, OPT_KILL, OPT_MAX_SIZE, OPT_KEEP_FOR,
};

/* With --user, the leading stages that keep root: perf record and perf
 * script (kernel symbols need root), or bpftrace. */
#define PRIVILEGED_PERF 2
#define PRIVILEGED_BPFTRACE 1

static void parse_options(int argc, char **argv, struct live_opts *o, struct fp_run_opts *ro)
{
	static const struct option opts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "rows", required_argument, NULL, OPT_ROWS },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "http", required_argument, NULL, OPT_HTTP },
		{ "outdir", required_argument, NULL, 'o' },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "serve-dir", required_argument, NULL, OPT_SERVE_DIR },
		{ "keep-serving", no_argument, NULL, OPT_KEEP },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "keep", required_argument, NULL, OPT_KEEP_FOR },
		{ "no-term", no_argument, NULL, OPT_NO_TERM },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "perf-arg", required_argument, NULL, OPT_PERF_ARG },
		{ "pipeline", required_argument, NULL, OPT_PIPELINE },
		{ "define", required_argument, NULL, 'D' },
		{ "append", required_argument, NULL, 'A' },
		{ "dir-file", required_argument, NULL, OPT_DIR_FILE },
		{ "drain-timeout", required_argument, NULL, OPT_DRAIN },
		{ "kill-timeout", required_argument, NULL, OPT_KILL },
		{ "user", required_argument, NULL, 'u' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->pending = fp_xcalloc((size_t)argc + 1, sizeof *o->pending);
	o->hz = DEFAULT_HZ;
	o->name = DEFAULT_LIVE_NAME;
	optind = 1;
	/* '+': stop at the first non-option, so COMMAND's own options stay its. */
	while ((c = getopt_long(argc, argv, "+F:ap:go:D:A:u:vqh", opts, NULL)) != -1) {
		switch (c) {
		case 'F': parse_int("-F", optarg, 1, HZ_MAX); o->hz = optarg; break;
		case 'a': o->all_cpus = 1; break;
		case 'p': check_pid_list(optarg); o->pid = optarg; break;
		case 'g': o->callgraph = 1; break;
		case OPT_CALL_GRAPH: o->call_graph = optarg; o->callgraph = 1; break;
		case OPT_DURATION:
			o->duration = fp_parse_timeout("--duration", optarg);
			if (o->duration <= 0)
				fp_die(FP_EXIT_USAGE, "--duration: want more than 0 seconds");
			break;
		case OPT_ROWS: parse_int("--rows", optarg, 1, ROWS_MAX); o->rows = optarg; break;
		case OPT_SOURCE:
			if (!strcmp(optarg, "perf"))
				o->source = SRC_PERF;
			else if (!strcmp(optarg, "bpftrace"))
				o->source = SRC_BPFTRACE;
			else
				fp_die(FP_EXIT_USAGE, "--source: '%s' (expected perf or bpftrace)", optarg);
			break;
		case OPT_HTTP: check_http(optarg); o->http = optarg; break;
		case 'o': o->outdir = optarg; break;
		case OPT_NAME:
			if (!*optarg || strpbrk(optarg, "/\t\n\r"))
				fp_die(FP_EXIT_USAGE, "--name: want a name without '/', TAB or LF");
			o->name = optarg;
			break;
		case OPT_SERVE_DIR: o->serve_dir = optarg; break;
		case OPT_KEEP: o->keep_serving = 1; break;
		case OPT_MAX_SIZE: {
			uint64_t b;

			if (fp_rec_parse_size(optarg, &b) < 0)
				fp_die(FP_EXIT_USAGE, "--max-size: expected bytes with an optional k, "
				       "M or G suffix, got '%s'", optarg);
			o->max_size = optarg;
			break;
		}
		case OPT_KEEP_FOR: {
			uint64_t ns;

			if (fp_rec_parse_duration(optarg, &ns) < 0)
				fp_die(FP_EXIT_USAGE, "--keep: expected seconds with an optional s, "
				       "m, h or d suffix, got '%s'", optarg);
			o->keep = optarg;
			break;
		}
		case OPT_NO_TERM: o->no_term = 1; break;
		case OPT_INTERVAL: parse_int("--interval", optarg, 1, 3600000); o->interval = optarg; break;
		case OPT_PERF_ARG: pend(o, 'A', "RECORD_ARGS", optarg); break;
		case OPT_PIPELINE: o->pipeline = optarg; break;
		case OPT_DIR_FILE: ro->dir_file = optarg; break;
		case OPT_DRAIN: ro->drain_timeout = fp_parse_timeout("--drain-timeout", optarg); break;
		case OPT_KILL: ro->kill_timeout = fp_parse_timeout("--kill-timeout", optarg); break;
		case 'D':
		case 'A': {
			const char *eq = strchr(optarg, '=');

			if (!eq || !fp_var_name_ok(optarg, (size_t)(eq - optarg)) ||
			    ((size_t)(eq - optarg) == 7 && !strncmp(optarg, "FIFODIR", 7)))
				fp_die(FP_EXIT_USAGE, "-%c: expected NAME=VALUE (NAME not FIFODIR), got '%s'",
				       c, optarg);
			pend(o, (char)c, NULL, optarg);
			break;
		}
		case 'u': ro->user = optarg; break;
		case 'v': ro->verbose = 1; ro->announce_dir = 1; break;
		case 'q': o->quiet = 1; break;
		case 'h': printf("usage: flamepipe %s\n", cmd_live_usage); exit(FP_EXIT_OK);
		default: fp_die(FP_EXIT_USAGE, "usage: flamepipe %s", cmd_live_usage);
		}
	}
	if (optind < argc)
		o->command = argv + optind;
	if (o->pid && o->all_cpus)
		fp_die(FP_EXIT_USAGE, "live: -a and -p exclude each other (as in perf record)");
	if (o->pid && o->command)
		fp_die(FP_EXIT_USAGE, "live: -p and a COMMAND exclude each other "
		       "(use --duration to bound a -p capture)");
	ro->privileged = o->source == SRC_BPFTRACE ? PRIVILEGED_BPFTRACE : PRIVILEGED_PERF;
	if (o->source == SRC_BPFTRACE && o->call_graph)
		fp_die(FP_EXIT_USAGE, "live: --call-graph is a perf option (bpftrace always "
		       "records kernel and user stacks)");
	if (!o->pid && !o->command)
		o->all_cpus = 1;
}

/* ---- variables ------------------------------------------------------------- */

/* One word appended to bpftrace's -c text. bpftrace splits that text at
 * blanks itself (no shell), so a word with blanks cannot be passed. */
static void word_append(char *dst, size_t cap, const char *word)
{
	size_t n = strlen(dst), w = strlen(word);

	if (strpbrk(word, " \t\n"))
		fp_die(FP_EXIT_USAGE, "live: --source bpftrace: '%s': bpftrace -c splits the "
		       "command at blanks, so an argument cannot contain one", word);
	if (n + 1 + w + 1 > cap)
		fp_die(FP_EXIT_USAGE, "live: --source bpftrace: the command is too long");
	if (n)
		dst[n++] = ' ';
	memcpy(dst + n, word, w + 1);
}

/* bpftrace -c wants one binary: with a merged /usr, a bare name like
 * `sleep` matches /bin/sleep and /usr/bin/sleep and bpftrace refuses. */
static char *real_program(const char *prog)
{
	char *found = fp_find_program(prog, NULL), *real;

	if (!found)
		fp_die(FP_EXIT_USAGE, "live: %s: command not found", prog);
	real = realpath(found, NULL);
	if (real) {
		free(found);
		return real;
	}
	return found;
}

static void source_vars(const struct live_opts *o, struct fp_vars *v)
{
	fp_vars_set(v, "HZ", o->hz);
	fp_vars_list(v, "RECORD_ARGS");
	fp_vars_list(v, "SCRIPT_ARGS");
	fp_vars_list(v, "BPFTRACE_ARGS");
	if (o->source == SRC_BPFTRACE) {
		char *bt = find_data_file("bpftrace/profile.bt");
		char cmd[TEXT_MAX] = "";

		if (!bt)
			fp_die(FP_EXIT_USAGE, "live: examples/bpftrace/profile.bt not found next "
			       "to %s (give it with -D BT_PROGRAM=FILE)", fp_run_bindir());
		fp_vars_set(v, "BT_PROGRAM", bt);
		free(bt);
		/* bpftrace -c runs COMMAND and stops when it ends. Not for
		 * --duration (a timer stops the run instead): with -c, bpftrace
		 * 0.17 names no user frames of other processes. -p filters in
		 * fp-range (the profile probe fires whatever runs). */
		if (o->command) {
			char *prog = real_program(o->command[0]);

			word_append(cmd, sizeof cmd, prog);
			free(prog);
			for (char **a = o->command + 1; *a; a++)
				word_append(cmd, sizeof cmd, *a);
		}
		if (cmd[0]) {
			fp_vars_append(v, "BPFTRACE_ARGS", "-c");
			fp_vars_append(v, "BPFTRACE_ARGS", cmd);
		}
		if (o->pid) {
			fp_vars_append(v, "RANGE_ARGS", "--pid");
			fp_vars_append(v, "RANGE_ARGS", o->pid);
		}
		return;
	}
	fp_vars_append(v, "RECORD_ARGS", "-F");
	fp_vars_append(v, "RECORD_ARGS", o->hz);
	if (o->all_cpus)
		fp_vars_append(v, "RECORD_ARGS", "-a");
	if (o->pid) {
		fp_vars_append(v, "RECORD_ARGS", "-p");
		fp_vars_append(v, "RECORD_ARGS", o->pid);
	}
	if (o->call_graph) {
		fp_vars_append(v, "RECORD_ARGS", "--call-graph");
		fp_vars_append(v, "RECORD_ARGS", o->call_graph);
	} else if (o->callgraph) {
		fp_vars_append(v, "RECORD_ARGS", "-g");
	}
}

/* The workload goes last on perf's command line (after --perf-arg words),
 * so it is its own list, WORKLOAD: COMMAND, or `sleep S` for --duration
 * (perf ends by itself when it exits, and the chain drains). */
static void workload_vars(const struct live_opts *o, struct fp_vars *v)
{
	fp_vars_list(v, "WORKLOAD");
	if (o->source != SRC_PERF)
		return;
	if (o->command || o->duration > 0)
		fp_vars_append(v, "WORKLOAD", "--");
	if (o->command) {
		for (char **a = o->command; *a; a++)
			fp_vars_append(v, "WORKLOAD", *a);
	} else if (o->duration > 0) {
		char buf[64];

		fp_vars_append(v, "WORKLOAD", "sleep");
		snprintf(buf, sizeof buf, "%.3f", o->duration);
		fp_vars_append(v, "WORKLOAD", buf);
	}
}

/* ---- the views -------------------------------------------------------------- */

struct views {
	int render, web;	/* which stages to append */
};

/* RENDER_VIEW_ARGS for the render stage; which stages to append. */
static void pick_views(const struct live_opts *o, int tty, struct views *vw, struct fp_vars *v)
{
	int term = tty && !o->no_term;

	vw->web = o->http != NULL;
	vw->render = o->outdir || term;
	fp_vars_list(v, "RENDER_VIEW_ARGS");
	if (o->outdir) {
		fp_vars_append(v, "RENDER_VIEW_ARGS", "--outdir");
		fp_vars_append(v, "RENDER_VIEW_ARGS", o->outdir);
		if (o->interval) {
			fp_vars_append(v, "RENDER_VIEW_ARGS", "--interval");
			fp_vars_append(v, "RENDER_VIEW_ARGS", o->interval);
		}
	}
	if (term)
		fp_vars_append(v, "RENDER_VIEW_ARGS", "--term");
	if (vw->render && vw->web)	/* fp-serve comes next */
		fp_vars_append(v, "RENDER_VIEW_ARGS", "--passthrough");
}

/* The pipeline file's text followed by the view stages, written to
 * DIR/live.pipeline. Returns the path. */
static char *write_generated(const char *dir, const char *file, const struct views *vw)
{
	size_t dl = strlen(dir);
	char *out = fp_xmalloc(dl + sizeof "/" GENERATED_NAME);
	FILE *in, *f;
	char buf[TEXT_MAX];
	size_t n;
	int last_nl = 1;

	memcpy(out, dir, dl);
	memcpy(out + dl, "/" GENERATED_NAME, sizeof "/" GENERATED_NAME);
	in = fopen(file, "r");
	if (!in)
		fp_die_sys(FP_EXIT_USAGE, "live: cannot read pipeline file %s", file);
	f = fopen(out, "wx");
	if (!f)
		fp_die_sys(FP_EXIT_SYS, "live: cannot write %s", out);
	while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
		fwrite(buf, 1, n, f);
		last_nl = buf[n - 1] == '\n';
	}
	if (!last_nl)
		fputc('\n', f);
	fprintf(f, "# views added by flamepipe live\n");
	if (vw->render)
		fprintf(f, "render fp-render ${RENDER_VIEW_ARGS} ${RENDER_ARGS}\n");
	if (vw->web)
		fprintf(f, "web fp-serve --live ${LIVE_NAME} --control ${FIFODIR}/range.ctl "
			"--listen ${HTTP} --dir ${SERVE_DIR} ${SERVE_ARGS}\n");
	if (ferror(in) || fclose(f) != 0)
		fp_die_sys(FP_EXIT_SYS, "live: cannot write %s", out);
	fclose(in);
	return out;
}

/* Once every stage before the web server has finished, the capture is
 * over: stop the server (it would serve the ended capture for ever; it
 * exits 0 on SIGTERM). fp-serve is the last stage, so nothing after it is
 * cut short. */
static void web_watch_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct web_watch *ww = w->data;
	pid_t pid;

	for (size_t i = 0; i < ww->index; i++)
		if (fp_run_stage_pid(ww->run, i) > 0)
			return;
	pid = fp_run_stage_pid(ww->run, ww->index);
	if (pid > 0 && !ww->stopped) {
		ww->stopped = 1;
		kill(pid, SIGTERM);
	}
	ev_timer_stop(loop, w);
}

/* ---- summary ------------------------------------------------------------------ */

static int folded_totals(const char *dir, uint64_t *samples, uint64_t *stacks)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, FOLDED_NAME);
	f = fopen(path, "r");
	if (!f)
		return -1;
	*samples = *stacks = 0;
	while (getline(&line, &cap, f) > 0) {
		char *sp = strrchr(line, ' ');

		if (sp) {
			*samples += strtoull(sp + 1, NULL, 10);
			(*stacks)++;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/* fp-record's --stats file: key=value lines. */
struct record_stats {
	int ok;
	uint64_t read, dropped, lost, idle, recorded, kept_samples, kept_bytes;
	uint64_t kept_from_ns, kept_to_ns, retention_dropped, capture_from_ns, capture_to_ns;
	uint64_t failed;
};

static void read_record_stats(const char *dir, struct record_stats *rs)
{
	static const struct { const char *key; size_t off; } keys[] = {
#define K(f) { #f, offsetof(struct record_stats, f) }
		K(read), K(dropped), K(lost), K(idle), K(recorded), K(kept_samples),
		K(kept_bytes), K(kept_from_ns), K(kept_to_ns), K(retention_dropped),
		K(capture_from_ns), K(capture_to_ns), K(failed),
#undef K
	};
	char path[PATH_MAX], line[256];
	FILE *f;

	memset(rs, 0, sizeof *rs);
	snprintf(path, sizeof path, "%s/%s", dir, RECORD_STATS_NAME);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof line, f)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
			if (!strcmp(line, keys[i].key))
				*(uint64_t *)((char *)rs + keys[i].off) = strtoull(eq + 1, NULL, 10);
	}
	fclose(f);
	rs->ok = 1;
}

/* "; recording PATH: all 12.0 s (0.1 MB)" or which window it kept. */
static void recording_summary(char *buf, size_t n, const struct record_stats *rs,
			      const char *path)
{
	double kept_s = (double)(rs->kept_to_ns - rs->kept_from_ns) / 1e9;
	double mb = (double)rs->kept_bytes / (1 << 20);

	if (rs->failed)
		snprintf(buf, n, "; recording %s stopped early (a write failed: see "
			 "above), %" PRIu64 " samples kept", path, rs->kept_samples);
	else if (rs->retention_dropped)
		snprintf(buf, n, "; recording %s keeps the newest %.1f s (%" PRIu64 " of %" PRIu64
			 " samples, %.1f MB; the oldest %.1f s dropped by retention)", path, kept_s,
			 rs->kept_samples, rs->recorded, mb,
			 (double)(rs->kept_from_ns - rs->capture_from_ns) / 1e9);
	else
		snprintf(buf, n, "; recording %s: all of it (%" PRIu64 " samples, %.1f s, %.1f MB)",
			 path, rs->recorded, kept_s, mb);
}

/* The final line: what perf gave, what the chain dropped, what the
 * report and the recording hold. */
static void print_summary(const struct live_opts *o, struct fp_run *r, const char *recording,
			  double elapsed, int rc)
{
	uint64_t samples, stacks;
	struct record_stats rs;
	char counts[512] = "", rec[PATH_MAX + 256] = "", report[PATH_MAX + 128] = "";

	read_record_stats(fp_run_dir(r), &rs);
	if (rs.ok) {
		uint64_t all = rs.read + rs.dropped;

		snprintf(counts, sizeof counts, ": %" PRIu64 " samples read, %" PRIu64 " dropped "
			 "(%.1f%%), %" PRIu64 " lost by perf, %" PRIu64 " idle", rs.read, rs.dropped,
			 all ? 100.0 * (double)rs.dropped / (double)all : 0.0, rs.lost, rs.idle);
		if (o->outdir)
			recording_summary(rec, sizeof rec, &rs, recording);
	}
	if (o->outdir) {
		if (folded_totals(o->outdir, &samples, &stacks) == 0)
			snprintf(report, sizeof report, "; %" PRIu64 " samples in %" PRIu64
				 " stacks -> %s/", samples, stacks, o->outdir);
		else
			snprintf(report, sizeof report, "; no %s/%s (a stage failed?)", o->outdir,
				 FOLDED_NAME);
	}
	fprintf(stderr, "%s: live: stopped after %.1f s%s%s%s%s\n", fp_prog(), elapsed, counts,
		report, rec, rc ? " (incomplete: a stage failed)" : "");
}

/* RECORDING (fp-record's file) and RECORDING_ARGS (retention). Returns
 * the path. */
static char *recording_vars(const struct live_opts *o, struct fp_run *r, struct fp_vars *v)
{
	char path[PATH_MAX];
	const char *max = o->max_size ? o->max_size : o->outdir ? NULL : TEMP_RECORDING_MAX_SIZE;

	snprintf(path, sizeof path, "%s/%s", o->outdir ? o->outdir : fp_run_dir(r),
		 RECORDING_NAME);
	fp_vars_set(v, "RECORDING", path);
	fp_vars_list(v, "RECORDING_ARGS");
	if (max) {
		fp_vars_append(v, "RECORDING_ARGS", "--max-size");
		fp_vars_append(v, "RECORDING_ARGS", max);
	}
	if (o->keep) {
		fp_vars_append(v, "RECORDING_ARGS", "--keep");
		fp_vars_append(v, "RECORDING_ARGS", o->keep);
	}
	return fp_xstrdup(path);
}

/* ---- the command ---------------------------------------------------------------- */

int cmd_live(int argc, char **argv)
{
	struct live_opts o = { 0 };
	struct fp_run_opts ro;
	struct fp_vars v;
	struct fp_pipeline pl;
	struct views vw;
	struct web_watch ww = { 0 };
	char err[FP_PIPELINE_ERR_MAX];
	char *pipeline, *generated, *serve_dir = NULL, *recording;
	struct fp_run *r;
	int rc, tty = isatty(1), null_fd;
	ev_tstamp start;

	fp_run_opts_init(&ro);
	ro.announce_dir = 0;
	ro.drain_timeout = LIVE_DRAIN_TIMEOUT;
	ro.kill_timeout = LIVE_KILL_TIMEOUT;
	parse_options(argc, argv, &o, &ro);
	if (!o.http && !o.outdir && (!tty || o.no_term))
		fp_die(FP_EXIT_USAGE, "live: nothing to show: stdout is not a terminal (or "
		       "--no-term) and neither --http PORT nor -o DIR was given");
	if (o.pipeline) {
		pipeline = fp_xstrdup(o.pipeline);
	} else {
		const char *rel = o.source == SRC_BPFTRACE ? "live-bpftrace.pipeline" : "live.pipeline";

		pipeline = find_data_file(rel);
		if (!pipeline)
			fp_die(FP_EXIT_USAGE, "live: %s not found next to %s (give one with "
			       "--pipeline FILE)", rel, fp_run_bindir());
	}
	check_source(&o);
	if (o.outdir) {
		if (mkdir(o.outdir, 0777) == 0) {
			/* --user: the renderer writes here as that user. */
			struct passwd *pw = ro.user && geteuid() == 0 ? getpwnam(ro.user) : NULL;

			if (pw && chown(o.outdir, pw->pw_uid, pw->pw_gid) < 0)
				fp_die_sys(FP_EXIT_SYS, "live: cannot give %s to --user %s",
					   o.outdir, ro.user);
		} else if (errno != EEXIST) {
			fp_die_sys(FP_EXIT_SYS, "live: cannot make output dir %s", o.outdir);
		}
	}
	if (o.http) {
		if (o.serve_dir) {
			serve_dir = fp_xstrdup(o.serve_dir);
		} else {
			serve_dir = find_data_file(".");
			if (!serve_dir || !is_dir(serve_dir)) {
				free(serve_dir);
				serve_dir = fp_xstrdup(".");
			}
		}
	}
	/* COMMAND runs in the background process group: no terminal input. */
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd >= 0)
		ro.in_fd = null_fd;

	r = fp_run_new(&ro);
	fp_vars_init(&v);
	fp_run_default_vars(r, &v);
	pick_views(&o, tty, &vw, &v);
	source_vars(&o, &v);
	workload_vars(&o, &v);
	recording = recording_vars(&o, r, &v);
	fp_vars_set(&v, "LIVE_NAME", o.name);
	fp_vars_set(&v, "HTTP", o.http ? o.http : "");
	fp_vars_set(&v, "SERVE_DIR", serve_dir ? serve_dir : ".");
	fp_vars_list(&v, "SERVE_ARGS");
	fp_vars_list(&v, "TERM_ARGS");
	if (o.outdir)
		fp_vars_set(&v, "OUTDIR", o.outdir);
	if (o.rows)
		fp_vars_set(&v, "ROWS", o.rows);
	for (size_t i = 0; i < o.npending; i++)
		if (fp_vars_define(&v, o.pending[i] + 1, o.pending[i][0] == 'A') < 0)
			fp_die(FP_EXIT_USAGE, "live: bad variable '%s'", o.pending[i] + 1);

	/* Errors in the user's file are reported against that file. */
	if (fp_pipeline_parse_file(pipeline, &v, &pl, err, sizeof err) < 0 ||
	    fp_pipeline_resolve(&pl, fp_run_bindir(), err, sizeof err) < 0)
		fp_die(FP_EXIT_USAGE, "%s", err);
	ww.index = pl.n + (size_t)vw.render;
	fp_pipeline_free(&pl);
	generated = write_generated(fp_run_dir(r), pipeline, &vw);

	rc = fp_run_load(r, generated, &v);
	if (rc == 0)
		rc = fp_run_start(r);
	if (rc == 0) {
		struct ev_loop *loop = fp_run_loop(r);

		start = ev_now(loop);
		if (!o.quiet) {
			fprintf(stderr, "%s: live: %s at %s Hz%s%s%s; Ctrl-C stops and %s\n",
				fp_prog(), o.source == SRC_BPFTRACE ? "bpftrace" : "perf record",
				o.hz, o.pid ? " on pid " : o.command ? " on a command" : " on all CPUs",
				o.pid ? o.pid : "", o.callgraph || o.source == SRC_BPFTRACE ? " with stacks" : "",
				o.outdir ? "writes the report" : "ends");
			/* fp-serve prints its own "listening on URL" line. */
			if (o.http)
				fprintf(stderr, "%s: live: the web view lists this capture as '%s'\n",
					fp_prog(), o.name);
		}
		struct duration dur = { .run = r, .seconds = o.duration };

		if (o.source == SRC_BPFTRACE && o.duration > 0) {
			ev_timer_init(&dur.w, duration_cb, DURATION_POLL, DURATION_POLL);
			dur.w.data = &dur;
			ev_timer_start(loop, &dur.w);
		}
		if (vw.web && !o.keep_serving) {
			ww.run = r;
			ev_timer_init(&ww.w, web_watch_cb, WEB_POLL_INTERVAL, WEB_POLL_INTERVAL);
			ww.w.data = &ww;
			ev_timer_start(loop, &ww.w);
		}
		rc = fp_run_wait(r);
		if (o.source == SRC_BPFTRACE && o.duration > 0)
			ev_timer_stop(loop, &dur.w);
		if (ww.run)
			ev_timer_stop(loop, &ww.w);
		ev_now_update(loop);
		if (!o.quiet)
			print_summary(&o, r, recording, ev_now(loop) - start, rc);
	} else {
		fp_run_stop(r);
		fp_run_wait(r);
	}
	fp_run_free(r);
	fp_vars_free(&v);
	if (null_fd >= 0)
		close(null_fd);
	for (size_t i = 0; i < o.npending; i++)
		free(o.pending[i]);
	free(o.pending);
	free(pipeline);
	free(generated);
	free(serve_dir);
	free(recording);
	return rc;
}
