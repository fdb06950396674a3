/* pdreplay: write a pipe-format perf.data to stdout at a steady sample
 * rate, as `perf record --no-buffering -o -` would while a machine is
 * sampled: the bench's live source (the "live whole cost" row, bench/run.sh).
 *
 *	pdreplay RATE TICK_MS FILE [LOOPS]
 *
 * FILE is perf's pipe format (`perf inject -i perf.data -o - > FILE`).
 * LOOPS (default 1) replays the samples that many times, each pass
 * time-shifted by the capture's span (its latest sample time minus its
 * earliest, plus one sample interval) so each pass begins after every
 * sample of the one before, for a steady state longer than the capture: after
 * the first pass only the samples and the FINISHED_ROUND records go out
 * again (the mmaps, comms and attrs are known by then).
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

#define PIPE_HEADER_BYTES 16  /* "PERFILE2" + its size */
#define REC_HEADER_BYTES 8    /* type u32, misc u16, size u16 */
#define RECORD_SAMPLE 9       /* PERF_RECORD_SAMPLE */
#define RECORD_HEADER_ATTR 64 /* PERF_RECORD_HEADER_ATTR */
#define RECORD_FINISHED_ROUND 68
#define ATTR_SAMPLE_TYPE_AT 32 /* record header 8 + attr's sample_type at 24 */
#define SAMPLE_IP (1u << 0)    /* PERF_SAMPLE_*: the fields before TIME */
#define SAMPLE_TID (1u << 1)
#define SAMPLE_TIME (1u << 2)
#define SAMPLE_IDENTIFIER (1u << 16)
#define NO_TIME ((size_t)-1)
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

/* where a sample record's time is, from an attr's sample_type (NO_TIME if
 * none); -2 (as size_t) when two attrs disagree */
static size_t time_at(uint64_t type)
{
	size_t at = REC_HEADER_BYTES;

	if (!(type & SAMPLE_TIME))
		return NO_TIME;
	at += (type & SAMPLE_IDENTIFIER) ? 8 : 0;
	at += (type & SAMPLE_IP) ? 8 : 0;
	at += (type & SAMPLE_TID) ? 8 : 0;
	return at;
}

struct replay {
	const unsigned char *d;
	size_t len;
	double rate, tick, start, next;
	uint64_t samples;
	size_t tat;              /* the sample time's offset, NO_TIME if none */
	uint64_t shift;          /* ns added to this pass's sample times */
	uint64_t min_ns, max_ns; /* the first pass's sample times (perf's
				 * order is by time only within a round) */
	unsigned char *out;      /* a later pass's records, time-shifted */
	size_t out_n, out_cap;
};

static void emit(struct replay *r, const unsigned char *p, size_t n, int copy)
{
	if (!copy) {
		put(p, n);
		return;
	}
	if (r->out_n + n > r->out_cap) {
		put(r->out, r->out_n);
		r->out_n = 0;
	}
	memcpy(r->out + r->out_n, p, n);
	r->out_n += n;
}

/* the record header at pos: 1 and its type and size if a whole record
 * starts there, 0 at the end or at a damaged size */
static int record_at(const struct replay *r, size_t pos, uint32_t *type, uint16_t *size)
{
	if (pos + REC_HEADER_BYTES > r->len)
		return 0;
	memcpy(type, r->d + pos, 4);
	memcpy(size, r->d + pos + 6, 2);
	return *size >= REC_HEADER_BYTES && pos + *size <= r->len;
}

/* one pass over the records: pass 0 sends everything (the header's records
 * as they come), later passes the samples (time-shifted) and the rounds */
