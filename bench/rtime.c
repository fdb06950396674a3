/* rtime.c: run a command and report its wall time, CPU time and peak RSS.
 *
 * Usage: rtime [-o FILE] COMMAND [ARG]...
 *
 * Runs COMMAND (execvp), waits for it, and writes one line to FILE
 * (default stderr):
 *	wall=SECONDS cpu=SECONDS user=SECONDS sys=SECONDS maxrss_kib=N exit=N
 * cpu is user + system time of COMMAND and everything it waited for
 * (getrusage RUSAGE_CHILDREN); maxrss_kib is the peak RSS of the largest of
 * those processes, as GNU time's %M. rtime exits with COMMAND's status
 * (128 + signal if it was killed). SIGINT, SIGTERM and SIGHUP are passed on
 * to COMMAND, so rtime can wrap a stage inside a supervised pipeline.
 *
 * The benchmark's replacement for /usr/bin/time (which may be missing);
 * compiled on the fly by bench/run.sh, not part of the product.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_USAGE 100
#define EXIT_SYS 111
#define EXIT_EXEC 127
#define NS_PER_SEC 1e9
#define US_PER_SEC 1e6

static volatile sig_atomic_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / US_PER_SEC;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / NS_PER_SEC;
}

int main(int argc, char **argv)
{
	const char *out_path = NULL;
	int argi = 1, status, rc;
	struct sigaction sa;
	struct rusage ru;
	pid_t pid;

	if (argi + 1 < argc && strcmp(argv[argi], "-o") == 0) {
		out_path = argv[argi + 1];
		argi += 2;
	}
	if (argi >= argc) {
		fprintf(stderr, "usage: rtime [-o FILE] COMMAND [ARG]...\n");
		return EXIT_USAGE;
	}

	double t0 = now_s();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rtime: fork: %s\n", strerror(errno));
		return EXIT_SYS;
	}
	if (pid == 0) {
		execvp(argv[argi], argv + argi);
		fprintf(stderr, "rtime: cannot run '%s': %s\n", argv[argi], strerror(errno));
		_exit(EXIT_EXEC);
	}
	child = pid;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = forward;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "rtime: waitpid: %s\n", strerror(errno));
			return EXIT_SYS;
		}
	}
	double wall = now_s() - t0;
	getrusage(RUSAGE_CHILDREN, &ru);
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	FILE *f = stderr;
	if (out_path && !(f = fopen(out_path, "w"))) {
		fprintf(stderr, "rtime: cannot write '%s': %s\n", out_path, strerror(errno));
		return EXIT_SYS;
	}
	fprintf(f, "wall=%.6f cpu=%.6f user=%.6f sys=%.6f maxrss_kib=%ld exit=%d\n", wall,
		tv_s(ru.ru_utime) + tv_s(ru.ru_stime), tv_s(ru.ru_utime), tv_s(ru.ru_stime),
		ru.ru_maxrss, rc);
	if (f != stderr)
		fclose(f);
	return rc;
}
