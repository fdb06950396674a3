/* index.c: the time index of every served capture.
 *
 * A capture in DIR (perf script text, gzip, perf.data, Chrome profile) is
 * converted on its first open into the time-indexed recording form
 * (docs/fp-record.md): `READER -q < FILE | fp-record --output INDEX`, once.
 * Every later query runs its chain over the index, and a range reads only
 * the members of its seconds (fp-read --time, compute.c). The index is
 * kept in the cache directory (--cache-dir, else a private temporary one
 * removed at exit) under a name made of the file's identity (device,
 * inode, size, mtime in ns, and whether it was read without host files),
 * so a changed file gets a new index and the old one is removed. The
 * directory is kept under --cache-size bytes by dropping the least
 * recently used indexes (a request that has one open keeps reading it).
 *
 * What the reader said that the recording does not keep (its samples
 * count and its warning records) and the capture's first event (a range
 * read starts elsewhere) are kept in the index's name
 * (KEY.wN.sN.eHEX.fpr) and given to the chains (job->index_*). A capture whose
 * conversion failed (bad data, a spent budget) is remembered with its
 * error for that identity: asking again costs nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fp_error.h"
#include "fp_record.h"
#include "fp_recording.h"
#include "fp_sniff.h"
#include "serve.h"

#define KEY_LEN 96
#define FIRST_EVENT_MAX 80 /* longer names are not kept (then fp-bucket chooses) */
#define FAILED_MAX 1024    /* remembered failures (then the oldest go) */
#define SUFFIX ".fpr"
#define TMP_PREFIX ".tmp-"

enum ix_state { IX_BUILDING, IX_READY, IX_FAILED, IX_NOINDEX };

/* An index's member table (its time index), read once and shared by the
 * requests that use it: a scan is 600 preads for a 600-s capture, a third
 * of a range query's CPU when it was read per request. Counted: the entry
 * holds one reference, each request that has it open another. */
struct ix_members {
	int refs;
	struct fp_rec_index ri;
	struct rf_cache *folds; /* rangefold.c's tables of its members */
};

static void members_put(struct ix_members *m)
{
	if (m && __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		rf_cache_free(m->folds);
		fp_rec_index_free(&m->ri);
		free(m);
	}
}

struct rf_cache *index_fold_cache(const struct job *job)
{
	const struct ix_members *m = job->index_members_ref;

	return m ? m->folds : NULL;
}

struct ix {
	struct ix *next;
	char key[KEY_LEN];
	char name[KEY_LEN + 64 + 2 * FIRST_EVENT_MAX]; /* file in the cache
							 * directory (READY) */
	enum ix_state state;
	uint64_t bytes, last_used;
	uint64_t samples, warnings;
	int fail_status;
	char *fail_msg;
	int forget; /* a failure not to remember */
	int base_known;
	uint64_t base_sec;                     /* the index's axis: floor(earliest sample) */
	struct ix_members *mem;                /* with base_known */
	char first_event[FIRST_EVENT_MAX + 1]; /* "" if unknown */
};

static pthread_mutex_t ix_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ix_built = PTHREAD_COND_INITIALIZER;
static struct ix *ixs;
static uint64_t ix_bytes, ix_clock;
static unsigned ix_failed;
static int cache_fd = -1;
static const char *temp_dir; /* the private cache directory, removed at exit */

static void ix_key(char *buf, size_t n, const struct stat *st, int untrusted)
{
	snprintf(buf, n, "%jx-%jx-%jx-%jd.%09ld%s", (uintmax_t)st->st_dev, (uintmax_t)st->st_ino,
		 (uintmax_t)st->st_size, (intmax_t)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
		 untrusted ? "-u" : "");
}

/* dev-ino- of a key: the same file, whatever its size and mtime */
static size_t key_file_part(const char *key)
{
	const char *a = strchr(key, '-');
	const char *b = a ? strchr(a + 1, '-') : NULL;
	return b ? (size_t)(b - key) + 1 : strlen(key);
}

