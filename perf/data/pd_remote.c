/* pd_remote.c: a recording's files fetched from its host over ssh by
 * the workers of a fetch pool, kept in a build-id cache (pd_remote.h,
 * pd_fetchpool.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <libelf.h>

#include "fp_error.h"
#include "pd_fetchpool.h"
#include "pd_kcache.h"
#include "pd_remote.h"
#include "pd_symbols.h"
#include "pd_textsyms.h"

#define WORKERS 3 /* fetches under way at once */
/* fetches waiting for a worker at most: a recording's files are far
 * fewer; past it one more would wait longer than anyone waits */
#define QUEUE_MAX 4096
#define ID_MAX 64
#define HEX_MAX (2 * ID_MAX + 1)
#define ARGV_MAX 300
#define CMD_MAX (3 * PATH_MAX)
#define WHY_MAX 512
#define POLL_NS 5000000L /* 5 ms between looks at a running ssh */
#define KERNEL_NOTES "/sys/kernel/notes"
#define NOTES_MAX (64u << 10)
#define MODULES_MAX (4u << 20) /* /proc/modules, at most */
/* how long a fetch waits for fp-ssh's connection to come up before ssh
 * connects on its own (a login more, no harm) */
#define CONTROL_WAIT_S 10.0
/* --live: how long the first kernel frame waits for the host's kallsyms
 * before it goes on without (named once they come) */
#define KERNEL_LIVE_WAIT_S 2.0

extern char **environ;

enum kind { R_FILE, R_KERNEL };

struct request {
	struct pd_fetch f; /* first: the pool's part (path: the local copy) */
	enum kind kind;
	char *name; /* the recorded path */
	unsigned char id[ID_MAX];
	size_t n;
	int temporary;      /* no build-id: removed at the end */
	char khex[HEX_MAX]; /* R_KERNEL: the remote kernel's build-id */
};

static struct pd_fetchpool pool = PD_FETCHPOOL_INIT;

/* What is this file's own (the pool has its own lock): the ssh commands
 * and the counts of fetches. */
static struct {
	pthread_mutex_t lock;       /* running, st; taken after the pool's */
	pid_t running[WORKERS];     /* the ssh of each worker, 0 if none */
	const char *argv[ARGV_MAX]; /* ssh ... -- HOST, then the command */
	size_t argc;
	char *cache, *control;
	double started;
	struct request *kernel;
	struct pd_remote_stats st;
} rm = { PTHREAD_MUTEX_INITIALIZER };

static int fits(int n, size_t cap)
{
	return n > 0 && (size_t)n < cap;
}

/* mkdir -p, 0700 (the cache holds another host's binaries). */
static int make_dirs(const char *dir)
{
	char buf[PATH_MAX];

	if (!fits(snprintf(buf, sizeof buf, "%s", dir), sizeof buf))
		return -1;
	for (char *p = buf + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0700) < 0 && errno != EEXIST)
			return -1;
		if (!c)
			return 0;
		*p = c;
	}
}

const char *pd_remote_default_cache(void)
{
	static char buf[PATH_MAX];
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		snprintf(buf, sizeof buf, "%s/flamepipe/buildid", xdg);
	else
		snprintf(buf, sizeof buf, "%s/.cache/flamepipe/buildid",
			 home && *home ? home : "/root");
	return buf;
}

/* The cache's path of a file of build-id hex (perf's layout). */
static int cache_elf(const char *hex, char *buf, size_t cap)
{
	return fits(snprintf(buf, cap, "%s/.build-id/%.2s/%s/elf", rm.cache, hex, hex + 2), cap);
}

static void hex_of(const unsigned char *id, size_t n, char *hex)
{
	pd_buildid_hex(id, n, hex);
}

/* ---- one ssh command ---------------------------------------------------- */

