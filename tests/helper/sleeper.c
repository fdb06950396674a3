/* sleeper: a known latency for the real fp-latency tests (t8100).
 *
 *	sleeper [ROUNDS [SLEEP_MS]]      defaults: 3 rounds of 100 ms
 *
 * Each round: syscall(SYS_getppid) (the start event), nanosleep SLEEP_MS,
 * syscall(SYS_getpgid, 0) (the end event). Raw syscall() so libc cannot
 * cache or skip the calls. A trace of sys_enter_getppid -> sys_enter_getpgid
 * per tid must show ROUNDS intervals of about SLEEP_MS.
 * Exit codes: 0 ok, 100 usage, 111 nanosleep failed.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fp_error.h"

#define DEFAULT_ROUNDS 3
#define DEFAULT_SLEEP_MS 100
#define MS_PER_SEC 1000
#define NS_PER_MS 1000000L

static long parse_arg(const char *s, long dflt)
{
	char *end;
	long v;

	if (!s)
		return dflt;
	v = strtol(s, &end, 10);
	if (*end || v < 0)
		fp_die(FP_EXIT_USAGE, "usage: sleeper [ROUNDS [SLEEP_MS]]");
	return v;
}

int main(int argc, char **argv)
{
	fp_set_prog(argv[0]);
	long rounds = parse_arg(argc > 1 ? argv[1] : NULL, DEFAULT_ROUNDS);
	long ms = parse_arg(argc > 2 ? argv[2] : NULL, DEFAULT_SLEEP_MS);
	struct timespec ts = { ms / MS_PER_SEC, (ms % MS_PER_SEC) * NS_PER_MS };

	for (long i = 0; i < rounds; i++) {
		syscall(SYS_getppid);
		struct timespec left = ts;
		while (nanosleep(&left, &left) < 0)
			if (errno != EINTR)
				fp_die_sys(FP_EXIT_SYS, "nanosleep");
		syscall(SYS_getpgid, 0);
	}
	return 0;
}
