/* atomic.h: a rendered file written whole or not at all.
 *
 * fp_write_atomic() renders into DIR/.NAME.XXXXXX (mode `mode`, close-on-
 * exec) and puts it in place of DIR/NAME (atomic.c: put_in_place) only
 * once every byte is written, so a reader (a browser reloading index.html,
 * fp-serve, a test) never sees a half file, even when the disk fills up:
 * a failed write leaves the old DIR/NAME in place and removes the
 * temporary file.
 *
 * Calling sequence:
 *	char path[PATH_MAX];
 *	if (fp_write_atomic(dir, "flame.svg", 0644, draw, ctx, path, sizeof path) < 0)
 *		fp_die_sys(FP_EXIT_SYS, "write %s", path);   // errno says why
 * draw(ctx, sink) writes the content into the sink (render/sink.h).
 * fp_write_atomic_set() writes several such files on two threads.
 */
#ifndef FP_ATOMIC_H
#define FP_ATOMIC_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sink.h"

typedef void fp_fill_fn(void *ctx, struct fp_sink *s);

/* Returns 0, or -1 with errno (ENAMETOOLONG, ENOSPC, ...). path[] gets
 * DIR/NAME either way, for the caller's message. */
int fp_write_atomic(const char *dir, const char *name, mode_t mode, fp_fill_fn *fill, void *ctx,
		    char *path, size_t path_n);

/* A set of files written together by fp_write_atomic_set. */
struct fp_atomic_file {
	const char *name;    /* in the directory */
	int wanted;          /* 0: skipped */
	void *ctx;           /* given to fill */
	uint64_t cost;       /* what it should take, in any unit: the order they start in */
	int rc, err;         /* out: fp_write_atomic's result, its errno */
	char path[PATH_MAX]; /* out: DIR/NAME, for the caller's message */
};

/* Writes every wanted file of files[0..n) with fp_write_atomic, on this
 * thread and one more, so two cores share the work: each takes the next
 * file not started, the costliest first (the longest one starts at once,
 * the short ones fill in beside it), so fill must be safe to run for any
 * two files at once. Every file is attempted; the caller reads rc/err in
 * its own order. (If the thread cannot start, all on this one.) */
void fp_write_atomic_set(const char *dir, mode_t mode, struct fp_atomic_file *files, size_t n,
			 fp_fill_fn *fill);

#endif