/* Appends s single-quoted for the remote shell. */
static int quote(char *buf, size_t cap, size_t *n, const char *s)
{
	if (*n + strlen(s) * 4 + 3 >= cap)
		return -1;
	buf[(*n)++] = '\'';
	for (; *s; s++)
		if (*s == '\'') {
			memcpy(buf + *n, "'\\''", 4);
			*n += 4;
		} else {
			buf[(*n)++] = *s;
		}
	buf[(*n)++] = '\'';
	buf[*n] = '\0';
	return 0;
}

/* The first line of what ssh said on stderr (fd), for a why. */
static void first_line(int fd, char *why, size_t cap)
{
	char buf[WHY_MAX];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);

	if (n <= 0)
		return;
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	snprintf(why, cap, "%s", buf);
}

/* Waits (a while after the start) for the control socket: fetches then
 * ride on fp-ssh's connection instead of logging in again. */
static void wait_control(void)
{
	struct stat st;

	while (rm.control && pd_fetch_now() - rm.started < CONTROL_WAIT_S &&
	       !(stat(rm.control, &st) == 0 && S_ISSOCK(st.st_mode))) {
		if (pd_fetchpool_stopping(&pool))
			return;
		struct timespec ts = { 0, 10 * POLL_NS };
		nanosleep(&ts, NULL);
	}
}

/* Runs `ssh ... HOST cmd` with stdout to out_fd, for worker w, within
 * deadline. 0, or -1 with why. */
static int run_ssh(int w, const char *cmd, int out_fd, double deadline, char *why, size_t cap)
{
	const char *argv[ARGV_MAX + 2];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t dfl, none;
	int err_fd = memfd_create("ssh-stderr", MFD_CLOEXEC), status = 0, rc = -1;
	pid_t pid;

	if (err_fd < 0) {
		snprintf(why, cap, "memfd: %s", strerror(errno));
		return -1;
	}
	wait_control();
	memcpy(argv, rm.argv, rm.argc * sizeof *argv);
	argv[rm.argc] = cmd;
	argv[rm.argc + 1] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigfillset(&dfl);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setsigmask(&at, &none);
	/* its own process group: Ctrl-C on the terminal stops the chain,
	 * which then stops the fetches itself (pd_remote_stop) */
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETPGROUP);
	int e = posix_spawnp(&pid, argv[0], &fa, &at, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (e) {
		snprintf(why, cap, "cannot run ssh: %s", strerror(e));
		close(err_fd);
		return -1;
	}
	pthread_mutex_lock(&rm.lock);
	rm.running[w] = pid;
	pthread_mutex_unlock(&rm.lock);
	int stopping = pd_fetchpool_stopping(&pool), killed = 0;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (!killed && (stopping || pd_fetch_now() >= deadline)) {
			kill(pid, SIGKILL);
			killed = 1;
		}
		struct timespec ts = { 0, POLL_NS };
		nanosleep(&ts, NULL);
		stopping = pd_fetchpool_stopping(&pool);
	}
	pthread_mutex_lock(&rm.lock);
	rm.running[w] = 0;
	pthread_mutex_unlock(&rm.lock);
	if (killed && stopping)
		snprintf(why, cap, "stopped at the end");
	else if (killed)
		pd_fetchpool_late_why(&pool, why, cap);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		rc = 0;
	else {
		char said[WHY_MAX] = "";
		first_line(err_fd, said, sizeof said);
		snprintf(why, cap, "ssh %s %d%s%s",
			 WIFEXITED(status) ? "exited" : "killed by signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			 said[0] ? ": " : "", said);
	}
	close(err_fd);
	return rc;
}

/* A new file in the cache directory for a fetch: its fd and name. */
static int temp_file(char *name, size_t cap)
{
	if (!fits(snprintf(name, cap, "%s/.fetch-XXXXXX", rm.cache), cap))
		return -1;
	return mkostemp(name, O_CLOEXEC);
}

/* Moves tmp to final (making its directories). */
static int settle(const char *tmp, const char *final)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof dir, "%s", final);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	return make_dirs(dir) == 0 && rename(tmp, final) == 0 ? 0 : -1;
}

