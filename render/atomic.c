/* atomic.c: a rendered file written whole or not at all (atomic.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"

/* Undoes a failed write: the temporary file goes, errno stays err. */
static int fail(const char *tmp, int err)
{
	unlink(tmp);
	errno = err;
	return -1;
}

int fp_write_atomic(const char *dir, const char *name, mode_t mode, fp_fill_fn *fill,
		    void *ctx, char *path, size_t path_n)
{
	char tmp[PATH_MAX];
	struct fp_sink s;
	int fd, err = 0;
	FILE *fp;

	snprintf(path, path_n, "%s/%s", dir, name);
	if ((size_t)snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, name) >= sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fchmod(fd, mode) < 0 || !(fp = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
		return fail(tmp, err);
	}
	setvbuf(fp, NULL, _IONBF, 0);	/* the sink buffers already */
	fp_sink_init_file(&s, fp);
	fill(ctx, &s);
	if (fp_sink_close(&s) < 0)
		err = errno;
	if (fclose(fp) != 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) < 0)
		err = errno;
	return err ? fail(tmp, err) : 0;
}
