/* ui_files.h: the page's files (ui/), embedded by ui/embed.sh into
 * fp-serve (web/ui.c) and fp-render's index.html (render/views.c). */
#ifndef FP_UI_FILES_H
#define FP_UI_FILES_H

#include <stddef.h>

struct ui_file {
	const char *path; /* below ui/, e.g. "index.html" */
	const char *type; /* Content-Type */
	const unsigned char *data;
	size_t len;
};

extern const struct ui_file ui_files[]; /* ended by a NULL path */
extern const size_t ui_nfiles;

#endif
