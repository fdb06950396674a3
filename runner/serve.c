/* serve.c: `flamepipe serve [DIR] [--http [ADDR:]PORT] [fp-serve's options]`
 * replaces itself with fp-serve (found next to the flamepipe binary), so
 * signals and the exit code are fp-serve's own. DIR defaults to the
 * examples/ directory next to bin/ (the bundled captures), else
 * ./examples. docs/fp-serve.md describes the server. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "fp_error.h"
#include "pipeline_run.h"

#define SERVE_DEFAULT_PORT_STR "5000"
#define LISTEN_MAX 300

const char cmd_serve_usage[] =
	"serve [DIR] [--http [ADDR:]PORT] [--max-upload BYTES] [--user NAME]\n"
	"          [--cache-dir DIR] [--cache-size BYTES] [--max-cpu S] [--max-time S]\n"
	"          [--max-inflate BYTES] [--max-output BYTES] [--upload-quota BYTES]\n"
	"          [--upload-evict] [--upload-host-symbols]   (default: examples/, 127.0.0.1:5000)";

/* options handed to fp-serve as they are (docs/fp-serve.md) */
static const struct option pass_opts[] = {
	{ "max-upload", required_argument, NULL, 0 },
	{ "user", required_argument, NULL, 0 },
	{ "cache-dir", required_argument, NULL, 0 },
	{ "cache-size", required_argument, NULL, 0 },
	{ "max-cpu", required_argument, NULL, 0 },
	{ "max-time", required_argument, NULL, 0 },
	{ "max-inflate", required_argument, NULL, 0 },
	{ "max-output", required_argument, NULL, 0 },
	{ "upload-quota", required_argument, NULL, 0 },
	{ "upload-evict", no_argument, NULL, 0 },
	{ "upload-host-symbols", no_argument, NULL, 0 },
};
#define NPASS (sizeof pass_opts / sizeof pass_opts[0])

int cmd_serve(int argc, char **argv)
{
	struct option longopts[NPASS + 3];
	for (size_t i = 0; i < NPASS; i++) {
		longopts[i] = pass_opts[i];
		longopts[i].val = 256 + (int)i;
	}
	longopts[NPASS] = (struct option){ "http", required_argument, NULL, 'H' };
	longopts[NPASS + 1] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[NPASS + 2] = (struct option){ NULL, 0, NULL, 0 };
	const char *http = SERVE_DEFAULT_PORT_STR;
	char *args[8 + 2 * NPASS];
	int n = 0, opt;
	char dashed[NPASS][32];

	args[n++] = "fp-serve";
	args[n++] = "--dir";
	n++;	/* DIR, below */
	args[n++] = "--listen";
	n++;	/* ADDR:PORT, below */
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (opt >= 256 && opt < 256 + (int)NPASS) {
			size_t i = (size_t)(opt - 256);
			snprintf(dashed[i], sizeof dashed[i], "--%s", pass_opts[i].name);
			args[n++] = dashed[i];
			if (pass_opts[i].has_arg)
				args[n++] = optarg;
			continue;
		}
		switch (opt) {
		case 'H': http = optarg; break;
		case 'h':
			printf("usage: flamepipe %s\n", cmd_serve_usage);
			return FP_EXIT_OK;
		default:
			fp_die(FP_EXIT_USAGE, "usage: flamepipe %s", cmd_serve_usage);
		}
	}
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