/* The GNU build-id of the ELF file fd: its length, 0 if none (or not ELF). */
static size_t file_build_id(int fd, unsigned char *id)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *bits = NULL;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &bits) : -1;

	if (n > 0 && n <= ID_MAX)
		memcpy(id, bits, (size_t)n);
	if (elf)
		elf_end(elf);
	return n > 0 && n <= ID_MAX ? (size_t)n : 0;
}

/* ---- the workers -------------------------------------------------------- */

/* Fetches the file r names: 0 with its local path, or -1 with why. */
static int fetch_file(int w, struct request *r, char **path, int *temporary, off_t *bytes,
		      char *why, size_t cap)
{
	char cmd[CMD_MAX] = "exec cat -- ", tmp[PATH_MAX], final[PATH_MAX], hex[HEX_MAX];
	size_t n = strlen(cmd);
	unsigned char got[ID_MAX];
	struct stat st;

	if (quote(cmd, sizeof cmd, &n, r->name) < 0) {
		snprintf(why, cap, "its path is too long");
		return -1;
	}
	int fd = temp_file(tmp, sizeof tmp);
	if (fd < 0) {
		snprintf(why, cap, "cannot make a file in %s: %s", rm.cache, strerror(errno));
		return -1;
	}
	int rc = run_ssh(w, cmd, fd, r->f.deadline, why, cap);
	size_t gn = rc == 0 ? file_build_id(fd, got) : 0;
	*bytes = fstat(fd, &st) == 0 ? st.st_size : 0;
	close(fd);
	if (rc == 0 && r->n && (gn != r->n || memcmp(got, r->id, gn) != 0)) {
		snprintf(why, cap,
			 "the remote host's file is a different build than the one "
			 "recorded (it changed since)");
		rc = -1;
	}
	if (rc < 0) {
		unlink(tmp);
		return -1;
	}
	if (!gn) { /* nothing to key it by: this run's only */
		*temporary = 1;
		*path = fp_xstrdup(tmp);
		return 0;
	}
	hex_of(got, gn, hex);
	if (!cache_elf(hex, final, sizeof final) || settle(tmp, final) < 0) {
		snprintf(why, cap, "cannot keep it in %s: %s", rm.cache, strerror(errno));
		unlink(tmp);
		return -1;
	}
	*path = fp_xstrdup(final);
	return 0;
}

/* The whole of fd (at most cap bytes), NUL-terminated: malloc'd, or NULL. */
static char *read_all(int fd, size_t cap, size_t *len)
{
	char *buf = fp_xmalloc(cap + 1);
	ssize_t n = pread(fd, buf, cap, 0);

	if (n < 0 || (size_t)n >= cap) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

/* 1 if the cache's kallsyms of this kernel are this boot's: its
 * /proc/modules as when they were fetched, with addresses (not zeros of
 * kptr_restrict: the same list after a reboot would look the same); or a
 * kernel without modules (none: no /proc/modules), whose kallsyms differ
 * between boots only by where KASLR put it, which pd_kernel_relocate
 * undoes. */
static int kallsyms_current(const char *dir, const char *mods, size_t len, int none)
{
	char path[PATH_MAX];
	struct stat st;
	size_t had_len;
	int err;

	if (!none && !strstr(mods, " 0xf"))
		return 0;
	if (!fits(snprintf(path, sizeof path, "%s/kallsyms", dir), sizeof path) ||
	    stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
	    !fits(snprintf(path, sizeof path, "%s/modules", dir), sizeof path))
		return 0;
	int fd = pd_open_regular(path, &err);
	if (fd < 0)
		return 0;
	char *had = read_all(fd, MODULES_MAX, &had_len);
	close(fd);
	int same = had && had_len == len && memcmp(had, mods, len) == 0;
	free(had);
	return same;
}

/* Runs cmd into fd from its start (emptied first). */
static int fetch_into(int w, const char *cmd, int fd, double deadline, char *why, size_t cap)
{
	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		snprintf(why, cap, "cannot empty a file in %s: %s", rm.cache, strerror(errno));
		return -1;
	}
	return run_ssh(w, cmd, fd, deadline, why, cap);
}

