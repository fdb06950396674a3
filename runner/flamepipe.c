/* flamepipe: the runner. Starts the stages of a pipeline file on FIFOs,
 * supervises them, and offers the everyday commands on top.
 *
 * Interface:
 *	flamepipe run [PIPELINE] [-D NAME=VALUE]... [-A NAME=WORD]... [--input FILE]
 *	              [--outdir DIR] [--rows N] [--dir-file F] [--fifo-dir DIR]
 *	              [--drain-timeout S] [--kill-timeout S] [-u USER] [--[no-]progress] [-v] [-q]
 *	flamepipe check [PIPELINE] [-D ...] [-A ...]   print the expanded stages
 *	flamepipe report FILE -o DIR [options]          see runner/report.c
 *	flamepipe ctl DIR COMMAND [ARG]...              see runner/ctl.c
 *	flamepipe help [COMMAND] | --help | --version
 *
 * Signals (run, report): SIGINT/SIGTERM/SIGHUP stop the pipeline: the
 * source gets SIGTERM, the rest drains; a second signal sends SIGTERM to
 * every stage, a third SIGKILL. SIGQUIT kills every stage at once.
 * Exit codes: 0 ok, 1 a stage reported bad data, 2 a stage failed
 * otherwise, 100 usage / pipeline file / program not found, 111 system
 * error (pipeline_run.h). docs/flamepipe.md has the details.
 */
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "fp_error.h"
#include "pipeline.h"
#include "pipeline_run.h"

#define ROWS_MAX 1000
#define TIMEOUT_MAX 3600.0

const char cmd_run_usage[] =
	"run [PIPELINE] [-D NAME=VALUE]... [-A NAME=WORD]... [--input FILE] [--outdir DIR]\n"
	"        [--rows N] [--dir-file F] [--fifo-dir DIR] [--drain-timeout S] [--kill-timeout S]\n"
	"        [-u|--user USER] [--progress|--no-progress] [-v] [-q]";
const char cmd_check_usage[] =
	"check [PIPELINE] [-D NAME=VALUE]... [-A NAME=WORD]... [--input FILE] [--outdir DIR] [--rows N]";

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

/* Filled at run time: weak commands are NULL until their file exists. */
static struct command commands[8];
static size_t ncommands;

static void add_command(const char *name, int (*fn)(int, char **), const char *usage,
			const char *summary)
{
	commands[ncommands++] = (struct command){ name, fn, usage, summary };
}

static void init_commands(void)
{
	add_command("run", cmd_run, cmd_run_usage, "start and supervise a pipeline file");
	add_command("report", cmd_report, cmd_report_usage,
		    "heatmap and flame graph files from a capture");
	add_command("ctl", cmd_ctl, cmd_ctl_usage, "talk to a running pipeline (status, restart, replace, insert, stop)");
	add_command("check", cmd_check, cmd_check_usage, "parse a pipeline file and print its stages");
	add_command("live", cmd_live, cmd_live ? cmd_live_usage : "live ...",
		    "profile the running system live");
	add_command("serve", cmd_serve, cmd_serve ? cmd_serve_usage : "serve ...",
		    "serve the interactive web page");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < ncommands; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_help(FILE *f)
{
	fprintf(f, "usage: flamepipe COMMAND [ARG]...\n\ncommands:\n");
	for (size_t i = 0; i < ncommands; i++)
		fprintf(f, "  %-7s %s%s\n", commands[i].name, commands[i].summary,
			commands[i].fn ? "" : " (not built in)");
	fprintf(f, "  help    this text, or `flamepipe help COMMAND`\n"
		"\n  flamepipe --version\n\nSee docs/flamepipe.md.\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		print_help(stdout);
		return FP_EXIT_OK;
	}
	c = find_command(argv[1]);
	if (!c)
		fp_die(FP_EXIT_USAGE, "no command '%s' (see flamepipe help)", argv[1]);
	printf("usage: flamepipe %s\n", c->usage);
	return FP_EXIT_OK;
}

/* ---- shared helpers -------------------------------------------------------- */

double fp_parse_timeout(const char *opt, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v >= 0) || v > TIMEOUT_MAX)
		fp_die(FP_EXIT_USAGE, "%s: bad duration '%s' (expected seconds, 0..%g)", opt, s, TIMEOUT_MAX);
	return v;
}

