/* http.h: fp-serve's libmicrohttpd glue shared by its route files. */
#ifndef FP_HTTP_H
#define FP_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <microhttpd.h>

#include "sink.h"

/* Content types */
#define CT_JSON "application/json"
#define CT_HTML "text/html; charset=utf-8"
#define CT_SVG "image/svg+xml"
#define CT_TEXT "text/plain; charset=utf-8"

/* Queues `body` (ownership taken: the buffer is freed by libmicrohttpd)
 * with the security headers every response carries; compressed when the
 * client accepts gzip (http_accepts_gzip). */
enum MHD_Result http_reply(struct MHD_Connection *c, unsigned status, const char *ctype,
			   struct fp_sink *body);
/* Like http_reply, plus one more header (e.g. Content-Disposition). */
enum MHD_Result http_reply_hdr(struct MHD_Connection *c, unsigned status, const char *ctype,
			       struct fp_sink *body, const char *hname, const char *hvalue);
/* A body many requests are answered with (a cache's, e.g. the live flame
 * graph's, made once per snapshot for every viewer): reference-counted,
 * each queued answer holding a reference until libmicrohttpd has sent it;
 * its gzip form is made once, by the first client that takes gzip. */
struct http_shared;
/* Takes body's buffer (body is left empty); one reference, the caller's. */
struct http_shared *http_shared_new(struct fp_sink *body);
/* The same, kept gzip-compressed only (a cache's: a flame graph tree of a
 * system-wide capture is 173 MB of JSON, 8 MB gzipped), compressed now; a
 * client that does not take gzip gets it inflated for its answer. */
struct http_shared *http_shared_new_packed(struct fp_sink *body);
/* The bytes it holds (a cache's account). */
size_t http_shared_bytes(struct http_shared *b);
struct http_shared *http_shared_ref(struct http_shared *b);
void http_shared_unref(struct http_shared *b); /* NULL: nothing */
/* CPU ms its gzip form took to make (0 until a client took gzip). */
uint64_t http_shared_gzip_ms(struct http_shared *b);
/* Queues b with the headers of http_reply, compressed as it would be. */
enum MHD_Result http_reply_shared(struct MHD_Connection *c, unsigned status, const char *ctype,
				  struct http_shared *b);
/* Like http_reply_shared, plus one more header (e.g. Server-Timing). */
enum MHD_Result http_reply_shared_hdr(struct MHD_Connection *c, unsigned status, const char *ctype,
				      struct http_shared *b, const char *hname, const char *hvalue);
/* Whether an Accept-Encoding value takes gzip (JSON, SVG and text answers
 * of 1 KiB or more are then sent gzip-compressed, with Vary). */
int http_accepts_gzip(const char *accept_encoding);
/* {"error":"..."} with the given 4xx/5xx status. */
enum MHD_Result http_error(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Adds the common headers (nosniff, no-store...) to a response. */
void http_common_headers(struct MHD_Response *r, const char *ctype);

/* A query parameter: NULL if absent, else its decoded bytes (NUL-
 * terminated, but may contain NULs: *n is the real length). */
const char *http_arg(struct MHD_Connection *c, const char *name, size_t *n);

struct server;
struct job;
/* The job of a request on connection c (its client's socket). */
struct job http_job(const struct server *srv, struct MHD_Connection *c);

/* The checks every request passes before its route: Host a loopback name
 * when listening on loopback (DNS rebinding), and a POST's Origin the
 * server's own. 1 if allowed, else 0 with *why. */
int http_request_allowed(const struct server *srv, struct MHD_Connection *c, const char *method,
			 const char **why);

#endif
