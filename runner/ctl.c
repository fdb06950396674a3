/* ctl.c: `flamepipe ctl DIR COMMAND [ARG]...`, the client of a running
 * pipeline's control FIFO (DIR/runner.ctl).
 *
 * DIR is the FIFO directory, or a file holding its path (--dir-file).
 * The client makes a reply FIFO DIR/reply.<pid>, writes one line
 *
 *	@reply.<pid> TAB COMMAND [TAB ARG]... LF
 *
 * in a single write (at most PIPE_BUF bytes, so concurrent clients never
 * interleave), then prints what the runner answers: a first line `ok`,
 * `ok: ...` or `error: ...`, then any data lines (status). Commands:
 * status, restart NAME, replace NAME PROGRAM [ARG]..., insert NEW
 * after|before NAME PROGRAM [ARG]..., stop.
 * Exit codes: 0 ok, 1 the runner answered an error, 100 usage, 111 no
 * runner, no reply in time, or a system error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "options.h"
#include "fp_error.h"
#include "fp_opts.h"
#include "fp_fifo.h"
#include "pipeline_run.h"

#define CTL_TIMEOUT_DEFAULT 10.0
#define REPLY_MAX (1u << 20)
#define MS_PER_SEC 1000

const char cmd_ctl_usage[] =
	"ctl [--timeout S] DIR COMMAND [ARG]...\n"
	"  commands: status | restart NAME | replace NAME PROGRAM [ARG]... | stop\n"
	"            insert NEW after|before NAME PROGRAM [ARG]...\n"
	"  DIR: the FIFO dir, or a file holding it (run --dir-file)";

static char reply_path[PATH_MAX];

static void remove_reply(void)
{
	if (reply_path[0])
		unlink(reply_path);
}

/* DIR itself, or the first line of a file naming it. */
static char *resolve_dir(const char *arg)
{
	struct stat st;
	char line[PATH_MAX];
	FILE *f;

	if (stat(arg, &st) < 0)
		fp_die_sys(FP_EXIT_SYS, "ctl: %s", arg);
	if (S_ISDIR(st.st_mode))
		return fp_xstrdup(arg);
	f = fopen(arg, "r");
	if (!f || !fgets(line, sizeof line, f))
		fp_die_sys(FP_EXIT_SYS, "ctl: cannot read the fifo dir from %s", arg);
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	return fp_xstrdup(line);
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads the whole reply (until the runner closes its end). */
static char *read_reply(int fd, double timeout, size_t *len)
{
	char *buf = fp_xmalloc(REPLY_MAX + 1);
	double deadline = now_sec() + timeout;
	size_t n = 0;

	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		double left = deadline - now_sec();
		int r;

		if (left <= 0)
			fp_die(FP_EXIT_SYS, "ctl: no reply from the runner within %g s", timeout);
		r = poll(&p, 1, (int)(left * MS_PER_SEC) + 1);
		if (r < 0 && errno != EINTR)
			fp_die_sys(FP_EXIT_SYS, "ctl: poll");
		if (r <= 0)
			continue;
		/* Only read after poll said so: a FIFO whose writer has not
		 * opened yet reads as EOF. */
		for (;;) {
			ssize_t got = read(fd, buf + n, REPLY_MAX - n);

			if (got > 0) {
				n += (size_t)got;
				if (n == REPLY_MAX)
					goto done;
				continue;
			}
			if (got == 0)
				goto done;
			if (errno == EAGAIN)
				break;
			if (errno != EINTR)
				fp_die_sys(FP_EXIT_SYS, "ctl: read reply");
		}
	}
done:
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void opt_timeout(void *ctx, const char *opt, const char *arg)
{
	*(double *)ctx = fp_parse_timeout("--timeout", arg);
}

int cmd_ctl(int argc, char **argv)
{
	double timeout = CTL_TIMEOUT_DEFAULT;
	const struct fp_opt opts[] = {
		{ "timeout", FP_OPT_FN, .fn = opt_timeout, .short_name = 't' },
		{ NULL },
	};
	char usage[512];
	char line[PIPE_BUF], ctl_path[PATH_MAX], name[64];
	size_t len, rlen;
	char *dir, *reply, *first_end;
	int rfd, wfd, rc;

	snprintf(usage, sizeof usage, "usage: flamepipe %s", cmd_ctl_usage);
	optind = 1;
	/* FP_OPTS_REST: stop at DIR, so `replace fold fp-fold --pid` keeps
	 * its options. */
	optind = fp_opts_parse(argc, argv, opts, usage, FP_OPTS_REST, &timeout);
	if (argc - optind < 2)
		fp_die(FP_EXIT_USAGE, "usage: flamepipe %s", cmd_ctl_usage);
	dir = resolve_dir(argv[optind]);
	snprintf(name, sizeof name, "reply.%ld", (long)getpid());
	len = (size_t)snprintf(line, sizeof line, "@%s", name);
	for (int i = optind + 1; i < argc; i++) {
		if (strpbrk(argv[i], "\t\n"))
			fp_die(FP_EXIT_USAGE, "ctl: argument '%s' contains a TAB or newline",
			       argv[i]);
		if (len + 1 + strlen(argv[i]) + 1 >= sizeof line)
			fp_die(FP_EXIT_USAGE, "ctl: command longer than %d bytes", PIPE_BUF - 1);
		len += (size_t)snprintf(line + len, sizeof line - len, "\t%s", argv[i]);
	}
	line[len++] = '\n';

	snprintf(ctl_path, sizeof ctl_path, "%s/%s", dir, FP_RUN_CTL_NAME);
	snprintf(reply_path, sizeof reply_path, "%s/%s", dir, name);
	atexit(remove_reply);
	if (fp_fifo_make(reply_path) < 0) {
		if (errno == ENOENT)
			fp_die(FP_EXIT_SYS,
			       "ctl: no pipeline runs in %s (the directory is gone: "
			       "the run has ended)",
			       dir);
		fp_die_sys(FP_EXIT_SYS, "ctl: cannot make reply FIFO %s", reply_path);
	}
	rfd = open(reply_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (rfd < 0)
		fp_die_sys(FP_EXIT_SYS, "ctl: open %s", reply_path);
	wfd = fp_fifo_open_writer(ctl_path);
	if (wfd < 0)
		fp_die_sys(FP_EXIT_SYS, "ctl: no runner listening on %s", ctl_path);
	if (write(wfd, line, len) != (ssize_t)len)
		fp_die_sys(FP_EXIT_SYS, "ctl: write %s", ctl_path);
	close(wfd);

	reply = read_reply(rfd, timeout, &rlen);
	close(rfd);
	first_end = strchr(reply, '\n');
	if (!first_end)
		fp_die(FP_EXIT_SYS, "ctl: the runner closed the reply without an answer");
	*first_end = '\0';
	if (!strncmp(reply, "ok", 2)) {
		if (reply[2])
			printf("%s\n", reply);
		fputs(first_end + 1, stdout);
		rc = FP_EXIT_OK;
	} else {
		fprintf(stderr, "%s: ctl: %s\n", fp_prog(), reply);
		rc = FP_EXIT_DATA;
	}
	free(reply);
	free(dir);
	if (fflush(stdout) != 0)
		rc = FP_EXIT_SYS;
	return rc;
}
