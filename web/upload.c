/* upload.c: POST /upload stores a capture into DIR/uploads/.
 *
 * Two body forms: multipart/form-data with a part named "file" (a browser
 * form), or the raw file with ?filename=NAME (curl --data-binary). The
 * size limit is checked against Content-Length before anything is read
 * (413 at once) and again while the body arrives (chunked bodies): from
 * the first byte over the limit on, data are dropped, the partial file is
 * removed and the answer is 413.
 * Data go to a temporary dot-name (hidden from /profile/) that is linked
 * to its final name only when complete, so nobody sees a half file; the
 * final name is chosen with linkat (fails if it exists: no overwrite,
 * no race) trying NAME, NAME-1.EXT, NAME-2.EXT ...
 *
 * The quota (--upload-quota): the bytes stored below uploads/ (its files,
 * not counting the hidden temporary ones) plus what uploads in progress
 * have received may not pass it. Checked against Content-Length at the
 * start, as each chunk arrives, and again, exactly, when the upload is
 * complete. Over it, the new upload is refused with 507 (the default), or
 * with --upload-evict the oldest uploads (by mtime) are removed until it
 * fits; an upload larger than the whole quota is always refused.
 */
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "fp_error.h"
#include "http.h"
#include "routes.h"
#include "serve.h"

#define UPLOAD_DIR "uploads"
#define POST_BUFFER 65536
#define MULTIPART_OVERHEAD (64u << 10) /* headers and boundaries */
#define MAX_SUFFIX 1000                /* NAME-1 .. NAME-999 */
#define HTTP_TOO_LARGE 413
#define HTTP_NO_STORAGE 507
/* A body must arrive at UPLOAD_MIN_RATE bytes/s on average once
 * UPLOAD_GRACE_S have passed, or the connection is closed: a trickle
 * that resets the 30 s idle timeout cannot hold a server thread. */
#define UPLOAD_GRACE_S 10
#define UPLOAD_MIN_RATE (16u << 10)

struct upload {
	struct MHD_PostProcessor *pp;
	int dirfd, fd;
	char tmp[64];
	char name[UPLOAD_NAME_MAX + 1]; /* the client's name, made safe */
	int have_name;
	uint64_t size;
	uint64_t max; /* the server's --max-upload */
	int too_big, failed, multipart, file_parts;
	int answered; /* a response is queued: ignore the rest */
	char err[256];
	struct timespec started; /* the body rate is measured from here */
	uint64_t received;       /* body bytes, multipart framing included */
	int over_quota;
	uint64_t charged; /* bytes counted in `inflight` */
	const struct server *srv;
};

/* ---- the quota --------------------------------------------------------------- */

static pthread_mutex_t quota_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t inflight;  /* bytes of uploads in progress */
static uint64_t last_used; /* stored bytes at the last scan */
static int scanned;        /* last_used is known */

struct stored {
	char name[256];
	off_t size;
	struct timespec mtime;
};

/* The uploads stored (hidden temporary files left out): their total size,
 * and with v the list (malloc'd, *n entries). */
static uint64_t stored_uploads(int dirfd, struct stored **v, size_t *n)
{
	int dfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dp = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;
	uint64_t total = 0;
	size_t cap = 0;

	if (v) {
		*v = NULL;
		*n = 0;
	}
	if (!dp) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while ((de = readdir(dp)) != NULL) {
		struct stat st;
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(*v)->name ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		total += (uint64_t)st.st_size;
		if (!v)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			*v = fp_xrealloc(*v, cap * sizeof **v);
		}
		snprintf((*v)[*n].name, sizeof(*v)[*n].name, "%s", de->d_name);
		(*v)[*n].size = st.st_size;
		(*v)[*n].mtime = st.st_mtim;
		(*n)++;
	}
	closedir(dp);
	return total;
}

