/* options.c: the options run, check, report and live share (options.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fp_error.h"
#include "fp_opts.h"
#include "fp_record.h"
#include "options.h"

#define FIFODIR_VAR "FIFODIR"

enum {
	OPT_ROWS = 1000,
	OPT_PIPELINE,
	OPT_INPUT,
	OPT_OUTDIR_LONG,
	OPT_FIFO_DIR,
	OPT_DIR_FILE,
	OPT_DRAIN,
	OPT_KILL,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
};

#define ALL (FP_CLI_RUN | FP_CLI_REPORT | FP_CLI_LIVE)

static const struct shared {
	struct option opt;
	unsigned cmds;
} shared[] = {
	{ { "define", required_argument, NULL, 'D' }, ALL },
	{ { "append", required_argument, NULL, 'A' }, ALL },
	{ { "rows", required_argument, NULL, OPT_ROWS }, ALL },
	{ { "dir-file", required_argument, NULL, OPT_DIR_FILE }, ALL },
	{ { "drain-timeout", required_argument, NULL, OPT_DRAIN }, ALL },
	{ { "kill-timeout", required_argument, NULL, OPT_KILL }, ALL },
	{ { "user", required_argument, NULL, 'u' }, ALL },
	{ { "verbose", no_argument, NULL, 'v' }, ALL },
	{ { "quiet", no_argument, NULL, 'q' }, ALL },
	{ { "help", no_argument, NULL, 'h' }, ALL },
	{ { "outdir", required_argument, NULL, 'o' }, FP_CLI_REPORT | FP_CLI_LIVE },
	{ { "outdir", required_argument, NULL, OPT_OUTDIR_LONG }, FP_CLI_RUN },
	{ { "input", required_argument, NULL, OPT_INPUT }, FP_CLI_RUN },
	{ { "fifo-dir", required_argument, NULL, OPT_FIFO_DIR }, FP_CLI_RUN },
	{ { "pipeline", required_argument, NULL, OPT_PIPELINE }, FP_CLI_REPORT | FP_CLI_LIVE },
	{ { "progress", no_argument, NULL, OPT_PROGRESS }, FP_CLI_RUN | FP_CLI_REPORT },
	{ { "no-progress", no_argument, NULL, OPT_NO_PROGRESS }, FP_CLI_RUN | FP_CLI_REPORT },
};
#define NSHARED (sizeof shared / sizeof *shared)

void fp_cli_init(struct fp_cli *cli, int argc, enum fp_cli_cmd cmd, const char *usage)
{
	memset(cli, 0, sizeof *cli);
	cli->cmd = cmd;
	cli->usage = usage;
	fp_run_opts_init(&cli->run);
	cli->run.announce_dir = cmd == FP_CLI_RUN;
	cli->progress = isatty(2);
	/* every argument could be a define, and a passthrough makes two */
	cli->cap = (size_t)argc * 2 + 1;
	cli->defines = fp_xcalloc(cli->cap, sizeof *cli->defines);
	optind = 1;
}

/* What the one parser's callback needs: the command's table (own, then
 * the shared options it takes) to map a name to its code. */
struct dispatch {
	struct fp_cli *cli;
	const struct option *table;
	void (*handle)(void *ctx, int code, const char *arg);
	void *ctx;
};

static void dispatch_option(void *ctx, const char *name, const char *arg)
{
	struct dispatch *d = ctx;
	const struct option *o = d->table;

	while (o->name && strcmp(o->name, name))
		o++;
	if (!fp_cli_option(d->cli, o->val, arg))
		d->handle(d->ctx, o->val, arg);
}

static enum fp_opt_kind kind_of(int has_arg)
{
	return has_arg == no_argument         ? FP_OPT_FN_FLAG
	       : has_arg == optional_argument ? FP_OPT_FN_OPTIONAL
					      : FP_OPT_FN;
}

int fp_cli_parse(struct fp_cli *cli, int argc, char **argv, const struct option *own, size_t n,
		 int stop_at_operand, void (*handle)(void *ctx, int code, const char *arg),
		 void *ctx)
{
	return fp_cli_parse_shorts(cli, argc, argv, own, n, NULL, stop_at_operand, handle, ctx);
}

