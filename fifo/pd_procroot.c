/* pd_procroot.c: a live process's files through its own root
 * (pd_procroot.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fp_error.h"
#include "pd_procroot.h"
#include "pd_symbols.h"
#include "pd_textsyms.h"

#define PATH_CAP 4096
#define JIT_MAP_PREFIX "/tmp/perf-"
#define NSTGID "NStgid:"
/* Of RLIMIT_NOFILE, the share kept open for files of other namespaces
 * (pd_symfile keeps up to half for names). */
#define KEEP_SHARE 4

static int kept;		/* descriptors kept open by pd_procroot_attach */

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

/* The file of d as process pid sees it: for a JIT map, the map of its
 * pid in its own pid namespace. */
static int ns_file(const struct pd_dso *d, int64_t pid, char *buf, size_t cap)
{
	if (d->type == PD_DSO_JITMAP) {
		int64_t ns = pd_procroot_nstgid(pid);
		if (ns < 0)
			return -1;
		return snprintf(buf, cap, "/proc/%lld/root" JIT_MAP_PREFIX "%lld.map",
				(long long)pid, (long long)ns) < (int)cap ? 0 : -1;
	}
	if (d->name[0] != '/')
		return -1;
	return snprintf(buf, cap, "/proc/%lld/root%s", (long long)pid, d->name) < (int)cap ? 0 : -1;
}

void pd_procroot_attach(struct pd_dso *d, int64_t pid)
{
	char path[PATH_CAP];
	int err;

	if (d->ns_pid || d->loaded || d->ready || (d->type != PD_DSO_ELF && d->type != PD_DSO_JITMAP))
		return;
	if (ns_file(d, pid, path, sizeof path) < 0)
		return;
	d->ns_pid = pid;
	if (kept >= budget())
		return;		/* opened by path when read: while pid lives */
	/* not there yet (a JIT map is written as code is made): looked for
	 * again when the symbols are read */
	d->ns_fd = pd_open_regular(path, &err);
	if (d->ns_fd >= 0)
		kept++;
}

const char *pd_procroot_path(const struct pd_dso *d, char *buf, size_t cap)
{
	if (d->ns_fd >= 0) {
		snprintf(buf, cap, "/proc/self/fd/%d", d->ns_fd);
		return buf;
	}
	if (!d->ns_pid || ns_file(d, d->ns_pid, buf, cap) < 0)
		return NULL;
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
