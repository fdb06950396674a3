/* pd-stack-mangle: damage the user stack copies of a --call-graph dwarf
 * perf.data (file format), for t1115.
 *
 *	pd-stack-mangle IN OUT MODE DUMP_SIZE REGS_MASK
 *
 * Every SAMPLE record with a user stack copy of DUMP_SIZE bytes (perf
 * record --call-graph dwarf,DUMP_SIZE) after the user registers of
 * REGS_MASK (sample_regs_user, as perf evlist -v prints it), and at
 * most MAX_TRAILER words after it (perf adds DATA_SRC, WEIGHT...), is
 * changed, the rest is copied as it is:
 *	garbage  the stack bytes become pseudo-random bytes
 *	regs     the registers become pseudo-random values
 *	short    the dynamic size says 16 bytes were copied
 * Prints how many samples it changed. Exit 0, or 1 with a message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_DATA_OFFSET 40 /* perf_file_header.data.offset */
#define RECORD_SAMPLE 9
#define SHORT_DYN_SIZE 16
#define ABI_64 2
#define MAX_TRAILER 4 /* sample words after the stack copy's dynamic size */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, sizeof v);
}

static int mangle(unsigned char *rec, size_t size, const char *mode, uint64_t dump, uint64_t nregs)
{
	size_t need = 8 + 8 * nregs + 8 + dump + 8; /* abi, regs, size, data, dyn */
	for (size_t trail = 0; trail <= MAX_TRAILER; trail++) {
		if (size < 8 + need + 8 * trail)
			return 0;
		unsigned char *dyn = rec + size - 8 * trail - 8, *data = dyn - dump;
		unsigned char *regs = data - 8 - 8 * nregs;
		if (get64(data - 8) != dump || get64(regs - 8) != ABI_64 || get64(dyn) > dump)
			continue;
		if (strcmp(mode, "garbage") == 0)
			for (uint64_t i = 0; i + 8 <= dump; i += 8)
				put64(data + i, next_random());
		else if (strcmp(mode, "regs") == 0)
			for (uint64_t i = 0; i < nregs; i++)
				put64(regs + 8 * i, next_random());
		else
			put64(dyn, SHORT_DYN_SIZE);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr,
			"usage: pd-stack-mangle IN OUT garbage|regs|short DUMP_SIZE REGS_MASK\n");
		return 1;
	}
	FILE *in = fopen(argv[1], "rb");
	if (!in || fseek(in, 0, SEEK_END) != 0) {
		perror(argv[1]);
		return 1;
	}
	long n = ftell(in);
	unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
	rewind(in);
	if (n < HEADER_DATA_OFFSET + 16 || !buf || fread(buf, 1, (size_t)n, in) != (size_t)n ||
	    memcmp(buf, "PERFILE2", 8) != 0) {
		fprintf(stderr, "pd-stack-mangle: %s: not a perf.data file\n", argv[1]);
		return 1;
	}
	fclose(in);
	uint64_t off = get64(buf + HEADER_DATA_OFFSET), len = get64(buf + HEADER_DATA_OFFSET + 8);
	uint64_t dump = strtoull(argv[4], NULL, 10),
		 nregs = (uint64_t)__builtin_popcountll(strtoull(argv[5], NULL, 0));
	unsigned changed = 0;
	if (off > (uint64_t)n || len > (uint64_t)n - off) {
		fprintf(stderr, "pd-stack-mangle: bad data section\n");
		return 1;
	}
	for (uint64_t p = off; p + 8 <= off + len;) {
		uint32_t type;
		uint16_t size;
		memcpy(&type, buf + p, 4);
		memcpy(&size, buf + p + 6, 2);
		if (size < 8 || p + size > off + len)
			break;
		if (type == RECORD_SAMPLE)
			changed += (unsigned)mangle(buf + p, size, argv[3], dump, nregs);
		p += size;
	}
	FILE *out = fopen(argv[2], "wb");
	if (!out || fwrite(buf, 1, (size_t)n, out) != (size_t)n || fclose(out) != 0) {
		perror(argv[2]);
		return 1;
	}
	printf("%u\n", changed);
	free(buf);
	return 0;
}