static void pass(struct replay *r, int again)
{
	size_t pos = PIPE_HEADER_BYTES, from = pos;

	uint32_t type;
	uint16_t size;

	while (record_at(r, pos, &type, &size)) {
		const unsigned char *rec = r->d + pos;
		pos += size;
		if (type == RECORD_HEADER_ATTR && !again && size >= ATTR_SAMPLE_TYPE_AT + 8) {
			uint64_t st;
			memcpy(&st, rec + ATTR_SAMPLE_TYPE_AT, 8);
			size_t at = time_at(st);
			r->tat = (r->samples == 0 && r->tat == (size_t)-2)
					 ? at
					 : (r->tat == at ? at : (size_t)-3);
		}
		if (again && type != RECORD_SAMPLE && type != RECORD_FINISHED_ROUND)
			continue;
		if (again) {
			if (type == RECORD_SAMPLE && r->tat < size) {
				uint64_t t;
				memcpy(&t, rec + r->tat, 8);
				t += r->shift;
				emit(r, rec, r->tat, 1);
				emit(r, (const unsigned char *)&t, 8, 1);
				emit(r, rec + r->tat + 8, size - r->tat - 8, 1);
			} else {
				emit(r, rec, size, 1);
			}
		}
		if (type != RECORD_SAMPLE)
			continue;
		if (!again && r->tat < size) {
			uint64_t t;

			memcpy(&t, rec + r->tat, 8);
			if (t < r->min_ns)
				r->min_ns = t;
			if (t > r->max_ns)
				r->max_ns = t;
		}
		r->samples++;
		/* the samples due by the next tick go out with it */
		if (r->start + (double)r->samples / r->rate < r->next)
			continue;
		double t = now();
		if (t < r->next) {
			struct timespec ts = { 0, (long)((r->next - t) * NS_PER_S) };
			nanosleep(&ts, NULL);
		}
		if (again) {
			put(r->out, r->out_n);
			r->out_n = 0;
		} else {
			put(r->d + from, pos - from);
		}
		from = pos;
		r->next += r->tick;
	}
	if (again) {
		put(r->out, r->out_n);
		r->out_n = 0;
	} else {
		put(r->d + from, pos - from);
	}
}

#define OUT_BYTES (1 << 20) /* a later pass's buffer between ticks */

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: pdreplay RATE TICK_MS FILE [LOOPS]\n");
		return 2;
	}
	struct replay r = { .rate = atof(argv[1]),
			    .tick = atof(argv[2]) / 1000.0,
			    .tat = (size_t)-2,
			    .min_ns = UINT64_MAX };
	long loops = argc == 5 ? atol(argv[4]) : 1;
	unsigned char *d = slurp(argv[3], &r.len);

	if (r.rate <= 0 || r.tick <= 0 || loops < 1) {
		fprintf(stderr, "usage: pdreplay RATE TICK_MS FILE [LOOPS]\n");
		return 2;
	}
	if (!d || r.len < PIPE_HEADER_BYTES || memcmp(d, "PERFILE2", 8)) {
		fprintf(stderr, "pdreplay: %s: not perf's pipe format\n", argv[3]);
		return 1;
	}
	r.d = d;
	signal(SIGPIPE, SIG_IGN);
	put(d, PIPE_HEADER_BYTES);
	r.start = now();
	r.next = r.start + r.tick;
	pass(&r, 0);
	if (loops > 1 && r.tat >= r.len) {
		fprintf(stderr, "pdreplay: %s: no single sample time field to shift for LOOPS\n",
			argv[3]);
		return 1;
	}
	if (loops > 1 && !(r.out = malloc(r.out_cap = OUT_BYTES)))
		return 1;
	/* the whole span, not last minus first in file order: a pass must
	 * begin after every sample of the one before */
	uint64_t span = (r.max_ns >= r.min_ns ? r.max_ns - r.min_ns : 0) +
			(uint64_t)(NS_PER_S / r.rate);
	for (long k = 1; k < loops; k++) {
		r.shift = span * (uint64_t)k;
		pass(&r, 1);
	}
	fprintf(stderr, "samples=%llu seconds=%.3f\n", (unsigned long long)r.samples,
		now() - r.start);
	free(r.out);
	free(d);
	return 0;
}
