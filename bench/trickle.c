/* trickle.c: measure the live delay of a heatmap chain.
 *
 * Usage: trickle RATE COUNT 'SHELL COMMAND'
 *        e.g. trickle 1000 5000 'fp-read | fp-bucket'
 *
 * Starts the command with a pipe on its stdin and its stdout, and writes
 * COUNT `perf script` samples (a 40-frame stack, comm "trickle-load") at
 * RATE samples per second of real time, each in one write(). Sample i has
 * perf time T0 + i/RATE s, so it lands in a known heatmap cell: once the G
 * record gives rows and base_sec, cell = (second - base, (ns mod 1e9) * rows
 * / 1e9). When an `H col row count` record arrives, the samples of that cell
 * up to the count-th are delivered; the delay of a sample is the time
 * between its write() and the read() of that H record.
 *
 * Output (one line on stdout):
 *   samples=N delivered=N late=N median_ms=X p99_ms=X max_ms=X exit=N cpu_s=X
 * cpu_s is the CPU time (user + system) the command used, all its
 * processes together: the chain's cost at this live rate.
 * late = samples whose H record came only after the input was closed; they
 * and the first WARMUP samples (process start-up) are not in the figures.
 *
 * Benchmark helper, compiled on the fly by bench/run.sh; not part of the
 * product.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_SEC UINT64_C(1000000000)
#define NS_PER_MS 1e6
#define T0_NS (UINT64_C(5000) * NS_PER_SEC + UINT64_C(123000))
#define STACK_DEPTH 40
#define WARMUP 20
#define DRAIN_TIMEOUT_NS (3 * NS_PER_SEC)
#define READ_BUF (1u << 20)
#define SAMPLE_MAX 8192

struct sample {
	uint64_t perf_ns;   /* the sample's perf timestamp */
	uint64_t written;   /* monotonic ns of its write(), 0 = not yet */
	uint64_t delivered; /* monotonic ns of its H record, 0 = not yet */
	int late;
};

static struct sample *samples;
static uint64_t sample_count, step_ns;
static uint64_t rows, base_sec;
static int have_geometry, input_closed;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static size_t format_sample(char *buf, uint64_t i)
{
	uint64_t t = samples[i].perf_ns;
	int n = snprintf(buf, SAMPLE_MAX,
			 "trickle-load  4242/4243  [001] %" PRIu64 ".%06" PRIu64
			 ":    1001001 cpu-clock:ppp: \n",
			 t / NS_PER_SEC, (t % NS_PER_SEC) / 1000);
	for (int d = 0; d < STACK_DEPTH; d++)
		n += snprintf(buf + n, SAMPLE_MAX - (size_t)n,
			      "\t    %6x level_%02d_handler+0x%x (/opt/trickle/bin/trickle-load)\n",
			      0x1000 + d * 0x40, (d + (int)i) % STACK_DEPTH, 0x13 + d);
	buf[n++] = '\n';
	return (size_t)n;
}

/* The first sample index whose time is in cell (col, row). */
static uint64_t first_sample_in_cell(uint64_t col, uint64_t row)
{
	uint64_t start = (base_sec + col) * NS_PER_SEC + (row * NS_PER_SEC + rows - 1) / rows;
	if (start <= T0_NS)
		return 0;
	return (start - T0_NS + step_ns - 1) / step_ns;
}

static void on_cell(uint64_t col, uint64_t row, uint64_t count, uint64_t t)
{
	if (!have_geometry || count == 0)
		return;
	uint64_t first = first_sample_in_cell(col, row);
	uint64_t last = first + count; /* exclusive */
	for (uint64_t i = first; i < last && i < sample_count; i++) {
		if (samples[i].delivered == 0 && samples[i].written != 0) {
			samples[i].delivered = t;
			samples[i].late = input_closed;
		}
	}
}

static void on_line(char *line, uint64_t t)
{
	if (line[0] == 'G' && line[1] == '\t') {
		char *p = line + 2;
		rows = strtoull(p, &p, 10);
		base_sec = strtoull(p + 1, NULL, 10);
		have_geometry = rows > 0;
	} else if (line[0] == 'H' && line[1] == '\t') {
		char *p = line + 2;
		uint64_t col = strtoull(p, &p, 10);
		uint64_t row = strtoull(p + 1, &p, 10);
		uint64_t count = strtoull(p + 1, NULL, 10);
		on_cell(col, row, count, t);
	}
}

