/* listing.c: GET /profile/, the captures below DIR (docs/fp-serve.md).
 *
 * A recursive walk from DIR's fd: dotfiles and dot-directories skipped,
 * directories entered with O_NOFOLLOW (no loops, no way out), symlinks
 * not listed (safepath_open never follows one); each regular file is
 * listed if its content is a capture a source stage reads
 * (fifo/fp_sniff.h), then the live capture if there is one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "fp_error.h"
#include "fp_sniff.h"
#include "http.h"
#include "live.h"
#include "routes.h"
#include "serve.h"

#define LIST_MAX_FILES 100000 /* a listing stops there (and says so) */
#define LIST_MAX_DEPTH 32

/* ---- /profile/ ------------------------------------------------------------------ */

struct listed {
	char *name;
	struct stat st;
};

struct listing {
	struct listed *e;
	size_t n, cap;
	int truncated;
};

static void listing_add(struct listing *L, const char *name, const struct stat *st)
{
	if (L->n == L->cap) {
		L->cap = L->cap ? L->cap * 2 : 64;
		L->e = fp_xrealloc(L->e, L->cap * sizeof *L->e);
	}
	L->e[L->n].name = fp_xstrdup(name);
	L->e[L->n].st = *st;
	L->n++;
}

/* rel: path of dfd below DIR ("" for DIR itself). Dotfiles and dot
 * directories are skipped; directories are entered without following
 * symlinks (no loops); symlinks are not listed (safepath_open refuses
 * them: no symlink is ever followed below DIR). */
static void walk(const struct server *srv, struct listing *L, int dfd, const char *rel, int depth)
{
	DIR *dp = fdopendir(dfd);
	if (!dp) {
		close(dfd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(dp)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (L->n >= LIST_MAX_FILES) {
			L->truncated = 1;
			break;
		}
		char path[PATH_MAX];
		int m = snprintf(path, sizeof path, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
		if (m < 0 || (size_t)m >= sizeof path)
			continue;
		struct stat st;
		if (fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth >= LIST_MAX_DEPTH)
				continue;
			int sub = openat(dirfd(dp), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				walk(srv, L, sub, path, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			listing_add(L, path, &st);
		}
	}
	closedir(dp);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(((const struct listed *)a)->name, ((const struct listed *)b)->name);
}

/* What a listed file holds, by content (fifo/fp_sniff.h fp_sniff_profile):
 * kind NONE for files that are not captures: they are not listed. */
static struct fp_sniffed capture_of(const struct server *srv, const char *name)
{
	struct stat st;
	int status;
	const char *why;
	struct fp_sniffed k = { FP_CAPTURE_NONE, 0, NULL };
	int fd = safepath_open(srv, name, strlen(name), &st, &status, &why);

	if (fd >= 0) {
		k = fp_sniff_profile(fd);
		close(fd);
	}
	if (!fp_sniff_reader(k.kind))
		k.kind = FP_CAPTURE_NONE;
	return k;
}

enum MHD_Result api_profile(struct server *srv, struct MHD_Connection *c)
{
	struct listing L = { 0 };
	int fd = openat(srv->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return http_error(c, 500, "cannot read the profile directory: %s", strerror(errno));
	walk(srv, &L, fd, "", 0);
	if (L.n)
		qsort(L.e, L.n, sizeof *L.e, cmp_names);
	struct fp_sink s;
	fp_sink_init_mem(&s);
	fp_sink_char(&s, '[');
	size_t listed = 0;
	for (size_t i = 0; i < L.n; i++) {
		struct fp_sniffed k = capture_of(srv, L.e[i].name);
		if (k.kind != FP_CAPTURE_NONE) {
			fp_sink_str(&s, listed++ ? ",\n{\"filename\":" : "{\"filename\":");
			fp_json_string(&s, L.e[i].name, strlen(L.e[i].name));
			fp_sink_printf(&s,
				       ",\"type\":\"%s\",\"format\":\"%s\",\"size\":%jd,"
				       "\"mtime\":%jd}",
				       k.kind == FP_CAPTURE_CHROME ? "chrome" : "perf", k.format,
				       (intmax_t)L.e[i].st.st_size,
				       (intmax_t)L.e[i].st.st_mtim.tv_sec);
		}
		free(L.e[i].name);
	}
	free(L.e);
	if (srv->live) {
		const char *ln = live_name(srv->live);
		fp_sink_str(&s, listed ? ",\n{\"filename\":" : "{\"filename\":");
		fp_json_string(&s, ln, strlen(ln));
		fp_sink_str(&s, ",\"type\":\"perf\",\"format\":\"live\",\"live\":true}");
	}
	fp_sink_str(&s, "]\n");
	if (L.truncated)
		fp_warn("profile list truncated at %u files", LIST_MAX_FILES);
	return http_reply(c, 200, CT_JSON, &s);
}
