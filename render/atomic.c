/* atomic.c: a rendered file written whole or not at all (atomic.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
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

struct set_job {
	const char *dir;
	mode_t mode;
	struct fp_atomic_file *f;
	fp_fill_fn *fill;
};

static void write_set_one(struct set_job *j)
{
	j->f->rc = fp_write_atomic(j->dir, j->f->name, j->mode, j->fill, j->f->ctx, j->f->path,
				   sizeof j->f->path);
	j->f->err = j->f->rc < 0 ? errno : 0;
}

static void *write_set_thread(void *arg)
{
	write_set_one(arg);
	return NULL;
}

void fp_write_atomic_set(const char *dir, mode_t mode, struct fp_atomic_file *files, size_t n,
			 int own_thread, fp_fill_fn *fill)
{
	struct set_job side = { dir, mode, NULL, fill };
	pthread_t tid;
	int threaded = 0;

	if (own_thread >= 0 && (size_t)own_thread < n && files[own_thread].wanted) {
		side.f = &files[own_thread];
		threaded = pthread_create(&tid, NULL, write_set_thread, &side) == 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct set_job j = { dir, mode, &files[i], fill };

		if (files[i].wanted && !(threaded && (int)i == own_thread))
			write_set_one(&j);
	}
	if (threaded)
		pthread_join(tid, NULL);
}
