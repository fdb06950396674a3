/* soakgen.c: the source of the soak (bench/soak.sh): a flamepipe stream of
 * S records at RATE samples per second of real time for SECONDS seconds,
 * with new stacks all the time.
 *
 * Usage: soakgen RATE SECONDS [NEW_EVERY]
 *
 * Sample i has perf time T0 + i/RATE s (so one heatmap column a second),
 * one of 8 comms and pids, and a 12-frame stack; every NEW_EVERY-th sample
 * (default 4) has a stack never seen before (its leaf names a counter),
 * the others repeat one of 64 hot stacks: 2,500 new stacks a second at
 * 10,000 samples/s, as a long session with churning code or pids meets
 * them. Written in 10-ms bursts, each in one write().
 *
 * Benchmark helper, compiled on the fly by bench/soak.sh; not part of the
 * product.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_SEC UINT64_C(1000000000)
#define BURST_NS (10 * UINT64_C(1000000))
#define T0 (UINT64_C(1000) * NS_PER_SEC)
#define COMMS 8
#define HOT 64

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static int write_all(const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(1, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[1 << 22];
	static const char *const comms[COMMS] = { "web", "db", "cache", "worker",
						  "gc",  "io", "batch", "proxy" };

	if (argc < 3) {
		fprintf(stderr, "usage: soakgen RATE SECONDS [NEW_EVERY]\n");
		return 100;
	}
	uint64_t rate = strtoull(argv[1], NULL, 10), secs = strtoull(argv[2], NULL, 10);
	uint64_t new_every = argc > 3 ? strtoull(argv[3], NULL, 10) : 4;
	uint64_t total = rate * secs, i = 0, fresh = 0, start = now_ns();

	if (!rate || !new_every)
		return 100;
	signal(SIGPIPE, SIG_DFL);
	if (write_all("%flamepipe\t1\n", 13) < 0)
		return 141;
	while (i < total) {
		uint64_t due = (now_ns() - start + BURST_NS) * rate / NS_PER_SEC;
		size_t len = 0;

		if (due > total)
			due = total;
		for (; i < due && len < sizeof buf - 512; i++) {
			unsigned c = (unsigned)(i % COMMS);
			uint64_t t = T0 + i * NS_PER_SEC / rate;
			int n;

			if (i % new_every == 0)
				n = snprintf(
					buf + len, sizeof buf - len,
					"S\t%" PRIu64
					"\t%u\t%u\t%u\t1\tcpu-clock\t%s\tuuuuuuuuuuuu\t"
					"_start;__libc_start_main;main;run;loop;dispatch;handle;"
					"parse;eval;call;jit_%" PRIu64 ";leaf_%" PRIu64 "\n",
					t, 1000 + c, 1000 + c, c % 2, comms[c], fresh / 16, fresh);
			else
				n = snprintf(
					buf + len, sizeof buf - len,
					"S\t%" PRIu64
					"\t%u\t%u\t%u\t1\tcpu-clock\t%s\tuuuuuuuuuuuu\t"
					"_start;__libc_start_main;main;run;loop;dispatch;handle;"
					"parse;eval;call;hot_%u;work_%u\n",
					t, 1000 + c, 1000 + c, c % 2, comms[c],
					(unsigned)(i % HOT) / 8, (unsigned)(i % HOT));
			fresh += i % new_every == 0;
			len += (size_t)n;
		}
		if (len && write_all(buf, len) < 0)
			return 141;
		struct timespec ts = { 0, (long)BURST_NS };

		nanosleep(&ts, NULL);
	}
	return 0;
}
