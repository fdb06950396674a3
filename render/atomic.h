/* atomic.h: a rendered file written whole or not at all.
 *
 * fp_write_atomic() renders into DIR/.NAME.XXXXXX (mode `mode`, close-on-
 * exec) and renames it to DIR/NAME only once every byte is on disk, so a
 * reader (a browser reloading index.html, fp-serve, a test) never sees a
 * half file, even when the disk fills up: a failed write leaves the old
 * DIR/NAME in place and removes the temporary file.
 *
 * Calling sequence:
 *	char path[PATH_MAX];
 *	if (fp_write_atomic(dir, "flame.svg", 0644, draw, ctx, path, sizeof path) < 0)
 *		fp_die_sys(FP_EXIT_SYS, "write %s", path);   // errno says why
 * draw(ctx, sink) writes the content into the sink (render/sink.h).
 */
#ifndef FP_ATOMIC_H
#define FP_ATOMIC_H

#include <stddef.h>
#include <sys/types.h>

#include "sink.h"

typedef void fp_fill_fn(void *ctx, struct fp_sink *s);

/* Returns 0, or -1 with errno (ENAMETOOLONG, ENOSPC, ...). path[] gets
 * DIR/NAME either way, for the caller's message. */
int fp_write_atomic(const char *dir, const char *name, mode_t mode, fp_fill_fn *fill,
		    void *ctx, char *path, size_t path_n);

#endif
