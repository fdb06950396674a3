/* fp_recording.c: members of a live recording (fp_recording.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "fp_error.h"
#include "fp_recording.h"

#define GZ_ID1 0x1f
#define GZ_ID2 0x8b
#define GZ_CM_DEFLATE 8
#define GZ_FLG_FEXTRA 0x04
#define GZ_OS_UNIX 3
#define SUBFIELD_ID1 'F'
#define SUBFIELD_ID2 'P'
#define XLEN (4 + FP_REC_PAYLOAD)
#define RAW_WINDOW_BITS (-15) /* raw deflate: the gzip framing is the member's */
#define ZERO_SCAN_CHUNK 4096
#define PAYLOAD_AT 16 /* payload offset in the header */

void fp_rec_put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void fp_rec_write_header(unsigned char *h, const struct fp_rec_member *m)
{
	unsigned char *p = h + PAYLOAD_AT;

	memset(h, 0, FP_REC_HEADER_BYTES);
	h[0] = GZ_ID1;
	h[1] = GZ_ID2;
	h[2] = GZ_CM_DEFLATE;
	h[3] = GZ_FLG_FEXTRA;
	h[9] = GZ_OS_UNIX;
	fp_rec_put_le(h + 10, XLEN, 2);
	h[12] = SUBFIELD_ID1;
	h[13] = SUBFIELD_ID2;
	fp_rec_put_le(h + 14, FP_REC_PAYLOAD, 2);
	fp_rec_put_le(p + 0, FP_REC_VERSION, 4);
	fp_rec_put_le(p + 8, m->length, 8);
	fp_rec_put_le(p + 16, m->min_ns, 8);
	fp_rec_put_le(p + 24, m->max_ns, 8);
	fp_rec_put_le(p + 32, m->samples, 8);
	fp_rec_put_le(p + 40, m->seq, 8);
	fp_rec_put_le(p + 48, m->samples_before, 8);
	fp_rec_put_le(p + 56, m->capture_min_ns, 8);
}

/* 1 if h starts like a member header (the gzip magic, FEXTRA and the
 * "FP" subfield): a candidate worth parsing. */
static int looks_like_header(const unsigned char *h)
{
	return h[0] == GZ_ID1 && h[1] == GZ_ID2 && h[2] == GZ_CM_DEFLATE && h[3] == GZ_FLG_FEXTRA &&
	       h[12] == SUBFIELD_ID1 && h[13] == SUBFIELD_ID2;
}

/* 0 and m filled (offset excepted) if h is a member header whose fields
 * make sense: a length that can be a member, min_ns <= max_ns, both
 * within FP_REC_SPAN_MAX after the capture's first sample. */
static int parse_header(const unsigned char *h, struct fp_rec_member *m)
{
	const unsigned char *p = h + PAYLOAD_AT;

	if (!looks_like_header(h) || get_le(h + 10, 2) != XLEN ||
	    get_le(h + 14, 2) != FP_REC_PAYLOAD || get_le(p, 4) != FP_REC_VERSION)
		return -1;
	m->length = get_le(p + 8, 8);
	m->min_ns = get_le(p + 16, 8);
	m->max_ns = get_le(p + 24, 8);
	m->samples = get_le(p + 32, 8);
	m->seq = get_le(p + 40, 8);
	m->samples_before = get_le(p + 48, 8);
	m->capture_min_ns = get_le(p + 56, 8);
	if (m->length < FP_REC_HEADER_BYTES + FP_REC_TRAILER_BYTES ||
	    m->length > FP_REC_MEMBER_MAX || m->min_ns > m->max_ns ||
	    m->capture_min_ns > m->min_ns || !fp_rec_within_span(m->capture_min_ns, m->max_ns))
		return -1;
	return 0;
}

static int pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (int)(got == n);
}

/* Offset of the first non-zero byte at or after the leading hole (the
 * part retention dropped), or the file size. */
static uint64_t skip_hole(int fd, uint64_t size)
{
	off_t here = lseek(fd, 0, SEEK_CUR);
	off_t d = lseek(fd, 0, SEEK_DATA);
	uint64_t off = d < 0 ? (errno == ENXIO ? size : 0) : (uint64_t)d;
	unsigned char buf[ZERO_SCAN_CHUNK];

	if (here >= 0)
		lseek(fd, here, SEEK_SET); /* SEEK_DATA moved it */
	while (off < size) {
		size_t want = size - off < sizeof buf ? (size_t)(size - off) : sizeof buf;
		ssize_t r = pread(fd, buf, want, (off_t)off);

		if (r <= 0)
			return off;
		for (ssize_t i = 0; i < r; i++)
			if (buf[i])
				return off + (uint64_t)i;
		off += (uint64_t)r;
	}
	return size;
}

