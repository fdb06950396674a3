/* fuzz-read.c: libFuzzer target for fp-read: the perf script parser
 * (perf/script/fp_perfparse.c) behind the same line pump, gzip inflater and
 * warning code the program uses (stages/fp-read.c is compiled in, with its
 * main() renamed; run_reader() calls its read_input(), all of main() but
 * the option parsing).
 *
 * fuzz-libs: -lev -lz -lm -lpcre2-8 -ldeflate -lxxhash
 * fuzz-max-len: 16384
 * fuzz-cflags: -DFP_LINE_MAX=4096
 *
 * FP_LINE_MAX is 1 MiB in the programs; here 4 KiB, so that inputs of a few
 * KiB reach the paths for over-long lines and over-big records (skipped
 * line, dropped sample, discarded frames) with the same code.
 *
 * The first input byte picks how the rest is fed:
 *	bit 0  0: as it is (gzip magic -> the inflater sees raw fuzz bytes)
 *	       1: also gzip-compressed (bit 2: as two members, split at the
 *	          second byte's position) and the two outputs compared
 *	bit 1  0: from a regular file (memfd), 1: from a pipe (like a FIFO
 *	          or stdin: the non-blocking, pollable path)
 * Checks, beyond "no crash, no leak, no undefined behaviour":
 *  - the output is a valid stream: the header first, then S, W and I
 *    records only (and one C events record before the first S), each one line, S records parseable by fp_sample_parse
 *    with one kind per frame, no empty frame and no control byte, and the
 *    I record last, its samples= equal to the number of S records;
 *  - plain and gzip input give byte-identical output, and so do a file
 *    and a pipe.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <zlib.h>

#define main fp_read_main
#include "../../stages/fp-read.c"
#undef main

#define MODE_GZIP 1
#define MODE_PIPE 2
#define MODE_TWO_MEMBERS 4
#define GZIP_WINDOW (15 + 16) /* zlib.h: +16 writes a gzip wrapper */
#define GZIP_MEMLEVEL 8

struct output {
	char *p;
	size_t n;
	int rc;
};

/* fp-read's read_input() (what main() does after option parsing), from
 * in_fd to a memfd; returns the output. */
static struct output run_reader(int in_fd)
{
	static struct reader r;
	const struct options o = { .stage = DEFAULT_STAGE_NAME };
	struct output out = { 0 };
	int out_fd = memfd_create("fuzz-read-out", MFD_CLOEXEC);

	assert(out_fd >= 0);
	/* A TAB in the name: every W record must escape it. */
	out.rc = read_input(&r, &o, in_fd, out_fd, "fuzz\tinput");

	off_t len = lseek(out_fd, 0, SEEK_END);
	assert(len > 0);
	out.n = (size_t)len;
	out.p = malloc(out.n);
	assert(pread(out_fd, out.p, out.n, 0) == (ssize_t)out.n);
	close(out_fd);
	return out;
}

static int feed(const void *data, size_t n, int mode)
{
	if (mode & MODE_PIPE) {
		int pfd[2];

		assert(pipe(pfd) == 0);
		/* max_len keeps every input within the pipe buffer (64 KiB). */
		assert(write(pfd[1], data, n) == (ssize_t)n);
		close(pfd[1]);
		return pfd[0];
	}
	int fd = memfd_create("fuzz-read-in", MFD_CLOEXEC);

	assert(fd >= 0 && write(fd, data, n) == (ssize_t)n);
	assert(lseek(fd, 0, SEEK_SET) == 0);
	return fd;
}

static struct output read_bytes(const void *data, size_t n, int mode)
{
	int fd = feed(data, n, mode);
	struct output o = run_reader(fd);

	close(fd);
	return o;
}

/* Appends one gzip member holding data[0..n) to *out. */
static void gzip_member(const uint8_t *data, size_t n, uint8_t **out, size_t *len)
{
	z_stream zs = { 0 };

	assert(deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW, GZIP_MEMLEVEL,
			    Z_DEFAULT_STRATEGY) == Z_OK);
	size_t cap = deflateBound(&zs, n);

	*out = realloc(*out, *len + cap);
	zs.next_in = (Bytef *)data;
	zs.avail_in = (uInt)n;
	zs.next_out = *out + *len;
	zs.avail_out = (uInt)cap;
	assert(deflate(&zs, Z_FINISH) == Z_STREAM_END);
	*len += cap - zs.avail_out;
	deflateEnd(&zs);
}

