/* fuzz-httppath.c: libFuzzer target for fp-serve's handling of request
 * paths and query values (web/safepath.c, web/query.c).
 *
 * fuzz-sources: web/safepath.c web/query.c lib/*.c fifo/*.c recording/*.c
 * fuzz-libs: -lev -lz -lm -lpcre2-8 -ldeflate -lxxhash -lmicrohttpd
 * fuzz-max-len: 4096
 *
 * The input is a query string `key=value&key=value...`; each key and value
 * is URL-decoded with libmicrohttpd's own MHD_http_unescape (what the
 * server does before our code sees them, so %00 becomes a real NUL) and
 * handed to the check the server applies to that parameter. Beyond "no
 * crash, no leak, no undefined behaviour" it asserts:
 *  - safepath_open never returns a file whose real path is outside the
 *    profile directory (a temporary directory holding one file, a
 *    subdirectory and a symlink that points out of it), and refuses every
 *    name safepath_name_ok refuses;
 *  - the race-free opener follows no symlink at all: an opened file's real
 *    path is exactly DIR/NAME; and its two ways (openat2 RESOLVE_BENEATH |
 *    RESOLVE_NO_SYMLINKS, and the O_NOFOLLOW walk used without openat2)
 *    agree on every name: both open the same file, or both refuse;
 *  - an accepted name has no NUL, no control byte, no `.`-segment, no
 *    leading '/';
 *  - query_value_ok/query_filter_ok never accept CR, LF or NUL (they would
 *    let a value inject a line into fp-range's control FIFO);
 *  - query_seconds accepts only DIGITS[.DIGITS];
 *  - upload_safe_name always yields 1..UPLOAD_NAME_MAX bytes of
 *    [A-Za-z0-9._-] not starting with '.'.
 */
#include <assert.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <microhttpd.h>

#include "serve.h"

static struct server srv;
static char outside[PATH_MAX];
static char topdir[PATH_MAX];

/* removes the temporary tree (libFuzzer exits through exit()) */
static void cleanup(void)
{
	static const char *const rel[] = { "dir/sub/up", "dir/sub/b.perf", "dir/sub",
					   "dir/out",    "dir/a.perf",     "dir",
					   "secret" };
	char path[PATH_MAX];
	for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
		snprintf(path, sizeof path, "%s/%s", topdir, rel[i]);
		if (unlink(path) < 0)
			rmdir(path);
	}
	rmdir(topdir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	char tmpl[] = "/tmp/fuzz-httppath.XXXXXX";
	char *top = mkdtemp(tmpl);
	assert(top);
	snprintf(topdir, sizeof topdir, "%s", top);
	atexit(cleanup);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/dir", top);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/dir/a.perf", top);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	snprintf(path, sizeof path, "%s/dir/sub", top);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/dir/sub/b.perf", top);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	snprintf(outside, sizeof outside, "%s/secret", top);
	close(open(outside, O_WRONLY | O_CREAT, 0600));
	snprintf(path, sizeof path, "%s/dir/out", top);
	assert(symlink("../secret", path) == 0);
	snprintf(path, sizeof path, "%s/dir/sub/up", top);
	assert(symlink("..", path) == 0);
	snprintf(path, sizeof path, "%s/dir", top);
	srv.dir = srv.dir_real = realpath(path, NULL);
	assert(srv.dir_real);
	srv.dir_fd = open(srv.dir_real, O_RDONLY | O_DIRECTORY);
	return 0;
}

static void check_name(const char *v, size_t n)
{
	const char *why = NULL;
	int ok = safepath_name_ok(v, n, &why);
	if (ok) {
		assert(n > 0 && v[0] != '/');
		assert(!memchr(v, '\0', n));
		for (size_t i = 0; i < n; i++) {
			assert((unsigned char)v[i] >= 0x20 && v[i] != 0x7f);
			if (i == 0 || v[i - 1] == '/')
				assert(v[i] != '.' && v[i] != '/');
		}
	} else {
		assert(why && why[0]);
	}
	struct stat st;
	int status = 0;
	int fd = safepath_open(&srv, v, n, &st, &status, &why);
	if (fd < 0) {
		assert(status >= 400 && status < 500);
		if (!ok)
			assert(status == 400);
		return;
	}
	assert(ok);
	char proc[64], real[PATH_MAX];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	ssize_t rl = readlink(proc, real, sizeof real - 1);
	assert(rl > 0);
	real[rl] = '\0';
	size_t dl = strlen(srv.dir_real);
	assert(strncmp(real, srv.dir_real, dl) == 0 && real[dl] == '/');
	assert(strcmp(real, outside) != 0);
	assert(S_ISREG(st.st_mode));
	/* no symlink was followed: the real path is the name itself */
	assert(strlen(real) == dl + 1 + n && memcmp(real + dl + 1, v, n) == 0);
	close(fd);
}

