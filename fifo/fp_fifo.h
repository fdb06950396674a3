/* fp_fifo.h: FIFO creation and opening with the semantics flamepipe needs.
 *
 * Calling sequence (runner):
 *	char dir[] = ...; fp_fifo_private_dir(dir, sizeof dir);  // mkdtemp, 0700
 *	fp_fifo_make(path);               // mkfifo 0600; refuses anything else
 *	int hold = fp_fifo_hold(path);    // O_RDWR|O_CLOEXEC: the pipe never
 *	                                  // "closes" while the runner lives
 * Calling sequence (a stage reading a control FIFO that writers open and
 * close at will):
 *	int fd = fp_fifo_open_reader(path, &keep_fd);  // non-blocking read end,
 *	                                  // plus a write end kept open so the
 *	                                  // reader never sees EOF/POLLHUP
 */
#ifndef FP_FIFO_H
#define FP_FIFO_H

#include <stddef.h>

/* Creates a private directory from template (e.g. "/tmp/flamepipe.XXXXXX"),
 * mode 0700. Returns 0 or -1 with errno. */
int fp_fifo_private_dir(char *tmpl);
/* mkfifo(path, 0600). If path exists it must be a FIFO owned by us that we
 * created in this run; anything else (file, symlink, other owner) is refused
 * with -1/EEXIST. */
int fp_fifo_make(const char *path);
/* Opens path O_RDWR|O_NONBLOCK|O_CLOEXEC|O_NOFOLLOW after checking it is a FIFO. */
int fp_fifo_hold(const char *path);
/* Opens path for reading (O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_NOFOLLOW) and also
 * opens a write end into *keep_fd, so the reader survives writers that close
 * and reopen. Returns the read fd or -1 with errno. */
int fp_fifo_open_reader(const char *path, int *keep_fd);
/* Opens path for writing without blocking forever: O_WRONLY|O_NONBLOCK
 * (ENXIO when no reader) then clears O_NONBLOCK. -1 with errno. */
int fp_fifo_open_writer(const char *path);

#endif
