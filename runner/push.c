/* push.c: `flamepipe push URL PROFILE...`: finished captures to a
 * Pyroscope-style /ingest endpoint (docs/fp-push.md).
 *
 * For each PROFILE: its source stage (fp-read, or fp-chrome for a Chrome
 * profile: fifo/fp_sniff.h) piped into `fp-push URL --once --until MTIME`
 * (one profile per file; until = the file's modification time, from =
 * until - the samples' time span), the stream itself to /dev/null. The
 * options go to fp-push as they are; without --sample-rate, the capture's
 * own sampling frequency (capture_freq.h) is given to fp-push. Exit 0 when
 * every profile was delivered, else the first failing stage's code (111:
 * not delivered, refused before sending included).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture_freq.h"
#include "commands.h"
#include "fp_error.h"
#include "fp_opts.h"
#include "fp_sniff.h"
#include "pipeline.h"
#include "pipeline_run.h"

#define PUSH_PROGRAM "fp-push"
#define MAX_PUSH_ARGS 64
#define SHELL_SIGNAL_BASE 128

const char cmd_push_usage[] =
	"push URL PROFILE... [--app NAME] [--label KEY=VALUE]... [--format folded|pprof]\n"
	"        [--retries N] [--timeout S] [--sample-rate HZ] [--max-depth N]\n"
	"        [--sample-labels LIST] [--auth-token-file FILE] [--basic-auth-file FILE]\n"
	"        [--tenant ID] [--max-age S] [--restamp]";

static pid_t spawn(const char *path, char *const argv[], int in_fd, int out_fd)
{
	pid_t pid = fork();

	if (pid < 0)
		fp_die_sys(FP_EXIT_SYS, "push: fork");
	if (pid == 0) {
		if ((in_fd != 0 && dup2(in_fd, 0) < 0) || (out_fd != 1 && dup2(out_fd, 1) < 0))
			_exit(FP_EXIT_SYS);
		execv(path, argv);
		fprintf(stderr, "%s: push: cannot run %s: %s\n", fp_prog(), path, strerror(errno));
		_exit(FP_EXIT_SYS);
	}
	return pid;
}

static int wait_code(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return FP_EXIT_SYS;
	return WIFEXITED(st) ? WEXITSTATUS(st) : SHELL_SIGNAL_BASE + WTERMSIG(st);
}

/* One file: reader FILE | fp-push ARGS --once --until MTIME. */
static int push_one(const char *file, char **push_argv, size_t nargs, const char *bindir,
		    int have_rate)
{
	struct stat st;
	char until[32], rate[32];
	uint64_t hz = have_rate ? 0 : fp_capture_freq(file);
	const char *reader = fp_sniff_reader(fp_sniff_path(file));
	char *rpath = fp_find_program(reader, bindir),
	     *ppath = fp_find_program(PUSH_PROGRAM, bindir);
	char *rargv[] = { (char *)reader, "-q", (char *)file, NULL };
	int fds[2], devnull, rc_read, rc_push;
	pid_t r, p;

	if (stat(file, &st) < 0)
		fp_die_sys(FP_EXIT_SYS, "push: cannot read %s", file);
	if (!rpath || !ppath)
		fp_die(FP_EXIT_SYS, "push: %s not found beside flamepipe or in $PATH",
		       rpath ? PUSH_PROGRAM : reader);
	snprintf(until, sizeof until, "%jd", (intmax_t)st.st_mtim.tv_sec);
	push_argv[nargs] = "--until";
	push_argv[nargs + 1] = until;
	push_argv[nargs + 2] = NULL;
	if (hz) {
		snprintf(rate, sizeof rate, "%" PRIu64, hz);
		push_argv[nargs + 2] = "--sample-rate";
		push_argv[nargs + 3] = rate;
		push_argv[nargs + 4] = NULL;
	}
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0 || pipe2(fds, O_CLOEXEC) < 0)
		fp_die_sys(FP_EXIT_SYS, "push: pipe");
	r = spawn(rpath, rargv, 0, fds[1]);
	close(fds[1]);
	p = spawn(ppath, push_argv, fds[0], devnull);
	close(fds[0]);
	close(devnull);
	rc_read = wait_code(r);
	rc_push = wait_code(p);
	free(rpath);
	free(ppath);
	if (rc_read)
		fp_warn("push: %s: %s exited %d: nothing or part of it was pushed", file, reader,
			rc_read);
	else if (!rc_push)
		fprintf(stderr, "%s: push: %s: delivered\n", fp_prog(), file);
	return rc_read ? rc_read : rc_push;
}

/* fp-push's arguments so far, as flamepipe push's options add them. */
struct push_args {
	char *argv[MAX_PUSH_ARGS + 8];
	size_t n;
	int have_rate;
	const char *usage;
};

/* The options flamepipe push passes on to fp-push, as fp-push spells
 * them; the last one takes no value. */
static const char *const passed[] = {
	"--app",         "--label",     "--format",        "--retries",         "--timeout",
	"--sample-rate", "--max-depth", "--sample-labels", "--auth-token-file", "--basic-auth-file",
	"--tenant",      "--max-age",   "--restamp",
};
enum { NPASSED = sizeof passed / sizeof *passed };

/* Each option goes to fp-push as it is: --NAME [VALUE]. */
static void pass_on(void *ctx, const char *opt, const char *arg)
{
	struct push_args *pa = ctx;
	size_t i = 0;

	while (i + 1 < NPASSED && strcmp(passed[i] + 2, opt))
		i++;
	if (pa->n + 2 > MAX_PUSH_ARGS)
		fp_die(FP_EXIT_USAGE, "%s", pa->usage);
	pa->argv[pa->n++] = (char *)passed[i];
	if (arg)
		pa->argv[pa->n++] = (char *)arg;
	pa->have_rate |= !strcmp(opt, "sample-rate");
}

int cmd_push(int argc, char **argv)
{
	struct fp_opt opts[NPASSED + 1];
	char usage[1024];
	struct push_args pa = { .n = 0 };
	int rc = 0;

	snprintf(usage, sizeof usage, "usage: flamepipe %s", cmd_push_usage);
	pa.usage = usage;
	for (size_t i = 0; i < NPASSED; i++)
		opts[i] = (struct fp_opt){ passed[i] + 2,
					   i + 1 < NPASSED ? FP_OPT_FN : FP_OPT_FN_FLAG,
					   .fn = pass_on };
	opts[NPASSED] = (struct fp_opt){ NULL };
	pa.argv[pa.n++] = PUSH_PROGRAM;
	optind = 1;
	int first = fp_opts_parse(argc, argv, opts, usage, FP_OPTS_ANY, &pa);
	if (argc - first < 2)
		fp_die(FP_EXIT_USAGE, "%s", usage);
	pa.argv[pa.n++] = "--once";
	pa.argv[pa.n++] = argv[first]; /* URL: fp-push checks it */
	for (int i = first + 1; i < argc; i++) {
		int r = push_one(argv[i], pa.argv, pa.n, fp_run_bindir(), pa.have_rate);

		if (r && !rc)
			rc = r;
	}
	return rc;
}
