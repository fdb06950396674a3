/* fp_sniff.c: capture kind from the first bytes (see fp_sniff.h). */
#include "fp_recording.h"
#include "fp_sniff.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#define SNIFF_BYTES 4096
#define GZIP_WINDOW_BITS (15 + 16) /* zlib: gzip wrapper only */
#define GZIP_MAGIC0 0x1f
#define GZIP_MAGIC1 0x8b
#define PERFDATA_MAGIC "PERFILE2" /* perf.data, file and pipe format */

static size_t gunzip_head(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
	z_stream z;
	size_t got;

	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, GZIP_WINDOW_BITS) != Z_OK)
		return 0;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	inflate(&z, Z_SYNC_FLUSH); /* as much as the head gives: errors just end it */
	got = cap - z.avail_out;
	inflateEnd(&z);
	return got;
}

static const unsigned char *skip_blanks(const unsigned char *p, const unsigned char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static enum fp_capture_kind classify(const unsigned char *p, size_t n)
{
	static const unsigned char bom[] = { 0xef, 0xbb, 0xbf };
	const unsigned char *end = p + n;

	if (n >= sizeof bom && !memcmp(p, bom, sizeof bom))
		p += sizeof bom;
	p = skip_blanks(p, end);
	if (p < end && *p == '{') {
		p = skip_blanks(p + 1, end);
		return p < end && (*p == '"' || *p == '}') ? FP_CAPTURE_CHROME : FP_CAPTURE_PERF;
	}
	if (p < end && *p == '[') {
		p = skip_blanks(p + 1, end);
		return p < end && (*p == '{' || *p == ']') ? FP_CAPTURE_CHROME : FP_CAPTURE_PERF;
	}
	return FP_CAPTURE_PERF;
}

enum fp_capture_kind fp_sniff_fd(int fd)
{
	unsigned char head[SNIFF_BYTES], plain[SNIFF_BYTES];
	ssize_t n = pread(fd, head, sizeof head, 0);

	if (n <= 0)
		return FP_CAPTURE_PERF;
	if ((size_t)n >= sizeof PERFDATA_MAGIC - 1 &&
	    memcmp(head, PERFDATA_MAGIC, sizeof PERFDATA_MAGIC - 1) == 0)
		return FP_CAPTURE_PERFDATA;
	if (n >= 2 && head[0] == GZIP_MAGIC0 && head[1] == GZIP_MAGIC1)
		return classify(plain, gunzip_head(head, (size_t)n, plain, sizeof plain));
	return classify(head, (size_t)n);
}

enum fp_capture_kind fp_sniff_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	enum fp_capture_kind k;

	if (fd < 0)
		return FP_CAPTURE_PERF;
	k = fp_sniff_fd(fd);
	close(fd);
	return k;
}

const char *fp_sniff_reader(enum fp_capture_kind k)
{
	switch (k) {
	case FP_CAPTURE_PERF:
		return FP_PERF_READER;
	case FP_CAPTURE_CHROME:
		return FP_CHROME_READER;
	case FP_CAPTURE_PERFDATA:
		return FP_PERFDATA_READER;
	default:
		return NULL;
	}
}

/* Does the head hold the JSON object key "key" (the quoted name, blanks,
 * then ':')?  A string value with the same text is not followed by ':'. */
static int has_json_key(const unsigned char *p, size_t n, const char *key)
{
	size_t kn = strlen(key);
	const unsigned char *end = p + n;

	for (const unsigned char *q = p; q + kn + 2 <= end; q++) {
		if (*q != '"' || memcmp(q + 1, key, kn) || q[kn + 1] != '"')
			continue;
		const unsigned char *c = skip_blanks(q + kn + 2, end);

		if (c < end && *c == ':')
			return 1;
	}
	return 0;
}

/* A Chrome profile by its structure, not just any JSON (a report's
 * heatmap.json is JSON too): a .cpuprofile has "nodes" with "callFrame"s
 * and "samples"/"timeDeltas"; a trace is {"traceEvents": ...} or an array
 * of trace events, each with "ph" and "ts". Only the head is looked at, so
 * a .cpuprofile whose "samples" lie past it is known by its call frames. */
static int is_chrome_profile(const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n, *q;

	if (classify(p, n) != FP_CAPTURE_CHROME)
		return 0;
	if (n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		p += 3;
	q = skip_blanks(p, end);
	if (q < end && *q == '[')
		return has_json_key(q, (size_t)(end - q), "ph") &&
		       has_json_key(q, (size_t)(end - q), "ts");
	if (has_json_key(p, n, "traceEvents"))
		return 1;
	return has_json_key(p, n, "nodes") &&
	       (has_json_key(p, n, "callFrame") || has_json_key(p, n, "samples") ||
		has_json_key(p, n, "timeDeltas"));
}

/* "123.456789:" */
static int is_timestamp_word(const unsigned char *w, size_t n)
{
	size_t i = 0, d0;

	while (i < n && w[i] >= '0' && w[i] <= '9')
		i++;
	if (i == 0 || i >= n || w[i] != '.')
		return 0;
	d0 = ++i;
	while (i < n && w[i] >= '0' && w[i] <= '9')
		i++;
	return i > d0 && i == n - 1 && w[i] == ':';
}

static int is_perf_script_text(const unsigned char *p, size_t n)
{
	static const char header[] = "# ========";
	const unsigned char *end = p + n;

	if (n >= sizeof header - 1 && !memcmp(p, header, sizeof header - 1))
		return 1;
	while (p < end) {
		const unsigned char *eol = memchr(p, '\n', (size_t)(end - p));

		if (!eol)
			return 0; /* no whole line in the head */
		if (*p != '#' && skip_blanks(p, eol) < eol) {
			for (const unsigned char *w = p; w < eol;) {
				const unsigned char *we = w;

				while (we < eol && *we != ' ' && *we != '\t')
					we++;
				if (is_timestamp_word(w, (size_t)(we - w)))
					return 1;
				w = we + 1;
			}
			return 0;
		}
		p = eol + 1;
	}
	return 0;
}

struct fp_sniffed fp_sniff_profile(int fd)
{
	unsigned char head[SNIFF_BYTES], plain[SNIFF_BYTES];
	struct fp_sniffed r = { FP_CAPTURE_NONE, 0, NULL };
	ssize_t n = pread(fd, head, sizeof head, 0);
	const unsigned char *text = head;
	size_t tn;

	if (n <= 0)
		return r;
	tn = (size_t)n;
	if ((size_t)n >= sizeof PERFDATA_MAGIC - 1 &&
	    !memcmp(head, PERFDATA_MAGIC, sizeof PERFDATA_MAGIC - 1)) {
		r.kind = FP_CAPTURE_PERFDATA;
		r.format = "perf.data";
		return r;
	}
	if (fp_rec_is_recording(fd)) {    /* fp-record's (docs/fp-record.md) */
		r.kind = FP_CAPTURE_PERF; /* fp-read reads it */
		r.gzip = 1;
		r.format = "flamepipe recording";
		return r;
	}
	if (n >= 2 && head[0] == GZIP_MAGIC0 && head[1] == GZIP_MAGIC1) {
		r.gzip = 1;
		tn = gunzip_head(head, (size_t)n, plain, sizeof plain);
		text = plain;
	}
	if (is_chrome_profile(text, tn)) {
		r.kind = FP_CAPTURE_CHROME;
		r.format = r.gzip ? "chrome, gzip" : "chrome";
	} else if (is_perf_script_text(text, tn)) {
		r.kind = FP_CAPTURE_PERF;
		r.format = r.gzip ? "perf script, gzip" : "perf script";
	}
	return r;
}