char *fp_default_pipeline(void)
{
	static const char *const candidates[] = {
		"../examples/default.pipeline",
		"../share/flamepipe/default.pipeline",
	};
	const char *env = getenv("FLAMEPIPE_PIPELINE");
	const char *bindir = fp_run_bindir();
	char path[PATH_MAX];

	if (env && *env)
		return fp_xstrdup(env);
	for (size_t i = 0; bindir && i < sizeof candidates / sizeof *candidates; i++) {
		snprintf(path, sizeof path, "%s/%s", bindir, candidates[i]);
		if (access(path, R_OK) == 0)
			return fp_xstrdup(path);
	}
	fp_die(FP_EXIT_USAGE, "no default pipeline found next to %s (give one with --pipeline FILE)",
	       bindir ? bindir : "the flamepipe binary");
}

/* ---- run and check ------------------------------------------------------------ */

struct run_args {
	struct fp_run_opts o;
	const char *pipeline;
	char **defines;		/* "-D" or "-A" then the assignment, in order */
	size_t ndefines;
	const char *input, *outdir, *rows;
	int verbose, quiet, progress;
};

enum {
	OPT_INPUT = 256, OPT_OUTDIR, OPT_ROWS, OPT_DIR_FILE, OPT_FIFO_DIR,
	OPT_DRAIN, OPT_KILL, OPT_PROGRESS, OPT_NO_PROGRESS,
};

static const struct option run_options[] = {
	{ "define", required_argument, NULL, 'D' },
	{ "append", required_argument, NULL, 'A' },
	{ "input", required_argument, NULL, OPT_INPUT },
	{ "outdir", required_argument, NULL, OPT_OUTDIR },
	{ "rows", required_argument, NULL, OPT_ROWS },
	{ "dir-file", required_argument, NULL, OPT_DIR_FILE },
	{ "fifo-dir", required_argument, NULL, OPT_FIFO_DIR },
	{ "drain-timeout", required_argument, NULL, OPT_DRAIN },
	{ "kill-timeout", required_argument, NULL, OPT_KILL },
	{ "user", required_argument, NULL, 'u' },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void check_rows(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < 1 || v > ROWS_MAX)
		fp_die(FP_EXIT_USAGE, "--rows: bad value '%s' (expected an integer 1..%d)", s, ROWS_MAX);
}

static void parse_run_args(int argc, char **argv, struct run_args *a, const char *usage)
{
	int c;

	memset(a, 0, sizeof *a);
	fp_run_opts_init(&a->o);
	a->defines = fp_xcalloc((size_t)argc + 1, sizeof *a->defines);
	a->progress = isatty(2);
	optind = 1;
	while ((c = getopt_long(argc, argv, "D:A:u:vqh", run_options, NULL)) != -1) {
		switch (c) {
		case 'D':
		case 'A': {
			const char *eq = strchr(optarg, '=');

			if (!eq || !fp_var_name_ok(optarg, (size_t)(eq - optarg)))
				fp_die(FP_EXIT_USAGE, "-%c: expected NAME=VALUE with NAME like [A-Za-z_][A-Za-z0-9_]*, got '%s'",
				       c, optarg);
			if ((size_t)(eq - optarg) == 7 && !strncmp(optarg, "FIFODIR", 7))
				fp_die(FP_EXIT_USAGE, "-%c: FIFODIR is set by the runner", c);
			size_t len = strlen(optarg);
			char *d = fp_xmalloc(len + 2);

			d[0] = (char)c;
			memcpy(d + 1, optarg, len + 1);
			a->defines[a->ndefines++] = d;
			break;
		}
		case OPT_INPUT: a->input = optarg; break;
		case OPT_OUTDIR: a->outdir = optarg; break;
		case OPT_ROWS: check_rows(optarg); a->rows = optarg; break;
		case OPT_DIR_FILE: a->o.dir_file = optarg; break;
		case OPT_FIFO_DIR: a->o.fifo_dir = optarg; break;
		case OPT_DRAIN: a->o.drain_timeout = fp_parse_timeout("--drain-timeout", optarg); break;
		case OPT_KILL: a->o.kill_timeout = fp_parse_timeout("--kill-timeout", optarg); break;
		case 'u': a->o.user = optarg; break;
		case OPT_PROGRESS: a->progress = 1; break;
		case OPT_NO_PROGRESS: a->progress = 0; break;
		case 'v': a->o.verbose = 1; break;
		case 'q': a->quiet = 1; a->progress = 0; break;
		case 'h': printf("usage: flamepipe %s\n", usage); exit(FP_EXIT_OK);
		default: fp_die(FP_EXIT_USAGE, "usage: flamepipe %s", usage);
		}
	}
	if (argc - optind > 1)
		fp_die(FP_EXIT_USAGE, "usage: flamepipe %s", usage);
	a->pipeline = optind < argc ? argv[optind] : NULL;
	if (a->quiet)
		a->o.announce_dir = 0;
}

