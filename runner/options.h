/* options.h: the options `flamepipe run`, `check`, `report` and `live`
 * share, parsed in one place (runner/options.c).
 *
 * A command lists its own options and which shared groups it takes; the
 * shared ones (-D/-A, --rows, --pipeline, --dir-file, --drain-timeout,
 * --kill-timeout, -u, -v, -q, -h, ...) are handled here, so each is
 * checked once and means the same everywhere. Calling sequence:
 *
 *	static const struct option own[] = { { "keep-idle", no_argument, NULL, OPT_X }, ... };
 *	static void own_option(void *ctx, int c, const char *arg)
 *	{ switch (c) { case OPT_X: fp_cli_append(ctx, "BUCKET_ARGS", "--keep-idle"); ... } }
 *	struct fp_cli cli;
 *	fp_cli_init(&cli, argc, FP_CLI_REPORT, cmd_report_usage);
 *	int first = fp_cli_parse(&cli, argc, argv, own, NOWN, 0, own_option, &cli);
 *	... r = fp_run_new(&cli.run); fp_run_default_vars(r, &v);
 *	fp_cli_vars(&cli, &v);          // INPUT, OUTDIR, ROWS, then -D/-A in order
 *	fp_cli_free(&cli);
 *
 * An unknown option or -h ends the process (usage on stderr, exit 100; or
 * on stdout, exit 0). Bad values die with `flamepipe: --rows: bad value
 * 'x' (expected an integer 1..1000)` and exit 100.
 */
#ifndef FP_RUNNER_OPTIONS_H
#define FP_RUNNER_OPTIONS_H

#include <getopt.h>
#include <stddef.h>

#include "pipeline.h"
#include "pipeline_run.h"

#define FP_CLI_TIMEOUT_MAX 3600.0 /* s, the longest --drain/--kill-timeout */
#define FP_CLI_TABLE_MAX 96       /* struct option entries, own + shared + end */

/* Which command: selects the shared options it takes. */
enum fp_cli_cmd {
	FP_CLI_RUN = 1 << 0,    /* run and check: --input, --outdir, --fifo-dir */
	FP_CLI_REPORT = 1 << 1, /* -o, --pipeline, --progress */
	FP_CLI_LIVE = 1 << 2,   /* -o, --pipeline */
};

struct fp_cli {
	enum fp_cli_cmd cmd;
	const char *usage;      /* the command's usage line (commands.h) */
	struct fp_run_opts run; /* --dir-file, --fifo-dir, --*-timeout, -u, -v */
	const char *pipeline;   /* --pipeline FILE, or NULL */
	const char *input;      /* --input FILE (run), or NULL */
	const char *outdir;     /* -o/--outdir DIR, or NULL */
	const char *rows;       /* --rows N, checked 1..FP_ROWS_MAX, or NULL */
	int progress;           /* --progress/--no-progress; default: stderr is a tty */
	int quiet;              /* -q: no summary, no progress line, no fifo dir line */
	char **defines;         /* "D" or "A" then NAME=VALUE, in command-line order */
	size_t ndefines, cap;
	char usage_line[1024]; /* "usage: flamepipe " and usage, for fp_opts */
};

/* cli->run starts as fp_run_opts_init() gives it, with the fifo dir line
 * (announce_dir) on for run and off for report and live. */
void fp_cli_init(struct fp_cli *cli, int argc, enum fp_cli_cmd cmd, const char *usage);
/* Parses argv with lib/fp_opts (the one option parser of every program):
 * own (n entries, getopt-style: a code each; a code that is a letter is
 * also the short option) and the shared options of cli->cmd. A shared one
 * is handled here, the command's own by handle(ctx, code, arg). With
 * stop_at_operand, options end at the first operand (live's COMMAND keeps
 * its own). Returns the index of the first operand. */
int fp_cli_parse(struct fp_cli *cli, int argc, char **argv, const struct option *own, size_t n,
		 int stop_at_operand, void (*handle)(void *ctx, int code, const char *arg),
		 void *ctx);
/* The same with short options that have no long name (letters, no
 * argument: live's -g, as perf's). */
int fp_cli_parse_shorts(struct fp_cli *cli, int argc, char **argv, const struct option *own,
			size_t n, const char *short_only, int stop_at_operand,
			void (*handle)(void *ctx, int code, const char *arg), void *ctx);
/* Handles a shared option; 0 if c is not one (the command's own). */
int fp_cli_option(struct fp_cli *cli, int c, const char *arg);
/* Appends WORD to the list variable VAR, in order with -A and -D. */
void fp_cli_append(struct fp_cli *cli, const char *var, const char *word);
/* INPUT, OUTDIR and ROWS if given, then every -D/-A in order. Dies 100 on
 * an assignment the variables refuse. */
void fp_cli_vars(const struct fp_cli *cli, struct fp_vars *v);
/* NO_RANGE=1 when fp-range would pass every record on: RANGE_ARGS empty,
 * nothing to select a range later (selecting: report --tui) and no
 * NO_RANGE of -D. The shipped pipelines leave fp-range out then
 * (omit-if=${NO_RANGE:-}): one stage and one FIFO fewer, an eighth of
 * the report's CPU on the bench's mixed corpus. -D NO_RANGE= keeps it. */
void fp_cli_no_range(struct fp_vars *v, int selecting);
void fp_cli_free(struct fp_cli *cli);
/* Dies with the usage line (exit 100). */
void fp_cli_usage_error(const struct fp_cli *cli) __attribute__((noreturn));

/* Value checks shared with the commands' own options; each dies 100. */
long fp_parse_int(const char *opt, const char *s, long min, long max);
/* Seconds ("5", "0.5"), 0..FP_CLI_TIMEOUT_MAX. */
double fp_parse_timeout(const char *opt, const char *s);

/* The default pipeline: $FLAMEPIPE_PIPELINE, then <bindir>/../examples/
 * default.pipeline, then <bindir>/../share/flamepipe/default.pipeline.
 * Dies 100 if none. */
char *fp_default_pipeline(void);
/* <bindir>/../examples/REL, then <bindir>/../share/flamepipe/REL, or NULL. */
char *fp_find_data_file(const char *rel);

#endif
