/* fp_cpus.c: CPUs by affinity and cgroup quota (fp_cpus.h). */
#include "fp_cpus.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES 4096

/* The CPUs "quota period" allows, rounded up; 0: no limit or unreadable. */
static unsigned quota_cpus(unsigned long long quota, unsigned long long period)
{
	if (!period || !quota)
		return 0;
	unsigned long long n = (quota + period - 1) / period;

	return n > UINT_MAX ? UINT_MAX : (unsigned)n;
}

/* v2: DIR/cpu.max is "max PERIOD" or "QUOTA PERIOD". */
static unsigned v2_dir(const char *dir)
{
	char path[PATH_MAX], q[32];
	unsigned long long period = 0;
	unsigned n = 0;

	if (snprintf(path, sizeof path, "%s/cpu.max", dir) >= (int)sizeof path)
		return 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	if (fscanf(f, "%31s %llu", q, &period) == 2 && strcmp(q, "max"))
		n = quota_cpus(strtoull(q, NULL, 10), period);
	fclose(f);
	return n;
}

static long long read_ll(const char *dir, const char *name)
{
	char path[PATH_MAX];
	long long v = -1;

	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
		return -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* v1: DIR/cpu.cfs_quota_us (-1: none) over DIR/cpu.cfs_period_us. */
static unsigned v1_dir(const char *dir)
{
	long long quota = read_ll(dir, "cpu.cfs_quota_us");
	long long period = read_ll(dir, "cpu.cfs_period_us");

	if (quota <= 0 || period <= 0)
		return 0;
	return quota_cpus((unsigned long long)quota, (unsigned long long)period);
}

/* The tightest quota of base+path and each ancestor up to base. */
static unsigned walk_up(const char *base, const char *cg, unsigned (*one)(const char *))
{
	char dir[PATH_MAX];
	unsigned best = 0;

	if (snprintf(dir, sizeof dir, "%s%s", base, strcmp(cg, "/") ? cg : "") >= (int)sizeof dir)
		return 0;
	size_t stop = strlen(base);

	for (;;) {
		unsigned n = one(dir);

		if (n && (!best || n < best))
			best = n;
		char *slash = strrchr(dir, '/');

		if (!slash || (size_t)(slash - dir) < stop)
			break;
		*slash = '\0';
	}
	return best;
}

/* Whether the comma-separated list has the controller "cpu". */
static int has_cpu(const char *list, size_t n)
{
	const char *p = list, *end = list + n;

	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t len = c ? (size_t)(c - p) : (size_t)(end - p);

		if (len == 3 && !memcmp(p, "cpu", 3))
			return 1;
		p += len + 1;
	}
	return 0;
}

unsigned fp_cpus_quota(const char *proc_cgroup, const char *fs)
{
	FILE *f = fopen(proc_cgroup, "re");
	char line[LINE_MAX_BYTES];
	unsigned best = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		unsigned n = 0;

		if (!b)
			continue;
		line[strcspn(line, "\n")] = '\0';
		const char *cg = b + 1;

		if (*cg != '/')
			continue;
		if (b == a + 1) { /* "0::PATH": cgroup v2 */
			n = walk_up(fs, cg, v2_dir);
		} else if (has_cpu(a + 1, (size_t)(b - a - 1))) { /* v1: "N:cpu,cpuacct:PATH" */
			char mnt[PATH_MAX];

			if (snprintf(mnt, sizeof mnt, "%s/%.*s", fs, (int)(b - a - 1), a + 1) <
			    (int)sizeof mnt)
				n = walk_up(mnt, cg, v1_dir);
			if (!n && snprintf(mnt, sizeof mnt, "%s/cpu", fs) < (int)sizeof mnt)
				n = walk_up(mnt, cg, v1_dir);
		}
		if (n && (!best || n < best))
			best = n;
	}
	fclose(f);
	return best;
}

unsigned fp_cpus_usable(unsigned max)
{
	cpu_set_t set;
	unsigned n = max;

	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 &&
	    (unsigned)CPU_COUNT(&set) < n)
		n = (unsigned)CPU_COUNT(&set);
	unsigned q = fp_cpus_quota("/proc/self/cgroup", "/sys/fs/cgroup");

	if (q && q < n)
		n = q;
	return n ? n : 1;
}
