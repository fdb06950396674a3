/* serve.c: `flamepipe serve [DIR] [--http [ADDR:]PORT] [fp-serve's options]`
 * replaces itself with fp-serve (found next to the flamepipe binary), so
 * signals and the exit code are fp-serve's own. DIR defaults to the
 * examples/ directory next to bin/ (the bundled captures), else
 * ./examples. docs/fp-serve.md describes the server. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "fp_error.h"
#include "fp_opts.h"
#include "pipeline_run.h"

#define SERVE_DEFAULT_PORT_STR "5000"
#define LISTEN_MAX 300

const char cmd_serve_usage[] =
	"serve [DIR] [--http [ADDR:]PORT] [--max-upload BYTES] [--user NAME]\n"
	"          [--cache-dir DIR] [--cache-size BYTES] [--max-cpu S] [--max-time S]\n"
	"          [--max-inflate BYTES] [--max-output BYTES] [--upload-quota BYTES]\n"
	"          [--upload-evict] [--upload-host-symbols]   (default: examples/, 127.0.0.1:5000)";

/* Options handed to fp-serve as they are (docs/fp-serve.md), as fp-serve
 * spells them; those from NO_VALUE on take no value. */
static const char *const passed[] = {
	"--max-upload",   "--user",         "--cache-dir",           "--cache-size",
	"--max-cpu",      "--max-time",     "--max-inflate",         "--max-output",
	"--upload-quota", "--upload-evict", "--upload-host-symbols",
};
enum { NPASS = sizeof passed / sizeof *passed, NO_VALUE = 9 };

/* fp-serve's argv so far, and --http's value. */
struct serve_args {
	char *args[8 + 2 * NPASS];
	int n;
	const char *http;
};

static void pass_on(void *ctx, const char *opt, const char *arg)
{
	struct serve_args *sa = ctx;
	size_t i = 0;

	while (i + 1 < NPASS && strcmp(passed[i] + 2, opt))
		i++;
	sa->args[sa->n++] = (char *)passed[i];
	if (arg)
		sa->args[sa->n++] = (char *)arg;
}

static void opt_http(void *ctx, const char *opt, const char *arg)
{
	((struct serve_args *)ctx)->http = arg;
}

int cmd_serve(int argc, char **argv)
{
	struct fp_opt opts[NPASS + 2];
	struct serve_args sa = { .n = 0, .http = SERVE_DEFAULT_PORT_STR };
	char usage[1024];
	char **args = sa.args;

	for (size_t i = 0; i < NPASS; i++)
		opts[i] = (struct fp_opt){ passed[i] + 2, i < NO_VALUE ? FP_OPT_FN : FP_OPT_FN_FLAG,
					   .fn = pass_on };
	opts[NPASS] = (struct fp_opt){ "http", FP_OPT_FN, .fn = opt_http };
	opts[NPASS + 1] = (struct fp_opt){ NULL };
	snprintf(usage, sizeof usage, "usage: flamepipe %s", cmd_serve_usage);
	args[sa.n++] = "fp-serve";
	args[sa.n++] = "--dir";
	sa.n++; /* DIR, below */
	args[sa.n++] = "--listen";
	sa.n++; /* ADDR:PORT, below */
	optind = 1;
	optind = fp_opts_parse(argc, argv, opts, usage, FP_OPTS_ANY, &sa);
	const char *http = sa.http;
	int n = sa.n;
	if (argc - optind > 1)
		fp_die(FP_EXIT_USAGE, "usage: flamepipe %s", cmd_serve_usage);

	const char *bindir = fp_run_bindir();
	char dir[PATH_MAX], prog[PATH_MAX], listen[LISTEN_MAX];
	struct stat st;
	if (optind < argc) {
		snprintf(dir, sizeof dir, "%s", argv[optind]);
	} else {
		snprintf(dir, sizeof dir, "%s/../examples", bindir ? bindir : ".");
		if (!bindir || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
			snprintf(dir, sizeof dir, "examples");
	}
	/* a bare port means loopback; fp-serve warns about anything else */
	if (strlen(http) >= LISTEN_MAX - 16)
		fp_die(FP_EXIT_USAGE, "--http: address too long");
	if (strchr(http, ':'))
		snprintf(listen, sizeof listen, "%s", http);
	else
		snprintf(listen, sizeof listen, "127.0.0.1:%s", http);
	snprintf(prog, sizeof prog, "%s/fp-serve", bindir ? bindir : ".");
	args[2] = dir;
	args[4] = listen;
	args[n] = NULL;
	fflush(stdout);
	execv(prog, args);
	fp_die_sys(FP_EXIT_SYS, "cannot run %s", prog);
}
