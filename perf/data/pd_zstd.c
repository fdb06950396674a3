/* pd_zstd.c: perf record -z's zstd stream with libzstd (pd_zstd.h).
 */
#include <stdlib.h>

#include <zstd.h>

#include "fp_error.h"
#include "pd_zstd.h"

struct pd_zstd {
	ZSTD_DStream *ds;
	ZSTD_inBuffer in;
	const char *broken; /* why the stream cannot be read on, or NULL */
};

struct pd_zstd *pd_zstd_new(void)
{
	struct pd_zstd *z = fp_xcalloc(1, sizeof *z);

	z->ds = ZSTD_createDStream();
	if (!z->ds || ZSTD_isError(ZSTD_initDStream(z->ds)))
		z->broken = "libzstd cannot start a decompression stream";
	return z;
}

void pd_zstd_free(struct pd_zstd *z)
{
	if (!z)
		return;
	ZSTD_freeDStream(z->ds);
	free(z);
}

void pd_zstd_input(struct pd_zstd *z, const void *src, size_t n)
{
	z->in = (ZSTD_inBuffer){ src, n, 0 };
}

ssize_t pd_zstd_output(struct pd_zstd *z, void *out, size_t cap, const char **why)
{
	if (z->broken) {
		*why = z->broken;
		return -1;
	}
	ZSTD_outBuffer o = { out, cap, 0 };
	/* until the output is full or the input used up and flushed (a call
	 * that fills the output may leave decoded bytes inside libzstd) */
	while (o.pos < o.size) {
		size_t before_in = z->in.pos, before_out = o.pos;
		size_t rc = ZSTD_decompressStream(z->ds, &o, &z->in);
		if (ZSTD_isError(rc)) {
			z->broken = ZSTD_getErrorName(rc);
			*why = z->broken;
			return -1;
		}
		if (z->in.pos == before_in && o.pos == before_out)
			break; /* no progress: this record's data is used up */
	}
	return (ssize_t)o.pos;
}
