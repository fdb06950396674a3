/* maxrss: run a command and print its peak resident set size in KiB.
 *
 *	maxrss FILE COMMAND [ARG]...
 *
 * Runs COMMAND (stdin/stdout/stderr inherited), writes the peak RSS of
 * COMMAND (ru_maxrss from wait4, KiB) to FILE, and exits with COMMAND's
 * exit code (128 + N if it died by signal N), so a test can bound the
 * memory a stage uses on hostile input (tests/t9100-bad-input.sh).
 * Exit codes: COMMAND's, 100 usage, 111 fork/exec/wait failed.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fp_error.h"

#define SIGNAL_EXIT_BASE 128

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid, r;
	FILE *f;

	fp_set_prog(argv[0]);
	if (argc < 3)
		fp_die(FP_EXIT_USAGE, "usage: maxrss FILE COMMAND [ARG]...");
	pid = fork();
	if (pid < 0)
		fp_die_sys(FP_EXIT_SYS, "fork");
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fp_die_sys(FP_EXIT_SYS, "exec %s", argv[2]);
	}
	do
		r = wait4(pid, &status, 0, &ru);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		fp_die_sys(FP_EXIT_SYS, "wait4");
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%ld\n", ru.ru_maxrss) < 0 || fclose(f) != 0)
		fp_die_sys(FP_EXIT_SYS, "write %s", argv[1]);
	if (WIFSIGNALED(status))
		return SIGNAL_EXIT_BASE + WTERMSIG(status);
	return WEXITSTATUS(status);
}
