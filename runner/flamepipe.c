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
 * Exit codes: fp_error.h (FP_EXIT_*); docs/flamepipe.md has the details.
 * The shared options are parsed in options.c.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "fp_error.h"
#include "options.h"
#include "pipeline.h"
#include "pipeline_run.h"
#include "progress.h"

const char cmd_run_usage[] =
	"run [PIPELINE] [-D NAME=VALUE]... [-A NAME=WORD]... [--input FILE] [--outdir DIR]\n"
	"        [--rows N] [--dir-file F] [--fifo-dir DIR] [--drain-timeout S] [--kill-timeout "
	"S]\n"
	"        [-u|--user USER] [--progress|--no-progress] [-v] [-q]";
const char cmd_check_usage[] = "check [PIPELINE] [-D NAME=VALUE]... [-A NAME=WORD]... [--input "
			       "FILE] [--outdir DIR] [--rows N]";

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
	add_command("ctl", cmd_ctl, cmd_ctl_usage,
		    "talk to a running pipeline (status, restart, replace, insert, stop)");
	add_command("check", cmd_check, cmd_check_usage,
		    "parse a pipeline file and print its stages");
	add_command("push", cmd_push, cmd_push_usage,
		    "send finished captures to a Pyroscope-style /ingest endpoint");
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

/* ---- run and check ------------------------------------------------------------ */

/* run and check have no options of their own. */
static void no_own_option(void *ctx, int c, const char *arg)
{
	fp_cli_usage_error(ctx);
}

/* run and check: [PIPELINE] and the shared options (options.h). */
static void parse_run_args(int argc, char **argv, struct fp_cli *cli, const char *usage)
{
	fp_cli_init(cli, argc, FP_CLI_RUN, usage);
	int first = fp_cli_parse(cli, argc, argv, NULL, 0, 0, no_own_option, cli);
	if (argc - first > 1)
		fp_cli_usage_error(cli);
	cli->pipeline = first < argc ? argv[first] : NULL;
}

/* The INPUT variable when it is one file (for the progress line). */
static const char *single_input(const struct fp_vars *v)
{
	const struct fp_var *in = fp_vars_get(v, "INPUT");

	return in && !in->is_list && in->n ? in->words[0] : NULL;
}

int cmd_run(int argc, char **argv)
{
	struct fp_cli cli;
	struct fp_vars v;
	struct fp_run *r;
	struct fp_progress prog = { 0 };
	char *pipeline;
	int rc;

	parse_run_args(argc, argv, &cli, cmd_run_usage);
	pipeline = cli.pipeline ? fp_xstrdup(cli.pipeline) : fp_default_pipeline();
	r = fp_run_new(&cli.run);
	fp_vars_init(&v);
	fp_run_default_vars(r, &v);
	fp_cli_vars(&cli, &v);
	rc = fp_run_load(r, pipeline, &v);
	if (rc == 0)
		rc = fp_run_start(r);
	if (rc == 0) {
		if (cli.progress)
			fp_progress_start(&prog, r, single_input(&v), "run");
		rc = fp_run_wait(r);
		fp_progress_stop(&prog);
	} else {
		fp_run_stop(r), fp_run_wait(r);
	}
	fp_run_free(r);
	fp_vars_free(&v);
	fp_cli_free(&cli);
	free(pipeline);
	return rc;
}

/* Prints each stage as NAME TAB restart=.. TAB retries=.. TAB PATH TAB ARG...,
 * so a pipeline file can be checked without running it. */
int cmd_check(int argc, char **argv)
{
	struct fp_cli cli;
	struct fp_vars v;
	struct fp_pipeline pl;
	char err[FP_PIPELINE_ERR_MAX];
	char *pipeline;

	parse_run_args(argc, argv, &cli, cmd_check_usage);
	pipeline = cli.pipeline ? fp_xstrdup(cli.pipeline) : fp_default_pipeline();
	fp_vars_init(&v);
	fp_vars_builtin(&v, "FIFODIR");
	fp_cli_vars(&cli, &v);
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
	fp_cli_free(&cli);
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
