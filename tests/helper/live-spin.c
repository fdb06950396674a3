/* live-spin MS [LINGER_MS]: burn CPU for MS milliseconds (default 1500) in a function
 * with a name no other program has, so a live capture's stacks and heatmap
 * can be searched for it (tests/t71*-live-*.sh). Then it sleeps LINGER_MS
 * (default 500) before exiting: bpftrace reads /proc/PID/maps to name user frames when it
 * prints a sample, which fails once the process is gone. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_MS 1000000LL
#define NS_PER_SEC 1000000000LL
#define LINGER_MS_DEFAULT 500
#define US_PER_MS 1000

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* noinline: the name must stay a frame of its own. */
__attribute__((noinline)) static unsigned long flamepipe_live_spin_target(long long until)
{
	volatile unsigned long x = 0;

	while (now_ns() < until)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i * 2654435761u;
	return x;
}

int main(int argc, char **argv)
{
	long long ms = argc > 1 ? atoll(argv[1]) : 1500;
	long long linger = argc > 2 ? atoll(argv[2]) : LINGER_MS_DEFAULT;

	printf("%lu\n", flamepipe_live_spin_target(now_ns() + ms * NS_PER_MS) & 1);
	fflush(stdout);
	while (linger-- > 0) /* usleep takes at most a second */
		usleep(US_PER_MS);
	return 0;
}
