/* pd-threads: a process with threads that then execs, for fp-perfdata's
 * real-capture tests (t1101).
 *
 *	pd-threads MS [PROGRAM]
 *
 * Two threads spin in pd_thread_spin() and the main thread in
 * pd_main_spin() for MS milliseconds of wall time; then, if PROGRAM is
 * given, the process execs it with the argument MS (a link to pd-threads
 * under another name, so the exec renames the comm, and the new image
 * spins again with its threads).
 * Exit codes: 0 ok, 100 usage, 111 thread or exec failure.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "fp_error.h"

#define NS_PER_MS 1000000ull
#define THREADS 2
#define SPINS_PER_CHECK 100000

static volatile uint64_t sink;
static uint64_t spin_ms;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static __attribute__((noinline)) void spin_until(uint64_t end)
{
	while (now_ns() < end)
		for (int i = 0; i < SPINS_PER_CHECK; i++)
			sink += (uint64_t)i * 7;
}

__attribute__((noinline)) void *pd_thread_spin(void *arg)
{
	spin_until(*(uint64_t *)arg);
	return NULL;
}

__attribute__((noinline)) void pd_main_spin(uint64_t end)
{
	spin_until(end);
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];

	fp_set_prog(argv[0]);
	if (argc < 2 || argc > 3)
		fp_die(FP_EXIT_USAGE, "usage: pd-threads MS [PROGRAM]");
	spin_ms = strtoull(argv[1], NULL, 10);
	uint64_t end = now_ns() + spin_ms * NS_PER_MS;
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, pd_thread_spin, &end) != 0)
			fp_die(FP_EXIT_SYS, "pthread_create failed");
	pd_main_spin(end);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	if (argc == 3) {
		execl(argv[2], argv[2], argv[1], (char *)NULL);
		fp_die_sys(FP_EXIT_SYS, "exec %s", argv[2]);
	}
	return 0;
}
