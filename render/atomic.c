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
#include "fp_error.h"

/* Undoes a failed write: the temporary file goes, errno stays err. */
static int fail(const char *tmp, int err)
{
	unlink(tmp);
	errno = err;
	return -1;
}

/* Puts the complete temporary file tmp in place of path, atomically. A
 * rename() over an existing file makes ext4 (auto_da_alloc) write the new
 * file's data out within the call, so that a crash cannot leave an empty
 * file where an old one was: 45 ms for a 58 MB stacks.folded here, paid on
 * every re-render, all of it at the end of a report. These files are
 * rebuilt from the stream (a first write, to no old file, has no such
 * flush either), so the names are exchanged instead (as atomic for a
 * reader: the path holds the old file or the new) and the old file is
 * unlinked: 3 ms. Where there is no regular file at path, or the file
 * system cannot exchange, rename(). */
static int put_in_place(const char *tmp, const char *path)
{
#ifdef RENAME_EXCHANGE
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == 0) {
		unlink(tmp); /* now the old file */
		return 0;
	}
#endif
	return rename(tmp, path);
}

int fp_write_atomic(const char *dir, const char *name, mode_t mode, fp_fill_fn *fill, void *ctx,
		    char *path, size_t path_n)
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
	setvbuf(fp, NULL, _IONBF, 0); /* the sink buffers already */
	fp_sink_init_file(&s, fp);
	fill(ctx, &s);
	if (fp_sink_close(&s) < 0)
		err = errno;
	if (fclose(fp) != 0 && !err)
		err = errno;
	if (!err && put_in_place(tmp, path) < 0)
		err = errno;
	return err ? fail(tmp, err) : 0;
}

/* The files of a set, costliest first, and the next one to start. */
struct set_job {
	const char *dir;
	mode_t mode;
	fp_fill_fn *fill;
	struct fp_atomic_file **order;
	size_t n, next;
	pthread_mutex_t lock;
};

static struct fp_atomic_file *next_file(struct set_job *j)
{
	struct fp_atomic_file *f = NULL;

	pthread_mutex_lock(&j->lock);
	if (j->next < j->n)
		f = j->order[j->next++];
	pthread_mutex_unlock(&j->lock);
	return f;
}

static void *write_set_worker(void *arg)
{
	struct set_job *j = arg;
	struct fp_atomic_file *f;

	while ((f = next_file(j))) {
		f->rc = fp_write_atomic(j->dir, f->name, j->mode, j->fill, f->ctx, f->path,
					sizeof f->path);
		f->err = f->rc < 0 ? errno : 0;
	}
	return NULL;
}

static int costlier_first(const void *a, const void *b)
{
	const struct fp_atomic_file *x = *(struct fp_atomic_file *const *)a;
	const struct fp_atomic_file *y = *(struct fp_atomic_file *const *)b;

	if (x->cost != y->cost)
		return x->cost < y->cost ? 1 : -1;
	return (x > y) - (x < y); /* equal costs: in the caller's order */
}

void fp_write_atomic_set(const char *dir, mode_t mode, struct fp_atomic_file *files, size_t n,
			 fp_fill_fn *fill)
{
	struct set_job j = { .dir = dir, .mode = mode, .fill = fill };
	pthread_t tid;

	j.order = fp_xmalloc((n ? n : 1) * sizeof *j.order);
	for (size_t i = 0; i < n; i++)
		if (files[i].wanted)
			j.order[j.n++] = &files[i];
	qsort(j.order, j.n, sizeof *j.order, costlier_first);
	pthread_mutex_init(&j.lock, NULL);
	int threaded = j.n > 1 && pthread_create(&tid, NULL, write_set_worker, &j) == 0;

	write_set_worker(&j);
	if (threaded)
		pthread_join(tid, NULL);
	pthread_mutex_destroy(&j.lock);
	free(j.order);
}
