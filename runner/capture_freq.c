/* capture_freq.c: perf's sampling frequency of a capture (capture_freq.h). */
#include "capture_freq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#define HEADER_LINES_MAX 200 /* perf's header is some 30 lines */
#define LINE_BYTES 4096
#define PERFILE2 "PERFILE2"
#define ATTRS_MAX 256
/* perf_event_attr (linux/perf_event.h): the offsets read here */
#define ATTR_TYPE 0
#define ATTR_CONFIG 8
#define ATTR_PERIOD_FREQ 16
#define ATTR_FLAGS 40
#define ATTR_FLAG_FREQ (1ull << 10) /* disabled, inherit, ..., comm, freq */
#define ATTR_MIN 48
#define TYPE_SOFTWARE 1
#define SW_DUMMY 9

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* perf.data (file mode): header = magic, size, attr_size, attrs {offset,
 * size}, ...; each attr entry is attr_size bytes. */
static uint64_t perfdata_freq(FILE *f)
{
	unsigned char h[40], a[ATTR_MIN];
	uint64_t attr_size, off, size;

	if (fseek(f, 0, SEEK_SET) || fread(h, 1, sizeof h, f) != sizeof h)
		return 0;
	attr_size = le64(h + 16);
	off = le64(h + 24);
	size = le64(h + 32);
	if (attr_size < ATTR_MIN || size / attr_size > ATTRS_MAX)
		return 0;
	for (uint64_t i = 0; i < size / attr_size; i++) {
		if (fseek(f, (long)(off + i * attr_size), SEEK_SET) ||
		    fread(a, 1, sizeof a, f) != sizeof a)
			return 0;
		if (le64(a + ATTR_TYPE) % (1ull << 32) == TYPE_SOFTWARE &&
		    le64(a + ATTR_CONFIG) == SW_DUMMY)
			continue;
		return le64(a + ATTR_FLAGS) & ATTR_FLAG_FREQ ? le64(a + ATTR_PERIOD_FREQ) : 0;
	}
	return 0;
}

/* One `# event : ...` header line: its frequency, 0 if it has none, -1 for
 * perf's dummy event (not a sampled event). */
static long long event_line_freq(const char *l)
{
	const char *v = strstr(l, "sample_freq } = ");

	if (strstr(l, "name = dummy"))
		return -1;
	if (!v || !strstr(l, " freq = 1"))
		return 0;
	return strtoll(v + strlen("sample_freq } = "), NULL, 10);
}

static uint64_t script_freq(const char *path)
{
	gzFile g = gzopen(path, "rb");
	char line[LINE_BYTES];
	uint64_t hz = 0;

	if (!g)
		return 0;
	for (int i = 0; i < HEADER_LINES_MAX && gzgets(g, line, sizeof line); i++) {
		long long f;

		if (line[0] != '#')
			break; /* the header is over */
		if (strncmp(line, "# event : ", 10) || (f = event_line_freq(line)) < 0)
			continue;
		hz = f > 0 ? (uint64_t)f : 0;
		break;
	}
	gzclose(g);
	return hz;
}

uint64_t fp_capture_freq(const char *path)
{
	char magic[8];
	FILE *f = fopen(path, "rb");
	uint64_t hz = 0;

	if (!f)
		return 0;
	if (fread(magic, 1, sizeof magic, f) == sizeof magic && !memcmp(magic, PERFILE2, 8))
		hz = perfdata_freq(f);
	fclose(f);
	return hz ? hz : script_freq(path);
}