static int older_first(const void *a, const void *b)
{
	const struct stored *x = a, *y = b;
	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Room for `want` more bytes: 1 if stored + inflight + want fits the quota
 * (after evicting the oldest uploads when evict is set), else 0. exact:
 * the directory is scanned; else the last scan is trusted while the sum
 * stays clear of the quota (one scan per chunk only near it). Called with
 * quota_lock held. */
static int quota_room(const struct server *srv, int dirfd, uint64_t want, int exact)
{
	uint64_t q = srv->upload_quota;
	struct stored *v = NULL;
	size_t n = 0;

	if (!q)
		return 1;
	if (want > q)
		return 0;
	if (!exact && scanned && last_used + inflight + want <= q / 2)
		return 1;
	uint64_t used = stored_uploads(dirfd, srv->upload_evict ? &v : NULL, &n);
	if (used + inflight + want > q && srv->upload_evict) {
		qsort(v, n, sizeof *v, older_first);
		for (size_t i = 0; i < n && used + inflight + want > q; i++)
			if (unlinkat(dirfd, v[i].name, 0) == 0) {
				used -= (uint64_t)v[i].size;
				fp_warn("upload quota: removed the oldest upload %s/%s (%jd bytes)",
					UPLOAD_DIR, v[i].name, (intmax_t)v[i].size);
			}
	}
	free(v);
	last_used = used;
	scanned = 1;
	return used + inflight + want <= q;
}

/* Counts n more bytes of u against the quota (0 when they do not fit). */
static int quota_charge(const struct server *srv, struct upload *u, uint64_t n)
{
	int ok;

	pthread_mutex_lock(&quota_lock);
	ok = quota_room(srv, u->dirfd, n, 0);
	if (ok) {
		inflight += n;
		u->charged += n;
	}
	pthread_mutex_unlock(&quota_lock);
	return ok;
}

static void quota_release(struct upload *u)
{
	pthread_mutex_lock(&quota_lock);
	inflight -= u->charged;
	u->charged = 0;
	pthread_mutex_unlock(&quota_lock);
}

void upload_free(struct upload *u)
{
	if (!u)
		return;
	quota_release(u);
	if (u->pp)
		MHD_destroy_post_processor(u->pp);
	if (u->fd >= 0) {
		close(u->fd);
		unlinkat(u->dirfd, u->tmp, 0); /* never completed */
	}
	if (u->dirfd >= 0)
		close(u->dirfd);
	free(u);
}

static int open_upload_dir(int dir_fd)
{
	if (mkdirat(dir_fd, UPLOAD_DIR, 0755) < 0 && errno != EEXIST)
		return -1;
	/* like every served path (safepath.c): a symlink named uploads
	 * cannot redirect writes */
	return safepath_open_beneath(dir_fd, UPLOAD_DIR, O_RDONLY | O_DIRECTORY);
}

static int open_temp(struct upload *u)
{
	static unsigned counter;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	for (int tries = 0; tries < 100; tries++) {
		snprintf(u->tmp, sizeof u->tmp, ".upload-%d-%u-%ld", (int)getpid(),
			 __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED), ts.tv_nsec);
		u->fd = openat(u->dirfd, u->tmp,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (u->fd >= 0 || errno != EEXIST)
			break;
	}
	return u->fd;
}

static void add_bytes(const struct server *srv, struct upload *u, const char *data, size_t n)
{
	if (u->too_big || u->failed || u->over_quota || n == 0)
		return;
	if (u->size + n > u->max) {
		u->too_big = 1;
		return;
	}
	if (!quota_charge(srv, u, n)) {
		u->over_quota = 1;
		return;
	}
	u->size += n;
	while (n > 0) {
		ssize_t w = write(u->fd, data, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			snprintf(u->err, sizeof u->err, "cannot store upload: %s", strerror(errno));
			u->failed = 1;
			return;
		}
		data += w;
		n -= (size_t)w;
	}
}

static enum MHD_Result post_iter(void *cls, enum MHD_ValueKind kind, const char *key,
				 const char *filename, const char *content_type,
				 const char *transfer_encoding, const char *data, uint64_t off,
				 size_t size)
{
	(void)kind;
	(void)content_type;
	(void)transfer_encoding;
	struct upload *u = cls;
	if (!key || strcmp(key, "file") != 0)
		return MHD_YES; /* other form fields are ignored */
	if (off == 0 && u->file_parts++ > 0) {
		snprintf(u->err, sizeof u->err, "one file per upload");
		u->failed = 1;
	}
	if (!u->have_name && filename) {
		upload_safe_name(filename, strlen(filename), u->name, sizeof u->name);
		u->have_name = 1;
	}
	add_bytes(u->srv, u, data, size);
	return MHD_YES;
}

/* NAME -> NAME-k with k before the first '.' after position 0
 * ("x.perf.gz" -> "x-1.perf.gz"). */
static void suffixed(const char *name, unsigned k, char *out, size_t n)
{
	if (k == 0) {
		snprintf(out, n, "%s", name);
		return;
	}
	const char *dot = strchr(name + 1, '.');
	size_t base = dot ? (size_t)(dot - name) : strlen(name);
	snprintf(out, n, "%.*s-%u%s", (int)base, name, k, dot ? dot : "");
}

static enum MHD_Result quota_error(const struct server *srv, struct MHD_Connection *c)
{
	return http_error(c, HTTP_NO_STORAGE,
			  "upload quota of %" PRIu64 " bytes (--upload-quota) "
			  "is full: %s",
			  srv->upload_quota,
			  srv->upload_evict ? "this upload alone is larger"
					    : "remove uploads, or ask for a larger quota");
}

static enum MHD_Result finish(const struct server *srv, struct MHD_Connection *c, struct upload *u)
{
	u->answered = 1;
	if (u->pp)
		MHD_post_process(u->pp, NULL, 0);
	if (u->too_big)
		return http_error(c, HTTP_TOO_LARGE, "upload larger than %" PRIu64 " bytes",
				  srv->max_upload);
	if (u->over_quota)
		return quota_error(srv, c);
	if (u->failed)
		return http_error(c, 500, "%s", u->err);
	if (u->multipart && !u->file_parts)
		return http_error(c, 400, "no form part named \"file\"");
	if (!u->have_name)
		upload_safe_name("", 0, u->name, sizeof u->name);
	if (close(u->fd) < 0) {
		u->fd = -1;
		unlinkat(u->dirfd, u->tmp, 0);
		return http_error(c, 500, "cannot store upload: %s", strerror(errno));
	}
	u->fd = -1;
	/* exact now: what is stored (uploads that ended meanwhile included)
	 * and what others still receive, with this one no longer in flight */
	pthread_mutex_lock(&quota_lock);
	inflight -= u->charged;
	u->charged = 0;
	int room = quota_room(srv, u->dirfd, u->size, 1);
	pthread_mutex_unlock(&quota_lock);
	if (!room) {
		unlinkat(u->dirfd, u->tmp, 0);
		return quota_error(srv, c);
	}
	char final[UPLOAD_NAME_MAX + 16];
	unsigned k;
	for (k = 0; k < MAX_SUFFIX; k++) {
		suffixed(u->name, k, final, sizeof final);
		if (linkat(u->dirfd, u->tmp, u->dirfd, final, 0) == 0)
			break;
		if (errno != EEXIST) {
			int e = errno;
			unlinkat(u->dirfd, u->tmp, 0);
			return http_error(c, 500, "cannot store upload: %s", strerror(e));
		}
	}
	unlinkat(u->dirfd, u->tmp, 0);
	if (k == MAX_SUFFIX)
		return http_error(c, 409, "too many uploads with that name");
	struct fp_sink s;
	fp_sink_init_mem(&s);
	char rel[sizeof final + sizeof UPLOAD_DIR + 1];
	snprintf(rel, sizeof rel, "%s/%s", UPLOAD_DIR, final);
	fp_sink_str(&s, "{\"filename\":");
	fp_json_string(&s, rel, strlen(rel));
	fp_sink_printf(&s, ",\"size\":%" PRIu64 "}\n", u->size);
	return http_reply(c, MHD_HTTP_CREATED, CT_JSON, &s);
}

static int too_slow(const struct upload *u)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double elapsed = (double)(now.tv_sec - u->started.tv_sec) +
			 (double)(now.tv_nsec - u->started.tv_nsec) / 1e9;
	return elapsed > UPLOAD_GRACE_S && (double)u->received < elapsed * UPLOAD_MIN_RATE;
}