/* openat2 and the walk agree (the name is NUL-free and checked or not:
 * both openers get it as it is). */
static void check_openers_agree(const char *v, size_t n)
{
	if (n == 0 || memchr(v, '\0', n) || n > 4096)
		return;
	char rel[4097];
	memcpy(rel, v, n);
	rel[n] = '\0';
	int a = safepath_open_beneath(srv.dir_fd, rel, O_RDONLY | O_NONBLOCK);
	int b = safepath_open_walk(srv.dir_fd, rel, O_RDONLY | O_NONBLOCK);
	struct stat sa, sb;
	if (a >= 0 && b >= 0) {
		assert(fstat(a, &sa) == 0 && fstat(b, &sb) == 0);
		assert(sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev);
	} else if (a >= 0 || b >= 0) {
		/* only openat2 may open: a name with a ".", ".." or empty
		 * segment that stays below DIR, which the walk refuses */
		assert(a >= 0 && b < 0);
		assert(strstr(rel, "//") || rel[0] == '/' || rel[n - 1] == '/' ||
		       strstr(rel, "./") || (n >= 1 && rel[n - 1] == '.'));
	}
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

static void check_value(const char *k, const char *v, size_t n)
{
	const char *why;
	int has_bad = memchr(v, '\n', n) || memchr(v, '\r', n) || memchr(v, '\0', n);
	if (query_value_ok(v, n, QUERY_VALUE_MAX, &why))
		assert(!has_bad);
	unsigned rows;
	if (query_rows(v, n, &rows, &why))
		assert(rows >= 1 && rows <= FP_ROWS_MAX);
	uint64_t ns;
	if (query_seconds(v, n, &ns, &why)) {
		int dots = 0;
		for (size_t i = 0; i < n; i++) {
			assert((v[i] >= '0' && v[i] <= '9') || v[i] == '.');
			dots += v[i] == '.';
		}
		assert(dots <= 1 && v[0] != '.' && v[n - 1] != '.');
	}
	char fwhy[QUERY_WHY_MAX];
	static const char *const words[] = { "pid",   "tid",     "cpu",    "comm",
					     "event", "include", "exclude" };
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strcmp(k, words[i]) == 0 && query_filter_ok(words[i], v, n, fwhy, sizeof fwhy))
			assert(!has_bad);
	char out[UPLOAD_NAME_MAX + 1];
	size_t len = upload_safe_name(v, n, out, sizeof out);
	assert(len >= 1 && len <= UPLOAD_NAME_MAX && strlen(out) == len && out[0] != '.');
	for (size_t i = 0; i < len; i++) {
		char c = out[i];
		assert((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		       c == '.' || c == '_' || c == '-');
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *q = malloc(size + 1);
	if (!q)
		return 0;
	memcpy(q, data, size);
	q[size] = '\0';
	/* a raw NUL cannot arrive in a URL: the query ends there */
	size_t len = strlen(q);
	char *p = q, *end = q + len;
	while (p <= end) {
		char *amp = memchr(p, '&', (size_t)(end - p));
		char *pe = amp ? amp : end;
		*pe = '\0';
		char *eq = strchr(p, '=');
		char *v = eq ? eq + 1 : pe;
		if (eq)
			*eq = '\0';
		MHD_http_unescape(p);
		size_t vn = MHD_http_unescape(v); /* length: NULs possible */
		if (strcmp(p, "filename") == 0 || strcmp(p, "compareFilename") == 0 || p[0] == '\0')
			check_name(v, vn);
		if (strcmp(p, "filename") == 0)
			check_openers_agree(v, vn);
		check_value(p, v, vn);
		if (!amp)
			break;
		p = amp + 1;
	}
	free(q);
	return 0;
}
