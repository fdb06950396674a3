/* serve.c: `flamepipe serve [DIR] [--http [ADDR:]PORT] [--max-upload N]`
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
	"serve [DIR] [--http [ADDR:]PORT] [--max-upload BYTES]   (default: examples/, 127.0.0.1:5000)";

int cmd_serve(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "http", required_argument, NULL, 'H' },
		{ "max-upload", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *http = SERVE_DEFAULT_PORT_STR, *max_upload = NULL;
	int opt;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'H': http = optarg; break;
		case 'm': max_upload = optarg; break;
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
	char *args[10];
	int n = 0;
	args[n++] = "fp-serve";
	args[n++] = "--dir";
	args[n++] = dir;
	args[n++] = "--listen";
	args[n++] = listen;
	if (max_upload) {
		args[n++] = "--max-upload";
		args[n++] = (char *)max_upload;
	}
	args[n] = NULL;
	fflush(stdout);
	execv(prog, args);
	fp_die_sys(FP_EXIT_SYS, "cannot run %s", prog);
}
