/* pd_procroot.c: a live process's files through its own root
 * (pd_procroot.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "fp_error.h"
#include "pd_buildid.h" /* pd_buildid_foreign */
#include "pd_procroot.h"
#include "pd_read.h"
#include "pd_symbols.h"
#include "pd_textsyms.h"

#define PATH_CAP 4096
#define JIT_MAP_FMT "/tmp/perf-%lld.map"
#define NSTGID "NStgid:"
/* Of RLIMIT_NOFILE, the share kept open for files of other namespaces
 * when their MMAP records are read (pd_symfile keeps up to half for
 * names); a file is kept past it only once its symbols are read. */
#define KEEP_SHARE 4

static int kept; /* descriptors kept open for dsos */

uint64_t pd_procroot_mntns(int64_t pid)
{
	static struct stat self;
	static int have_self;
	char path[64];
	struct stat st;

	if (!have_self)
		have_self = stat("/proc/self/ns/mnt", &self) == 0 ? 1 : -1;
	snprintf(path, sizeof path, "/proc/%lld/ns/mnt", (long long)pid);
	if (have_self < 0 || pid <= 0 || stat(path, &st) < 0)
		return 0;
	if (st.st_ino == self.st_ino && st.st_dev == self.st_dev)
		return 0;
	return st.st_ino ? (uint64_t)st.st_ino : 1;
}

int64_t pd_procroot_nstgid(int64_t pid)
{
	char path[64];
	size_t len;
	int err;

	snprintf(path, sizeof path, "/proc/%lld/status", (long long)pid);
	char *text = pd_read_file(path, &len, &err);
	if (!text)
		return -1;
	int64_t ns = pid;
	const char *line = strstr(text, "\n" NSTGID);
	if (line) {
		const char *eol = strchr(line + 1, '\n'), *last = NULL;
		/* the innermost namespace's pid is the last number of the line */
		for (const char *p = line + sizeof NSTGID; *p && p != eol; p++)
			if ((*p == '\t' || *p == ' ') && p[1] >= '0' && p[1] <= '9')
				last = p + 1;
		if (last)
			ns = strtoll(last, NULL, 10);
	}
	free(text);
	return ns;
}

static int budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 1024;
	return (int)(rl.rlim_cur / KEEP_SHARE);
}

/* path resolved as process pid resolves it: inside its root, absolute
 * symbolic links and ".." too (openat2's RESOLVE_IN_ROOT; a plain
 * /proc/PID/root/path would follow an absolute link planted in the
 * container out to this host's files). A regular file only, as
 * pd_open_regular. */
static int open_in_root(int64_t pid, const char *path, int *err)
{
	char root[64];
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;

	snprintf(root, sizeof root, "/proc/%lld/root", (long long)pid);
	int dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0) {
		*err = errno;
		return -1;
	}
	int fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof how);
	*err = fd < 0 ? errno : 0;
	close(dir);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		*err = EINVAL;
		fd = -1;
	}
	return fd;
}

/* Opens d's file as process pid sees it: for a JIT map, the map of its pid
 * in its own pid namespace. */
static int open_ns_file(const struct pd_dso *d, int64_t pid, int *err)
{
	char jit[64];
	const char *path = d->name;

	if (d->type == PD_DSO_JITMAP) {
		int64_t ns = pd_procroot_nstgid(pid);
		if (ns < 0) {
			*err = ESRCH;
			return -1;
		}
		snprintf(jit, sizeof jit, JIT_MAP_FMT, (long long)ns);
		path = jit;
	} else if (d->name[0] != '/') {
		*err = ENOENT;
		return -1;
	}
	return open_in_root(pid, path, err);
}

static void keep(struct pd_dso *d, int fd)
{
	d->ns_fd = fd;
	kept++;
}

void pd_procroot_attach(struct pd_dso *d, int64_t pid)
{
	int err;

	if (d->ns_pid || d->loaded || d->ready ||
	    (d->type != PD_DSO_ELF && d->type != PD_DSO_JITMAP))
		return;
	d->ns_pid = pid;
	if (kept >= budget())
		return; /* opened when its symbols are read: while pid lives */
	/* not there yet (a JIT map is written as code is made): looked for
	 * again when the symbols are read */
	int fd = open_ns_file(d, pid, &err);
	if (fd >= 0)
		keep(d, fd);
}

void pd_procroot_attach_map(struct pd_dso *d, int64_t pid, uint64_t start, uint64_t end,
			    const struct pd_file_id *id)
{
	char path[96];
	struct stat st;

	if (d->map_checked || d->ns_pid || d->loaded || d->ready || d->loader ||
	    d->type != PD_DSO_ELF)
		return;
	d->map_checked = 1;
	/* the mapped file is not at its path here: another one is, or none
	 * (deleted: perf's name ends in " (deleted)") */
	if (pd_buildid_foreign() || kept >= budget() || d->name[0] != '/' ||
	    (stat(d->name, &st) == 0 &&
	     pd_file_id_is(id, major(st.st_dev), minor(st.st_dev), st.st_ino)))
		return;
	snprintf(path, sizeof path, "/proc/%lld/map_files/%llx-%llx", (long long)pid,
		 (unsigned long long)start, (unsigned long long)end);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return; /* gone, unmapped, or not root */
	/* pid may be another process by now: only the mapped file will do */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    !pd_file_id_is(id, major(st.st_dev), minor(st.st_dev), st.st_ino)) {
		close(fd);
		return;
	}
	d->ns_pid = pid;
	keep(d, fd);
}

const char *pd_procroot_open(struct pd_dso *d, char *buf, size_t cap)
{
	int err;

	if (d->ns_fd < 0 && d->ns_pid) {
		int fd = open_ns_file(d, d->ns_pid, &err);
		if (fd >= 0)
			keep(d, fd);
	}
	if (d->ns_fd < 0)
		return NULL;
	snprintf(buf, cap, "/proc/self/fd/%d", d->ns_fd);
	return buf;
}

void pd_procroot_release(struct pd_dso *d)
{
	if (d->ns_fd >= 0) {
		close(d->ns_fd);
		kept--;
	}
	d->ns_fd = -1;
}
