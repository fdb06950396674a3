/* fp_recenc.c: one member of a live recording, compressed
 * (fp_recording.h, fp_rec_encode).
 *
 * A member is one batch of text compressed in one piece, so a
 * whole-buffer compressor fits it exactly: libdeflate (Debian
 * libdeflate-dev) compresses the raw deflate stream about twice as fast
 * as zlib's deflate at level 1 with smaller output (bench/run.sh "live
 * whole cost"), and computes the CRC32 of the trailer. The gzip framing
 * (the header with the FP extra field, the CRC32/ISIZE trailer) is
 * written here, so the member is plain gzip any inflater reads; readers
 * (fp_recording.c) use zlib as before, for old and new recordings alike.
 */
#include <libdeflate.h>

#include "fp_error.h"
#include "fp_recording.h"

/* The compressor of the last level asked for, kept: allocating one costs
 * more than compressing a small batch. */
static struct libdeflate_compressor *compressor;
static int compressor_level;

static struct libdeflate_compressor *compressor_for(int level)
{
	if (compressor && compressor_level == level)
		return compressor;
	libdeflate_free_compressor(compressor);
	compressor = libdeflate_alloc_compressor(level);
	if (!compressor)
		fp_die(FP_EXIT_SYS, "libdeflate_alloc_compressor(%d): out of memory", level);
	compressor_level = level;
	return compressor;
}

size_t fp_rec_encode_into(const char *text, size_t len, struct fp_rec_member *m, int level,
			  unsigned char **buf, size_t *cap)
{
	struct libdeflate_compressor *c = compressor_for(level);
	size_t bound = libdeflate_deflate_compress_bound(c, len);
	size_t need = FP_REC_HEADER_BYTES + bound + FP_REC_TRAILER_BYTES;

	if (need > *cap) {
		*buf = fp_xrealloc(*buf, need);
		*cap = need;
	}
	unsigned char *out = *buf;
	size_t clen = libdeflate_deflate_compress(c, text, len, out + FP_REC_HEADER_BYTES, bound);

	if (!clen) /* cannot happen with the bound's room */
		fp_die(FP_EXIT_SYS, "libdeflate: cannot compress a batch of %zu bytes", len);
	m->length = FP_REC_HEADER_BYTES + clen + FP_REC_TRAILER_BYTES;
	m->text_len = (uint32_t)len;
	fp_rec_write_header(out, m);
	unsigned char *t = out + FP_REC_HEADER_BYTES + clen;
	fp_rec_put_le(t, libdeflate_crc32(0, text, len), 4);
	fp_rec_put_le(t + 4, (uint32_t)len, 4);
	return m->length;
}

unsigned char *fp_rec_encode(const char *text, size_t len, struct fp_rec_member *m, int level)
{
	unsigned char *buf = NULL;
	size_t cap = 0;

	fp_rec_encode_into(text, len, m, level, &buf, &cap);
	return buf;
}
