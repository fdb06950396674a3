/* report.c: `flamepipe report FILE -o DIR [options]`: the default pipeline
 * (read -> bucket -> range -> fold -> render) on a finished capture.
 *
 * Options become pipeline variables: INPUT, OUTDIR, ROWS and the list
 * variables READ_ARGS, BUCKET_ARGS, RANGE_ARGS, FOLD_ARGS, RENDER_ARGS,
 * which the pipeline file places on each stage's command line. So another
 * --pipeline gets the same options without the runner knowing its stages.
 * While stderr is a terminal a progress line shows how far fp-read is
 * (its input fd's position in /proc/PID/fdinfo against the file size).
 * At the end one summary line: samples and stacks (from DIR/stacks.folded),
 * input size, time, throughput, and the files written.
 */
#include <dirent.h>
#include <errno.h>
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
#include "pipeline.h"
#include "pipeline_run.h"

#define PROGRESS_INTERVAL 0.25	/* s between progress line updates */
#define BYTES_PER_MB 1e6
#define FILES_LIST_MAX 512
#define FOLDED_NAME "stacks.folded"

const char cmd_report_usage[] =
	"report FILE -o DIR [--rows N] [--keep-idle] [--weight samples|period]\n"
	"        [--from S] [--to S] [--pid LIST] [--tid LIST] [--cpu LIST] [--comm NAMES]\n"
	"        [--event NAMES] [--include REGEX] [--exclude REGEX] [--pid-root|--tid-root]\n"
	"        [--kernel] [--jit] [--pipeline FILE] [-D NAME=VALUE]... [-A NAME=WORD]...\n"
	"        [--format LIST] [--read-arg A] [--bucket-arg A] [--range-arg A] [--fold-arg A] [--render-arg A]\n"
	"        [--progress|--no-progress] [--dir-file F] [--drain-timeout S] [--kill-timeout S]\n"
	"        [-u|--user USER] [-v] [-q]";

/* An option that becomes words of a stage's list variable. */
struct passthrough {
	const char *option;	/* report's option (without --) */
	int has_arg;
	const char *var;	/* list variable */
	const char *stage_option;	/* the stage's option, or NULL: the argument itself */
	const char *also_var;	/* a second list that gets the same words, or NULL */
};

static const struct passthrough passthroughs[] = {
	{ "keep-idle", 0, "BUCKET_ARGS", "--keep-idle" },
	{ "weight", 1, "FOLD_ARGS", "--weight" },
	/* fp-render names the range and filters on the flame graph (and
	 * draws the range on the heatmap): they go to RENDER_ARGS too. */
	{ "from", 1, "RANGE_ARGS", "--from", "RENDER_ARGS" },
	{ "to", 1, "RANGE_ARGS", "--to", "RENDER_ARGS" },
	{ "pid", 1, "RANGE_ARGS", "--pid", "RENDER_ARGS" },
	{ "tid", 1, "RANGE_ARGS", "--tid", "RENDER_ARGS" },
	{ "cpu", 1, "RANGE_ARGS", "--cpu", "RENDER_ARGS" },
	{ "comm", 1, "RANGE_ARGS", "--comm", "RENDER_ARGS" },
	{ "event", 1, "RANGE_ARGS", "--event", "RENDER_ARGS" },
	{ "include", 1, "RANGE_ARGS", "--include", "RENDER_ARGS" },
	{ "exclude", 1, "RANGE_ARGS", "--exclude", "RENDER_ARGS" },
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

enum {
	OPT_PASS = 256,		/* + index into passthroughs */
	OPT_ROWS = OPT_PASS + 100, OPT_PIPELINE, OPT_PROGRESS, OPT_NO_PROGRESS,
	OPT_DIR_FILE, OPT_DRAIN, OPT_KILL,
};


/* fp-read's position in the input: the fd of /proc/PID/fd that links to
 * the input file; its fdinfo "pos:". -1 if not found. */
static long long reader_position(pid_t pid, const char *input_real)
{
	char path[64], link[PATH_MAX];
	long long pos = -1;
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while (pos < 0 && (e = readdir(d))) {
		char fdpath[320];
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(fdpath, sizeof fdpath, "/proc/%ld/fd/%s", (long)pid, e->d_name);
		n = readlink(fdpath, link, sizeof link - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, input_real))
			continue;
		snprintf(fdpath, sizeof fdpath, "/proc/%ld/fdinfo/%s", (long)pid, e->d_name);
		FILE *f = fopen(fdpath, "r");

		if (f) {
			char line[128];

			while (fgets(line, sizeof line, f))
				if (sscanf(line, "pos: %lld", &pos) == 1)
					break;
			fclose(f);
		}
	}
	closedir(d);
	return pos;
}

