/* slow-reader BYTES_PER_TICK TICK_US: reads stdin slowly and copies it to
 * stdout, so the writer upstream must hold back (backpressure tests). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t per_tick = argc > 1 ? strtoul(argv[1], NULL, 10) : 4096;
	useconds_t tick = argc > 2 ? (useconds_t)strtoul(argv[2], NULL, 10) : 1000;
	char *buf = malloc(per_tick ? per_tick : 1);
	ssize_t n;

	while ((n = read(0, buf, per_tick)) > 0) {
		if (write(1, buf, (size_t)n) != n)
			return 1;
		usleep(tick);
	}
	return n < 0;
}
