/* report.c: `flamepipe report FILE -o DIR [options]`: the default pipeline
 * (read -> bucket -> range -> fold -> render) on a finished capture; with
 * nothing to select (no range, no filter, no --tui) NO_RANGE=1, and the
 * shipped pipelines leave fp-range out.
 * --tui: the interactive terminal view (fp-tui, runner/tuiview.h) in place
 * of the render stage, or after it (with -o: it passes the stream on).
 *
 * Options become pipeline variables: INPUT, OUTDIR, ROWS and the list
 * variables READ_ARGS, BUCKET_ARGS, RANGE_ARGS, FOLD_ARGS, RENDER_ARGS,
 * which the pipeline file places on each stage's command line. So another
 * --pipeline gets the same options without the runner knowing its stages.
 * While stderr is a terminal a progress line shows how far fp-read is
 * (its input fd's position in /proc/PID/fdinfo against the file size).
 * A perf.data (by its magic) runs examples/perfdata.pipeline instead: the
 * same chain with fp-perfdata as its source (no perf script).
 * At the end one summary line: samples and stacks (from DIR/stacks.folded),
 * input size, time, throughput, and the files written.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ev.h>

#include "commands.h"
#include "fp_error.h"
#include "fp_sniff.h"

#define PERFDATA_PIPELINE "perfdata.pipeline"
#include "options.h"
#include "pipeline.h"
#include "pipeline_run.h"
#include "progress.h"
#include "summary.h"
#include "tuiview.h"

#define FILES_LIST_MAX 512
#define OPT_TUI 255      /* --tui: the terminal view (below OPT_PASS) */
#define OPT_BASELINE 254 /* --baseline FILE: the view's differential (d) */

const char cmd_report_usage[] =
	"report FILE|- {-o DIR | --tui [--baseline FILE] | -o DIR --tui} [--rows N] [--keep-idle] "
	"[--weight samples|period]\n"
	"        [--from S] [--to S] [--pid LIST] [--tid LIST] [--cpu LIST] [--comm NAMES]\n"
	"        [--event NAMES|--all-events] [--include REGEX] [--exclude REGEX] [--container "
	"NAME|REGEX]\n"
	"        [--pid-root|--tid-root]\n"
	"        [--kernel] [--jit] [--pipeline FILE] [-D NAME=VALUE]... [-A NAME=WORD]...\n"
	"        [--format LIST] [--read-arg A] [--bucket-arg A] [--range-arg A] [--fold-arg A] "
	"[--render-arg A]\n"
	"        [--progress|--no-progress] [--dir-file F] [--drain-timeout S] [--kill-timeout S]\n"
	"        [-u|--user USER] [-v] [-q]";

/* An option that becomes words of a stage's list variable. */
struct passthrough {
	const char *option; /* report's option (without --) */
	int has_arg;
	const char *var;          /* list variable */
	const char *stage_option; /* the stage's option, or NULL: the argument itself */
	const char *also_var;     /* a second list that gets the same words, or NULL */
};

static const struct passthrough passthroughs[] = {
	{ "keep-idle", 0, "BUCKET_ARGS", "--keep-idle" },
	{ "weight", 1, "FOLD_ARGS", "--weight" },
	/* fp-range writes the range and filters it starts with into the
	 * stream, where fp-render reads them to name them */
	{ "from", 1, "RANGE_ARGS", "--from" },
	{ "to", 1, "RANGE_ARGS", "--to" },
	{ "pid", 1, "RANGE_ARGS", "--pid" },
	{ "tid", 1, "RANGE_ARGS", "--tid" },
	{ "cpu", 1, "RANGE_ARGS", "--cpu" },
	{ "comm", 1, "RANGE_ARGS", "--comm" },
	/* one event set for both views: fp-bucket counts the heatmap of
	 * these events only and drops the others; fp-range's selection is
	 * the flame graph's, and names them */
	{ "event", 1, "BUCKET_ARGS", "--event", "RANGE_ARGS" },
	{ "all-events", 0, "BUCKET_ARGS", "--all-events" },
	{ "include", 1, "RANGE_ARGS", "--include" },
	{ "exclude", 1, "RANGE_ARGS", "--exclude" },
	{ "container", 1, "RANGE_ARGS", "--container" },
	{ "pid-root", 0, "FOLD_ARGS", "--pid" },
	{ "tid-root", 0, "FOLD_ARGS", "--tid" },
	{ "kernel", 0, "FOLD_ARGS", "--kernel" },
	{ "jit", 0, "FOLD_ARGS", "--jit" },
	{ "read-arg", 1, "READ_ARGS", NULL },
	{ "bucket-arg", 1, "BUCKET_ARGS", NULL },
	{ "range-arg", 1, "RANGE_ARGS", NULL },
	{ "fold-arg", 1, "FOLD_ARGS", NULL },
	{ "render-arg", 1, "RENDER_ARGS", NULL },
	{ "format", 1, "RENDER_ARGS", "--format" },
};
#define NPASS (sizeof passthroughs / sizeof *passthroughs)

