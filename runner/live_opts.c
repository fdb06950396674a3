/* live_opts.c: `flamepipe live`'s command line (live.h, docs/live.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "fp_error.h"
#include "fp_recording.h"
#include "live.h"
#include "options.h"

#define DEFAULT_HZ "49"
#define HZ_MAX 100000
#define INTERVAL_MAX_MS 3600000
#define DEFAULT_LIVE_NAME "live"
/* perf script can need seconds to load the symbols of a big binary it
 * meets for the first time, and perf record cannot exit while its last
 * write waits for perf script: give both longer than the runner's
 * defaults before TERM/KILL (docs/live.md "Stopping"). */
#define LIVE_DRAIN_TIMEOUT 15.0
#define LIVE_KILL_TIMEOUT 10.0

const char cmd_live_usage[] =
	"live [-F HZ] [-a | -p PID] [-g | --call-graph MODE] [--duration S] [--rows N]\n"
	"        [--source perf|perf-script|bpftrace] [--ssh [USER@]HOST [--ssh-arg A]... "
	"[--remote-script]]\n"
	"        [--push URL [--app NAME] [--label KEY=VALUE]... [--push-interval S]\n"
	"         [--push-format folded|pprof] [--auth-token-file F] [--basic-auth-file F]\n"
	"         [--tenant ID]]\n"
	"        [--baseline FILE] [--baseline-from S --baseline-to S] [--alert PCT]\n"
	"        [--alert-by function|stack]\n"
	"        [--http [ADDR:]PORT] [-o DIR] [--name NAME] [--container NAME|REGEX] [--off-cpu]\n"
	"        [--interval MS] [--serve-dir DIR] [--exit-at-end] [--no-term] [--term "
	"tui|heatmap]\n"
	"        [--perf-arg A]...\n"
	"        [--max-size BYTES] [--keep DURATION]\n"
	"        [--pipeline FILE] [-D NAME=VALUE]... [-A NAME=WORD]... [--dir-file F]\n"
	"        [--drain-timeout S] [--kill-timeout S] [-u|--user USER] [-v] [-q]\n"
	"        [-- COMMAND [ARG]...]";

/* ---- options -------------------------------------------------------------- */

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

	fp_parse_int("--http", port, 0, 65535);
	if (colon == s)
		fp_die(FP_EXIT_USAGE, "--http: empty address in '%s' (expected [ADDR:]PORT)", s);
}

enum {
	OPT_DURATION = 256,
	OPT_SOURCE,
	OPT_HTTP,
	OPT_NAME,
	OPT_SERVE_DIR,
	OPT_KEEP,
	OPT_NO_TERM,
	OPT_PERF_ARG,
	OPT_CALL_GRAPH,
	OPT_INTERVAL,
	OPT_MAX_SIZE,
	OPT_KEEP_FOR,
	OPT_EXIT_AT_END,
	OPT_SSH,
	OPT_SSH_ARG,
	OPT_PUSH,
	OPT_APP,
	OPT_LABEL,
	OPT_PUSH_INTERVAL,
	OPT_PUSH_FORMAT,
	OPT_AUTH_TOKEN_FILE,
	OPT_BASIC_AUTH_FILE,
	OPT_TENANT,
	OPT_CONTAINER,
	OPT_OFF_CPU,
	OPT_REMOTE_SCRIPT,
	OPT_TERM,
	OPT_BASELINE,
	OPT_BASELINE_FROM,
	OPT_BASELINE_TO,
	OPT_ALERT,
	OPT_ALERT_BY,
};

/* With --user, the leading stages that keep root: perf record and perf
 * script (kernel symbols need root), or bpftrace. */
#define PRIVILEGED_PERF 2
#define PRIVILEGED_BPFTRACE 1

/* live's own options (the shared ones are in options.c). */
static const struct option live_options[] = {
	{ "freq", required_argument, NULL, 'F' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "pid", required_argument, NULL, 'p' },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "http", required_argument, NULL, OPT_HTTP },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "serve-dir", required_argument, NULL, OPT_SERVE_DIR },
	{ "keep-serving", no_argument, NULL, OPT_KEEP },
	{ "exit-at-end", no_argument, NULL, OPT_EXIT_AT_END },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "keep", required_argument, NULL, OPT_KEEP_FOR },
	{ "no-term", no_argument, NULL, OPT_NO_TERM },
	{ "term", required_argument, NULL, OPT_TERM },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "perf-arg", required_argument, NULL, OPT_PERF_ARG },
	{ "ssh", required_argument, NULL, OPT_SSH },
	{ "ssh-arg", required_argument, NULL, OPT_SSH_ARG },
	{ "remote-script", no_argument, NULL, OPT_REMOTE_SCRIPT },
	{ "push", required_argument, NULL, OPT_PUSH },
	{ "app", required_argument, NULL, OPT_APP },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "push-interval", required_argument, NULL, OPT_PUSH_INTERVAL },
	{ "push-format", required_argument, NULL, OPT_PUSH_FORMAT },
	{ "auth-token-file", required_argument, NULL, OPT_AUTH_TOKEN_FILE },
	{ "basic-auth-file", required_argument, NULL, OPT_BASIC_AUTH_FILE },
	{ "tenant", required_argument, NULL, OPT_TENANT },
	{ "container", required_argument, NULL, OPT_CONTAINER },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "baseline-from", required_argument, NULL, OPT_BASELINE_FROM },
	{ "baseline-to", required_argument, NULL, OPT_BASELINE_TO },
	{ "alert", required_argument, NULL, OPT_ALERT },
	{ "alert-by", required_argument, NULL, OPT_ALERT_BY },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
};
#define NLIVE_OPTIONS (sizeof live_options / sizeof *live_options)

