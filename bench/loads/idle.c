/* idle.c: an idle-heavy load for the bench's idle corpus: four threads
 * that each wake 200 times a second, do ~50 us of work and sleep again,
 * so a system-wide capture is mostly the idle task (swapper), with short
 * bursts of user and kernel stacks. Not part of the product.
 *
 * Build: cc -O2 -fno-omit-frame-pointer -pthread -o idle bench/loads/idle.c
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define THREADS 4
#define PERIOD_NS 5000000L /* 200 wakeups a second */
#define WORK_ROUNDS 20000

static double seconds = 10;
static volatile uint64_t sink;

__attribute__((noinline)) static void handle_tick(uint64_t *x)
{
	for (int i = 0; i < WORK_ROUNDS; i++)
		*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
}

static void *worker(void *arg)
{
	struct timespec start, now, nap = { 0, PERIOD_NS };
	uint64_t x = (uintptr_t)arg;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		handle_tick(&x);
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec + (now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
	sink += x;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];

	if (argc > 1)
		seconds = atof(argv[1]);
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