/* Bytes the source stage has read (/proc/PID/io rchar): for an input
 * that is not a file we can find (stdin, a FIFO, perf). -1 if unknown. */
static long long reader_rchar(pid_t pid)
{
	char path[64], line[128];
	long long n = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/io", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "rchar: %lld", &n) == 1)
			break;
	fclose(f);
	return n;
}

static void progress_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct fp_progress *p = w->data;
	pid_t pid = fp_run_stage_pid(p->run, 0);
	long long pos = -1;
	double elapsed = ev_now(loop) - p->start;
	double mb;
	long long samples;
	char counted[48] = "";

	if (pid <= 0 && !p->size)
		return;
	if (pid <= 0) {
		pos = p->size;	/* the source has read it all and ended */
	} else if (p->input_real[0]) {
		pos = reader_position(pid, p->input_real);
		/* Closed at EOF (or read another way): what it read. */
		if (pos < 0 && (pos = reader_rchar(pid)) > (long long)p->size)
			pos = p->size;
	}
	samples = fp_run_samples(p->run);
	if (samples >= 0)
		snprintf(counted, sizeof counted, ", %lld samples", samples);
	if (pos >= 0 && p->size > 0) {
		mb = (double)pos / BYTES_PER_MB;
		fprintf(stderr, "\r%s: %s: %.1f of %.1f MB (%d%%), %.1f MB/s%s\033[K", fp_prog(),
			p->label, mb, (double)p->size / BYTES_PER_MB,
			(int)(100.0 * (double)pos / (double)p->size),
			elapsed > 0 ? mb / elapsed : 0.0, counted);
	} else {
		/* Whatever the source reads: a pipe, a FIFO, a live capture. */
		if ((pos = reader_rchar(pid)) < 0)
			return;
		mb = (double)pos / BYTES_PER_MB;
		fprintf(stderr, "\r%s: %s: %s read %.1f MB, %.1f MB/s%s\033[K", fp_prog(), p->label,
			fp_run_stage_name(p->run, 0), mb, elapsed > 0 ? mb / elapsed : 0.0, counted);
	}
	fflush(stderr);
	p->shown = 1;
}

void fp_progress_start(struct fp_progress *p, struct fp_run *r, const char *input,
		       const char *label)
{
	struct stat st;

	memset(p, 0, sizeof *p);
	p->run = r;
	p->label = label;
	p->start = ev_now(fp_run_loop(r));
	if (input && strcmp(input, "-") && stat(input, &st) == 0 && S_ISREG(st.st_mode) &&
	    realpath(input, p->input_real))
		p->size = st.st_size;
	else
		p->input_real[0] = '\0';
	ev_timer_init(&p->w, progress_cb, PROGRESS_INTERVAL, PROGRESS_INTERVAL);
	p->w.data = p;
	ev_timer_start(fp_run_loop(r), &p->w);
	p->active = 1;
}

void fp_progress_stop(struct fp_progress *p)
{
	if (!p->active)
		return;
	ev_timer_stop(fp_run_loop(p->run), &p->w);
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	p->active = 0;
}

/* Samples and stacks in DIR/stacks.folded (`stack count` lines). */
static int folded_totals(const char *dir, uint64_t *samples, uint64_t *stacks)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, FOLDED_NAME);
	f = fopen(path, "r");
	if (!f)
		return -1;
	*samples = *stacks = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		char *sp = strrchr(line, ' ');

		if (!sp)
			continue;
		*samples += strtoull(sp + 1, NULL, 10);
		(*stacks)++;
	}
	free(line);
	fclose(f);
	return 0;
}

static void list_files(const char *dir, char *buf, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t used = 0;

	buf[0] = '\0';
	if (!d)
		return;
	while ((e = readdir(d)) && used + 1 < len) {
		if (e->d_name[0] == '.')
			continue;
		int m = snprintf(buf + used, len - used, "%s%s", used ? " " : "", e->d_name);

		if (m < 0)
			break;
		used += (size_t)m;
	}
	closedir(d);
}

