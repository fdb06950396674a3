/* busy-phases: a workload with known hot and idle seconds, for the real-capture
 * test of fp-read (t1005).
 *
 *	busy-phases [PATTERN [FILE]]    default "101": busy, idle, busy
 *
 * Waits for the next whole second of CLOCK_MONOTONIC, then for each
 * character of PATTERN spends one whole second: '1' spinning in
 * fp_read_test_hot_loop() (on CPU), '0' sleeping (off CPU). It prints
 * "busy SECOND" or "idle SECOND" (CLOCK_MONOTONIC seconds) for each, so a
 * capture made with `perf record -k CLOCK_MONOTONIC` can be checked against
 * it, to FILE (default stderr: under `perf record -o -` stdout is the
 * perf data stream). Each busy second spins from SPIN_START_MS to SPIN_END_MS only, so a
 * slow start or a late sample cannot spill into the next second.
 * Exit codes: 0 ok, 100 usage, 111 cannot write FILE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fp_error.h"

#define DEFAULT_PATTERN "101"
#define PATTERN_MAX 10
#define NS_PER_SEC 1000000000LL
#define NS_PER_MS 1000000LL
#define SPIN_START_MS 50
#define SPIN_END_MS 900
/* Work between two clock reads: small enough to stop on time. */
#define SPIN_STEP 10000

static volatile unsigned long sink;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

static void sleep_until(long long t)
{
	struct timespec ts = { (time_t)(t / NS_PER_SEC), (long)(t % NS_PER_SEC) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
		;
}

/* The function the test looks for in the folded stacks. */
__attribute__((noinline)) void fp_read_test_hot_loop(long long until)
{
	while (now_ns() < until)
		for (int i = 0; i < SPIN_STEP; i++)
			sink += (unsigned long)i * (unsigned long)i;
}

int main(int argc, char **argv)
{
	const char *pattern = argc > 1 ? argv[1] : DEFAULT_PATTERN;
	FILE *out = stderr;

	fp_set_prog(argv[0]);
	if (argc > 3 || strlen(pattern) == 0 || strlen(pattern) > PATTERN_MAX ||
	    strspn(pattern, "01") != strlen(pattern))
		fp_die(FP_EXIT_USAGE,
		       "usage: busy-phases [PATTERN [FILE]] "
		       "(PATTERN: at most %d of 0 and 1)",
		       PATTERN_MAX);
	if (argc > 2 && !(out = fopen(argv[2], "w")))
		fp_die_sys(FP_EXIT_SYS, "cannot create '%s'", argv[2]);
	long long sec = now_ns() / NS_PER_SEC + 1;

	for (const char *c = pattern; *c; c++, sec++) {
		long long start = sec * NS_PER_SEC;

		if (*c == '1') {
			sleep_until(start + SPIN_START_MS * NS_PER_MS);
			fp_read_test_hot_loop(start + SPIN_END_MS * NS_PER_MS);
		}
		fprintf(out, "%s %lld\n", *c == '1' ? "busy" : "idle", sec);
	}
	sleep_until(sec * NS_PER_SEC);
	if (fclose(out) != 0)
		fp_die_sys(FP_EXIT_SYS, "cannot write the phases");
	return 0;
}
