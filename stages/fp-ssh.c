/* fp-ssh: a source stage: perf on another host, over ssh; perf's own pipe
 * format out (or perf script's text, --perf-script).
 *
 * Interface:
 *	fp-ssh [--ssh-arg ARG]... [--control PATH] [--perf-script [--script-arg ARG]...]
 *	       [--duration S] [--stop-timeout S] [USER@]HOST [PERF RECORD OPTIONS...]
 *	       [-- COMMAND...]
 *
 * Runs, on HOST, only perf (nothing else to install there):
 *	perf record --buildid-mmap --no-buildid-cache --mmap-pages 16 -o - \
 *		OPTIONS -- WORKLOAD
 * through `ssh -T -o BatchMode=yes [--ssh-arg ...] HOST`; perf's pipe
 * format arrives on stdout (copied through, so --duration can count from
 * the first byte) for fp-perfdata --remote HOST, which reads it here and
 * fetches HOST's files by the build-ids --buildid-mmap puts in each mmap
 * record (perf/data/pd_remote.h): HOST pays for perf record only.
 * --control PATH: this connection is an ssh master (ControlMaster=yes,
 * ControlPath=PATH), so fp-perfdata's fetches ride on it.
 * --perf-script (flamepipe live --ssh --remote-script): the old way,
 *	perf record --no-buffering --no-bpf-event -o - OPTIONS -- WORKLOAD |
 *		perf script -i - --no-inline SCRIPT_ARGS
 * symbols resolved on HOST, perf script's text out, for fp-read; HOST
 * pays for perf script too (--no-bpf-event: perf script reading a stream
 * stops at the record of a BPF program loaded during the capture).
 * WORKLOAD is COMMAND
 * if given, else `sh -c 'exec cat >/dev/null'`: a process that lives as
 * long as the ssh session's input is open. fp-ssh holds that input (a pipe
 * ssh reads) and closes it to stop the capture: on SIGINT, SIGTERM, SIGHUP
 * or --duration S after the first byte. The remote workload then ends, perf record writes
 * what it still has and exits (perf script reads it to the end), and ssh
 * ends when the remote side has: nothing of perf is left on HOST, and no
 * sample in flight is lost. If ssh has not ended --stop-timeout s later
 * (default 10) it gets SIGTERM, 3 s later SIGKILL (the remote side then sees
 * its connection gone: perf's next write fails).
 *
 * Every argument reaches the remote shell single-quoted, so options such
 * as -e 'sched:*' arrive as they were given.
 *
 * Exit codes: ssh's (perf's on HOST; 255: ssh could not connect), 0 when
 * the capture was stopped as above and ssh then ended cleanly; 100 usage;
 * 111 cannot run ssh.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fp_error.h"
#include "fp_opts.h"
#include "fp_record.h"

#define USAGE                                                                      \
	"usage: fp-ssh [--ssh-arg ARG]... [--control PATH] [--perf-script "        \
	"[--script-arg ARG]...]\n\t[--duration S] [--stop-timeout S] [USER@]HOST " \
	"[PERF RECORD OPTIONS...] [-- COMMAND...]"
#define SSH_PROGRAM "ssh"
#define MAX_ARGS 256
#define REMOTE_MAX 65536
#define DEFAULT_STOP_TIMEOUT_S 10.0
#define KILL_AFTER_S 3.0
#define MAX_SECONDS 1e7
#define POLL_MS 50
#define NS_PER_MS 1000000L
#define SIGNAL_EXIT_BASE 128
#define IDLE_WORKLOAD "sh -c 'exec cat >/dev/null'"
#define COPY_CHUNK (64u << 10)

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* Appends s to buf, single-quoted for a POSIX shell ('...'\''...'). */
static void add_quoted(char *buf, size_t *n, const char *s)
{
	size_t need = strlen(s) * 4 + 3;

	if (*n + need + 1 >= REMOTE_MAX)
		fp_die(FP_EXIT_USAGE, "the remote command is longer than %d bytes", REMOTE_MAX);
	buf[(*n)++] = ' ';
	buf[(*n)++] = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(buf + *n, "'\\''", 4);
			*n += 4;
		} else {
			buf[(*n)++] = *s;
		}
	}
	buf[(*n)++] = '\'';
	buf[*n] = '\0';
}

static void add_raw(char *buf, size_t *n, const char *s)
{
	size_t len = strlen(s);

	if (*n + len + 1 >= REMOTE_MAX)
		fp_die(FP_EXIT_USAGE, "the remote command is longer than %d bytes", REMOTE_MAX);
	memcpy(buf + *n, s, len + 1);
	*n += len;
}

