/* timeshift.c: repeat a `perf script` capture with shifted timestamps.
 *
 * Usage: timeshift COPIES < capture.txt > corpus.txt
 *
 * Writes COPIES copies of the capture. Copy k has every event-line
 * timestamp moved forward by k * STEP whole seconds, where STEP is the
 * capture's time span rounded up plus one second, so time keeps increasing
 * across copies and each copy keeps its subsecond offsets (the heatmap
 * pattern repeats). Frame lines (TAB first), blank and `#` lines are copied
 * as they are. On stderr: "lines=N samples=N step=S span_ns=N" for one copy.
 *
 * Benchmark helper, compiled on the fly by bench/make-corpus.sh; not part of
 * the product. Input is read whole (one capture is tens of MB).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_CHUNK (4u << 20)
#define OUT_CHUNK (1u << 20)
#define NS_PER_SEC UINT64_C(1000000000)
#define MAX_FRACTION_DIGITS 9

static char out_buf[OUT_CHUNK];
static size_t out_len;

static void write_fully(const char *p, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(1, p + done, len - done);
		if (n < 0) {
			perror("timeshift: write");
			exit(111);
		}
		done += (size_t)n;
	}
}

static void out_flush(void)
{
	write_fully(out_buf, out_len);
	out_len = 0;
}

static void out_write(const char *p, size_t n)
{
	if (out_len + n > sizeof out_buf)
		out_flush();
	if (n > sizeof out_buf) {
		write_fully(p, n);
		return;
	}
	memcpy(out_buf + out_len, p, n);
	out_len += n;
}

static char *read_all(size_t *len)
{
	size_t cap = READ_CHUNK, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			perror("timeshift: malloc");
			exit(111);
		}
		ssize_t r = read(0, buf + n, cap - n);
		if (r < 0) {
			perror("timeshift: read");
			exit(111);
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	*len = n;
	return buf;
}

/* The timestamp of an event line: the first " <digits>.<digits>:" token.
 * Sets *int_begin and *int_end around the integer seconds, returns 1 if found. */
static int find_timestamp(const char *line, const char *end,
			  const char **int_begin, const char **int_end, uint64_t *ns)
{
	const char *colon = line;
	while ((colon = memchr(colon, ':', (size_t)(end - colon))) != NULL) {
		const char *p = colon;
		while (p > line && p[-1] >= '0' && p[-1] <= '9')
			p--;
		const char *frac = p;
		if (frac < colon && p > line && p[-1] == '.') {
			const char *dot = p - 1;
			p = dot;
			while (p > line && p[-1] >= '0' && p[-1] <= '9')
				p--;
			if (p < dot && (p == line || p[-1] == ' ')) {
				uint64_t sec = strtoull(p, NULL, 10), sub = 0;
				int digits = 0;
				for (const char *q = frac; q < colon && digits < MAX_FRACTION_DIGITS; q++, digits++)
					sub = sub * 10 + (uint64_t)(*q - '0');
				for (; digits < MAX_FRACTION_DIGITS; digits++)
					sub *= 10;
				*int_begin = p;
				*int_end = dot;
				*ns = sec * NS_PER_SEC + sub;
				return 1;
			}
		}
		colon++;
	}
	return 0;
}

static int is_event_line(const char *line, const char *end)
{
	return line < end && line[0] != '\t' && line[0] != '#';
}

int main(int argc, char **argv)
{
	if (argc != 2 || atoi(argv[1]) < 1) {
		fprintf(stderr, "usage: timeshift COPIES < capture.txt > corpus.txt\n");
		return 100;
	}
	int copies = atoi(argv[1]);
	size_t len;
	char *text = read_all(&len);
	char *text_end = text + len;

	/* Pass 1: time span and counts of one copy. */
	uint64_t first = UINT64_MAX, last = 0, lines = 0, samples = 0;
	for (char *line = text; line < text_end;) {
		char *nl = memchr(line, '\n', (size_t)(text_end - line));
		char *end = nl ? nl : text_end;
		const char *b, *e;
		uint64_t ns;
		lines++;
		if (is_event_line(line, end) && find_timestamp(line, end, &b, &e, &ns)) {
			samples++;
			if (ns < first)
				first = ns;
			if (ns > last)
				last = ns;
		}
		line = end + 1;
	}
	if (samples == 0) {
		fprintf(stderr, "timeshift: no event lines with a timestamp in the input\n");
		return 1;
	}
	uint64_t span = last - first;
	uint64_t step = span / NS_PER_SEC + 2;	/* rounded up, plus one second */
	fprintf(stderr, "lines=%" PRIu64 " samples=%" PRIu64 " step=%" PRIu64 " span_ns=%" PRIu64 "\n",
		lines, samples, step, span);

	/* Pass 2..: the copies. */
	for (int k = 0; k < copies; k++) {
		uint64_t offset = step * (uint64_t)k;
		char *copied = text;	/* start of bytes not yet written */
		for (char *line = text; line < text_end;) {
			char *nl = memchr(line, '\n', (size_t)(text_end - line));
			char *end = nl ? nl : text_end;
			const char *b, *e;
			uint64_t ns;
			if (k > 0 && is_event_line(line, end) && find_timestamp(line, end, &b, &e, &ns)) {
				char num[24];
				int n = snprintf(num, sizeof num, "%" PRIu64, ns / NS_PER_SEC + offset);
				out_write(copied, (size_t)(b - copied));
				out_write(num, (size_t)n);
				copied = (char *)e;
			}
			line = end + 1;
		}
		out_write(copied, (size_t)(text_end - copied));
		if (len > 0 && text_end[-1] != '\n')
			out_write("\n", 1);
	}
	out_flush();
	free(text);
	return 0;
}
