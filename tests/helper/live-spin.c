/* live-spin MS: burn CPU for MS milliseconds (default 1500) in a function
 * with a name no other program has, so a live capture's stacks and heatmap
 * can be searched for it (tests/t71*-live-*.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NS_PER_MS 1000000LL
#define NS_PER_SEC 1000000000LL

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

	printf("%lu\n", flamepipe_live_spin_target(now_ns() + ms * NS_PER_MS) & 1);
	return 0;
}
