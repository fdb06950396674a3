/* http.c: the libmicrohttpd glue every route file uses: responses with
 * the common security headers, JSON errors, query arguments, and the
 * checks every request passes first (Host, Origin). Declared in http.h.
 */
#include <libdeflate.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "escape.h"
#include "fp_clock.h"
#include "fp_error.h"
#include "http.h"
#include "serve.h"

/* ---- responses ---------------------------------------------------------------- */

void http_common_headers(struct MHD_Response *r, const char *ctype)
{
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Frame-Options", "SAMEORIGIN");
	/* one request per connection: each passes the gate (gate.h) */
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (strncmp(ctype, "text/html", 9) == 0 || strncmp(ctype, CT_SVG, strlen(CT_SVG)) == 0)
		MHD_add_response_header(
			r, "Content-Security-Policy",
			"default-src 'self'; script-src 'self' 'unsafe-inline'; "
			"style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
			"object-src 'none'; base-uri 'none'; frame-ancestors 'self'");
}

/* Whether Accept-Encoding names gzip with a q above 0 (RFC 9110 12.5.3;
 * "*" is not taken for it: a client that wants gzip says so). */
int http_accepts_gzip(const char *v)
{
	while (v && *v) {
		size_t n = strcspn(v, ",");
		const char *p = v, *end = v + n;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		size_t tok = strcspn(p, ",; \t");
		if (p + tok > end)
			tok = (size_t)(end - p);
		if (tok == 4 && strncasecmp(p, "gzip", 4) == 0) {
			const char *q = memchr(p, ';', (size_t)(end - p));
			if (!q)
				return 1;
			q++;
			while (q < end && (*q == ' ' || *q == '\t'))
				q++;
			if (end - q < 2 || (q[0] != 'q' && q[0] != 'Q') || q[1] != '=')
				return 1; /* another parameter: not a weight */
			return strtod(q + 2, NULL) > 0;
		}
		v = *end ? end + 1 : end;
	}
	return 0;
}

/* Data answers (JSON trees of a dense capture run to tens of MB) go
 * gzip-compressed to a client that accepts it: a tenth of the bytes over
 * an ssh tunnel, for ~3 ms of CPU a MB. Pages are not compressed (no
 * secret of theirs meets reflected input under compression). */
#define GZIP_MIN_BYTES 1024
#define GZIP_LEVEL 1

static int compressible(const char *ctype)
{
	return strcmp(ctype, CT_JSON) == 0 || strcmp(ctype, CT_SVG) == 0 ||
	       strcmp(ctype, CT_TEXT) == 0;
}

/* in[0..n) gzip-compressed into out (a memory sink's buffer, replaced;
 * in may be that buffer: compressed in place) when that is smaller; 1 if
 * it was. */
static int gzip_into(const char *in, size_t n, struct fp_sink *out)
{
	struct libdeflate_compressor *z = libdeflate_alloc_compressor(GZIP_LEVEL);
	if (!z)
		return 0;
	size_t cap = libdeflate_gzip_compress_bound(z, n);
	char *buf = malloc(cap);
	size_t len = buf ? libdeflate_gzip_compress(z, in, n, buf, cap) : 0;
	libdeflate_free_compressor(z);
	if (len == 0 || len >= n) {
		free(buf);
		return 0;
	}
	free(out->buf);
	out->buf = buf;
	out->len = len;
	out->cap = cap;
	return 1;
}

/* Whether this answer goes gzip-compressed to this client. */
static int wants_gzip(struct MHD_Connection *c, const char *ctype, size_t len)
{
	return len >= GZIP_MIN_BYTES && compressible(ctype) &&
	       http_accepts_gzip(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							     MHD_HTTP_HEADER_ACCEPT_ENCODING));
}

/* Headers, queueing and the response's release: every reply's end. */
static enum MHD_Result queue(struct MHD_Connection *c, unsigned status, struct MHD_Response *r,
			     const char *ctype, int gz, const char *hname, const char *hvalue)
{
	http_common_headers(r, ctype);
	if (compressible(ctype))
		MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT_ENCODING);
	if (gz)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	if (hname)
		MHD_add_response_header(r, hname, hvalue);
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

enum MHD_Result http_reply_hdr(struct MHD_Connection *c, unsigned status, const char *ctype,
			       struct fp_sink *body, const char *hname, const char *hvalue)
{
	struct MHD_Response *r;
	int gz = 0;
	if (wants_gzip(c, ctype, body->len))
		gz = gzip_into(body->buf, body->len, body);
	if (body->len == 0) {
		fp_sink_free(body);
		r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	} else {
		r = MHD_create_response_from_buffer(body->len, body->buf, MHD_RESPMEM_MUST_FREE);
		if (!r)
			fp_sink_free(body);
	}
	body->buf = NULL;
	body->len = body->cap = 0;
	if (!r)
		return MHD_NO;
	return queue(c, status, r, ctype, gz, hname, hvalue);
}

