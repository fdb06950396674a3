/* pdreplay: write a pipe-format perf.data to stdout at a steady sample
 * rate, as `perf record --no-buffering -o -` would while a machine is
 * sampled: the bench's live source (the "live whole cost" row, bench/run.sh).
 *
 *	pdreplay RATE TICK_MS FILE
 *
 * FILE is perf's pipe format (`perf inject -i perf.data -o - > FILE`).
 * The header and every record that is not a sample go out as they come;
 * the samples are paced: every TICK_MS milliseconds one write() carries the
 * records due by then (RATE samples per second in all), so the reader wakes
 * up once per tick at most, as it would for perf's own writes. At the end
 * one line on stderr: samples=N seconds=S (the wall time of the replay).
 * Exit: 0, 1 bad input, 2 usage, 3 a write failed (the reader went away).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PIPE_HEADER_BYTES 16	/* "PERFILE2" + its size */
#define REC_HEADER_BYTES 8	/* type u32, misc u16, size u16 */
#define RECORD_SAMPLE 9		/* PERF_RECORD_SAMPLE */
#define NS_PER_S 1000000000.0

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / NS_PER_S;
}

static void put(const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(1, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			exit(3);
		p += w;
		n -= (size_t)w;
	}
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 20, n = 0;
	unsigned char *buf = malloc(cap);

	if (!f || !buf)
		return NULL;
	for (;;) {
		if (n == cap && !(buf = realloc(buf, cap *= 2)))
			return NULL;
		size_t r = fread(buf + n, 1, cap - n, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: pdreplay RATE TICK_MS FILE\n");
		return 2;
	}
	double rate = atof(argv[1]), tick = atof(argv[2]) / 1000.0;
	size_t len = 0, pos = PIPE_HEADER_BYTES, from;
	unsigned char *d = slurp(argv[3], &len);

	if (rate <= 0 || tick <= 0 || !d || len < PIPE_HEADER_BYTES || memcmp(d, "PERFILE2", 8)) {
		fprintf(stderr, "pdreplay: %s: not perf's pipe format\n", argv[3]);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	put(d, PIPE_HEADER_BYTES);
	double start = now(), next = start + tick;
	uint64_t samples = 0;

	from = pos;
	while (pos + REC_HEADER_BYTES <= len) {
		uint32_t type;
		uint16_t size;
		memcpy(&type, d + pos, 4);
		memcpy(&size, d + pos + 6, 2);
		if (size < REC_HEADER_BYTES || pos + size > len)
			break;
		pos += size;
		if (type != RECORD_SAMPLE)
			continue;
		samples++;
		/* the samples due by the next tick go out with it */
		if (start + (double)samples / rate < next)
			continue;
		double t = now();
		if (t < next) {
			struct timespec ts = { 0, (long)((next - t) * NS_PER_S) };
			nanosleep(&ts, NULL);
		}
		put(d + from, pos - from);
		from = pos;
		next += tick;
	}
	put(d + from, pos - from);
	fprintf(stderr, "samples=%llu seconds=%.3f\n", (unsigned long long)samples, now() - start);
	free(d);
	return 0;
}
