/* fp_error.c: the single error helper (see fp_error.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"

static const char *prog_name = "flamepipe";

void fp_set_prog(const char *argv0)
{
	const char *slash;

	if (!argv0 || !*argv0)
		return;
	slash = strrchr(argv0, '/');
	prog_name = slash ? slash + 1 : argv0;
}

const char *fp_prog(void)
{
	return prog_name;
}

static void vreport(const char *prefix, int errnum, const char *fmt, va_list ap)
{
	/* One fprintf-free buffer so concurrent stages do not interleave
	 * half-lines on a shared stderr. */
	char msg[1024];
	int n = snprintf(msg, sizeof msg, "%s: %s", prog_name, prefix);

	if (n < 0 || (size_t)n >= sizeof msg)
		n = 0;
	int m = vsnprintf(msg + n, sizeof msg - n, fmt, ap);
	if (m > 0)
		n = ((size_t)(n + m) >= sizeof msg) ? (int)sizeof msg - 1 : n + m;
	if (errnum)
		n += snprintf(msg + n, sizeof msg - n, ": %s", strerror(errnum));
	if ((size_t)n >= sizeof msg - 1)
		n = sizeof msg - 2;
	msg[n++] = '\n';
	fwrite(msg, 1, n, stderr);
	fflush(stderr);
}

void fp_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", 0, fmt, ap);
	va_end(ap);
	exit(code);
}

void fp_die_sys(int code, const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("", e, fmt, ap);
	va_end(ap);
	exit(code);
}

void fp_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", 0, fmt, ap);
	va_end(ap);
}

void fp_warn_sys(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", e, fmt, ap);
	va_end(ap);
}

void *fp_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fp_die_sys(FP_EXIT_SYS, "out of memory allocating %zu bytes", n);
	return p;
}

void *fp_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		fp_die_sys(FP_EXIT_SYS, "out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *fp_xcalloc_touched(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		fp_die(FP_EXIT_SYS, "out of memory allocating %zu x %zu bytes", n, size);
	void *p = fp_xmalloc(n * size);

	memset(p, 0, n * size);
	return p;
}

void *fp_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		fp_die_sys(FP_EXIT_SYS, "out of memory allocating %zu bytes", n);
	return q;
}

void fp_free_all(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}

void *fp_xgrow(void *p, size_t *cap, size_t need, size_t size, size_t min)
{
	size_t c = *cap ? *cap : min;

	if (need <= *cap)
		return p;
	while (c < need) {
		if (c > SIZE_MAX / 2 / size)
			fp_die(FP_EXIT_SYS, "out of memory: an array of %zu elements", need);
		c *= 2;
	}
	*cap = c;
	return fp_xrealloc(p, c * size);
}

void *fp_xgrow_zeroed(void *p, size_t *n, size_t need, size_t size)
{
	if (need <= *n)
		return p;
	if (need > SIZE_MAX / 2 / size)
		fp_die(FP_EXIT_SYS, "out of memory: an array of %zu elements", need);
	size_t c = need * 2;
	p = fp_xrealloc(p, c * size);
	memset((char *)p + *n * size, 0, (c - *n) * size);
	*n = c;
	return p;
}

char *fp_xstrdup(const char *s)
{
	return fp_xstrndup(s, strlen(s));
}

char *fp_xstrndup(const char *s, size_t n)
{
	char *p = fp_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}