/* The remote kernel's build-id (its /sys/kernel/notes) and kallsyms, kept
 * as DIR/[kernel.kallsyms]/ID/kallsyms with the /proc/modules they went
 * with (DIR/.../ID/modules): a later capture of the same boot takes them
 * from there (two small cats instead of megabytes). */
static int fetch_kernel(int w, struct request *r, char **path, off_t *bytes, char *why, size_t cap)
{
	char tmp[PATH_MAX], dir[PATH_MAX], final[PATH_MAX];
	struct stat st = { 0 };
	char *mods = NULL;
	size_t mods_len = 0;
	int fd = temp_file(tmp, sizeof tmp);

	if (fd < 0) {
		snprintf(why, cap, "cannot make a file in %s: %s", rm.cache, strerror(errno));
		return -1;
	}
	int rc = fetch_into(w, "exec cat " KERNEL_NOTES, fd, r->f.deadline, why, cap);
	if (rc == 0) {
		unsigned char *notes = fp_xmalloc(NOTES_MAX);
		ssize_t n = pread(fd, notes, NOTES_MAX, 0);
		if (n <= 0 || !pd_kcache_build_id(notes, (size_t)n, r->khex, sizeof r->khex)) {
			snprintf(why, cap, "its " KERNEL_NOTES " has no build-id");
			rc = -1;
		}
		free(notes);
	}
	if (rc == 0 &&
	    (!fits(snprintf(dir, sizeof dir, "%s/[kernel.kallsyms]/%s", rm.cache, r->khex),
		   sizeof dir) ||
	     !fits(snprintf(final, sizeof final, "%s/kallsyms", dir), sizeof final))) {
		snprintf(why, cap, "the cache's path is too long");
		rc = -1;
	}
	int none = 0;
	if (rc == 0) {
		char mwhy[WHY_MAX];
		if (fetch_into(w, "exec cat /proc/modules", fd, r->f.deadline, mwhy, sizeof mwhy) ==
		    0)
			mods = read_all(fd, MODULES_MAX, &mods_len);
		else if (strstr(mwhy, "ssh exited 1")) /* cat: no such file */
			mods = fp_xstrdup(""), none = 1;
	}
	*bytes = (off_t)mods_len;
	if (rc == 0 && mods && kallsyms_current(dir, mods, mods_len, none)) {
		close(fd);
		unlink(tmp);
		free(mods);
		pthread_mutex_lock(&rm.lock);
		rm.st.cached++;
		pthread_mutex_unlock(&rm.lock);
		*path = fp_xstrdup(final);
		return 0;
	}
	if (rc == 0)
		rc = fetch_into(w, "exec cat /proc/kallsyms", fd, r->f.deadline, why, cap);
	*bytes += fstat(fd, &st) == 0 ? st.st_size : 0;
	close(fd);
	if (rc == 0 && st.st_size == 0) {
		snprintf(why, cap, "its /proc/kallsyms is empty");
		rc = -1;
	}
	if (rc == 0 && settle(tmp, final) < 0) {
		snprintf(why, cap, "cannot keep it in %s: %s", rm.cache, strerror(errno));
		rc = -1;
	}
	if (rc < 0) {
		unlink(tmp);
		free(mods);
		return -1;
	}
	/* the modules they went with, for the next capture (best effort) */
	char mpath[PATH_MAX];
	int mfd = mods ? temp_file(tmp, sizeof tmp) : -1;
	if (mfd >= 0) {
		int ok = write(mfd, mods, mods_len) == (ssize_t)mods_len;
		close(mfd);
		if (!ok || !fits(snprintf(mpath, sizeof mpath, "%s/modules", dir), sizeof mpath) ||
		    rename(tmp, mpath) < 0)
			unlink(tmp);
	}
	free(mods);
	*path = fp_xstrdup(final);
	return 0;
}

