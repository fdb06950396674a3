/* pd-topipe: a perf.data file in perf's pipe format, its records kept as
 * they are (perf inject, which also writes the pipe format, decompresses
 * perf record -z's COMPRESSED records; perf 6.1's record -z -o - does not
 * compress at all). For the tests of compressed pipe streams (t1155).
 *
 *	pd-topipe FILE > PIPE-FORMAT
 *
 * Writes the pipe header, a HEADER_ATTR record per attribute (with its
 * ids), a HEADER_FEATURE record per feature section but the build-ids and
 * tracing data (which perf writes otherwise in pipe mode), then the data
 * section as it is. Exit codes: 0 ok, 1 not a perf.data file it can
 * convert, 100 usage, 111 cannot read or write.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC 0x32454c4946524550ull
#define HEADER_ATTR 64
#define HEADER_FEATURE 80
#define FEAT_TRACING_DATA 1
#define FEAT_BUILD_ID 2
#define REC_MAX 65535u

static unsigned char *data;
static size_t size;

static uint64_t u64(size_t off)
{
	uint64_t v;
	if (off + 8 > size) {
		fprintf(stderr, "pd-topipe: header field at %zu past the end\n", off);
		exit(1);
	}
	memcpy(&v, data + off, 8);
	return v;
}

static void out(const void *p, size_t n)
{
	if (fwrite(p, 1, n, stdout) != n) {
		perror("pd-topipe: write");
		exit(111);
	}
}

static void header(uint32_t type, size_t len)
{
	struct {
		uint32_t type;
		uint16_t misc, size;
	} h = { type, 0, (uint16_t)len };
	if (len > REC_MAX) {
		fprintf(stderr, "pd-topipe: a record of %zu bytes does not fit\n", len);
		exit(1);
	}
	out(&h, sizeof h);
}

static void in_file(uint64_t off, uint64_t len)
{
	if (off > size || len > size - off) {
		fprintf(stderr, "pd-topipe: section past the end of the file\n");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: pd-topipe FILE\n");
		return 100;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 111;
	}
	size_t cap = 1 << 20;
	data = malloc(cap);
	for (size_t n; data && (n = fread(data + size, 1, cap - size, f)) > 0;)
		if ((size += n) == cap)
			data = realloc(data, cap *= 2);
	fclose(f);
	if (!data || size < 104 || u64(0) != MAGIC || u64(8) != 104) {
		fprintf(stderr, "pd-topipe: %s: not a perf.data file\n", argv[1]);
		return 1;
	}
	uint64_t attr_size = u64(16), aoff = u64(24), alen = u64(32);
	uint64_t doff = u64(40), dlen = u64(48), pipe[2] = { MAGIC, 16 };
	in_file(aoff, alen);
	in_file(doff, dlen);
	out(pipe, sizeof pipe);
	for (uint64_t a = 0; attr_size > 16 && a < alen / attr_size; a++) {
		size_t e = aoff + a * attr_size, asz = attr_size - 16;
		uint64_t ioff = u64(e + asz), ilen = u64(e + asz + 8);
		in_file(ioff, ilen);
		header(HEADER_ATTR, 8 + asz + ilen);
		out(data + e, asz);
		out(data + ioff, ilen);
	}
	uint64_t bits[4], sec = doff + dlen, zero = 0;
	memcpy(bits, data + 72, sizeof bits);
	for (unsigned feat = 0, k = 0; feat < 256; feat++) {
		if (!(bits[feat / 64] >> (feat % 64) & 1))
			continue;
		uint64_t off = u64(sec + 16 * k), len = u64(sec + 16 * k + 8);
		k++;
		in_file(off, len);
		if (feat == FEAT_TRACING_DATA || feat == FEAT_BUILD_ID)
			continue;
		uint64_t id = feat;
		size_t pad = (8 - len % 8) % 8;
		header(HEADER_FEATURE, 16 + len + pad);
		out(&id, 8);
		out(data + off, len);
		out(&zero, pad);
	}
	out(data + doff, dlen);
	if (fflush(stdout) != 0) {
		perror("pd-topipe: write");
		return 111;
	}
	return 0;
}
