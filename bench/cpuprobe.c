/* cpuprobe.c: how fast the host's CPUs run at this moment.
 *
 * Usage: cpuprobe [THREADS]
 *
 * Runs one fixed piece of integer work on THREADS threads at once (default:
 * every online CPU, as a chain of stages keeps them all busy) and prints
 *	probe_ms=MS
 * the time the slowest thread took. The same binary on the same host takes
 * the same time unless the host is slower at that moment.
 *
 * Why: the bench's VMs differ, and one VM's speed moves with no steal time
 * reported: zcat of the corpus took 1.91 s on one host and 2.59 s on
 * another of the same kind, and on that one a fixed loop took 0.63 s,
 * then 1.69, 1.75 and 2.57 s in a row, the host otherwise idle
 * (docs/bench.md, "A slower host, and a CPU probe"). bench/run.sh runs a
 * probe before each timed run, so every row says how fast the host ran
 * around it, and a change of code is told from a host.
 *
 * Compiled on the fly by bench/run.sh, not part of the product.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define EXIT_USAGE 100
#define EXIT_SYS 111
#define THREADS_MAX 256
/* ~50 ms on the bench's host at its best: short beside a row's run, long
 * beside the scheduler's tick. */
#define STEPS 20000000ull
#define TABLE_WORDS (64u << 10) /* 256 KiB */

struct job {
	pthread_t t;
	uint32_t *table;
	double ms;
	uint64_t sink;
};

static volatile uint64_t sink; /* the work's result, so none of it is left out */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A dependent chain (xorshift64) that also counts into a table of half
 * a core's L2 cache at random: arithmetic, loads and stores, as the
 * stages' parsing and hashing are (on that host a loop of arithmetic
 * alone read steady while the loop with a store and a load per step
 * read 0.63-2.57 s). */
static void *work(void *arg)
{
	struct job *j = arg;
	uint32_t *table = j->table;
	uint64_t x = 88172645463325252ull;
	double t0 = now_ms();

	for (uint64_t i = 0; i < STEPS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		table[x & (TABLE_WORDS - 1)] += (uint32_t)i;
	}
	j->ms = now_ms() - t0;
	j->sink = x ^ table[x & (TABLE_WORDS - 1)];
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
	struct job jobs[THREADS_MAX];
	double slowest = 0;

	if (argc > 2 || n < 1 || n > THREADS_MAX) {
		fprintf(stderr, "usage: cpuprobe [THREADS (1-%d)]\n", THREADS_MAX);
		return EXIT_USAGE;
	}
	for (long i = 0; i < n; i++)
		if (!(jobs[i].table = calloc(TABLE_WORDS, sizeof *jobs[i].table))) {
			perror("cpuprobe: table");
			return EXIT_SYS;
		}
	for (long i = 0; i < n; i++)
		if (pthread_create(&jobs[i].t, NULL, work, &jobs[i]) != 0) {
			perror("cpuprobe: thread");
			return EXIT_SYS;
		}
	for (long i = 0; i < n; i++) {
		pthread_join(jobs[i].t, NULL);
		if (jobs[i].ms > slowest)
			slowest = jobs[i].ms;
		sink ^= jobs[i].sink;
		free(jobs[i].table);
	}
	printf("probe_ms=%.1f\n", slowest);
	return 0;
}