/* One fetch on worker w: the kernel's symbols or a file. */
static int fetch(struct pd_fetch *f, int w, void *ctx, char **path, char *why, size_t cap)
{
	struct request *r = (struct request *)f;
	int temporary = 0;
	off_t bytes = 0;
	int rc = r->kind == R_KERNEL ? fetch_kernel(w, r, path, &bytes, why, cap)
				     : fetch_file(w, r, path, &temporary, &bytes, why, cap);

	pthread_mutex_lock(&rm.lock);
	rm.st.bytes += (unsigned long)bytes;
	if (rc == 0)
		rm.st.fetched++;
	pthread_mutex_unlock(&rm.lock);
	/* read once r is answered FOUND (pd_remote_stop), or by drop here */
	r->temporary = temporary;
	return rc;
}

/* A fetched file whose waiter gave up on it. */
static void drop(struct pd_fetch *f, const char *path)
{
	if (((struct request *)f)->temporary)
		unlink(path);
}

/* At the end: the ssh commands under way are killed. */
static void cancel(void)
{
	pthread_mutex_lock(&rm.lock);
	for (int i = 0; i < WORKERS; i++)
		if (rm.running[i] > 0)
			kill(rm.running[i], SIGKILL);
	pthread_mutex_unlock(&rm.lock);
}

static const struct pd_fetchpool_ops ops = {
	.run = fetch,
	.drop = drop,
	.cancel = cancel,
};

struct key {
	enum kind kind;
	const char *name;
	const unsigned char *id;
	size_t n;
};

static int same(const struct pd_fetch *f, const void *key)
{
	const struct request *r = (const struct request *)f;
	const struct key *k = key;

	return r->kind == k->kind && r->n == k->n && memcmp(r->id, k->id, k->n) == 0 &&
	       (!k->name || strcmp(r->name, k->name) == 0);
}

/* Under the pool's lock: a new request, found already if an earlier run
 * fetched its file into the cache. */
static struct pd_fetch *make(const void *key)
{
	const struct key *k = key;
	struct request *r = fp_xcalloc(1, sizeof *r);
	char hex[HEX_MAX], cached[PATH_MAX];
	struct stat st;

	r->kind = k->kind;
	r->name = k->name ? fp_xstrdup(k->name) : NULL;
	if (k->n)
		memcpy(r->id, k->id, k->n);
	r->n = k->n;
	if (k->kind == R_FILE && k->n) {
		hex_of(k->id, k->n, hex);
		if (cache_elf(hex, cached, sizeof cached) && stat(cached, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			/* fetched by an earlier run: no round trip */
			r->f.path = fp_xstrdup(cached);
			pthread_mutex_lock(&rm.lock);
			rm.st.cached++;
			pthread_mutex_unlock(&rm.lock);
		}
	}
	return &r->f;
}

int pd_remote_start(const struct pd_remote_opts *o, const char **why)
{
	static char control[PATH_MAX + 16];
	static char msg[PATH_MAX + 64];

	if (pool.on)
		return 0;
	if (o->nssh_args + 16 > ARGV_MAX) {
		*why = "too many ssh options";
		return -1;
	}
	rm.cache = fp_xstrdup(o->cache ? o->cache : pd_remote_default_cache());
	if (make_dirs(rm.cache) < 0) {
		snprintf(msg, sizeof msg, "cannot make the cache %s: %s", rm.cache,
			 strerror(errno));
		*why = msg;
		return -1;
	}
	rm.started = pd_fetch_now();
	const char **a = rm.argv;
	*a++ = "ssh";
	*a++ = "-n";
	*a++ = "-T";
	*a++ = "-o";
	*a++ = "BatchMode=yes";
	if (o->control) {
		/* the capture's connection if it is up, else one of its own */
		snprintf(control, sizeof control, "ControlPath=%s", o->control);
		rm.control = fp_xstrdup(o->control);
		*a++ = "-o";
		*a++ = "ControlMaster=no";
		*a++ = "-o";
		*a++ = control;
	}
	for (size_t i = 0; i < o->nssh_args; i++)
		*a++ = o->ssh_args[i];
	*a++ = "--";
	*a++ = o->host;
	rm.argc = (size_t)(a - rm.argv);
	elf_version(EV_CURRENT);
	if (!pd_fetchpool_start(&pool, &ops, WORKERS, o->limit, QUEUE_MAX)) {
		*why = "cannot start a thread";
		return -1;
	}
	const struct key kernel = { R_KERNEL, NULL, NULL, 0 };
	rm.kernel = (struct request *)pd_fetchpool_ask(&pool, same, make, &kernel);
	return 0;
}

int pd_remote_on(void)
{
	return pool.on;
}

/* Recorded names that are no file to fetch. */
static int not_a_file(const char *name)
{
	return name[0] != '/' || strstr(name, " (deleted)") || strncmp(name, "/memfd:", 7) == 0 ||
	       strncmp(name, "//anon", 6) == 0;
}

enum pd_di_state pd_remote_get(const char *name, const unsigned char *id, size_t n, int wait,
			       const char **path, const char **why)
{
	if (!pool.on || n > ID_MAX || not_a_file(name))
		return PD_DI_OFF;
	const struct key k = { R_FILE, name, id, n };
	struct pd_fetch *f = pd_fetchpool_ask(&pool, same, make, &k);
	return pd_fetchpool_state(&pool, f, wait, path, why);
}

enum pd_ksrc pd_remote_kallsyms(struct pd_dso *d, char *path, size_t cap)
{
	char want[HEX_MAX], why[WHY_MAX + 2 * HEX_MAX + 128];
	struct request *k = rm.kernel;
	const char *kpath, *kwhy;
	int wait = pd_buildid_wait();

