/* switch-phases: a workload that changes its hot function, for the
 * baseline tests (t7110, t7111).
 *
 *	switch-phases OLD_S NEW_S [MARK]
 *
 * Spins OLD_S seconds in fp_baseline_test_old(), then NEW_S seconds in
 * fp_baseline_test_new() (both on CPU, one thread). At the switch it
 * writes "switch REALTIME_NS MONOTONIC_NS" to MARK (default stderr: under
 * `perf record -o -` stdout is the perf data stream), so a test can
 * measure how long after the change something noticed it.
 * Exit codes: 0 ok, 100 usage, 111 cannot write MARK.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fp_error.h"

#define NS_PER_SEC 1000000000LL
#define SPIN_STEP 10000 /* work between two clock reads */

static volatile unsigned long sink;

static long long clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

__attribute__((noinline)) void fp_baseline_test_old(long long until)
{
	while (clock_ns(CLOCK_MONOTONIC) < until)
		for (int i = 0; i < SPIN_STEP; i++)
			sink += (unsigned long)i * 3u;
}

__attribute__((noinline)) void fp_baseline_test_new(long long until)
{
	while (clock_ns(CLOCK_MONOTONIC) < until)
		for (int i = 0; i < SPIN_STEP; i++)
			sink += (unsigned long)i * (unsigned long)i;
}

static double seconds(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v < 0 || v > 3600)
		fp_die(FP_EXIT_USAGE,
		       "usage: switch-phases OLD_S NEW_S [MARK] (seconds, got \"%s\")", s);
	return v;
}

int main(int argc, char **argv)
{
	FILE *out = stderr;

	fp_set_prog(argv[0]);
	if (argc < 3 || argc > 4)
		fp_die(FP_EXIT_USAGE, "usage: switch-phases OLD_S NEW_S [MARK]");
	long long old_ns = (long long)(seconds(argv[1]) * 1e9);
	long long new_ns = (long long)(seconds(argv[2]) * 1e9);
	long long t = clock_ns(CLOCK_MONOTONIC);

	fp_baseline_test_old(t + old_ns);
	long long real = clock_ns(CLOCK_REALTIME), mono = clock_ns(CLOCK_MONOTONIC);
	if (argc > 3 && !(out = fopen(argv[3], "w")))
		fp_die_sys(FP_EXIT_SYS, "cannot create '%s'", argv[3]);
	fprintf(out, "switch %lld %lld\n", real, mono);
	if (fflush(out) != 0)
		fp_die_sys(FP_EXIT_SYS, "cannot write the mark");
	fp_baseline_test_new(mono + new_ns);
	if (fclose(out) != 0)
		fp_die_sys(FP_EXIT_SYS, "cannot write the mark");
	return 0;
}