int fp_cli_parse_shorts(struct fp_cli *cli, int argc, char **argv, const struct option *own,
			size_t n, const char *short_only, int stop_at_operand,
			void (*handle)(void *ctx, int code, const char *arg), void *ctx)
{
	struct option table[FP_CLI_TABLE_MAX];
	struct fp_opt opts[FP_CLI_TABLE_MAX];
	struct dispatch d = { cli, table, handle, ctx };
	size_t k = 0, m = 0;

	for (size_t i = 0; i < n && k + 1 < FP_CLI_TABLE_MAX; i++)
		table[k++] = own[i];
	for (size_t i = 0; i < NSHARED && k + 1 < FP_CLI_TABLE_MAX; i++)
		if (shared[i].cmds & cli->cmd)
			table[k++] = shared[i].opt;
	/* short-only options: a one-letter name, never a long option */
	static char letters[16][2];
	for (size_t i = 0; short_only && short_only[i] && i < 16 && k + 1 < FP_CLI_TABLE_MAX; i++) {
		letters[i][0] = short_only[i];
		table[k++] = (struct option){ letters[i], no_argument, NULL, short_only[i] };
	}
	table[k] = (struct option){ NULL, 0, NULL, 0 };
	for (size_t i = 0; i < k; i++) {
		int c = table[i].val;

		if (!strcmp(table[i].name, "help"))
			continue; /* fp_opts_parse's own --help and -h */
		opts[m++] = (struct fp_opt){ table[i].name,
					     kind_of(table[i].has_arg),
					     .fn = dispatch_option,
					     .fn_ctx = &d,
					     .short_name = c > 0 && c < 128 ? (char)c : 0,
					     .short_only = short_only && c > 0 && c < 128 &&
							   table[i].name[1] == '\0' &&
							   strchr(short_only, c) != NULL };
	}
	opts[m] = (struct fp_opt){ NULL };
	snprintf(cli->usage_line, sizeof cli->usage_line, "usage: flamepipe %s", cli->usage);
	return fp_opts_parse(argc, argv, opts, cli->usage_line,
			     stop_at_operand ? FP_OPTS_REST : FP_OPTS_ANY, NULL);
}

void fp_cli_usage_error(const struct fp_cli *cli)
{
	fp_die(FP_EXIT_USAGE, "usage: flamepipe %s", cli->usage);
}

static void add_define(struct fp_cli *cli, char kind, const char *var, const char *value)
{
	size_t n = (var ? strlen(var) + 1 : 0) + strlen(value) + 2;
	char *s = fp_xmalloc(n);

	if (cli->ndefines + 1 >= cli->cap) {
		cli->cap *= 2;
		cli->defines = fp_xrealloc(cli->defines, cli->cap * sizeof *cli->defines);
	}
	snprintf(s, n, "%c%s%s%s", kind, var ? var : "", var ? "=" : "", value);
	cli->defines[cli->ndefines++] = s;
}

void fp_cli_append(struct fp_cli *cli, const char *var, const char *word)
{
	add_define(cli, 'A', var, word);
}

/* -D NAME=VALUE / -A NAME=WORD: NAME a variable name, never FIFODIR. */
static void check_assignment(int c, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq || !fp_var_name_ok(arg, (size_t)(eq - arg)))
		fp_die(FP_EXIT_USAGE,
		       "-%c: expected NAME=VALUE with NAME like "
		       "[A-Za-z_][A-Za-z0-9_]*, got '%s'",
		       c, arg);
	if ((size_t)(eq - arg) == sizeof FIFODIR_VAR - 1 &&
	    !strncmp(arg, FIFODIR_VAR, sizeof FIFODIR_VAR - 1))
		fp_die(FP_EXIT_USAGE, "-%c: FIFODIR is set by the runner", c);
}