/* ---- shared bodies ---------------------------------------------------------- */

struct http_shared {
	pthread_mutex_t lock; /* refs, and the gzip form's making */
	unsigned refs;
	struct fp_sink plain; /* empty when packed */
	struct fp_sink gz;    /* made by the first client that takes gzip */
	int gz_tried;         /* gz.len still 0 after it: not smaller, sent plain */
	uint64_t gz_ms;       /* the gzip's CPU time */
	size_t size;          /* the plain form's length (packed: gone) */
};

struct http_shared *http_shared_new(struct fp_sink *body)
{
	struct http_shared *b = fp_xcalloc(1, sizeof *b);

	pthread_mutex_init(&b->lock, NULL);
	b->refs = 1;
	b->plain = *body;
	b->size = body->len;
	fp_sink_init_mem(&b->gz);
	fp_sink_init_mem(body);
	return b;
}

/* Its gzip form, made once (under b->lock). */
static void shared_gzip(struct http_shared *b)
{
	if (b->gz_tried)
		return;
	uint64_t t0 = fp_clock_ms(CLOCK_THREAD_CPUTIME_ID);
	gzip_into(b->plain.buf, b->plain.len, &b->gz);
	b->gz_ms = fp_clock_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
	b->gz_tried = 1;
}

struct http_shared *http_shared_new_packed(struct fp_sink *body)
{
	struct http_shared *b = http_shared_new(body);

	shared_gzip(b);
	if (b->gz.len) /* smaller: the plain form goes */
		fp_sink_free(&b->plain);
	return b;
}

size_t http_shared_bytes(struct http_shared *b)
{
	pthread_mutex_lock(&b->lock);
	size_t n = b->plain.cap + b->gz.cap;
	pthread_mutex_unlock(&b->lock);
	return n;
}

struct http_shared *http_shared_ref(struct http_shared *b)
{
	pthread_mutex_lock(&b->lock);
	b->refs++;
	pthread_mutex_unlock(&b->lock);
	return b;
}

void http_shared_unref(struct http_shared *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&b->lock);
	unsigned left = --b->refs;
	pthread_mutex_unlock(&b->lock);
	if (left)
		return;
	fp_sink_free(&b->plain);
	fp_sink_free(&b->gz);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

uint64_t http_shared_gzip_ms(struct http_shared *b)
{
	pthread_mutex_lock(&b->lock);
	uint64_t ms = b->gz_ms;
	pthread_mutex_unlock(&b->lock);
	return ms;
}

static void shared_released(void *cls)
{
	http_shared_unref(cls);
}

/* A packed body for a client that does not take gzip: inflated for it
 * (a fifth of what making the answer again costs). */
static enum MHD_Result reply_inflated(struct MHD_Connection *c, unsigned status, const char *ctype,
				      struct http_shared *b, const char *hname, const char *hvalue)
{
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	struct fp_sink s;
	size_t got = 0;

	fp_sink_init_mem(&s);
	char *to = d ? fp_sink_reserve(&s, b->size ? b->size : 1) : NULL;
	if (!d ||
	    libdeflate_gzip_decompress(d, b->gz.buf, b->gz.len, to, b->size, &got) !=
		    LIBDEFLATE_SUCCESS ||
	    got != b->size) {
		if (d)
			libdeflate_free_decompressor(d);
		fp_sink_free(&s);
		return http_error(c, 500, "a cached answer could not be inflated");
	}
	libdeflate_free_decompressor(d);
	fp_sink_commit(&s, got);
	struct MHD_Response *r = MHD_create_response_from_buffer(s.len, s.len ? s.buf : (void *)"",
								 s.len ? MHD_RESPMEM_MUST_FREE
								       : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		fp_sink_free(&s);
		return MHD_NO;
	}
	return queue(c, status, r, ctype, 0, hname, hvalue);
}

enum MHD_Result http_reply_shared_hdr(struct MHD_Connection *c, unsigned status, const char *ctype,
				      struct http_shared *b, const char *hname, const char *hvalue)
{
	const struct fp_sink *send = &b->plain;