static double parse_seconds(const char *opt, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > MAX_SECONDS)
		fp_die(FP_EXIT_USAGE, "--%s: want seconds > 0, got '%s'", opt, arg);
	return v;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* 1 and *status once ssh has exited, else 0. */
static int reaped(pid_t pid, int *status)
{
	pid_t r = waitpid(pid, status, WNOHANG);

	if (r < 0 && errno != EINTR && errno != ECHILD)
		fp_die_sys(FP_EXIT_SYS, "waitpid ssh");
	return r == pid;
}

/* Copies what ssh wrote (perf script's text) to stdout, waiting at most
 * POLL_MS. Returns 1 once ssh's output has ended. *first: when the first
 * byte came (0 until then): --duration counts from there, as perf's own
 * `-- sleep S` counts from when sampling starts. */
static int copy_output(int from, double *first)
{
	static char buf[COPY_CHUNK];
	struct pollfd pfd = { from, POLLIN, 0 };
	ssize_t n;

	if (poll(&pfd, 1, POLL_MS) <= 0)
		return 0;
	n = read(from, buf, sizeof buf);
	if (n < 0)
		return errno != EINTR && errno != EAGAIN;
	if (n == 0)
		return 1;
	if (!*first)
		*first = now_s();
	for (ssize_t off = 0; off < n;) {
		ssize_t w = write(1, buf + off, (size_t)(n - off));

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			exit(errno == EPIPE ? FP_EXIT_PIPE : FP_EXIT_SYS);
		off += w;
	}
	return 0;
}