#define OPT_PASS 256 /* + index into passthroughs */

/* A passthrough option: its words, in command-line order with -A/-D. */
static void add_passthrough(struct fp_cli *cli, const struct passthrough *p, const char *arg)
{
	for (const char *var = p->var; var; var = var == p->var ? p->also_var : NULL) {
		if (p->stage_option)
			fp_cli_append(cli, var, p->stage_option);
		if (p->has_arg)
			fp_cli_append(cli, var, arg);
	}
}

struct report_parse {
	struct fp_cli *cli;
	int *tui;
};

static const char *tui_baseline; /* --baseline FILE, for fp-tui */

/* One of report's own options: --tui, or a passthrough. */
static void report_option(void *ctx, int c, const char *arg)
{
	struct report_parse *rp = ctx;

	if (c == OPT_TUI)
		*rp->tui = 1;
	else if (c == OPT_BASELINE)
		tui_baseline = arg;
	else if (c >= OPT_PASS && c < OPT_PASS + (int)NPASS)
		add_passthrough(rp->cli, &passthroughs[c - OPT_PASS], arg);
	else
		fp_cli_usage_error(rp->cli);
}

/* FILE, -o DIR and/or --tui, and the options; returns FILE. */
static const char *parse_report_options(int argc, char **argv, struct fp_cli *cli, int *tui)
{
	struct option own[NPASS + 2];
	struct report_parse rp = { cli, tui };

	fp_cli_init(cli, argc, FP_CLI_REPORT, cmd_report_usage);
	for (size_t i = 0; i < NPASS; i++)
		own[i] = (struct option){ passthroughs[i].option,
					  passthroughs[i].has_arg ? required_argument : no_argument,
					  NULL, OPT_PASS + (int)i };
	own[NPASS] = (struct option){ "tui", no_argument, NULL, OPT_TUI };
	own[NPASS + 1] = (struct option){ "baseline", required_argument, NULL, OPT_BASELINE };
	int first = fp_cli_parse(cli, argc, argv, own, NPASS + 2, 0, report_option, &rp);
	if (argc - first != 1 || (!cli->outdir && !*tui) || (tui_baseline && !*tui))
		fp_cli_usage_error(cli);
	if (*tui) /* the view owns the terminal: no progress line on it */
		cli->progress = 0;
	return argv[first];
}

/* How much of the input was read, in honest words: fp-read's own count of
 * input bytes (its last report; none for other sources) against the file
 * size. The file size is the bytes read only when the source read it all;
 * a FIFO or stdin has no size. */
static void describe_input(char *buf, size_t n, const char *input, const struct stat *st,
			   long long read, double elapsed, int rc)
{
	const char *what = !strcmp(input, "-")     ? "stdin"
			   : S_ISFIFO(st->st_mode) ? "a FIFO"
						   : "a stream";
	double size_mb = (double)st->st_size / FP_BYTES_PER_MB, mb, rate;

	if (S_ISREG(st->st_mode) && read < 0 && rc == 0)
		read = st->st_size; /* a source that is not fp-read, and it ended well */
	mb = (double)read / FP_BYTES_PER_MB;
	rate = elapsed > 0 ? mb / elapsed : 0.0;
	if (!S_ISREG(st->st_mode)) {
		if (read >= 0)
			snprintf(buf, n, "%.2f MB read from %s in %.2f s (%.1f MB/s)", mb, what,
				 elapsed, rate);
		else
			snprintf(buf, n, "%s (its size is unknown) in %.2f s", what, elapsed);
	} else if (read == st->st_size) {
		snprintf(buf, n, "%.2f MB in %.2f s (%.1f MB/s)", mb, elapsed, rate);
	} else if (read >= 0) {
		snprintf(buf, n, "%.2f of %.2f MB read in %.2f s (%.1f MB/s)", mb, size_mb, elapsed,
			 rate);
	} else {
		snprintf(buf, n, "a %.2f MB file, how much of it was read is unknown, %.2f s",
			 size_mb, elapsed);
	}
}