enum MHD_Result upload_request(struct server *srv, struct MHD_Connection *c, const char *data,
			       size_t *size, struct upload **state)
{
	struct upload *u = *state;
	if (!u) {
		/* first call: headers only */
		const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							     MHD_HTTP_HEADER_CONTENT_LENGTH);
		const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							     MHD_HTTP_HEADER_CONTENT_TYPE);
		int multipart = ct && strncasecmp(ct, "multipart/form-data", 19) == 0;
		if (cl) {
			unsigned long long len = strtoull(cl, NULL, 10);
			uint64_t limit = srv->max_upload + (multipart ? MULTIPART_OVERHEAD : 0);
			if (len > limit)
				return http_error(c, HTTP_TOO_LARGE,
						  "upload larger than %" PRIu64 " bytes",
						  srv->max_upload);
		}
		u = fp_xcalloc(1, sizeof *u);
		u->fd = u->dirfd = -1;
		u->max = srv->max_upload;
		u->srv = srv;
		clock_gettime(CLOCK_MONOTONIC, &u->started);
		*state = u;
		u->multipart = multipart;
		if (!multipart) {
			size_t n;
			const char *name = http_arg(c, "filename", &n);
			if (!name)
				return http_error(
					c, 400,
					"send multipart/form-data with a part "
					"named \"file\", or the raw file with ?filename=NAME");
			upload_safe_name(name, n, u->name, sizeof u->name);
			u->have_name = 1;
		} else {
			u->pp = MHD_create_post_processor(c, POST_BUFFER, post_iter, u);
			if (!u->pp)
				return http_error(c, 400, "malformed multipart/form-data request");
		}
		u->dirfd = open_upload_dir(srv->dir_fd);
		if (u->dirfd < 0)
			return http_error(c, 500, "cannot open %s/%s: %s", srv->dir, UPLOAD_DIR,
					  strerror(errno));
		if (cl && srv->upload_quota) {
			/* the announced size must fit now (a multipart body is a
			 * little larger than its file: checked as it arrives) */
			unsigned long long len = strtoull(cl, NULL, 10);
			pthread_mutex_lock(&quota_lock);
			int room = quota_room(srv, u->dirfd, multipart ? 0 : len, 1);
			pthread_mutex_unlock(&quota_lock);
			if (!room)
				return quota_error(srv, c);
		}
		if (open_temp(u) < 0)
			return http_error(c, 500, "cannot create upload file: %s", strerror(errno));
		return MHD_YES;
	}
	if (u->answered) {
		*size = 0;
		return MHD_YES;
	}
	if (*size > 0) {
		u->received += *size;
		if (too_slow(u)) {
			fp_warn("upload: body slower than %u bytes/s after %d s: connection closed",
				UPLOAD_MIN_RATE, UPLOAD_GRACE_S);
			return MHD_NO; /* closes the connection; upload_free cleans up */
		}
		if (u->pp) {
			if (MHD_post_process(u->pp, data, *size) != MHD_YES && !u->failed) {
				snprintf(u->err, sizeof u->err,
					 "malformed multipart/form-data body");
				u->failed = 1;
			}
		} else {
			add_bytes(srv, u, data, *size);
		}
		/* over the limit: the rest is read and dropped (libmicrohttpd
		 * 0.9 cannot answer before the body is consumed), 413 at the end */
		*size = 0;
		return MHD_YES;
	}
	return finish(srv, c, u);
}
