/* perfcheck.h: whether the kernel lets perf sample what `flamepipe live`
 * asks for, checked before anything starts (runner/perfcheck.c). */
#ifndef FP_RUNNER_PERFCHECK_H
#define FP_RUNNER_PERFCHECK_H

/* Opens (and closes) the cpu-clock event perf will need: system-wide on
 * CPU 0 (all_cpus), the first process of pid_list (-p), or ourselves for
 * a COMMAND. Dies with advice (perf_event_paranoid, sudo, CAP_PERFMON;
 * exit 111, or 100 for a -p process that does not exist) on a refusal. */
void fp_check_perf_allowed(const char *pid_list, int command, int all_cpus);

/* 1 if `flamepipe live` can ask perf for each sample's cgroup
 * (perf record --all-cgroups): the kernel takes PERF_SAMPLE_CGROUP (5.7
 * and later) and the perf found on PATH knows the option. */
int fp_perf_records_cgroups(void);

/* NULL if this process can open tracepoint SYSTEM:NAME with raw fields
 * and call graphs (what perf record -e SYSTEM:NAME -g asks for), else why
 * not (a static message: no tracefs, no such event, the kernel refused). */
const char *fp_perf_tracepoint_problem(const char *system, const char *name);

#endif
