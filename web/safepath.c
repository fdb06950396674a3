/* safepath.c: open client-named files without ever leaving DIR.
 *
 * Two independent defences: the name is checked as text (no NUL, no
 * absolute path, no `.`/`..`/empty segment, no dotfile, no backslash), and
 * the file is opened relative to DIR's directory fd so that the kernel
 * itself refuses any way out, in the same system call that opens it (no
 * check-then-open race: a directory flipped to a symlink between a check
 * and the open cannot redirect it):
 *  - openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
 *    where the kernel has it (Linux 5.6+);
 *  - else a walk from DIR's fd, one segment at a time, each opened with
 *    O_NOFOLLOW (directories O_PATH | O_DIRECTORY): a symlink anywhere on
 *    the path fails with ELOOP or ENOTDIR.
 * Both refuse every symlink, inside DIR or not (docs/fp-serve.md). The opened
 * file is fstat-checked to be a regular file; the caller hands that fd to
 * the stages, so nothing can swap the file between check and read.
 * Names arrive already URL-decoded by libmicrohttpd: `%2e%2e%2f` is `../`
 * here, and `%00` is an embedded NUL (hence the explicit length).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fp_error.h"
#include "serve.h"

#define NAME_MAX_LEN 4096

int safepath_name_ok(const char *name, size_t n, const char **why)
{
	if (n == 0) {
		*why = "missing file name";
		return 0;
	}
	if (n > NAME_MAX_LEN) {
		*why = "file name too long";
		return 0;
	}
	if (memchr(name, '\0', n)) {
		*why = "file name contains NUL";
		return 0;
	}
	if (name[0] == '/') {
		*why = "absolute paths are not allowed";
		return 0;
	}
	if (memchr(name, '\\', n)) {
		*why = "backslash in file name";
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f) {
			*why = "control character in file name";
			return 0;
		}
	/* every segment: non-empty, not starting with '.', so no `.`, `..`,
	 * and no dotfiles (hidden in listings, refused here too) */
	const char *seg = name, *end = name + n;
	while (seg <= end) {
		const char *slash = memchr(seg, '/', (size_t)(end - seg));
		const char *seg_end = slash ? slash : end;
		if (seg_end == seg) {
			*why = "empty path segment";
			return 0;
		}
		if (seg[0] == '.') {
			*why = (seg_end - seg == 2 && seg[1] == '.')
				       ? "'..' is not allowed in file names"
				       : "hidden files and '.' segments are not allowed";
			return 0;
		}
		if (!slash)
			break;
		seg = slash + 1;
	}
	return 1;
}

int safepath_open_walk(int dir_fd, const char *rel, int flags)
{
	char buf[NAME_MAX_LEN + 1];
	size_t n = strlen(rel);
	if (n > NAME_MAX_LEN) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, rel, n + 1);
	int cur = dir_fd;
	char *seg = buf;
	for (;;) {
		char *slash = strchr(seg, '/');
		size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
		int fd;
		/* "..", "." and empty segments: the walk never climbs (openat2's
		 * RESOLVE_BENEATH would allow a ".." that stays below DIR) */
		if (len == 0 || (seg[0] == '.' && (len == 1 || (len == 2 && seg[1] == '.')))) {
			if (cur != dir_fd)
				close(cur);
			errno = EXDEV;
			return -1;
		}
		if (!slash) {
			fd = openat(cur, seg, flags | O_NOFOLLOW | O_CLOEXEC);
		} else {
			*slash = '\0';
			fd = openat(cur, seg, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		int e = errno;
		if (cur != dir_fd)
			close(cur);
		if (fd < 0) {
			errno = e;
			return -1;
		}
		if (!slash)
			return fd;
		cur = fd;
		seg = slash + 1;
	}
}

/* Set once openat2 answered ENOSYS/EPERM (an old kernel, a seccomp
 * filter, valgrind): the walk from then on. */
static atomic_int no_openat2;

int safepath_open_beneath(int dir_fd, const char *rel, int flags)
{
#ifdef SYS_openat2
	if (!atomic_load(&no_openat2)) {
		struct open_how how = {
			.flags = (uint64_t)(flags | O_CLOEXEC),
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		long fd = syscall(SYS_openat2, dir_fd, rel, &how, sizeof how);
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
			return (int)fd;
		atomic_store(&no_openat2, 1);
	}
#endif
	return safepath_open_walk(dir_fd, rel, flags);
}

int safepath_open(const struct server *srv, const char *name, size_t n, struct stat *st,
		  int *status, const char **why)
{
	if (!safepath_name_ok(name, n, why)) {
		*status = 400;
		return -1;
	}
	char rel[NAME_MAX_LEN + 1];
	memcpy(rel, name, n); /* no NUL inside: checked */
	rel[n] = '\0';
	int fd = safepath_open_beneath(srv->dir_fd, rel, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		switch (errno) {
		case ENOENT:
		case ENOTDIR: /* a path segment is a file */
			*status = 404;
			*why = "no such file";
			break;
		case ELOOP: /* a symlink on the path (or the file itself) */
			*status = 403;
			*why = "symbolic links are not followed";
			break;
		case EXDEV: /* would leave DIR */
			*status = 403;
			*why = "file is outside the profile directory";
			break;
		default:
			*status = 403;
			*why = "cannot open file";
		}
		return -1;
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		*status = 404;
		*why = "not a regular file";
		return -1;
	}
	/* regular file: blocking reads are fine for the stage that gets it */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}