static enum source parse_source(const char *s)
{
	if (!strcmp(s, "perf"))
		return SRC_PERF;
	if (!strcmp(s, "perf-script"))
		return SRC_PERF_SCRIPT;
	if (!strcmp(s, "bpftrace"))
		return SRC_BPFTRACE;
	fp_die(FP_EXIT_USAGE, "--source: '%s' (expected perf, perf-script or bpftrace)", s);
}

/* The recording's retention options are checked here, used by fp-record. */
static const char *check_max_size(const char *s)
{
	fp_rec_size_arg("max-size", s);
	return s;
}

static const char *check_keep(const char *s)
{
	fp_rec_duration_arg("keep", s);
	return s;
}

/* One of live's own options; dies on an unknown one. */
static void live_option(struct live_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'F':
		fp_parse_int("-F", arg, 1, HZ_MAX);
		o->hz = arg;
		break;
	case 'a':
		o->all_cpus = 1;
		break;
	case 'p':
		check_pid_list(arg);
		o->pid = arg;
		break;
	case 'g':
		o->callgraph = 1;
		break;
	case OPT_CALL_GRAPH:
		o->call_graph = arg;
		o->callgraph = 1;
		break;
	case OPT_DURATION:
		o->duration = fp_parse_timeout("--duration", arg);
		if (o->duration <= 0)
			fp_die(FP_EXIT_USAGE, "--duration: want more than 0 seconds");
		break;
	case OPT_SOURCE:
		o->source = parse_source(arg);
		break;
	case OPT_HTTP:
		check_http(arg);
		o->http = arg;
		break;
	case OPT_NAME:
		if (!*arg || strpbrk(arg, "/\t\n\r"))
			fp_die(FP_EXIT_USAGE, "--name: want a name without '/', TAB or LF");
		o->name = arg;
		break;
	case OPT_SERVE_DIR:
		o->serve_dir = arg;
		break;
	case OPT_KEEP:
		o->keep_serving = 1;
		break; /* the default now */
	case OPT_EXIT_AT_END:
		o->exit_at_end = 1;
		break;
	case OPT_MAX_SIZE:
		o->max_size = check_max_size(arg);
		break;
	case OPT_KEEP_FOR:
		o->keep = check_keep(arg);
		break;
	case OPT_NO_TERM:
		o->no_term = 1;
		break;
	case OPT_TERM: /* the terminal view: fp-tui, or the old drawing for scripts */
		if (strcmp(arg, "tui") && strcmp(arg, "heatmap"))
			fp_die(FP_EXIT_USAGE, "--term: '%s' (expected tui or heatmap)", arg);
		o->term_heatmap = !strcmp(arg, "heatmap");
		break;
	case OPT_INTERVAL:
		fp_parse_int("--interval", arg, 1, INTERVAL_MAX_MS);
		o->interval = arg;
		break;
	case OPT_PERF_ARG:
		fp_cli_append(&o->cli, "RECORD_ARGS", arg);
		break;
	case OPT_SSH:
		if (!*arg || arg[0] == '-')
			fp_die(FP_EXIT_USAGE, "--ssh: want [USER@]HOST, got '%s'", arg);
		o->ssh_host = arg;
		o->source = SRC_SSH;
		break;
	/* fp-ssh's and fp-push's own options: they check them */
	case OPT_SSH_ARG:
		o->ssh_opts = 1;
		fp_cli_append(&o->cli, "SSH_ARGS", "--ssh-arg");
		fp_cli_append(&o->cli, "SSH_ARGS", arg);
		/* fp-perfdata --remote fetches files over the same ssh */
		fp_cli_append(&o->cli, "REMOTE_ARGS", "--ssh-arg");
		fp_cli_append(&o->cli, "REMOTE_ARGS", arg);
		break;
	case OPT_REMOTE_SCRIPT:
		o->remote_script = 1;
		break;
	case OPT_PUSH:
		o->push = arg;
		break;
	case OPT_CONTAINER:
		o->container = arg;
		break; /* fp-range checks the regex */
	/* fp-baseline checks its values, and reads the file, before the capture starts */
	case OPT_BASELINE:
		o->baseline = arg;
		break;
	case OPT_BASELINE_FROM:
		o->baseline_from = arg;
		break;
	case OPT_BASELINE_TO:
		o->baseline_to = arg;
		break;
	case OPT_ALERT:
		o->alert = arg;
		break;
	case OPT_ALERT_BY:
		o->alert_by = arg;
		break;
	case OPT_OFF_CPU:
		o->off_cpu = 1;
		o->callgraph = 1;
		break; /* stacks: where it blocked */
	case OPT_APP:
	case OPT_LABEL:
	case OPT_PUSH_INTERVAL:
	case OPT_PUSH_FORMAT:
	case OPT_AUTH_TOKEN_FILE:
	case OPT_BASIC_AUTH_FILE:
	case OPT_TENANT:
		o->push_opts = 1;
		fp_cli_append(&o->cli, "PUSH_ARGS",
			      c == OPT_APP               ? "--app"
			      : c == OPT_LABEL           ? "--label"
			      : c == OPT_PUSH_INTERVAL   ? "--interval"
			      : c == OPT_PUSH_FORMAT     ? "--format"
			      : c == OPT_AUTH_TOKEN_FILE ? "--auth-token-file"
			      : c == OPT_BASIC_AUTH_FILE ? "--basic-auth-file"
							 : "--tenant");
		fp_cli_append(&o->cli, "PUSH_ARGS", arg);
		break;
	default:
		fp_cli_usage_error(&o->cli);
	}
}