static void ix_free(struct ix *x)
{
	members_put(x->mem);
	free(x->fail_msg);
	free(x);
}

/* Removes x from the list (and its file). Called with ix_lock held. */
static void ix_drop(struct ix *x)
{
	for (struct ix **pp = &ixs; *pp; pp = &(*pp)->next)
		if (*pp == x) {
			*pp = x->next;
			break;
		}
	if (x->state == IX_READY) {
		unlinkat(cache_fd, x->name, 0);
		ix_bytes -= x->bytes;
	}
	if (x->state == IX_FAILED)
		ix_failed--;
	ix_free(x);
}

/* Least recently used indexes go until the directory is under max; keep
 * is the one just built (it stays even alone over the bound). Failures
 * beyond FAILED_MAX are forgotten, oldest first. ix_lock held. */
static void ix_trim(uint64_t max, const struct ix *keep)
{
	for (;;) {
		struct ix *victim = NULL;
		int over = max && ix_bytes > max;
		for (struct ix *x = ixs; x; x = x->next) {
			int cand = (over && x->state == IX_READY && x != keep) ||
				   (ix_failed > FAILED_MAX && x->state == IX_FAILED);
			if (cand && (!victim || x->last_used < victim->last_used))
				victim = x;
		}
		if (!victim)
			return;
		ix_drop(victim);
	}
}

static struct ix *ix_find(const char *key)
{
	for (struct ix *x = ixs; x; x = x->next)
		if (strcmp(x->key, key) == 0)
			return x;
	return NULL;
}

/* What the conversion's stream said: the reader's samples and warnings,
 * and whether fp-record wrote everything. */
struct convert {
	uint64_t samples, warnings;
	int record_failed, record_seen;
	int event_known; /* first_event is the capture's first event */
	char first_event[FIRST_EVENT_MAX + 1];
};

/* The capture's first event, fp-bucket's default over the whole capture:
 * the first name of a C events record before the first sample, else the
 * first sample's event. A range read of the index starts elsewhere, so
 * its chain names it (compute.c). */
static void note_first_event(struct convert *cv, const char *p, size_t n)
{
	cv->event_known = 1;
	if (n > 0 && n <= FIRST_EVENT_MAX && !(n == 1 && p[0] == '-')) {
		memcpy(cv->first_event, p, n);
		cv->first_event[n] = '\0';
	}
}

static void convert_line(void *ctx, char *line, size_t len)
{
	struct convert *cv = ctx;
	struct fp_info info;
	struct fp_control c;
	struct fp_warning w;
	struct fp_str first;

	switch (fp_record_tag(line, &len)) {
	case FP_REC_CONTROL:
		if (!cv->event_known && fp_control_parse(line, len, &c) == 0 &&
		    fp_events_first(&c, &first) == 0)
			note_first_event(cv, first.p, first.n);
		break;
	case FP_REC_SAMPLE:
		if (!cv->event_known) {
			struct fp_sample smp;
			if (fp_sample_parse(line, len, &smp) == 0)
				note_first_event(cv, smp.event.p, smp.event.n);
		}
		break;
	case FP_REC_WARNING:
		if (fp_warning_parse(line, len, &w) == 0 && fp_str_eq(w.stage, "record"))
			cv->record_failed = 1; /* the index is not whole */
		else
			cv->warnings++;
		break;
	case FP_REC_INFO:
		if (fp_info_parse(line, len, &info) < 0)
			break;
		if (fp_str_eq(info.stage, "read")) {
			fp_info_get(&info, "samples", &cv->samples);
		} else if (fp_str_eq(info.stage, "record")) {
			uint64_t failed = 0;
			cv->record_seen = 1;
			if (fp_info_get(&info, "failed", &failed) == 0 && failed)
				cv->record_failed = 1;
		}
		break;
	default:
		break;
	}
}

