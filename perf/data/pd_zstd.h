/* pd_zstd.h: the zstd stream of perf record -z's PERF_RECORD_COMPRESSED
 * records, for pd_read.c.
 *
 * perf compresses the records it reads from its ring buffers as one zstd
 * stream, flushed at the end of each COMPRESSED record: a record's data
 * continues the stream of the one before, and the records it holds may
 * be cut by the end of one compressed record and continue in the next
 * (perf's decomp_last_rem). The stream is decompressed in bounded pieces:
 *
 *	struct pd_zstd *z = pd_zstd_new();
 *	pd_zstd_input(z, data, n);            // a COMPRESSED record's data
 *	while ((got = pd_zstd_output(z, out, cap, &why)) > 0) ... ;
 *	// 0: this record's data is used up; -1: the stream is corrupt (why)
 *	pd_zstd_free(z);
 */
#ifndef PD_ZSTD_H
#define PD_ZSTD_H

#include <stddef.h>
#include <sys/types.h>

struct pd_zstd;

struct pd_zstd *pd_zstd_new(void);
void pd_zstd_free(struct pd_zstd *z);
/* The next compressed bytes (valid until pd_zstd_output returns 0 or -1). */
void pd_zstd_input(struct pd_zstd *z, const void *src, size_t n);
/* Decompresses into out[0..cap): the bytes written (> 0), 0 when the input
 * is used up and nothing more comes of it, -1 with *why on a corrupt
 * stream (every later record is then unreadable too). */
ssize_t pd_zstd_output(struct pd_zstd *z, void *out, size_t cap, const char **why);

#endif