	if (wants_gzip(c, ctype, b->size)) {
		pthread_mutex_lock(&b->lock); /* other clients wait for the one compression */
		shared_gzip(b);
		pthread_mutex_unlock(&b->lock);
		if (b->gz.len)
			send = &b->gz;
	} else if (b->size && !b->plain.len) {
		return reply_inflated(c, status, ctype, b, hname, hvalue);
	}
	http_shared_ref(b);
	struct MHD_Response *r = MHD_create_response_from_buffer_with_free_callback_cls(
		send->len, send->len ? send->buf : (void *)"", shared_released, b);
	if (!r) {
		http_shared_unref(b);
		return MHD_NO;
	}
	return queue(c, status, r, ctype, send == &b->gz, hname, hvalue);
}

enum MHD_Result http_reply_shared(struct MHD_Connection *c, unsigned status, const char *ctype,
				  struct http_shared *b)
{
	return http_reply_shared_hdr(c, status, ctype, b, NULL, NULL);
}

enum MHD_Result http_reply(struct MHD_Connection *c, unsigned status, const char *ctype,
			   struct fp_sink *body)
{
	return http_reply_hdr(c, status, ctype, body, NULL, NULL);
}

enum MHD_Result http_error(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof msg)
		n = sizeof msg - 1;
	struct fp_sink s;
	fp_sink_init_mem(&s);
	fp_sink_str(&s, "{\"error\":");
	fp_json_string(&s, msg, (size_t)n);
	fp_sink_str(&s, "}\n");
	return http_reply(c, status, CT_JSON, &s);
}

const char *http_arg(struct MHD_Connection *c, const char *name, size_t *n)
{
	const char *v = NULL;
	size_t vn = 0;
	if (MHD_lookup_connection_value_n(c, MHD_GET_ARGUMENT_KIND, name, strlen(name), &v, &vn) !=
	    MHD_YES)
		return NULL;
	if (!v) { /* `?name` without '=' */
		*n = 0;
		return "";
	}
	*n = vn;
	return v;
}

struct job http_job(const struct server *srv, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_CONNECTION_FD);
	return (struct job){ .srv = srv,
			     .client_fd = ci ? ci->connect_fd : -1,
			     .budget = budget_current() };
}

/* ---- request checks ---------------------------------------------------------- */

/* host part of a Host/Origin authority: "127.0.0.1:5000" -> "127.0.0.1" */
static size_t host_len(const char *h)
{
	if (h[0] == '[') {
		const char *e = strchr(h, ']');
		return e ? (size_t)(e - h) + 1 : strlen(h);
	}
	return strcspn(h, ":");
}

/* The whole header must be NAME or NAME:PORT (digits only): anything
 * after the port ("127.0.0.1:5000@evil.com", a path, a second host) is
 * not a loopback authority, whatever a client or proxy makes of it. */
static int host_is_loopback_name(const char *h)
{
	size_t n = host_len(h);
	static const char *const ok[] = { "127.0.0.1", "localhost", "[::1]" };
	const char *rest = h + n;

	if (*rest == ':') {
		size_t digits = strspn(rest + 1, "0123456789");
		if (digits == 0 || digits > 5 || rest[1 + digits] != '\0')
			return 0;
	} else if (*rest != '\0') {
		return 0;
	}
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (strlen(ok[i]) == n && strncasecmp(h, ok[i], n) == 0)
			return 1;
	return 0;
}

/* DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends
 * Host: evil.example. Cross-site POSTs send a foreign Origin, and pages
 * without an origin of their own (sandboxed iframes, data: and file:
 * pages) send `Origin: null`: a state-changing request (POST: uploads,
 * the live range) is accepted without an Origin (curl) or with the
 * server's own, never with null or a foreign one. */
int http_request_allowed(const struct server *srv, struct MHD_Connection *c, const char *method,
			 const char **why)
{
	const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	/* no Host at all (HTTP/1.0, raw sockets) is refused too: a request
	 * that names no host cannot be told apart from a rebinding one */
	if (srv->listen_loopback && (!host || !host_is_loopback_name(host))) {
		*why = host ? "Host header is not a loopback name (DNS rebinding protection)"
			    : "no Host header (DNS rebinding protection)";
		return 0;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0)
		return 1;
	const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
	if (!origin)
		return 1;
	if (strcasecmp(origin, "null") == 0) {
		*why = "Origin: null refused (sandboxed or opaque-origin pages cannot change "
		       "state)";
		return 0;
	}
	const char *p = strstr(origin, "://");
	if (!p || !host || strcasecmp(p + 3, host) != 0) {
		*why = "cross-origin POST refused";
		return 0;
	}
	return 1;
}
