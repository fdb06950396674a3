/* busy: a CPU-bound workload with a distinctive function, for the real
 * bpftrace/perf profile tests (tests/t8100-bpftrace-*.sh).
 *
 *	busy CPU_MS TIMES_FILE [WALL_MS [LINGER_MS [RELEASE_FILE]]]
 *
 * Spins in fp_busy_spin_marker() until it has used CPU_MS milliseconds of
 * CPU time (so a loaded machine still gives about HZ * CPU_MS / 1000
 * samples) or WALL_MS of wall time have passed (default 8000: a bound on
 * the test's run time), then writes "<start_ns> <end_ns> <pid>"
 * (CLOCK_MONOTONIC, the clock of bpftrace's nsecs and of perf's timestamps)
 * to TIMES_FILE, so a test can check that the samples of that function land
 * in those seconds of the heatmap. The pid tells this run's samples from
 * those of another busy on the machine (a system-wide profile sees them all).
 * Then it stays LINGER_MS (default 0) before exiting: bpftrace names user
 * frames from /proc/PID/maps when it prints a sample, late on a loaded
 * machine, and cannot once the process is gone. With RELEASE_FILE it
 * leaves as soon as that file exists (the test makes it once bpftrace
 * has printed past the spin), LINGER_MS being the bound.
 * Exit codes: 0 ok, 100 usage, 111 clock or file error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fp_error.h"

#define NS_PER_SEC 1000000000ull
#define NS_PER_MS 1000000ull
#define SPINS_PER_CLOCK_CHECK 100000
#define DEFAULT_WALL_MS 8000ull
#define MS_PER_SEC 1000ull
#define RELEASE_POLL_NS 20000000ull /* how often RELEASE_FILE is looked for */

static volatile uint64_t sink; /* keeps the loop from being optimised away */

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) < 0)
		fp_die_sys(FP_EXIT_SYS, "clock_gettime");
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Not static, not inlined: the symbol must show up in the stacks. */
__attribute__((noinline)) void fp_busy_spin_marker(uint64_t cpu_end_ns, uint64_t wall_end_ns)
{
	while (clock_ns(CLOCK_PROCESS_CPUTIME_ID) < cpu_end_ns &&
	       clock_ns(CLOCK_MONOTONIC) < wall_end_ns)
		for (uint64_t i = 0; i < SPINS_PER_CLOCK_CHECK; i++)
			sink += i;
}

#define USAGE "usage: busy CPU_MS TIMES_FILE [WALL_MS [LINGER_MS [RELEASE_FILE]]]"

static unsigned long long parse_ms(const char *s)
{
	char *end;
	unsigned long long ms = strtoull(s, &end, 10);

	if (*end || end == s)
		fp_die(FP_EXIT_USAGE, USAGE);
	return ms;
}

int main(int argc, char **argv)
{
	FILE *f;

	fp_set_prog(argv[0]);
	if (argc < 3 || argc > 6)
		fp_die(FP_EXIT_USAGE, USAGE);
	unsigned long long cpu_ms = parse_ms(argv[1]);
	unsigned long long wall_ms = argc >= 4 ? parse_ms(argv[3]) : DEFAULT_WALL_MS;
	unsigned long long linger_ms = argc >= 5 ? parse_ms(argv[4]) : 0;
	const char *release = argc == 6 ? argv[5] : NULL;
	uint64_t start = clock_ns(CLOCK_MONOTONIC);
	fp_busy_spin_marker(clock_ns(CLOCK_PROCESS_CPUTIME_ID) + cpu_ms * NS_PER_MS,
			    start + wall_ms * NS_PER_MS);
	uint64_t stop = clock_ns(CLOCK_MONOTONIC);
	f = fopen(argv[2], "w");
	if (!f ||
	    fprintf(f, "%llu %llu %ld\n", (unsigned long long)start, (unsigned long long)stop,
		    (long)getpid()) < 0 ||
	    fclose(f) != 0)
		fp_die_sys(FP_EXIT_SYS, "write %s", argv[2]);
	uint64_t linger_end = clock_ns(CLOCK_MONOTONIC) + linger_ms * NS_PER_MS;
	struct stat st;
	for (uint64_t now; (now = clock_ns(CLOCK_MONOTONIC)) < linger_end;) {
		if (release && stat(release, &st) == 0)
			break;
		uint64_t nap_ns = linger_end - now;
		if (release && nap_ns > RELEASE_POLL_NS)
			nap_ns = RELEASE_POLL_NS;
		struct timespec nap = { (time_t)(nap_ns / NS_PER_SEC),
					(long)(nap_ns % NS_PER_SEC) };
		while (nanosleep(&nap, &nap) < 0 && errno == EINTR)
			;
	}
	return 0;
}
