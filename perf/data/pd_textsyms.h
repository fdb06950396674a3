/* pd_textsyms.h: symbol tables read from text files (pd_textsyms.c), and
 * the one way pd_symbols.c, pd_kcache.c and it open and read a file.
 */
#ifndef PD_TEXTSYMS_H
#define PD_TEXTSYMS_H

#include <stddef.h>

struct pd_dso;

/* The kernel's symbols: perf's copy of kallsyms when it must hold what
 * /proc/kallsyms holds (d->kallsyms_copy = 1), else the file set by
 * pd_symbols_set_kallsyms; prepared as perf prepares its own. */
void pd_load_kallsyms(struct pd_dso *d);
/* A JIT map, /tmp/perf-PID.map (d->name): "START SIZE NAME" lines. */
void pd_load_jitmap(struct pd_dso *d);
/* Opens a regular file only: a recording may name a FIFO or a device,
 * which must neither block nor be read (/proc files are regular). The fd,
 * or -1 with *err the errno (EINVAL: not a regular file). */
int pd_open_regular(const char *path, int *err);
/* The whole of the regular file at path, NUL-terminated, in *len bytes
 * (read until EOF: /proc files report size 0); NULL with *err the errno
 * (ENOENT: no such file). */
char *pd_read_file(const char *path, size_t *len, int *err);

#endif
