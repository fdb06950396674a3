/* ui.c: serves the page embedded from ui/ (ui/embed.sh; the same files
 * fp-render's index.html embeds), so bin/fp-serve needs no files at run
 * time. Until ui/index.html exists a placeholder page lists the API. */
#include <string.h>

#include "http.h"
#include "ui_files.h"

static const char placeholder[] =
	"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	"<title>flamepipe</title></head><body>\n"
	"<h1>flamepipe</h1>\n<p>The web page is not built into this fp-serve. The JSON API "
	"works: <a href=\"/profile/\">/profile/</a>, /heatmap/?filename=F&amp;rows=50, "
	"/flamegraph/?filename=F&amp;start=S&amp;end=E (see docs/fp-serve.md).</p>\n"
	"</body></html>\n";

enum MHD_Result ui_serve(struct MHD_Connection *c, const char *path, int *found)
{
	if (path[0] == '\0')
		path = "index.html";
	for (size_t i = 0; ui_files[i].path; i++) {
		if (strcmp(ui_files[i].path, path) != 0)
			continue;
		if (found)
			*found = 1;
		struct MHD_Response *r = MHD_create_response_from_buffer(
			ui_files[i].len, (void *)ui_files[i].data, MHD_RESPMEM_PERSISTENT);
		if (!r)
			return MHD_NO;
		http_common_headers(r, ui_files[i].type);
		enum MHD_Result ret = MHD_queue_response(c, 200, r);
		MHD_destroy_response(r);
		return ret;
	}
	if (strcmp(path, "index.html") == 0) {
		if (found)
			*found = 1;
		struct MHD_Response *r = MHD_create_response_from_buffer(
			sizeof placeholder - 1, (void *)placeholder, MHD_RESPMEM_PERSISTENT);
		if (!r)
			return MHD_NO;
		http_common_headers(r, CT_HTML);
		enum MHD_Result ret = MHD_queue_response(c, 200, r);
		MHD_destroy_response(r);
		return ret;
	}
	if (!found)
		return http_error(c, 404, "no such file in the web page");
	return MHD_NO;
}