int fp_rec_is_recording(int fd)
{
	struct stat st;
	unsigned char h[FP_REC_HEADER_BYTES];
	struct fp_rec_member m;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	uint64_t start = skip_hole(fd, (uint64_t)st.st_size);

	/* a first member with a damaged length or time field still makes
	 * the file a recording: the scan passes over it */
	return pread_full(fd, h, sizeof h, start) == 1 &&
	       (parse_header(h, &m) == 0 || looks_like_header(h));
}

/* 1 and m if a member that fits in the file starts at off, with times
 * in the span of the recording ix indexes so far. */
static int member_at(int fd, uint64_t off, const struct fp_rec_index *ix, struct fp_rec_member *m)
{
	unsigned char h[FP_REC_HEADER_BYTES];

	if (off + FP_REC_HEADER_BYTES > ix->file_size)
		return 0;
	if (pread_full(fd, h, sizeof h, off) != 1 || parse_header(h, m) < 0 ||
	    off + m->length > ix->file_size)
		return 0;
	if (ix->n && !fp_rec_within_span(ix->base_ns, m->max_ns))
		return 0;
	m->offset = off;
	m->text_len = 0;
	return 1;
}

#define RESYNC_CHUNK (64u << 10)

/* The offset of the first good member (member_at) in [from, to), or
 * UINT64_MAX: what a scan resumes at after damage. Reads in chunks and
 * looks at each gzip magic byte. */
static uint64_t next_member(int fd, uint64_t from, uint64_t to, const struct fp_rec_index *ix,
			    struct fp_rec_member *m)
{
	unsigned char *buf = fp_xmalloc(RESYNC_CHUNK); /* damage is rare: no static (threads) */
	uint64_t found = UINT64_MAX;

	if (to > ix->file_size)
		to = ix->file_size;
	while (from + FP_REC_HEADER_BYTES <= to) {
		size_t want = to - from < RESYNC_CHUNK ? (size_t)(to - from) : RESYNC_CHUNK;
		ssize_t r = pread(fd, buf, want, (off_t)from);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (unsigned char *p = buf; (p = memchr(p, GZ_ID1, (size_t)(buf + r - p))); p++) {
			uint64_t at = from + (uint64_t)(p - buf);

			if (at >= to)
				break;
			if (member_at(fd, at, ix, m)) {
				found = at;
				goto out;
			}
		}
		if ((size_t)r < FP_REC_HEADER_BYTES)
			break;
		from += (uint64_t)r - (FP_REC_HEADER_BYTES - 1); /* a header may straddle */
	}
out:
	free(buf);
	return found;
}

/* Damage from `from` up to the good member m at `to`: counted. The
 * members and samples lost are told by the sequence numbers and
 * samples_before of the members on either side. */
static void count_skip(struct fp_rec_index *ix, uint64_t from, uint64_t to,
		       const struct fp_rec_member *m)
{
	struct fp_rec_skips *s = &ix->skips;

	if (!s->regions && !s->members)
		s->first_at = from;
	s->regions++;
	s->bytes += to - from;
	if (!ix->n)
		return;
	const struct fp_rec_member *prev = &ix->m[ix->n - 1];

	if (m->seq > prev->seq + 1)
		s->members += m->seq - prev->seq - 1;
	if (m->samples_before > prev->samples_before + prev->samples)
		s->samples += m->samples_before - prev->samples_before - prev->samples;
}

static void index_add(struct fp_rec_index *ix, const struct fp_rec_member *m)
{
	if (ix->n == ix->cap) {
		ix->cap = ix->cap ? ix->cap * 2 : 256;
		ix->m = fp_xrealloc(ix->m, ix->cap * sizeof *ix->m);
	}
	if (!ix->n)
		ix->base_ns = m->capture_min_ns;
	ix->m[ix->n++] = *m;
	ix->end = m->offset + m->length;
}

