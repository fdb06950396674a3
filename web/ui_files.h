/* ui_files.h: the web page's files, embedded by web/embed.sh. */
#ifndef FP_UI_FILES_H
#define FP_UI_FILES_H

#include <stddef.h>

struct ui_file {
	const char *path;	/* below web/ui/, e.g. "index.html" */
	const char *type;	/* Content-Type */
	const unsigned char *data;
	size_t len;
};

extern const struct ui_file ui_files[];	/* ended by a NULL path */
extern const size_t ui_nfiles;

#endif
