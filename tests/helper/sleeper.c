/* sleeper: a known latency for the real fp-latency tests (t8200).
 *
 *	sleeper [ROUNDS [SLEEP_MS [TIMES_FILE]]]   defaults: 3 rounds of 100 ms
 *
 * Each round: syscall(SYS_getppid) (the start event), nanosleep SLEEP_MS,
 * syscall(SYS_getpgid, 0) (the end event). Raw syscall() so libc cannot
 * cache or skip the calls. A trace of sys_enter_getppid -> sys_enter_getpgid
 * per tid must show ROUNDS intervals of about SLEEP_MS.
 * TIMES_FILE: one line per round, the CLOCK_MONOTONIC ns from just before
 * the getppid to just after the getpgid: an upper bound of the interval a
 * trace can show, however late a loaded machine woke the sleeper.
 * Exit codes: 0 ok, 100 usage, 111 nanosleep failed or TIMES_FILE not written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fp_error.h"

#define DEFAULT_ROUNDS 3
#define DEFAULT_SLEEP_MS 100
#define MS_PER_SEC 1000
#define NS_PER_MS 1000000L
#define NS_PER_SEC 1000000000LL

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * NS_PER_SEC + t.tv_nsec;
}

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
	if (argc > 4)
		fp_die(FP_EXIT_USAGE, "usage: sleeper [ROUNDS [SLEEP_MS [TIMES_FILE]]]");
	long rounds = parse_arg(argc > 1 ? argv[1] : NULL, DEFAULT_ROUNDS);
	long ms = parse_arg(argc > 2 ? argv[2] : NULL, DEFAULT_SLEEP_MS);
	const char *times = argc > 3 ? argv[3] : NULL;
	struct timespec ts = { ms / MS_PER_SEC, (ms % MS_PER_SEC) * NS_PER_MS };
	FILE *out = NULL;

	if (times && !(out = fopen(times, "w")))
		fp_die_sys(FP_EXIT_SYS, "open %s", times);
	for (long i = 0; i < rounds; i++) {
		long long t0 = now_ns();
		syscall(SYS_getppid);
		struct timespec left = ts;
		while (nanosleep(&left, &left) < 0)
			if (errno != EINTR)
				fp_die_sys(FP_EXIT_SYS, "nanosleep");
		syscall(SYS_getpgid, 0);
		long long t1 = now_ns();
		if (out)
			fprintf(out, "%lld\n", t1 - t0);
	}
	if (out && fclose(out) != 0)
		fp_die_sys(FP_EXIT_SYS, "write %s", times);
	return 0;
}