/* Reads what the chain has written; returns 0 at EOF. */
static int read_output(int fd)
{
	static char buf[READ_BUF];
	static size_t have;
	ssize_t n = read(fd, buf + have, sizeof buf - have);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return 0;
	uint64_t t = now_ns();
	have += (size_t)n;
	char *line = buf, *end = buf + have, *nl;
	while ((nl = memchr(line, '\n', (size_t)(end - line))) != NULL) {
		*nl = '\0';
		on_line(line, t);
		line = nl + 1;
	}
	have = (size_t)(end - line);
	memmove(buf, line, have);
	if (have == sizeof buf)
		have = 0; /* an absurdly long line: drop it */
	return 1;
}

static pid_t start_chain(const char *cmd, int *to_chain, int *from_chain)
{
	int in[2], out[2];
	if (pipe(in) < 0 || pipe(out) < 0) {
		perror("trickle: pipe");
		exit(111);
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("trickle: fork");
		exit(111);
	}
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	*to_chain = in[1];
	*from_chain = out[0];
	return pid;
}

static void write_fully(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			perror("trickle: write to the chain");
			exit(1);
		}
		p += w;
		n -= (size_t)w;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void wait_for_output(int fd, uint64_t until)
{
	uint64_t t = now_ns();
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts = { 0, 0 };
	if (until > t) {
		ts.tv_sec = (time_t)((until - t) / NS_PER_SEC);
		ts.tv_nsec = (long)((until - t) % NS_PER_SEC);
	}
	if (ppoll(&pfd, 1, &ts, NULL) > 0 && !read_output(fd))
		input_closed = 2; /* EOF seen */
}

int main(int argc, char **argv)
{
	if (argc != 4 || atof(argv[1]) <= 0 || atoll(argv[2]) <= WARMUP) {
		fprintf(stderr, "usage: trickle RATE COUNT 'SHELL COMMAND' (COUNT > %d)\n", WARMUP);
		return 100;
	}
	double rate = atof(argv[1]);
	sample_count = (uint64_t)atoll(argv[2]);
	step_ns = (uint64_t)(NS_PER_SEC / rate);
	step_ns -= step_ns % 1000; /* perf prints microseconds */
	if (step_ns == 0)
		step_ns = 1000;
	samples = calloc(sample_count, sizeof *samples);
	uint64_t *delays = calloc(sample_count, sizeof *delays);
	if (!samples || !delays) {
		perror("trickle: calloc");
		return 111;
	}
	for (uint64_t i = 0; i < sample_count; i++)
		samples[i].perf_ns = T0_NS + i * step_ns;
	signal(SIGPIPE, SIG_IGN);

	int to_chain, from_chain;
	pid_t child = start_chain(argv[3], &to_chain, &from_chain);
	static char text[SAMPLE_MAX];
	uint64_t start = now_ns();
	for (uint64_t i = 0; i < sample_count; i++) {
		uint64_t due = start + i * step_ns;
		while (now_ns() < due && input_closed < 2)
			wait_for_output(from_chain, due);
		size_t n = format_sample(text, i);
		samples[i].written = now_ns();
		write_fully(to_chain, text, n);
	}
	/* Give the chain time to deliver the last samples while live. */
	uint64_t drain_until = now_ns() + DRAIN_TIMEOUT_NS;
	while (input_closed < 2 && now_ns() < drain_until &&
	       samples[sample_count - 1].delivered == 0)
		wait_for_output(from_chain, drain_until);
	input_closed = 1;
	close(to_chain);
	while (input_closed < 2)
		wait_for_output(from_chain, now_ns() + DRAIN_TIMEOUT_NS);
	int status;
	struct rusage ru;
	waitpid(child, &status, 0);
	getrusage(RUSAGE_CHILDREN, &ru);
	double cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
		       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;

	uint64_t delivered = 0, late = 0, measured = 0;
	for (uint64_t i = 0; i < sample_count; i++) {
		if (samples[i].delivered)
			delivered++;
		if (samples[i].late)
			late++;
		if (i >= WARMUP && samples[i].delivered && !samples[i].late)
			delays[measured++] = samples[i].delivered - samples[i].written;
	}
	qsort(delays, measured, sizeof *delays, cmp_u64);
	double median = measured ? delays[measured / 2] / NS_PER_MS : -1;
	double p99 = measured ? delays[(measured * 99 + 99) / 100 - 1] / NS_PER_MS : -1;
	double max = measured ? delays[measured - 1] / NS_PER_MS : -1;
	printf("samples=%" PRIu64 " delivered=%" PRIu64 " late=%" PRIu64
	       " median_ms=%.2f p99_ms=%.2f max_ms=%.2f exit=%d cpu_s=%.3f\n",
	       sample_count, delivered, late, median, p99, max,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), cpu_s);
	return 0;
}
