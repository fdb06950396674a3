/* fp_sniff.c: capture kind from the first bytes (see fp_sniff.h). */
#include "fp_sniff.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#define SNIFF_BYTES 4096
#define GZIP_WINDOW_BITS (15 + 16)	/* zlib: gzip wrapper only */
#define GZIP_MAGIC0 0x1f
#define GZIP_MAGIC1 0x8b

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
	return k == FP_CAPTURE_CHROME ? FP_CHROME_READER : FP_PERF_READER;
}