static int is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* The output is a valid flamepipe stream (see the comment at the top). */
static void check_stream(const struct output *o)
{
	const char *p = o->p, *end = o->p + o->n;
	const char header[] = FP_PROTO_HEADER "\n";
	uint64_t samples = 0, stat_samples = UINT64_MAX;
	int seen_events = 0;

	assert(o->n >= sizeof header - 1 && memcmp(p, header, sizeof header - 1) == 0);
	p += sizeof header - 1;
	assert(end[-1] == '\n');
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)(nl - p);

		assert(nl && n >= 2 && p[1] == '\t');
		assert(stat_samples == UINT64_MAX); /* nothing after I */
		switch (p[0]) {
		case FP_TAG_SAMPLE: {
			struct fp_sample s;

			assert(fp_sample_parse(p, n, &s) == 0);
			assert(s.kinds.n == fp_stack_depth(s.stack));
			for (size_t i = 0; i < n; i++)
				assert(p[i] == '\t' || !is_ctl((unsigned char)p[i]));
			if (s.stack.n) {
				assert(s.stack.p[0] != ';' && s.stack.p[s.stack.n - 1] != ';');
				assert(!memmem(s.stack.p, s.stack.n, ";;", 2));
			}
			for (size_t i = 0; i < s.kinds.n; i++)
				assert(strchr("kujix", s.kinds.p[i]));
			assert(s.comm.n > 0 && s.event.n > 0);
			samples++;
			break;
		}
		case 'W': {
			size_t tabs = 0;

			for (size_t i = 0; i < n; i++) {
				tabs += p[i] == '\t';
				assert(p[i] == '\t' || !is_ctl((unsigned char)p[i]));
			}
			assert(tabs == 3);
			break;
		}
		case 'C': {
			/* C events NAME...: before the first sample, at most once,
			 * one name or more, no control byte (fifo/PROTOCOL.md) */
			static const char ev[] = "C\tevents\t";

			assert(n > sizeof ev - 1 && memcmp(p, ev, sizeof ev - 1) == 0);
			assert(samples == 0 && !seen_events);
			seen_events = 1;
			for (size_t i = 0; i < n; i++)
				assert(p[i] == '\t' || !is_ctl((unsigned char)p[i]));
			assert(!memmem(p, n, "\t\t", 2) && p[n - 1] != '\t');
			break;
		}
		case 'I': {
			const char *k = memmem(p, n, "\tsamples=", 9);

			assert(k);
			stat_samples = strtoull(k + 9, NULL, 10);
			break;
		}
		default:
			assert(!"unexpected record tag");
		}
		p = nl + 1;
	}
	assert(stat_samples == samples);
}

/* Two outputs are the same bytes (bytes= counts perf text after gzip, so
 * it does not depend on the input form either). */
static void assert_same(const struct output *a, const struct output *b)
{
	assert(a->rc == b->rc);
	assert(a->n == b->n && memcmp(a->p, b->p, a->n) == 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fp_set_prog("fp-read");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int mode = data[0];
	const uint8_t *text = data + 1;
	size_t n = size - 1;
	struct output plain = read_bytes(text, n, mode & MODE_PIPE);

	check_stream(&plain);
	/* Raw bytes that start with the gzip magic were inflated: no plain
	 * twin to compare with. */
	int is_gzip = n >= 2 && text[0] == 0x1f && text[1] == 0x8b;

	if ((mode & MODE_GZIP) && !is_gzip) {
		uint8_t *gz = NULL;
		size_t gzlen = 0, split = n;

		if ((mode & MODE_TWO_MEMBERS) && n >= 2)
			split = text[0] % n;
		gzip_member(text, split, &gz, &gzlen);
		if (split < n)
			gzip_member(text + split, n - split, &gz, &gzlen);
		struct output z = read_bytes(gz, gzlen, mode & MODE_PIPE);
		/* The other input path must not matter either. */
		struct output other = read_bytes(text, n, (mode & MODE_PIPE) ^ MODE_PIPE);

		assert_same(&plain, &z);
		assert_same(&plain, &other);
		free(z.p);
		free(other.p);
		free(gz);
	}
	free(plain.p);
	return 0;
}
