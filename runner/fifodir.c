/* fifodir.c: the private FIFO directory, the FIFOs (made 0600, never
 * reused) and the runner's holds on both ends of every link, and their
 * removal (supervise.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ev.h>

#include "fp_error.h"
#include "fp_fifo.h"
#include "supervise.h"

/* Removes what we made; only in the process that made it (a forked
 * child that failed to exec must not). */
void sv_remove_files(struct fp_run *r)
{
	if (!r || getpid() != r->owner)
		return;
	for (size_t i = 0; i < r->nmade; i++) {
		unlink(r->made[i]);
		free(r->made[i]);
	}
	r->nmade = 0;
	if (r->dir_ours && r->dir) {
		/* Our private directory: reply FIFOs of ctl clients, control
		 * FIFOs made by stages (fp-range --control) go with it. */
		DIR *d = opendir(r->dir);

		if (d) {
			struct dirent *e;

			while ((e = readdir(d)))
				if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
					unlinkat(dirfd(d), e->d_name, 0);
			closedir(d);
		}
		if (rmdir(r->dir) < 0 && errno != ENOENT)
			fp_warn_sys("cannot remove fifo dir %s", r->dir);
		r->dir_ours = 0;
	}
}

/* A user-given directory: made 0700 if missing, else it must be a real
 * directory of ours that nobody else can write to. */
void sv_use_given_dir(struct fp_run *r, const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) == 0) {
		r->dir_ours = 1;
	} else if (errno != EEXIST) {
		fp_die_sys(FP_EXIT_SYS, "cannot make fifo dir %s", dir);
	} else {
		if (lstat(dir, &st) < 0)
			fp_die_sys(FP_EXIT_SYS, "cannot stat fifo dir %s", dir);
		if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
			fp_die(FP_EXIT_USAGE,
			       "fifo dir %s: exists and is not a directory of ours "
			       "with mode 0700 (refusing to use it)",
			       dir);
	}
	r->dir = fp_xstrdup(dir);
}

void sv_make_private_dir(struct fp_run *r)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	tmpl = sv_path_in(tmp, DIR_TEMPLATE);
	if (fp_fifo_private_dir(tmpl) < 0)
		fp_die_sys(FP_EXIT_SYS, "cannot make a private fifo dir %s", tmpl);
	r->dir = tmpl;
	r->dir_ours = 1;
}

/* mkfifo 0600 at a path that must not exist yet: anything already there
 * (a file, a symlink, a FIFO left by someone) is refused, never reused. */
int sv_make_fifo(struct fp_run *r, const char *path, int give)
{
	if (mkfifo(path, FIFO_MODE) < 0) {
		int e = errno;

		if (e == EEXIST)
			sv_log("%s: exists already (refusing to use it: remove it, or use a fresh "
			       "--fifo-dir)",
			       path);
		else
			sv_log("cannot make FIFO %s: %s", path, strerror(e));
		return e == EEXIST ? FP_EXIT_USAGE : FP_EXIT_SYS;
	}
	r->made = fp_xrealloc(r->made, (r->nmade + 1) * sizeof *r->made);
	r->made[r->nmade++] = fp_xstrdup(path);
	/* --user: the stages must be able to open a link (reopen by path).
	 * Never the control FIFO: `replace` of the source runs as root. */
	if (give && r->drop_user && chown(path, r->uid, r->gid) < 0) {
		sv_log("cannot chown FIFO %s: %s", path, strerror(errno));
		return FP_EXIT_SYS;
	}
	return 0;
}

/* Makes link l at DIR/WRITER.out and holds both its ends. The write hold
 * is non-blocking: the runner only ever writes a short W record into it
 * and must never wait on a slow reader. */
int sv_make_link(struct fp_run *r, struct link *l, const char *writer)
{
	char name[FP_STAGE_NAME_MAX + 8];
	int rc;

	l->hold_r = l->hold_w = -1;
	snprintf(name, sizeof name, "%s.out", writer);
	l->path = sv_path_in(r->dir, name);
	if ((rc = sv_make_fifo(r, l->path, 1)))
		return rc;
	/* Read hold first: the write open needs a reader. */
	l->hold_r = open(l->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (l->hold_r >= 0)
		l->hold_w = open(l->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (l->hold_r < 0 || l->hold_w < 0) {
		sv_log("cannot open FIFO %s: %s", l->path, strerror(errno));
		return FP_EXIT_SYS;
	}
	return 0;
}

int sv_make_links(struct fp_run *r)
{
	int rc;

	r->links = fp_xcalloc(r->n ? r->n - 1 : 1, sizeof *r->links);
	for (size_t i = 0; i + 1 < r->n; i++)
		if ((rc = sv_make_link(r, &r->links[i], r->pl.stages[i].name)))
			return rc;
	return 0;
}

/* Written to a temporary name and renamed: a reader never sees half. */
int sv_write_dir_file(struct fp_run *r)
{
	size_t len = strlen(r->opts.dir_file);
	char *tmp = fp_xmalloc(len + 32);
	FILE *f;

	snprintf(tmp, len + 32, "%s.tmp%ld", r->opts.dir_file, (long)getpid());
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s\n", r->dir) < 0 || fclose(f) != 0 ||
	    rename(tmp, r->opts.dir_file) < 0) {
		sv_log("cannot write %s: %s", r->opts.dir_file, strerror(errno));
		unlink(tmp);
		free(tmp);
		return FP_EXIT_SYS;
	}
	free(tmp);
	return 0;
}
