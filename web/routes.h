/* routes.h: fp-serve's route handlers (api.c, upload.c, ui.c), called by
 * the dispatcher in fp-serve.c. Each gets the server it runs in. */
#ifndef FP_ROUTES_H
#define FP_ROUTES_H

#include <stddef.h>
#include <microhttpd.h>

struct server;

/* ---- listing.c -------------------------------------------------------------- */

enum MHD_Result api_profile(struct server *srv, struct MHD_Connection *c);

/* ---- api.c: the routes ---------------------------------------------------- */

enum MHD_Result api_heatmap(struct server *srv, struct MHD_Connection *c, int svg);
/* kind: FG_TREE, FG_SVG, FG_FOLDED */
enum { FG_TREE, FG_SVG, FG_FOLDED };
enum MHD_Result api_flamegraph(struct server *srv, struct MHD_Connection *c, int kind);
/* elided: 0 differential, 1 elided */
enum MHD_Result api_compare(struct server *srv, struct MHD_Connection *c, int elided);
/* /pprof/: a capture file's selection as profile.pb.gz */
enum MHD_Result api_pprof(struct server *srv, struct MHD_Connection *c);
/* /threads/: the top processes and threads of a capture (with the filters) */
enum MHD_Result api_threads(struct server *srv, struct MHD_Connection *c);
/* /flamechart/: a selection's samples in time order */
enum MHD_Result api_flamechart(struct server *srv, struct MHD_Connection *c);
enum MHD_Result api_live_events(struct server *srv, struct MHD_Connection *c);
enum MHD_Result api_live_flamegraph(struct server *srv, struct MHD_Connection *c);
/* Wakes SSE streams and waiting requests at shutdown. */
void api_shutdown(struct server *srv);

/* ---- upload.c --------------------------------------------------------------- */

struct upload;
/* Handles every call of a POST /upload request; *state is the
 * connection's upload (created on the first call). */
enum MHD_Result upload_request(struct server *srv, struct MHD_Connection *c, const char *data,
			       size_t *size, struct upload **state);
void upload_free(struct upload *u);

/* ---- ui.c: embedded web page ---------------------------------------------- */

/* Serves `path` (without the leading '/': "" = index.html) from the files
 * embedded from ui/; returns MHD_NO... never: 404 JSON if absent. */
enum MHD_Result ui_serve(struct MHD_Connection *c, const char *path, int *found);

#endif
