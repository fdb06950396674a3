/* fp_sniff.c: capture kind from the first bytes (see fp_sniff.h). */
#include "fp_recording.h"
#include "fp_sniff.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#define SNIFF_BYTES 4096
#define GZIP_WINDOW_BITS (15 + 16)	/* zlib: gzip wrapper only */
#define GZIP_MAGIC0 0x1f
#define GZIP_MAGIC1 0x8b
#define PERFDATA_MAGIC "PERFILE2"	/* perf.data, file and pipe format */

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
	inflate(&z, Z_SYNC_FLUSH);	/* as much as the head gives: errors just end it */
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
			return 0;	/* no whole line in the head */
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
	if (fp_rec_is_recording(fd)) {	/* fp-record's (docs/recording.md) */
		r.kind = FP_CAPTURE_PERF;	/* fp-read reads it */
		r.gzip = 1;
		r.format = "flamepipe recording";
		return r;
	}
	if (n >= 2 && head[0] == GZIP_MAGIC0 && head[1] == GZIP_MAGIC1) {
		r.gzip = 1;
		tn = gunzip_head(head, (size_t)n, plain, sizeof plain);
		text = plain;
	}
	if (classify(text, tn) == FP_CAPTURE_CHROME) {
		r.kind = FP_CAPTURE_CHROME;
		r.format = r.gzip ? "chrome, gzip" : "chrome";
	} else if (is_perf_script_text(text, tn)) {
		r.kind = FP_CAPTURE_PERF;
		r.format = r.gzip ? "perf script, gzip" : "perf script";
	}
	return r;
}
