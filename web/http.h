/* http.h: fp-serve's libmicrohttpd glue shared by its route files. */
#ifndef FP_HTTP_H
#define FP_HTTP_H

#include <stddef.h>
#include <microhttpd.h>

#include "sink.h"

/* Content types */
#define CT_JSON "application/json"
#define CT_HTML "text/html; charset=utf-8"
#define CT_SVG "image/svg+xml"
#define CT_TEXT "text/plain; charset=utf-8"

/* Queues `body` (ownership taken: the buffer is freed by libmicrohttpd)
 * with the security headers every response carries. */
enum MHD_Result http_reply(struct MHD_Connection *c, unsigned status, const char *ctype,
			   struct fp_sink *body);
/* Like http_reply, plus one more header (e.g. Content-Disposition). */
enum MHD_Result http_reply_hdr(struct MHD_Connection *c, unsigned status, const char *ctype,
			       struct fp_sink *body, const char *hname, const char *hvalue);
/* {"error":"..."} with the given 4xx/5xx status. */
enum MHD_Result http_error(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Adds the common headers (nosniff, no-store...) to a response. */
void http_common_headers(struct MHD_Response *r, const char *ctype);

/* A query parameter: NULL if absent, else its decoded bytes (NUL-
 * terminated, but may contain NULs: *n is the real length). */
const char *http_arg(struct MHD_Connection *c, const char *name, size_t *n);

/* ---- api.c: the routes ---------------------------------------------------- */

enum MHD_Result api_profile(struct MHD_Connection *c);
enum MHD_Result api_heatmap(struct MHD_Connection *c, int svg);
/* kind: FG_TREE, FG_SVG, FG_FOLDED */
enum { FG_TREE, FG_SVG, FG_FOLDED };
enum MHD_Result api_flamegraph(struct MHD_Connection *c, int kind);
/* elided: 0 differential, 1 elided */
enum MHD_Result api_compare(struct MHD_Connection *c, int elided);
enum MHD_Result api_live_events(struct MHD_Connection *c);
enum MHD_Result api_live_range(struct MHD_Connection *c);
enum MHD_Result api_live_flamegraph(struct MHD_Connection *c);
/* Wakes SSE streams and waiting requests at shutdown. */
void api_shutdown(void);

/* ---- upload.c --------------------------------------------------------------- */

struct upload;
/* Handles every call of a POST /upload request; *state is the
 * connection's upload (created on the first call). */
enum MHD_Result upload_request(struct MHD_Connection *c, const char *data, size_t *size,
			       struct upload **state);
void upload_free(struct upload *u);

/* ---- ui.c: embedded web page ---------------------------------------------- */

/* Serves `path` (without the leading '/': "" = index.html) from the files
 * embedded from web/ui/; returns MHD_NO... never: 404 JSON if absent. */
enum MHD_Result ui_serve(struct MHD_Connection *c, const char *path, int *found);

#endif
