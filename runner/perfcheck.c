/* perfcheck.c: can perf sample here? (perfcheck.h) */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fp_error.h"
#include "perfcheck.h"

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

static long read_paranoid(void)
{
	FILE *f = fopen(PARANOID_PATH, "r");
	long v = LONG_MIN;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = LONG_MIN;
		fclose(f);
	}
	return v;
}

/* Asks the kernel for the cpu-clock event perf will need (system-wide on
 * CPU 0 for -a, the process for -p, ourselves for a COMMAND), so a refusal
 * is explained before anything starts. Dies with advice on failure. */
void fp_check_perf_allowed(const char *pid_list, int command, int all_cpus)
{
	struct perf_event_attr a;
	pid_t pid = -1;
	int cpu = 0, fd;
	long paranoid;
	const char *scope = "system-wide profiling (-a)";

	if (pid_list) {
		pid = (pid_t)strtol(pid_list, NULL, 10); /* the first of a list */
		cpu = -1;
		scope = "profiling another process (-p)";
	} else if (command && !all_cpus) {
		pid = 0;
		cpu = -1;
		scope = "profiling a command";
	}
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.disabled = 1;
	a.exclude_kernel = geteuid() != 0; /* what perf falls back to */
	fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, 0UL);
	if (fd >= 0) {
		close(fd);
		return;
	}
	switch (errno) {
	case EACCES:
	case EPERM:
		paranoid = read_paranoid();
		fp_die(FP_EXIT_SYS,
		       "live: the kernel refuses %s: you are not root and "
		       "kernel.perf_event_paranoid is %ld. Run flamepipe live as root (sudo), "
		       "or allow it: sysctl -w kernel.perf_event_paranoid=%d (-a needs <= 0, "
		       "-p and COMMAND need <= 2; kernel stacks need <= 1), or give the binary "
		       "CAP_PERFMON",
		       scope, paranoid, pid_list || command ? 1 : -1);
	case ESRCH:
		fp_die(FP_EXIT_USAGE, "live: -p %s: no such process", pid_list);
	case ENOSYS:
		fp_die(FP_EXIT_SYS, "live: this kernel has no perf events (perf_event_open: "
				    "not implemented); build it with CONFIG_PERF_EVENTS");
	default:
		fp_die_sys(FP_EXIT_SYS, "live: perf_event_open (cpu-clock) failed, so perf "
					"cannot sample here");
	}
}

/* perf record -h OPTION prints that option's help, or nothing of it. */
static int perf_knows_all_cgroups(void)
{
	FILE *f = popen("perf record -h all-cgroups 2>&1", "r");
	char line[256];
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (strstr(line, "--all-cgroups"))
			found = 1;
	pclose(f);
	return found;
}

int fp_perf_records_cgroups(void)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.sample_period = 1000000;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CGROUP;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0UL);
	if (fd < 0)
		return 0;
	close(fd);
	return perf_knows_all_cgroups();
}

/* tracefs, where the kernel mounts it, and where older systems have it */
static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

const char *fp_perf_tracepoint_problem(const char *system, const char *name)
{
	static char why[256];
	char path[PATH_MAX];
	struct perf_event_attr a;
	long long id = -1;
	int fd;

	for (size_t i = 0; i < sizeof tracefs_dirs / sizeof *tracefs_dirs && id < 0; i++) {
		snprintf(path, sizeof path, "%s/events/%s/%s/id", tracefs_dirs[i], system, name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%lld", &id) != 1)
			id = -1;
		fclose(f);
	}
	if (id < 0) {
		snprintf(why, sizeof why,
			 "no readable %s/events/%s/%s/id (tracefs not mounted, "
			 "not readable by this user, or no such event)",
			 tracefs_dirs[0], system, name);
		return why;
	}
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)id;
	a.disabled = 1;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW |
			PERF_SAMPLE_CALLCHAIN;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0UL);
	if (fd < 0) {
		snprintf(why, sizeof why,
			 "perf_event_open: %s (kernel.perf_event_paranoid is "
			 "%ld; tracepoints need it at -1 or CAP_PERFMON and a readable tracefs)",
			 strerror(errno), read_paranoid());
		return why;
	}
	close(fd);
	return NULL;
}
