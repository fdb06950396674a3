/* safepath.c: open client-named files without ever leaving DIR.
 *
 * Two independent defences: the name is checked as text (no NUL, no
 * absolute path, no `.`/`..`/empty segment, no dotfile, no backslash), and
 * the file that would be opened is resolved with realpath() and must lie
 * inside realpath(DIR) (so a symlink inside DIR that points out of it is
 * refused). The file is then opened with O_NOFOLLOW on its real path and
 * fstat-checked to be a regular file; the caller hands that fd to the
 * stages, so nothing can swap the file between check and read.
 * Names arrive already URL-decoded by libmicrohttpd: `%2e%2e%2f` is `../`
 * here, and `%00` is an embedded NUL (hence the explicit length).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
			*why = (seg_end - seg == 2 && seg[1] == '.') ?
				"'..' is not allowed in file names" :
				"hidden files and '.' segments are not allowed";
			return 0;
		}
		if (!slash)
			break;
		seg = slash + 1;
	}
	return 1;
}

int safepath_open(const struct server *srv, const char *name, size_t n, struct stat *st,
		  int *status, const char **why)
{
	if (!safepath_name_ok(name, n, why)) {
		*status = 400;
		return -1;
	}
	size_t dlen = strlen(srv->dir_real);
	char *joined = fp_xmalloc(dlen + 1 + n + 1);
	memcpy(joined, srv->dir_real, dlen);
	joined[dlen] = '/';
	memcpy(joined + dlen + 1, name, n);
	joined[dlen + 1 + n] = '\0';

	char *real = realpath(joined, NULL);
	free(joined);
	if (!real) {
		*status = 404;
		*why = "no such file";
		return -1;
	}
	/* inside DIR: DIR itself is a directory, so a file must be below it */
	int inside = strncmp(real, srv->dir_real, dlen) == 0 &&
		(real[dlen] == '/' || (dlen == 1 && srv->dir_real[0] == '/'));
	if (!inside) {
		free(real);
		*status = 403;
		*why = "file is outside the profile directory";
		return -1;
	}
	int fd = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	free(real);
	if (fd < 0) {
		*status = errno == ENOENT ? 404 : 403;
		*why = errno == ENOENT ? "no such file" : "cannot open file";
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