static void print_summary(const char *input, off_t size, const char *outdir, double elapsed, int rc)
{
	uint64_t samples = 0, stacks = 0;
	char files[FILES_LIST_MAX], counts[128];

	if (folded_totals(outdir, &samples, &stacks) == 0)
		snprintf(counts, sizeof counts, "%" PRIu64 " samples in %" PRIu64 " stacks",
			 samples, stacks);
	else
		snprintf(counts, sizeof counts, "no %s", FOLDED_NAME);
	list_files(outdir, files, sizeof files);
	fprintf(stderr, "%s: report: %s: %s, %.2f MB in %.2f s (%.1f MB/s) -> %s/ [%s]%s\n",
		fp_prog(), input, counts, (double)size / BYTES_PER_MB, elapsed,
		elapsed > 0 ? (double)size / BYTES_PER_MB / elapsed : 0.0, outdir, files,
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

int cmd_report(int argc, char **argv)
{
	struct option opts[NPASS + 16];
	struct fp_run_opts ro;
	struct fp_vars v;
	struct fp_run *r;
	struct fp_progress prog = { 0 };
	ev_tstamp started;
	const char *outdir = NULL, *rows = NULL, *pipeline_opt = NULL;
	char **pending = fp_xcalloc((size_t)argc * 4 + 1, sizeof *pending);
	size_t npending = 0;
	int c, rc, show_progress = isatty(2), quiet = 0;
	char *pipeline;
	struct stat st;
	size_t k = 0;

	fp_run_opts_init(&ro);
	ro.announce_dir = 0;
	for (size_t i = 0; i < NPASS; i++)
		opts[k++] = (struct option){ passthroughs[i].option,
			passthroughs[i].has_arg ? required_argument : no_argument, NULL, OPT_PASS + (int)i };
	opts[k++] = (struct option){ "outdir", required_argument, NULL, 'o' };
	opts[k++] = (struct option){ "rows", required_argument, NULL, OPT_ROWS };
	opts[k++] = (struct option){ "pipeline", required_argument, NULL, OPT_PIPELINE };
	opts[k++] = (struct option){ "progress", no_argument, NULL, OPT_PROGRESS };
	opts[k++] = (struct option){ "no-progress", no_argument, NULL, OPT_NO_PROGRESS };
	opts[k++] = (struct option){ "dir-file", required_argument, NULL, OPT_DIR_FILE };
	opts[k++] = (struct option){ "drain-timeout", required_argument, NULL, OPT_DRAIN };
	opts[k++] = (struct option){ "kill-timeout", required_argument, NULL, OPT_KILL };
	opts[k++] = (struct option){ "define", required_argument, NULL, 'D' };
	opts[k++] = (struct option){ "append", required_argument, NULL, 'A' };
	opts[k++] = (struct option){ "user", required_argument, NULL, 'u' };
	opts[k++] = (struct option){ "verbose", no_argument, NULL, 'v' };
	opts[k++] = (struct option){ "quiet", no_argument, NULL, 'q' };
	opts[k++] = (struct option){ "help", no_argument, NULL, 'h' };
	opts[k++] = (struct option){ NULL, 0, NULL, 0 };

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:D:A:u:vqh", opts, NULL)) != -1) {
		if (c >= OPT_PASS && c < OPT_PASS + (int)NPASS) {
			const struct passthrough *p = &passthroughs[c - OPT_PASS];

			/* Kept in order as "A<VAR>=<word>" like -A. */
			for (const char *var = p->var; var; var = var == p->var ? p->also_var : NULL) {
				if (p->stage_option) {
					char *s = fp_xmalloc(strlen(var) + strlen(p->stage_option) + 3);

					sprintf(s, "A%s=%s", var, p->stage_option);
					pending[npending++] = s;
				}
				if (p->has_arg) {
					char *s = fp_xmalloc(strlen(var) + strlen(optarg) + 3);

					sprintf(s, "A%s=%s", var, optarg);
					pending[npending++] = s;
				}
			}
			continue;
		}
		switch (c) {
		case 'o': outdir = optarg; break;
		case OPT_ROWS: {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (!*optarg || *end || n < 1 || n > 1000)
				fp_die(FP_EXIT_USAGE, "--rows: bad value '%s' (expected an integer 1..1000)", optarg);
			rows = optarg;
			break;
		}
		case OPT_PIPELINE: pipeline_opt = optarg; break;
		case OPT_PROGRESS: show_progress = 1; break;
		case OPT_NO_PROGRESS: show_progress = 0; break;
		case OPT_DIR_FILE: ro.dir_file = optarg; break;
		case OPT_DRAIN: ro.drain_timeout = fp_parse_timeout("--drain-timeout", optarg); break;
		case OPT_KILL: ro.kill_timeout = fp_parse_timeout("--kill-timeout", optarg); break;
		case 'D':
		case 'A': {
			const char *eq = strchr(optarg, '=');

			if (!eq || !fp_var_name_ok(optarg, (size_t)(eq - optarg)) ||
			    ((size_t)(eq - optarg) == 7 && !strncmp(optarg, "FIFODIR", 7)))
				fp_die(FP_EXIT_USAGE, "-%c: expected NAME=VALUE (NAME not FIFODIR), got '%s'", c, optarg);
			char *s = fp_xmalloc(strlen(optarg) + 2);

			sprintf(s, "%c%s", c, optarg);
			pending[npending++] = s;
			break;
		}
		case 'u': ro.user = optarg; break;
		case 'v': ro.verbose = 1; ro.announce_dir = 1; break;
		case 'q': quiet = 1; show_progress = 0; break;
		case 'h': printf("usage: flamepipe %s\n", cmd_report_usage); return FP_EXIT_OK;
		default: fp_die(FP_EXIT_USAGE, "usage: flamepipe %s", cmd_report_usage);
		}
	}
	if (argc - optind != 1 || !outdir)
		fp_die(FP_EXIT_USAGE, "usage: flamepipe %s", cmd_report_usage);
	const char *input = argv[optind];

	if (stat(input, &st) < 0)
		fp_die_sys(FP_EXIT_SYS, "report: cannot read %s", input);
	/* Refused before any output exists, like a missing file. */
	if (S_ISDIR(st.st_mode))
		fp_die(FP_EXIT_USAGE, "report: %s is a directory, not a capture file", input);
	make_parent_dirs(outdir);
	if (mkdir(outdir, 0777) == 0) {
		/* --user: the renderer writes here as that user. */
		if (ro.user && geteuid() == 0) {
			struct passwd *pw = getpwnam(ro.user);

			if (pw && chown(outdir, pw->pw_uid, pw->pw_gid) < 0)
				fp_die_sys(FP_EXIT_SYS, "report: cannot give %s to --user %s", outdir, ro.user);
		}
	} else if (errno != EEXIST) {
		fp_die_sys(FP_EXIT_SYS, "report: cannot make output dir %s", outdir);
	}
	pipeline = pipeline_opt ? fp_xstrdup(pipeline_opt) : fp_default_pipeline();

	r = fp_run_new(&ro);
	fp_vars_init(&v);
	fp_run_default_vars(r, &v);
	fp_vars_set(&v, "INPUT", input);
	/* the source stage by content: perf script text or a Chrome profile */
	fp_vars_set(&v, "READER", fp_sniff_reader(fp_sniff_path(input)));
	fp_vars_set(&v, "OUTDIR", outdir);
	if (rows)
		fp_vars_set(&v, "ROWS", rows);
	for (size_t i = 0; i < npending; i++)
		fp_vars_define(&v, pending[i] + 1, pending[i][0] == 'A');

	rc = fp_run_load(r, pipeline, &v);
	if (rc == 0)
		rc = fp_run_start(r);
	if (rc == 0) {
		started = ev_now(fp_run_loop(r));
		if (show_progress)
			fp_progress_start(&prog, r, input, "report");
		rc = fp_run_wait(r);
		fp_progress_stop(&prog);
		ev_now_update(fp_run_loop(r));
		if (!quiet)
			print_summary(input, st.st_size, outdir, ev_now(fp_run_loop(r)) - started, rc);
	} else {
		fp_run_stop(r);
		fp_run_wait(r);
	}
	fp_run_free(r);
	fp_vars_free(&v);
	for (size_t i = 0; i < npending; i++)
		free(pending[i]);
	free(pending);
	free(pipeline);
	return rc;
}