int fp_cli_option(struct fp_cli *cli, int c, const char *arg)
{
	switch (c) {
	case 'D':
	case 'A':
		check_assignment(c, arg);
		add_define(cli, (char)c, NULL, arg);
		break;
	case OPT_ROWS:
		fp_parse_int("--rows", arg, 1, FP_ROWS_MAX);
		cli->rows = arg;
		break;
	case OPT_DIR_FILE:
		cli->run.dir_file = arg;
		break;
	case OPT_DRAIN:
		cli->run.drain_timeout = fp_parse_timeout("--drain-timeout", arg);
		break;
	case OPT_KILL:
		cli->run.kill_timeout = fp_parse_timeout("--kill-timeout", arg);
		break;
	case 'u':
		cli->run.user = arg;
		break;
	case 'v':
		cli->run.verbose = 1;
		cli->run.announce_dir = !cli->quiet;
		break;
	case 'q':
		cli->quiet = 1;
		cli->progress = 0;
		cli->run.announce_dir = 0;
		break;
	case 'h':
		printf("usage: flamepipe %s\n", cli->usage);
		exit(FP_EXIT_OK);
	case 'o':
	case OPT_OUTDIR_LONG:
		cli->outdir = arg;
		break;
	case OPT_INPUT:
		cli->input = arg;
		break;
	case OPT_FIFO_DIR:
		cli->run.fifo_dir = arg;
		break;
	case OPT_PIPELINE:
		cli->pipeline = arg;
		break;
	case OPT_PROGRESS:
		cli->progress = 1;
		break;
	case OPT_NO_PROGRESS:
		cli->progress = 0;
		break;
	case '?':
		fp_cli_usage_error(cli);
	default:
		return 0;
	}
	return 1;
}

void fp_cli_vars(const struct fp_cli *cli, struct fp_vars *v)
{
	if (cli->input)
		fp_vars_set(v, "INPUT", cli->input);
	if (cli->outdir)
		fp_vars_set(v, "OUTDIR", cli->outdir);
	if (cli->rows)
		fp_vars_set(v, "ROWS", cli->rows);
	for (size_t i = 0; i < cli->ndefines; i++)
		if (fp_vars_define(v, cli->defines[i] + 1, cli->defines[i][0] == 'A') < 0)
			fp_die(FP_EXIT_USAGE, "bad variable '%s'", cli->defines[i] + 1);
}

void fp_cli_no_range(struct fp_vars *v, int selecting)
{
	const struct fp_var *args = fp_vars_get(v, "RANGE_ARGS");

	if (!selecting && !fp_vars_get(v, "NO_RANGE") && (!args || args->n == 0))
		fp_vars_set(v, "NO_RANGE", "1");
}

void fp_cli_free(struct fp_cli *cli)
{
	for (size_t i = 0; i < cli->ndefines; i++)
		free(cli->defines[i]);
	free(cli->defines);
	cli->defines = NULL;
	cli->ndefines = 0;
}

long fp_parse_int(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		fp_die(FP_EXIT_USAGE, "%s: bad value '%s' (expected an integer %ld..%ld)", opt, s,
		       min, max);
	return v;
}

double fp_parse_timeout(const char *opt, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v >= 0) || v > FP_CLI_TIMEOUT_MAX)
		fp_die(FP_EXIT_USAGE, "%s: bad duration '%s' (expected seconds, 0..%g)", opt, s,
		       FP_CLI_TIMEOUT_MAX);
	return v;
}

char *fp_find_data_file(const char *rel)
{
	static const char *const roots[] = { "../examples", "../share/flamepipe" };
	const char *bindir = fp_run_bindir();
	char path[PATH_MAX];

	for (size_t i = 0; bindir && i < sizeof roots / sizeof *roots; i++) {
		snprintf(path, sizeof path, "%s/%s/%s", bindir, roots[i], rel);
		if (access(path, R_OK) == 0)
			return fp_xstrdup(path);
	}
	return NULL;
}

char *fp_default_pipeline(void)
{
	const char *env = getenv("FLAMEPIPE_PIPELINE");
	char *path;

	if (env && *env)
		return fp_xstrdup(env);
	if ((path = fp_find_data_file("default.pipeline")))
		return path;
	fp_die(FP_EXIT_USAGE,
	       "no default pipeline found next to %s (give one with --pipeline FILE)",
	       fp_run_bindir() ? fp_run_bindir() : "the flamepipe binary");
}