static void print_summary(struct fp_run *r, const char *input, const struct stat *st,
			  const char *outdir, double elapsed, int rc)
{
	uint64_t samples = 0, stacks = 0;
	char files[FILES_LIST_MAX], counts[128], in[160];

	if (!outdir) { /* --tui alone: the view was the report (its time is the user's) */
		long long read = fp_run_bytes_read(r);

		if (read < 0 && S_ISREG(st->st_mode) && rc == 0)
			read = st->st_size; /* a source that is not fp-read, and it ended well */
		if (read >= 0)
			snprintf(in, sizeof in, "%.2f MB read", (double)read / FP_BYTES_PER_MB);
		else
			snprintf(in, sizeof in, "how much was read is unknown");
		fprintf(stderr, "%s: report: %s: %s, shown in the terminal view%s\n", fp_prog(),
			strcmp(input, "-") ? input : "stdin", in,
			rc ? " (incomplete: a stage failed)" : "");
		return;
	}

	/* fp-render's word, else the file read again (a pipeline of others) */
	if (fp_run_folded_totals(r, outdir, &samples, &stacks) == 0 ||
	    fp_folded_totals(outdir, &samples, &stacks) == 0)
		snprintf(counts, sizeof counts, "%" PRIu64 " samples in %" PRIu64 " stacks",
			 samples, stacks);
	else
		snprintf(counts, sizeof counts, "no %s", FP_FOLDED_NAME);
	describe_input(in, sizeof in, input, st, fp_run_bytes_read(r), elapsed, rc);
	fp_list_files(outdir, files, sizeof files);
	fprintf(stderr, "%s: report: %s: %s, %s -> %s/ [%s]%s\n", fp_prog(),
		strcmp(input, "-") ? input : "stdin", counts, in, outdir, files,
		rc ? " (incomplete: a stage failed)" : "");
}

/* `-o out/demo` works like `mkdir -p`: missing parents are made (0777 &
 * umask); the last component is made by the caller, which owns it. */
static void make_parent_dirs(const char *path)
{
	char *p = fp_xstrdup(path);

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST)
			fp_die_sys(FP_EXIT_SYS, "report: cannot make output dir %s", p);
		*s = '/';
	}
	free(p);
}

/* The input must be readable and not a directory: refused before any
 * output exists. `-` is stdin. */
static void check_input(const char *input, struct stat *st)
{
	if (!strcmp(input, "-")) {
		if (fstat(0, st) < 0)
			fp_die_sys(FP_EXIT_SYS, "report: cannot read stdin");
		return;
	}
	if (stat(input, st) < 0)
		fp_die_sys(FP_EXIT_SYS, "report: cannot read %s", input);
	if (S_ISDIR(st->st_mode))
		fp_die(FP_EXIT_USAGE, "report: %s is a directory, not a capture file", input);
}

/* A file can be made in DIR (not read-only, not a full quota): found
 * before any input is read, not after the renderer has done its work.
 * (As root with --user, the renderer's own access is not probed.) */
static void check_writable(const char *dir)
{
	char probe[PATH_MAX];
	int fd;

	snprintf(probe, sizeof probe, "%s/.flamepipe-write-test.%ld", dir, (long)getpid());
	fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		fp_die_sys(FP_EXIT_SYS, "report: cannot write in output dir %s", dir);
	close(fd);
	unlink(probe);
}

/* Makes DIR (and its parents); with --user as root, DIR is that user's
 * (the renderer writes there as that user). */
static void make_outdir(const char *outdir, const char *user)
{
	make_parent_dirs(outdir);
	if (mkdir(outdir, 0777) == 0) {
		if (user && geteuid() == 0) {
			struct passwd *pw = getpwnam(user);

			if (pw && chown(outdir, pw->pw_uid, pw->pw_gid) < 0)
				fp_die_sys(FP_EXIT_SYS, "report: cannot give %s to --user %s",
					   outdir, user);
		}
	} else if (errno != EEXIST) {
		fp_die_sys(FP_EXIT_SYS, "report: cannot make output dir %s", outdir);
	}
	check_writable(outdir);
}

/* Loads, starts and waits for the pipeline, with the progress line and
 * the summary. Returns the exit code. */