/* Runs READER | fp-record into the cache directory; x named on success.
 * Returns IX_READY, IX_NOINDEX (the index could not be written: serve
 * from the file) or IX_FAILED with x's fail fields. */
static enum ix_state convert(struct job *job, int fd, struct ix *x)
{
	const struct server *srv = job->srv;
	enum fp_capture_kind kind = fp_sniff_fd(fd);
	char tmp[KEY_LEN + 64], path[4096], level[] = "1";
	struct convert cv = { 0 };
	struct pipeline_result res;

	snprintf(tmp, sizeof tmp, TMP_PREFIX "%s-%d", x->key, (int)gettid());
	snprintf(path, sizeof path, "%s/%s", srv->cache_dir, tmp);
	char *read_argv[] = { (char *)fp_sniff_reader(kind), "-q",
			      job->untrusted && kind == FP_CAPTURE_PERFDATA ? "--no-host-files"
									    : NULL,
			      NULL };
	char *rec_argv[] = { "fp-record", "--output", path,     "--level",
			     level,       "--name",   "record", NULL };
	char *const *argv[] = { read_argv, rec_argv };

	if (lseek(fd, 0, SEEK_SET) != 0) {
		x->fail_status = 500;
		x->fail_msg = fp_xstrdup("cannot rewind the capture");
		return IX_FAILED;
	}
	/* the whole stream passes through fp-record to us: no output budget */
	struct job cj = *job;
	cj.unlimited_output = 1;
	chain_run(&cj, argv, 2, fd, convert_line, &cv, &res);
	if (!res.ok) {
		unlinkat(cache_fd, tmp, 0);
		if (!res.over_budget && !res.data_error && !res.usage_error &&
		    strstr(res.err, "fp-record")) {
			/* fp-record itself failed (cache directory): serve the file */
			fp_warn("index of a capture not written (%.200s): served from the file",
				res.err);
			return IX_NOINDEX;
		}
		x->fail_status = res.over_budget   ? res.over_budget
				 : res.data_error  ? 422
				 : res.usage_error ? 400
						   : 500;
		/* remembered only when it is the file's doing (bad data, its
		 * inflate or CPU cost), not a busy server or a client gone */
		x->forget = x->fail_status == 500 ||
			    (x->fail_status == 503 && !strstr(res.err, "CPU budget"));
		const char *nl = strchr(res.err, '\n');
		x->fail_msg = fp_xstrndup(res.err, nl ? (size_t)(nl - res.err) : strlen(res.err));
		return IX_FAILED;
	}
	struct stat st;
	if (cv.record_failed || fstatat(cache_fd, tmp, &st, 0) < 0) {
		unlinkat(cache_fd, tmp, 0);
		fp_warn("index of a capture not written (cache directory %s full or gone): "
			"served from the file",
			srv->cache_dir);
		return IX_NOINDEX;
	}
	char hex[2 * FIRST_EVENT_MAX + 1] = "";
	for (size_t i = 0; cv.first_event[i]; i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)cv.first_event[i]);
	snprintf(x->name, sizeof x->name, "%s.w%" PRIu64 ".s%" PRIu64 ".e%s" SUFFIX, x->key,
		 cv.warnings, cv.samples, hex);
	memcpy(x->first_event, cv.first_event, sizeof x->first_event);
	if (renameat(cache_fd, tmp, cache_fd, x->name) < 0) {
		unlinkat(cache_fd, tmp, 0);
		return IX_NOINDEX;
	}
	x->bytes = (uint64_t)st.st_size;
	x->samples = cv.samples;
	x->warnings = cv.warnings;
	return IX_READY;
}

/* An index of the same file (device, inode) with another size or mtime:
 * the file changed, that index will never be asked for again. */
static void drop_stale(const char *key)
{
	size_t n = key_file_part(key);
	struct ix *x = ixs;

	while (x) {
		struct ix *next = x->next;
		if (x->state != IX_BUILDING && strcmp(x->key, key) != 0 &&
		    strncmp(x->key, key, n) == 0)
			ix_drop(x);
		x = next;
	}
}