	if (!wait) /* --live: the sample path waits a little, never the limit */
		pd_fetchpool_wait_at_most(&pool, &k->f, KERNEL_LIVE_WAIT_S);
	/* once answered, k (khex too) is final: read without the lock */
	enum pd_di_state s = pd_fetchpool_state(&pool, &k->f, wait, &kpath, &kwhy);
	if (s == PD_DI_PENDING) {
		/* pd_machine_poll_debuginfod loads them again when they come */
		d->missing = d->pending = 1;
		d->missing_why = fp_xstrdup("the remote host's kallsyms have not come yet");
		return PD_KSRC_NONE;
	}
	if (d->build_id_len)
		pd_buildid_hex(d->build_id, d->build_id_len, want);
	if (s != PD_DI_FOUND)
		snprintf(why, sizeof why, "the remote host's kallsyms: %s", kwhy);
	else if (d->build_id_len && strcmp(want, k->khex) != 0)
		snprintf(why, sizeof why,
			 "the recording's kernel has build-id %s, the remote "
			 "host's %s: its kallsyms would name the frames wrongly",
			 want, k->khex);
	else if (fits(snprintf(path, cap, "%s", kpath), cap))
		return PD_KSRC_CACHE;
	else
		snprintf(why, sizeof why, "its path is too long");
	d->missing = 1;
	d->missing_why = fp_xstrdup(why);
	return PD_KSRC_NONE;
}

unsigned pd_remote_answers(void)
{
	return pd_fetchpool_answers(&pool);
}

void pd_remote_stats(struct pd_remote_stats *st)
{
	struct pd_fetch_stats ps;

	pd_fetchpool_stats(&pool, &ps);
	pthread_mutex_lock(&rm.lock);
	*st = rm.st;
	pthread_mutex_unlock(&rm.lock);
	st->failed = ps.failed;
}

/* A file without a build-id, fetched for this run only. */
static void remove_temporary(const struct pd_fetch *f, void *ctx)
{
	/* FOUND first: temporary is final once f is answered */
	if (f->state == PD_DI_FOUND && ((const struct request *)f)->temporary)
		unlink(f->path);
}

void pd_remote_stop(double wait_s)
{
	if (!pool.on)
		return;
	pd_fetchpool_stop(&pool, wait_s);
	pd_fetchpool_each(&pool, remove_temporary, NULL);
}
