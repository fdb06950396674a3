/* busy: a CPU-bound workload with a distinctive function, for the real
 * bpftrace/perf profile tests (tests/t8100-bpftrace-*.sh).
 *
 *	busy MS TIMES_FILE
 *
 * Spins in fp_busy_spin_marker() for MS milliseconds of wall time, then
 * writes "<start_ns> <end_ns>" (CLOCK_MONOTONIC, the clock of bpftrace's
 * nsecs and of perf's timestamps) to TIMES_FILE, so a test can check that
 * the samples of that function land in those seconds of the heatmap.
 * Exit codes: 0 ok, 100 usage, 111 clock or file error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fp_error.h"

#define NS_PER_SEC 1000000000ull
#define NS_PER_MS 1000000ull
#define SPINS_PER_CLOCK_CHECK 100000

static volatile uint64_t sink;	/* keeps the loop from being optimised away */

static uint64_t now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		fp_die_sys(FP_EXIT_SYS, "clock_gettime");
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Not static, not inlined: the symbol must show up in the stacks. */
__attribute__((noinline)) void fp_busy_spin_marker(uint64_t end_ns)
{
	while (now_ns() < end_ns)
		for (uint64_t i = 0; i < SPINS_PER_CLOCK_CHECK; i++)
			sink += i;
}

int main(int argc, char **argv)
{
	char *end;
	FILE *f;

	fp_set_prog(argv[0]);
	if (argc != 3)
		fp_die(FP_EXIT_USAGE, "usage: busy MS TIMES_FILE");
	unsigned long long ms = strtoull(argv[1], &end, 10);
	if (*end || end == argv[1])
		fp_die(FP_EXIT_USAGE, "usage: busy MS TIMES_FILE");
	uint64_t start = now_ns();
	fp_busy_spin_marker(start + ms * NS_PER_MS);
	uint64_t stop = now_ns();
	f = fopen(argv[2], "w");
	if (!f || fprintf(f, "%llu %llu\n", (unsigned long long)start,
			  (unsigned long long)stop) < 0 || fclose(f) != 0)
		fp_die_sys(FP_EXIT_SYS, "write %s", argv[2]);
	return 0;
}