int fp_rec_scan(int fd, struct fp_rec_index *ix)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	ix->file_size = (uint64_t)st.st_size;
	if (ix->n == 0 && ix->end == 0)
		ix->start = ix->end = skip_hole(fd, ix->file_size);
	ix->truncated = 0;
	uint64_t off = ix->end;

	while (off < ix->file_size) {
		struct fp_rec_member m, next;
		int good = member_at(fd, off, ix, &m);
		uint64_t end = good ? off + m.length : 0;

		/* a good member ends where the file does or another begins;
		 * else its length lies and the next good header says where
		 * the damage ends */
		if (good && (end == ix->file_size || end + FP_REC_HEADER_BYTES > ix->file_size ||
			     member_at(fd, end, ix, &next) ||
			     next_member(fd, off + 1, end, ix, &next) == UINT64_MAX)) {
			index_add(ix, &m);
			off = end;
			continue;
		}
		uint64_t at = next_member(fd, off + 1, ix->file_size, ix, &next);

		if (at == UINT64_MAX) { /* nothing good after it: an incomplete end */
			ix->truncated = 1;
			break;
		}
		count_skip(ix, off, at, &next);
		index_add(ix, &next);
		off = ix->end;
	}
	return 0;
}

void fp_rec_index_free(struct fp_rec_index *ix)
{
	free(ix->m);
	memset(ix, 0, sizeof *ix);
}

size_t fp_rec_first_from(const struct fp_rec_index *ix, uint64_t from_ns)
{
	size_t i = 0;

	while (i < ix->n && ix->m[i].max_ns < from_ns)
		i++;
	return i;
}

ssize_t fp_rec_read_member(int fd, const struct fp_rec_member *m, char **buf, size_t *cap,
			   char *err, size_t errsz)
{
	unsigned char *raw = fp_xmalloc(m->length);
	ssize_t result = -1;
	z_stream z;
	int r = pread_full(fd, raw, m->length, m->offset);

	memset(&z, 0, sizeof z);
	if (r != 1) {
		snprintf(err, errsz, "batch at byte %llu: %s", (unsigned long long)m->offset,
			 r < 0 ? strerror(errno) : "the file ends inside it");
		goto out;
	}
	const unsigned char *t = raw + m->length - FP_REC_TRAILER_BYTES;
	uint32_t crc = (uint32_t)get_le(t, 4), isize = (uint32_t)get_le(t + 4, 4);

	if (isize > FP_REC_TEXT_MAX) {
		snprintf(err, errsz, "batch at byte %llu: damaged (says %u bytes of text)",
			 (unsigned long long)m->offset, isize);
		goto out;
	}
	if (*cap < (size_t)isize + 1) {
		*cap = (size_t)isize + 1;
		*buf = fp_xrealloc(*buf, *cap);
	}
	if (inflateInit2(&z, RAW_WINDOW_BITS) != Z_OK)
		fp_die(FP_EXIT_SYS, "inflateInit2: out of memory");
	z.next_in = raw + FP_REC_HEADER_BYTES;
	z.avail_in = (uInt)(m->length - FP_REC_HEADER_BYTES - FP_REC_TRAILER_BYTES);
	z.next_out = (Bytef *)*buf;
	z.avail_out = (uInt)isize + 1;
	r = inflate(&z, Z_FINISH);
	if (r != Z_STREAM_END || z.total_out != isize ||
	    crc32(0L, (const Bytef *)*buf, isize) != crc) {
		snprintf(err, errsz, "batch at byte %llu: damaged (%s)",
			 (unsigned long long)m->offset,
			 r != Z_STREAM_END ? (z.msg ? z.msg : "bad deflate data")
					   : "CRC or length mismatch");
		inflateEnd(&z);
		goto out;
	}
	inflateEnd(&z);
	result = (ssize_t)isize;
out:
	free(raw);
	return result;
}

int fp_rec_member_lines(int fd, const struct fp_rec_member *m, char **buf, size_t *cap,
			void (*line)(void *ctx, char *line, size_t len), void *ctx, char *err,
			size_t errsz)
{
	ssize_t n = fp_rec_read_member(fd, m, buf, cap, err, errsz);

	if (n < 0)
		return -1;
	(*buf)[n] = '\0';
	for (char *p = *buf, *end = *buf + n; p < end;) {
		char *lf = memchr(p, '\n', (size_t)(end - p));
		char *stop = lf ? lf : end;

		*stop = '\0';
		line(ctx, p, (size_t)(stop - p));
		p = stop + 1;
	}
	return 0;
}