/* Built-ins first, then the options that set them, then -D/-A in order. */
static void build_vars(struct run_args *a, struct fp_vars *v, const char *fifodir,
		       struct fp_run *r)
{
	if (r)
		fp_run_default_vars(r, v);
	else
		fp_vars_builtin(v, fifodir);
	if (a->input)
		fp_vars_set(v, "INPUT", a->input);
	if (a->outdir)
		fp_vars_set(v, "OUTDIR", a->outdir);
	if (a->rows)
		fp_vars_set(v, "ROWS", a->rows);
	for (size_t i = 0; i < a->ndefines; i++)
		fp_vars_define(v, a->defines[i] + 1, a->defines[i][0] == 'A');
}

static void free_run_args(struct run_args *a)
{
	for (size_t i = 0; i < a->ndefines; i++)
		free(a->defines[i]);
	free(a->defines);
}

int cmd_run(int argc, char **argv)
{
	struct run_args a;
	struct fp_vars v;
	struct fp_run *r;
	struct fp_progress prog = { 0 };
	char *pipeline;
	int rc;

	parse_run_args(argc, argv, &a, cmd_run_usage);
	pipeline = a.pipeline ? fp_xstrdup(a.pipeline) : fp_default_pipeline();
	r = fp_run_new(&a.o);
	fp_vars_init(&v);
	build_vars(&a, &v, NULL, r);
	rc = fp_run_load(r, pipeline, &v);
	if (rc == 0)
		rc = fp_run_start(r);
	if (rc == 0) {
		if (a.progress) {
			const struct fp_var *in = fp_vars_get(&v, "INPUT");

			fp_progress_start(&prog, r, in && !in->is_list && in->n ? in->words[0] : NULL, "run");
		}
		rc = fp_run_wait(r);
		fp_progress_stop(&prog);
	} else {
		fp_run_stop(r), fp_run_wait(r);
	}
	fp_run_free(r);
	fp_vars_free(&v);
	free_run_args(&a);
	free(pipeline);
	return rc;
}

/* Prints each stage as NAME TAB restart=.. TAB retries=.. TAB PATH TAB ARG...,
 * so a pipeline file can be checked without running it. */
int cmd_check(int argc, char **argv)
{
	struct run_args a;
	struct fp_vars v;
	struct fp_pipeline pl;
	char err[FP_PIPELINE_ERR_MAX];
	char *pipeline;

	parse_run_args(argc, argv, &a, cmd_check_usage);
	pipeline = a.pipeline ? fp_xstrdup(a.pipeline) : fp_default_pipeline();
	fp_vars_init(&v);
	build_vars(&a, &v, "FIFODIR", NULL);
	if (fp_pipeline_parse_file(pipeline, &v, &pl, err, sizeof err) < 0 ||
	    fp_pipeline_resolve(&pl, fp_run_bindir(), err, sizeof err) < 0)
		fp_die(FP_EXIT_USAGE, "%s", err);
	for (size_t i = 0; i < pl.n; i++) {
		const struct fp_stage_spec *st = &pl.stages[i];

		printf("%s\trestart=%s\tretries=%u\t%s", st->name, fp_restart_name(st->restart),
		       st->retries, st->path);
		for (size_t k = 0; k < st->argc; k++)
			printf("\t%s", st->argv[k]);
		putchar('\n');
	}
	fp_pipeline_free(&pl);
	fp_vars_free(&v);
	free_run_args(&a);
	free(pipeline);
	return fflush(stdout) == 0 ? FP_EXIT_OK : FP_EXIT_SYS;
}

/* fds 0, 1 and 2 must be open, or FIFOs would land on them. */
static void sanitize_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			exit(FP_EXIT_SYS);
}

int main(int argc, char **argv)
{
	const struct command *c;

	fp_set_prog(argv[0]);
	sanitize_fds();
	init_commands();
	if (argc < 2) {
		print_help(stderr);
		return FP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("flamepipe %s (stream protocol 1)\n", FP_VERSION);
		return FP_EXIT_OK;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(argc - 1, argv + 1);
	c = find_command(argv[1]);
	if (!c)
		fp_die(FP_EXIT_USAGE, "no command '%s' (see flamepipe help)", argv[1]);
	if (!c->fn)
		fp_die(FP_EXIT_USAGE, "command '%s' is not built into this flamepipe", c->name);
	return c->fn(argc - 1, argv + 1);
}
