/* sink.c: the growable output buffer of render/ (see sink.h). */
#include "sink.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_fmt.h"

#define SINK_MIN_CAP 4096
#define U64_DIGITS_MAX FP_FMT_U64_MAX

void fp_sink_init_mem(struct fp_sink *s)
{
	memset(s, 0, sizeof *s);
}

void fp_sink_init_file(struct fp_sink *s, FILE *fp)
{
	memset(s, 0, sizeof *s);
	s->fp = fp;
}

/* p[0..n) to the file, unless a write failed before (its errno is kept). */
static void sink_put(struct fp_sink *s, const void *p, size_t n)
{
	if (!s->err && fwrite(p, 1, n, s->fp) != n)
		s->err = errno ? errno : EIO;
}

static void sink_drain(struct fp_sink *s)
{
	if (!s->fp || s->len == 0)
		return;
	sink_put(s, s->buf, s->len);
	s->len = 0;
}

char *fp_sink_reserve(struct fp_sink *s, size_t n)
{
	if (s->fp && s->len + n > FP_SINK_CHUNK)
		sink_drain(s);
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : SINK_MIN_CAP;
		while (cap < s->len + n)
			cap *= 2;
		s->buf = fp_xrealloc(s->buf, cap);
		s->cap = cap;
	}
	return s->buf + s->len;
}

void fp_sink_write(struct fp_sink *s, const void *p, size_t n)
{
	if (n == 0)
		return;
	/* A block larger than a chunk goes to the file as it is: buffered, the
	 * report's page (26 MB of timeline JSON on the mixed bench capture)
	 * grew the buffer to its size and was copied once more. */
	if (s->fp && n > FP_SINK_CHUNK) {
		sink_drain(s);
		sink_put(s, p, n);
		return;
	}
	memcpy(fp_sink_reserve(s, n), p, n);
	s->len += n;
}

void fp_sink_char(struct fp_sink *s, char c)
{
	*fp_sink_reserve(s, 1) = c;
	s->len++;
}

/* Digits are made last first: writes tmp[0..n) back to front. */
static void put_reversed(struct fp_sink *s, const char *tmp, size_t n)
{
	char *d = fp_sink_reserve(s, n);

	for (size_t i = 0; i < n; i++)
		d[i] = tmp[n - 1 - i];
	s->len += n;
}

/* In place (no buffer and copy): the flame graph's SVG writes some per frame. */
void fp_sink_u64(struct fp_sink *s, uint64_t v)
{
	unsigned n = fp_fmt_u64_len(v);

	fp_fmt_u64(fp_sink_reserve(s, n) + n, v);
	s->len += n;
}

void fp_sink_i64(struct fp_sink *s, int64_t v)
{
	char buf[FP_FMT_I64_MAX], *end = buf + sizeof buf, *p = fp_fmt_i64(end, v);

	fp_sink_write(s, p, (size_t)(end - p));
}

void fp_sink_u64_sep(struct fp_sink *s, uint64_t v)
{
	char tmp[U64_DIGITS_MAX + U64_DIGITS_MAX / 3];
	size_t n = 0, digits = 0;
	do {
		if (digits && digits % 3 == 0)
			tmp[n++] = ',';
		tmp[n++] = (char)('0' + v % 10);
		digits++;
		v /= 10;
	} while (v);
	put_reversed(s, tmp, n);
}

void fp_sink_fixed(struct fp_sink *s, int64_t v, unsigned decimals)
{
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	uint64_t scale = 1;
	for (unsigned i = 0; i < decimals; i++)
		scale *= 10;
	if (v < 0)
		fp_sink_char(s, '-');
	fp_sink_u64(s, mag / scale);
	if (decimals == 0)
		return;
	char *d = fp_sink_reserve(s, decimals + 1);
	uint64_t frac = mag % scale;
	d[0] = '.';
	for (unsigned i = decimals; i > 0; i--) {
		d[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	s->len += decimals + 1;
}

void fp_sink_printf(struct fp_sink *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	char *d = fp_sink_reserve(s, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(d, (size_t)n + 1, fmt, ap);
	va_end(ap);
	s->len += (size_t)n;
}

int fp_sink_flush(struct fp_sink *s)
{
	if (!s->fp)
		return 0;
	sink_drain(s);
	if (!s->err && fflush(s->fp) != 0)
		s->err = errno ? errno : EIO;
	if (s->err) {
		errno = s->err;
		return -1;
	}
	return 0;
}

int fp_sink_close(struct fp_sink *s)
{
	int rc = fp_sink_flush(s);
	int err = errno;
	fp_sink_free(s);
	errno = err;
	return rc;
}

void fp_sink_free(struct fp_sink *s)
{
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
}
