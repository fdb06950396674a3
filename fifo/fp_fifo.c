/* fp_fifo.c: FIFO hygiene (fp_fifo.h). After s6-supervise's control_init:
 * mkfifo 0600, refuse anything at the path that is not a FIFO of ours,
 * never follow symlinks, every fd close-on-exec. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fp_fifo.h"

#define PRIVATE_DIR_MODE 0700
#define FIFO_MODE 0600

int fp_fifo_private_dir(char *tmpl)
{
	if (!mkdtemp(tmpl))
		return -1;
	/* mkdtemp gives 0700 already; make it explicit against odd umasks. */
	return chmod(tmpl, PRIVATE_DIR_MODE);
}

/* The path must be a FIFO owned by our uid, not a link to one. */
static int is_own_fifo(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -1;
	if (!S_ISFIFO(st.st_mode) || st.st_uid != geteuid()) {
		errno = EEXIST;
		return -1;
	}
	return 0;
}

int fp_fifo_make(const char *path)
{
	if (mkfifo(path, FIFO_MODE) == 0)
		return 0;
	if (errno != EEXIST)
		return -1;
	return is_own_fifo(path);
}

int fp_fifo_hold(const char *path)
{
	if (is_own_fifo(path) < 0)
		return -1;
	/* O_RDWR on a FIFO never blocks on Linux and keeps both ends alive. */
	return open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
}

int fp_fifo_open_reader(const char *path, int *keep_fd)
{
	int fd, w;

	if (is_own_fifo(path) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	/* Our own write end: writers may come and go without us seeing EOF
	 * or a POLLHUP busy loop (daemontools supervise.c does the same). */
	w = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (w < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	if (keep_fd)
		*keep_fd = w;
	return fd;
}

int fp_fifo_open_writer(const char *path)
{
	int fd, fl;

	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1; /* ENXIO: nobody reads it */
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}