/* Waits for ssh: the whole capture, then the stop sequence. */
static int supervise(pid_t pid, int stdin_w, int out_r, double duration, double stop_timeout)
{
	double first = 0, stop_at = 0;
	int status = 0, termed = 0, out_done = 0;

	for (;;) {
		if (!out_done)
			out_done = copy_output(out_r, &first);
		else if (reaped(pid, &status))
			break;
		else
			poll(NULL, 0, POLL_MS);
		if (!stop_at &&
		    (stop_requested || (duration > 0 && first && now_s() - first >= duration))) {
			close(stdin_w); /* the remote workload sees its input end */
			stop_at = now_s();
		}
		if (stop_at && !termed && now_s() - stop_at >= stop_timeout) {
			fp_warn("ssh still running %.0f s after the stop: SIGTERM", stop_timeout);
			kill(pid, SIGTERM);
			termed = 1;
		}
		if (termed && now_s() - stop_at >= stop_timeout + KILL_AFTER_S)
			kill(pid, SIGKILL);
	}
	if (WIFSIGNALED(status))
		return SIGNAL_EXIT_BASE + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* The remote command: perf record OPTIONS -- WORKLOAD [| perf script ...],
 * every word of args (perf's options, then -- COMMAND) quoted. */
static void build_remote(char *remote, int argc, char **args, int script,
			 const char *const *script_args, size_t nscript)
{
	size_t rn = 0;
	int i = 0;

	/* --buildid-mmap: each mmap record carries its file's build-id, so
	 * fp-perfdata can check (and cache by) what it fetches from HOST.
	 * Not --no-buffering: a write per sample became an ssh packet per
	 * sample, which cost HOST more than perf script did; 16 pages (64
	 * KiB a CPU) wake perf every 32 KiB instead (docs/fp-ssh.md).
	 * --no-buildid-cache: perf would copy every sampled file into
	 * HOST's ~/.debug at the end, disk and CPU HOST need not spend */
	add_raw(remote, &rn,
		script ? "perf record --no-buffering --no-bpf-event -o -"
		       : "perf record --buildid-mmap --no-buildid-cache --mmap-pages 16 -o -");
	for (; i < argc && strcmp(args[i], "--"); i++)
		add_quoted(remote, &rn, args[i]);
	add_raw(remote, &rn, " --");
	if (i + 1 < argc) /* -- COMMAND */
		for (i++; i < argc; i++)
			add_quoted(remote, &rn, args[i]);
	else
		add_raw(remote, &rn, " " IDLE_WORKLOAD);
	if (!script)
		return;
	add_raw(remote, &rn, " | perf script -i - --no-inline");
	for (size_t k = 0; k < nscript; k++)
		add_quoted(remote, &rn, script_args[k]);
}

/* fp-ssh's command line: ssh's argv so far, the remote script's extra
 * arguments, the timing options. */
struct ssh_args {
	const char *ssh_argv[MAX_ARGS + 12], *script_args[MAX_ARGS];
	size_t nssh, nscript;
	double duration, stop_timeout;
	int script;          /* --perf-script */
	const char *control; /* --control PATH */
};

static void opt_ssh_arg(void *ctx, const char *opt, const char *arg)
{
	struct ssh_args *a = ctx;

	if (a->nssh >= MAX_ARGS)
		fp_die(FP_EXIT_USAGE, "--ssh-arg: at most %d", MAX_ARGS);
	a->ssh_argv[a->nssh++] = arg;
}

static void opt_script_arg(void *ctx, const char *opt, const char *arg)
{
	struct ssh_args *a = ctx;

	if (a->nscript >= MAX_ARGS)
		fp_die(FP_EXIT_USAGE, "--script-arg: at most %d", MAX_ARGS);
	a->script_args[a->nscript++] = arg;
}

static void opt_control(void *ctx, const char *opt, const char *arg)
{
	struct ssh_args *a = ctx;

	if (!*arg)
		fp_die(FP_EXIT_USAGE, "--control: want a socket path");
	a->control = arg;
}

static void opt_seconds(void *ctx, const char *opt, const char *arg)
{
	struct ssh_args *a = ctx;

	*(strcmp(opt, "duration") ? &a->stop_timeout : &a->duration) = parse_seconds(opt, arg);
}

int main(int argc, char **argv)
{
	static char remote[REMOTE_MAX];
	struct ssh_args a = { .ssh_argv = { SSH_PROGRAM, "-T", "-o", "BatchMode=yes" },
			      .nssh = 4,
			      .stop_timeout = DEFAULT_STOP_TIMEOUT_S };
	const struct fp_opt options[] = {
		{ "ssh-arg", FP_OPT_FN, .fn = opt_ssh_arg },
		{ "script-arg", FP_OPT_FN, .fn = opt_script_arg },
		{ "perf-script", FP_OPT_FLAG, &a.script },
		{ "control", FP_OPT_FN, .fn = opt_control },
		{ "duration", FP_OPT_FN, .fn = opt_seconds },
		{ "stop-timeout", FP_OPT_FN, .fn = opt_seconds },
		{ NULL },
	};
	int pipefd[2], outfd[2];
	struct sigaction sa;
	pid_t pid;

	fp_set_prog(argv[0]);
	/* the first non-option (HOST) ends fp-ssh's options; perf's follow */
	fp_opts_parse(argc, argv, options, USAGE, FP_OPTS_REST, &a);
	if (optind >= argc || argv[optind][0] == '-' || !argv[optind][0])
		fp_die(FP_EXIT_USAGE, "%s", USAGE);
	if (a.nscript && !a.script)
		fp_die(FP_EXIT_USAGE, "--script-arg goes with --perf-script");
	char control[4096 + 16];
	if (a.control) {
		/* the master of the connection fp-perfdata --remote fetches
		 * files over (fp-ssh's own options come after the user's:
		 * ssh takes the first value of each) */
		snprintf(control, sizeof control, "ControlPath=%s", a.control);
		a.ssh_argv[a.nssh++] = "-o";
		a.ssh_argv[a.nssh++] = "ControlMaster=yes";
		a.ssh_argv[a.nssh++] = "-o";
		a.ssh_argv[a.nssh++] = control;
	}
	a.ssh_argv[a.nssh++] = "--";
	a.ssh_argv[a.nssh++] = argv[optind++]; /* [USER@]HOST */

	build_remote(remote, argc - optind, argv + optind, a.script, a.script_args, a.nscript);
	a.ssh_argv[a.nssh++] = remote;
	a.ssh_argv[a.nssh] = NULL;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(pipefd, O_CLOEXEC) < 0 || pipe2(outfd, O_CLOEXEC) < 0)
		fp_die_sys(FP_EXIT_SYS, "pipe");
	pid = fork();
	if (pid < 0)
		fp_die_sys(FP_EXIT_SYS, "fork");
	if (pid == 0) {
		/* ssh: stdin the pipe we hold, stdout a pipe we copy, its own
		 * process group, so a signal to ours (Ctrl-C on the terminal,
		 * the runner stopping the stage) reaches fp-ssh only, which
		 * stops the capture gracefully */
		setpgid(0, 0);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(pipefd[0], 0) < 0 || dup2(outfd[1], 1) < 0)
			_exit(FP_EXIT_SYS);
		execvp(SSH_PROGRAM, (char *const *)a.ssh_argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", fp_prog(), SSH_PROGRAM, strerror(errno));
		_exit(FP_EXIT_SYS);
	}
	close(pipefd[0]);
	close(outfd[1]);
	return supervise(pid, pipefd[1], outfd[0], a.duration, a.stop_timeout);
}