size_t fp_rec_each_line(int fd, const struct fp_rec_index *ix, uint64_t from_ns, uint64_t to_ns,
			void (*line)(void *ctx, char *line, size_t len), void *ctx,
			struct fp_rec_skips *bad, char *err, size_t errsz)
{
	char *buf = NULL, msg[256];
	size_t cap = 0, skipped = 0;

	for (size_t i = fp_rec_first_from(ix, from_ns); i < ix->n; i++) {
		const struct fp_rec_member *m = &ix->m[i];

		if (m->max_ns < from_ns || m->min_ns >= to_ns)
			continue;
		if (fp_rec_member_lines(fd, m, &buf, &cap, line, ctx, msg, sizeof msg) < 0) {
			/* skipped, counted: the members after it stand alone */
			if (!skipped++)
				snprintf(err, errsz, "%s", msg);
			if (bad) {
				if (!bad->members && !bad->regions)
					bad->first_at = m->offset;
				bad->members++;
				bad->samples += m->samples;
				bad->bytes += m->length;
			}
			continue;
		}
	}
	free(buf);
	return skipped;
}

void fp_rec_skips_describe(const struct fp_rec_skips *s, char *buf, size_t n)
{
	buf[0] = '\0';
	if (!s->regions && !s->members)
		return;
	snprintf(buf, n,
		 "damaged batches skipped: %llu damaged stretch%s (%llu bytes) and %llu "
		 "batch%s (%llu samples) from byte %llu; every other batch was read",
		 (unsigned long long)s->regions, s->regions == 1 ? "" : "es",
		 (unsigned long long)s->bytes, (unsigned long long)s->members,
		 s->members == 1 ? "" : "es", (unsigned long long)s->samples,
		 (unsigned long long)s->first_at);
}

uint64_t fp_rec_base_sec(const struct fp_rec_index *ix)
{
	uint64_t min = UINT64_MAX;

	for (size_t i = 0; i < ix->n; i++)
		if (ix->m[i].samples && ix->m[i].min_ns < min)
			min = ix->m[i].min_ns;
	return min == UINT64_MAX ? 0 : min / 1000000000ull;
}

struct unit {
	char suffix;
	uint64_t mul;
};

/* "N" or "N<suffix>" with N > 0: N * the suffix's multiplier * base, or -1
 * (no digits, an unknown suffix, 0, or more than 64 bits). */
static int parse_scaled(const char *s, const struct unit *units, uint64_t base, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	if (!*s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	for (; units->suffix; units++)
		if (*end == units->suffix) {
			mul = units->mul;
			end++;
			break;
		}
	if (*end || v == 0 || v > UINT64_MAX / mul / base)
		return -1;
	*out = (uint64_t)v * mul * base;
	return 0;
}

int fp_rec_parse_size(const char *s, uint64_t *bytes)
{
	static const struct unit units[] = {
		{ 'k', 1ull << 10 },
		{ 'K', 1ull << 10 },
		{ 'M', 1ull << 20 },
		{ 'G', 1ull << 30 },
		{ 0, 0 },
	};

	return parse_scaled(s, units, 1, bytes);
}

int fp_rec_parse_duration(const char *s, uint64_t *ns)
{
	static const struct unit units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 0, 0 },
	};

	return parse_scaled(s, units, 1000000000ull, ns);
}

/* parse(arg), or the program ends: "--OPT: expected WHAT, got ARG". */
static uint64_t arg_or_die(int (*parse)(const char *, uint64_t *), const char *opt, const char *arg,
			   const char *what)
{
	uint64_t v;

	if (parse(arg, &v) < 0)
		fp_die(FP_EXIT_USAGE, "--%s: expected %s, got \"%s\"", opt, what, arg);
	return v;
}

uint64_t fp_rec_size_arg(const char *opt, const char *arg)
{
	return arg_or_die(fp_rec_parse_size, opt, arg, "bytes with an optional k, M or G suffix");
}

uint64_t fp_rec_duration_arg(const char *opt, const char *arg)
{
	return arg_or_die(fp_rec_parse_duration, opt, arg,
			  "seconds with an optional s, m, h or d suffix");
}