/* Options that exclude each other, and the defaults that depend on others. */
static void check_live_options(struct live_opts *o)
{
	if (o->pid && o->all_cpus)
		fp_die(FP_EXIT_USAGE, "live: -a and -p exclude each other (as in perf record)");
	if (o->pid && o->command)
		fp_die(FP_EXIT_USAGE, "live: -p and a COMMAND exclude each other "
				      "(use --duration to bound a -p capture)");
	o->cli.run.privileged = o->source == SRC_PERF || o->source == SRC_PERF_SCRIPT
					? PRIVILEGED_PERF
					: PRIVILEGED_BPFTRACE;
	if (o->push_opts && !o->push)
		fp_die(FP_EXIT_USAGE,
		       "live: --app, --label, --push-interval, --push-format, "
		       "--auth-token-file, --basic-auth-file and --tenant go with --push URL");
	if ((o->ssh_opts || o->remote_script) && !o->ssh_host)
		fp_die(FP_EXIT_USAGE, "live: --ssh-arg and --remote-script go with --ssh HOST");
	if (o->ssh_host && o->source != SRC_SSH)
		fp_die(FP_EXIT_USAGE, "live: --ssh runs perf on the host: it excludes --source");
	if (o->source == SRC_BPFTRACE && o->call_graph)
		fp_die(FP_EXIT_USAGE, "live: --call-graph is a perf option (bpftrace always "
				      "records kernel and user stacks)");
	if (!o->pid && !o->command)
		o->all_cpus = 1;
	if (!o->baseline && (o->baseline_from || o->baseline_to) &&
	    !(o->baseline_from && o->baseline_to))
		fp_die(FP_EXIT_USAGE, "live: a baseline of this capture needs both --baseline-from "
				      "and --baseline-to (or give --baseline FILE)");
	if ((o->alert || o->alert_by) && !o->baseline && !o->baseline_from)
		fp_die(FP_EXIT_USAGE, "live: --alert and --alert-by compare against a baseline: "
				      "give --baseline FILE or --baseline-from S --baseline-to S");
	if (o->alert_by && !o->alert)
		fp_die(FP_EXIT_USAGE, "live: --alert-by goes with --alert PCT");
}

static void live_option_cb(void *ctx, int c, const char *arg)
{
	live_option(ctx, c, arg);
}

void live_parse_options(int argc, char **argv, struct live_opts *o)
{
	fp_cli_init(&o->cli, argc, FP_CLI_LIVE, cmd_live_usage);
	o->cli.run.drain_timeout = LIVE_DRAIN_TIMEOUT;
	o->cli.run.kill_timeout = LIVE_KILL_TIMEOUT;
	o->hz = DEFAULT_HZ;
	o->name = DEFAULT_LIVE_NAME;
	/* stop at the first operand, so COMMAND's own options stay its; -g
	 * is perf's, a letter only */
	int first = fp_cli_parse_shorts(&o->cli, argc, argv, live_options, NLIVE_OPTIONS, "g", 1,
					live_option_cb, o);
	if (first < argc)
		o->command = argv + first;
	o->outdir = o->cli.outdir;
	o->quiet = o->cli.quiet;
	check_live_options(o);
}