/* --tui: the pipeline without its render stage (unless -o: then it
 * passes the stream on) and with the view; TUI_ARGS. Returns the file. */
static char *tui_vars(struct fp_run *r, const struct fp_cli *cli, const char *pipeline,
		      const char *input, struct fp_vars *v)
{
	const char *slash = strrchr(input, '/');

	fp_vars_list(v, "TUI_ARGS");
	fp_tui_vars(r, v); /* its messages log and quit file */
	fp_vars_append(v, "TUI_ARGS", "--title");
	fp_vars_append(v, "TUI_ARGS", strcmp(input, "-") ? (slash ? slash + 1 : input) : "stdin");
	if (tui_baseline) {
		fp_vars_append(v, "TUI_ARGS", "--baseline");
		fp_vars_append(v, "TUI_ARGS", tui_baseline);
	}
	if (cli->outdir)
		fp_vars_append(v, "RENDER_ARGS", "--passthrough");
	return fp_tui_pipeline(fp_run_dir(r), pipeline, cli->outdir != NULL);
}

static int run_report(const struct fp_cli *cli, const char *pipeline, const char *input,
		      const struct stat *st, int tui)
{
	struct fp_run *r = fp_run_new(&cli->run);
	struct fp_progress prog = { 0 };
	struct fp_tui_watch tw = { 0 };
	char *generated = NULL;
	struct fp_vars v;
	ev_tstamp started;
	int rc;

	fp_vars_init(&v);
	fp_run_default_vars(r, &v);
	fp_vars_set(&v, "INPUT", input);
	/* the source stage by content: perf script text or a Chrome profile
	 * (stdin, a FIFO cannot be looked at twice: perf script text) */
	if (S_ISREG(st->st_mode) && strcmp(input, "-"))
		fp_vars_set(&v, "READER", fp_sniff_reader(fp_sniff_path(input)));
	fp_cli_vars(cli, &v);
	fp_cli_no_range(&v, tui);
	if (tui)
		generated = tui_vars(r, cli, pipeline, input, &v);
	rc = fp_run_load(r, generated ? generated : pipeline, &v);
	if (rc == 0 && tui) /* the view owns the screen: messages wait */
		fp_tui_stderr_begin(fp_run_dir(r));
	if (rc == 0)
		rc = fp_run_start(r);
	if (rc == 0) {
		started = ev_now(fp_run_loop(r));
		if (cli->progress)
			fp_progress_start(&prog, r, input, "report");
		if (tui) /* quitting the view ends the report */
			fp_tui_watch_start(&tw, r);
		rc = fp_run_wait(r);
		fp_tui_watch_stop(&tw);
		fp_tui_stderr_end();
		fp_progress_stop(&prog);
		ev_now_update(fp_run_loop(r));
		if (!cli->quiet)
			print_summary(r, input, st, cli->outdir, ev_now(fp_run_loop(r)) - started,
				      rc);
	} else {
		fp_run_stop(r);
		fp_run_wait(r);
		fp_tui_stderr_end();
	}
	fp_run_free(r);
	fp_vars_free(&v);
	free(generated);
	return rc;
}

/* --pipeline; else a perf.data (its magic) gets examples/perfdata.pipeline,
 * whose source is fp-perfdata; else the default pipeline (FLAMEPIPE_PIPELINE
 * overrides both). */
static char *report_pipeline(const struct fp_cli *cli, const char *input, const struct stat *st)
{
	const char *env = getenv("FLAMEPIPE_PIPELINE");
	char *path;

	if (cli->pipeline)
		return fp_xstrdup(cli->pipeline);
	if (!(env && *env) && S_ISREG(st->st_mode) && strcmp(input, "-") &&
	    fp_sniff_path(input) == FP_CAPTURE_PERFDATA &&
	    (path = fp_find_data_file(PERFDATA_PIPELINE)))
		return path;
	return fp_default_pipeline();
}

int cmd_report(int argc, char **argv)
{
	struct fp_cli cli;
	struct stat st;
	int tui = 0;
	const char *input = parse_report_options(argc, argv, &cli, &tui);
	char *pipeline;
	int rc;

	check_input(input, &st);
	if (cli.outdir)
		make_outdir(cli.outdir, cli.run.user);
	pipeline = report_pipeline(&cli, input, &st);
	rc = run_report(&cli, pipeline, input, &st, tui);
	fp_cli_free(&cli);
	free(pipeline);
	return rc;
}
