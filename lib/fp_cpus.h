/* fp_cpus.h: how many CPUs this process can keep busy.
 *
 * The CPUs it may run on (sched_getaffinity), bounded by the CPU quota of
 * its cgroup and every ancestor's (cgroup v2 `cpu.max`, v1
 * `cpu.cfs_quota_us` / `cpu.cfs_period_us`, rounded up): a container
 * given 2 CPUs of a 64-CPU host gets 2, so its threads are not throttled
 * by the quota in turns.
 */
#ifndef FP_CPUS_H
#define FP_CPUS_H

/* At least 1, at most max. */
unsigned fp_cpus_usable(unsigned max);

/* The quota part, for tests: proc_cgroup is a /proc/PID/cgroup file, fs
 * the cgroup file system's mount (v2 there, v1 controllers below it);
 * returns the CPUs the tightest quota allows, or 0 when none is set. */
unsigned fp_cpus_quota(const char *proc_cgroup, const char *fs);

#endif