static int open_ready(struct job *job, struct ix *x)
{
	int fd = openat(cache_fd, x->name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	x->last_used = ++ix_clock;
	futimens(fd, NULL); /* the LRU order across restarts */
	if (!x->base_known) {
		/* once per index: every range query needs it (compute.c,
		 * rangefold.c) */
		struct ix_members *m = fp_xcalloc(1, sizeof *m);
		if (fp_rec_scan(fd, &m->ri) < 0) {
			fp_rec_index_free(&m->ri);
			free(m);
			close(fd);
			return -1;
		}
		m->refs = 1;
		m->folds = rf_cache_new(m->ri.n);
		x->mem = m;
		x->base_sec = fp_rec_base_sec(&m->ri);
		x->base_known = 1;
	}
	__atomic_add_fetch(&x->mem->refs, 1, __ATOMIC_ACQ_REL);
	job->index_members = &x->mem->ri;
	job->index_members_ref = x->mem;
	job->index_base_sec = x->base_sec;
	job->index_first_event = x->first_event[0] ? x->first_event : NULL;
	job->indexed = 1;
	job->index_samples = x->samples;
	job->index_warnings = x->warnings;
	return fd;
}

void index_release(struct job *job)
{
	members_put(job->index_members_ref);
	job->index_members_ref = NULL;
	job->index_members = NULL;
}

int index_open(struct job *job, int fd, const struct stat *st, int *status, char *err, size_t errsz)
{
	char key[KEY_LEN];

	if (cache_fd < 0 || fp_rec_is_recording(fd))
		return fd; /* a recording is its own index */
	ix_key(key, sizeof key, st, job->untrusted);
	pthread_mutex_lock(&ix_lock);
	for (;;) {
		struct ix *x = ix_find(key);
		if (!x)
			break;
		if (x->state == IX_BUILDING) {
			pthread_cond_wait(&ix_built, &ix_lock);
			continue;
		}
		x->last_used = ++ix_clock;
		if (x->state == IX_FAILED) {
			*status = x->fail_status;
			snprintf(err, errsz, "%s", x->fail_msg);
			pthread_mutex_unlock(&ix_lock);
			return -1;
		}
		if (x->state == IX_NOINDEX) {
			pthread_mutex_unlock(&ix_lock);
			return fd;
		}
		int ifd = open_ready(job, x);
		if (ifd >= 0) {
			pthread_mutex_unlock(&ix_lock);
			close(fd);
			return ifd;
		}
		ix_drop(x); /* removed behind our back: build it again */
		break;
	}
	struct ix *x = fp_xcalloc(1, sizeof *x);
	snprintf(x->key, sizeof x->key, "%s", key);
	x->state = IX_BUILDING;
	x->next = ixs;
	ixs = x;
	pthread_mutex_unlock(&ix_lock);

	enum ix_state done = convert(job, fd, x);

	pthread_mutex_lock(&ix_lock);
	x->state = done;
	x->last_used = ++ix_clock;
	int ifd = fd;
	if (done == IX_READY) {
		ix_bytes += x->bytes;
		drop_stale(key);
		ix_trim(job->srv->cache_max, x);
		ifd = open_ready(job, x);
		if (ifd < 0)
			ifd = fd;
	} else if (done == IX_FAILED) {
		ix_failed++;
		*status = x->fail_status;
		snprintf(err, errsz, "%s", x->fail_msg);
		ifd = -1;
		if (x->forget)
			ix_drop(x);
		ix_trim(0, NULL);
	}
	pthread_cond_broadcast(&ix_built);
	pthread_mutex_unlock(&ix_lock);
	if (ifd != fd)
		close(fd);
	return ifd;
}

/* Indexes a cache directory already holds (--cache-dir kept from an
 * earlier run): KEY.wN.sN.fpr, oldest use first; leftovers of an
 * interrupted conversion are removed. */
static void adopt(void)
{
	int dfd = openat(cache_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* its own offset */
	DIR *dp = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;

	if (!dp) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	while ((de = readdir(dp)) != NULL) {
		struct stat st;
		const char *n = de->d_name;
		size_t len = strlen(n);
		if (strncmp(n, TMP_PREFIX, strlen(TMP_PREFIX)) == 0) {
			unlinkat(cache_fd, n, 0);
			continue;
		}
		const char *w = strstr(n, ".w");
		struct ix *x;
		if (len < strlen(SUFFIX) || strcmp(n + len - strlen(SUFFIX), SUFFIX) != 0 || !w ||
		    (size_t)(w - n) >= KEY_LEN || len >= sizeof x->name ||
		    fstatat(cache_fd, n, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		x = fp_xcalloc(1, sizeof *x);
		memcpy(x->key, n, (size_t)(w - n));
		snprintf(x->name, sizeof x->name, "%s", n);
		int at = 0;
		if (sscanf(w, ".w%" SCNu64 ".s%" SCNu64 ".e%n", &x->warnings, &x->samples, &at) <
			    2 ||
		    at == 0) {
			free(x);
			continue;
		}
		for (size_t i = 0; i < FIRST_EVENT_MAX; i++) {
			unsigned v;
			if (sscanf(w + at + 2 * i, "%2x", &v) != 1 || w[at + 2 * i] == '.')
				break;
			x->first_event[i] = (char)v;
		}
		x->state = IX_READY;
		x->bytes = (uint64_t)st.st_size;
		/* mtime (touched on use) orders them; the clock continues from there */
		x->last_used = (uint64_t)st.st_mtim.tv_sec;
		if (x->last_used > ix_clock)
			ix_clock = x->last_used;
		x->next = ixs;
		ixs = x;
		ix_bytes += x->bytes;
	}
	closedir(dp);
}

void index_init(struct server *srv)
{
	static char tmpl[4096];

	if (!srv->cache_dir) {
		const char *t = getenv("TMPDIR");
		snprintf(tmpl, sizeof tmpl, "%s/fp-serve-index-XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(tmpl))
			fp_die_sys(FP_EXIT_SYS, "cannot create an index directory %s", tmpl);
		srv->cache_dir = tmpl;
		srv->cache_dir_temp = 1;
		temp_dir = tmpl;
	} else if (mkdir(srv->cache_dir, 0700) < 0 && errno != EEXIST) {
		fp_die_sys(FP_EXIT_SYS, "--cache-dir %s", srv->cache_dir);
	}
	cache_fd = open(srv->cache_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cache_fd < 0)
		fp_die_sys(FP_EXIT_SYS, "--cache-dir %s", srv->cache_dir);
	if (faccessat(cache_fd, ".", W_OK, AT_EACCESS) < 0)
		fp_die_sys(FP_EXIT_SYS, "--cache-dir %s: not writable", srv->cache_dir);
	adopt();
	pthread_mutex_lock(&ix_lock);
	ix_trim(srv->cache_max, NULL);
	pthread_mutex_unlock(&ix_lock);
}

/* From a signal handler (the stop's grace period ran out): unlinkat and
 * rmdir only, over the names known; no lock (the process ends now). */

void index_cleanup_now(void)
{
	if (!temp_dir || cache_fd < 0)
		return;
	for (struct ix *x = ixs; x; x = x->next)
		if (x->state == IX_READY)
			unlinkat(cache_fd, x->name, 0);
	rmdir(temp_dir);
}

void index_cleanup(const struct server *srv)
{
	if (!srv->cache_dir_temp || cache_fd < 0)
		return;
	int dfd = openat(cache_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* its own offset */
	DIR *dp = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;

	while (dp && (de = readdir(dp)) != NULL)
		if (de->d_name[0] != '.' ||
		    strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) == 0)
			unlinkat(cache_fd, de->d_name, 0);
	if (dp)
		closedir(dp);
	rmdir(srv->cache_dir);
}
