/* sink.h: a growable byte buffer that render/ functions write into.
 *
 * Every renderer (flame graph, heatmap, JSON, TSV) writes through a
 * struct fp_sink, so the same code can produce a file or an in-memory
 * document (the web server answers a request from the buffer).
 *
 * Calling sequence, to a file:
 *	struct fp_sink s;
 *	fp_sink_init_file(&s, fp);     // flushes to fp every FP_SINK_CHUNK bytes
 *	fp_flame_render(&s, table, &opts);
 *	if (fp_sink_close(&s) < 0)     // flushes, returns -1 with errno = the
 *		...                    // first write error (ENOSPC ...)
 * Calling sequence, in memory:
 *	fp_sink_init_mem(&s);
 *	fp_heatmap_json(&s, hm);
 *	send(s.buf, s.len); fp_sink_free(&s);
 *
 * Writes never fail for the caller: a write error on the FILE is remembered
 * in s.err (an errno value) and later output is dropped, so renderers need
 * no error paths. Allocation failure exits via fp_die (FP_EXIT_SYS).
 */
#ifndef FP_SINK_H
#define FP_SINK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FP_SINK_CHUNK (64u << 10) /* file sinks flush at this size */

struct fp_sink {
	char *buf;
	size_t len, cap;
	FILE *fp; /* NULL: keep everything in buf */
	int err;  /* errno of the first failed write, 0 if none */
};

void fp_sink_init_mem(struct fp_sink *s);
void fp_sink_init_file(struct fp_sink *s, FILE *fp);

/* Grows the buffer so that n more bytes fit; returns where to write them.
 * Call fp_sink_commit(s, n) after writing (used by fast formatters). */
char *fp_sink_reserve(struct fp_sink *s, size_t n);
static inline void fp_sink_commit(struct fp_sink *s, size_t n)
{
	s->len += n;
}

void fp_sink_write(struct fp_sink *s, const void *p, size_t n);
/* Inline: most strings the SVG writer puts are literals, whose length
 * and copy the compiler then makes at the call (a call, strlen and
 * memcpy per piece were a sixth of the flame graph's writing). */
static inline void fp_sink_str(struct fp_sink *s, const char *str)
{
	size_t n = strlen(str);

	memcpy(fp_sink_reserve(s, n), str, n);
	s->len += n;
}
void fp_sink_char(struct fp_sink *s, char c);
void fp_sink_u64(struct fp_sink *s, uint64_t v);
void fp_sink_i64(struct fp_sink *s, int64_t v);
/* 1234567 -> "1,234,567" (flamegraph.pl's tooltip style). */
void fp_sink_u64_sep(struct fp_sink *s, uint64_t v);
/* Fixed point: v / 10^decimals with exactly `decimals` digits
 * (fp_sink_fixed(s, 1234, 2) -> "12.34"; negative values get a '-'). */
void fp_sink_fixed(struct fp_sink *s, int64_t v, unsigned decimals);
void fp_sink_printf(struct fp_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* File sinks: writes the buffer to fp (fwrite + fflush). Memory sinks: no-op.
 * Returns 0, or -1 with errno set (and s->err) after a write error. */
int fp_sink_flush(struct fp_sink *s);
/* fp_sink_flush, then frees the buffer; returns like fp_sink_flush. */
int fp_sink_close(struct fp_sink *s);
void fp_sink_free(struct fp_sink *s);

#endif
