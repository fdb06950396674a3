/* offcpu-sleeper: known blocked time in known functions, for the off-CPU
 * tests (t1170-).
 *
 *	offcpu-sleeper [PERIODS [PERIOD_MS [KNOWN_MS [OTHER_MS [TIMES_FILE]]]]]
 *	    defaults: 20 periods of 100 ms: 50 ms known, 25 ms other
 *
 * One thread. Each period, on absolute CLOCK_MONOTONIC deadlines (so a
 * late wakeup does not shift the next period): offcpu_known_sleep blocks
 * in nanosleep until KNOWN_MS after the period's start,
 * offcpu_other_sleep until KNOWN_MS + OTHER_MS after it, then
 * offcpu_spin runs until the period's end. Any window of whole periods
 * therefore holds KNOWN_MS blocked in offcpu_known_sleep and OTHER_MS in
 * offcpu_other_sleep per period.
 *
 * The nanosleep is the syscall instruction itself, inside each named
 * noinline function built with a frame pointer: a frame-pointer callchain
 * of the switch-out starts in that function, where a libc wrapper
 * (compiled without frame pointers) would hide its caller.
 * TIMES_FILE: at the end, one line per sleep, `known|other START END
 * DEADLINE`, the CLOCK_MONOTONIC ns just before the syscall and just after
 * it returned (the time off-CPU as the thread saw it, however late a
 * loaded machine ran it again; a capture made with perf record -k
 * CLOCK_MONOTONIC has the same clock), and the absolute time it slept
 * until (when its timer woke it: the end of the blocked time proper).
 * Exit codes: 0 ok, 100 usage, 111 TIMES_FILE not written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>

#include "fp_error.h"

#define NS_PER_MS 1000000LL
#define NS_PER_SEC 1000000000LL
#define FP_FUNC __attribute__((noinline, optimize("no-omit-frame-pointer")))

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, until) as the syscall
 * instruction here, in the caller's frame. */
static inline __attribute__((always_inline)) void sleep_until_here(long long until)
{
	struct timespec ts = { (time_t)(until / NS_PER_SEC), (long)(until % NS_PER_SEC) };
	long rc;

	do {
		register long r10 __asm__("r10") = 0; /* no remaining time wanted */
		__asm__ volatile("syscall"
				 : "=a"(rc)
				 : "0"((long)SYS_clock_nanosleep), "D"((long)CLOCK_MONOTONIC),
				   "S"((long)TIMER_ABSTIME), "d"(&ts), "r"(r10)
				 : "rcx", "r11", "memory");
	} while (rc == -4); /* EINTR */
}

FP_FUNC void offcpu_known_sleep(long long until)
{
	sleep_until_here(until);
}

FP_FUNC void offcpu_other_sleep(long long until)
{
	sleep_until_here(until);
}

FP_FUNC void offcpu_spin(long long until)
{
	while (now_ns() < until)
		;
}

static long arg(int argc, char **argv, int i, long def, long max)
{
	if (argc <= i)
		return def;
	char *end;
	long v = strtol(argv[i], &end, 10);
	if (*end || v < 0 || v > max)
		fp_die(FP_EXIT_USAGE, "argument %d: want 0..%ld, got \"%s\"", i, max, argv[i]);
	return v;
}

FP_FUNC int main(int argc, char **argv)
{
	fp_set_prog(argv[0]);
	long periods = arg(argc, argv, 1, 20, 100000);
	long period = arg(argc, argv, 2, 100, 60000);
	long known = arg(argc, argv, 3, 50, period);
	long other = arg(argc, argv, 4, 25, period - known);
	const char *times = argc > 5 ? argv[5] : NULL;
	long long *t = fp_xcalloc((size_t)periods * 4 + 1, sizeof *t);
	long long start = now_ns();

	for (long i = 0; i < periods; i++) {
		long long t0 = start + i * period * NS_PER_MS;
		t[4 * i + 3] = t0;
		t[4 * i] = now_ns();
		offcpu_known_sleep(t0 + known * NS_PER_MS);
		t[4 * i + 1] = now_ns();
		offcpu_other_sleep(t0 + (known + other) * NS_PER_MS);
		t[4 * i + 2] = now_ns();
		offcpu_spin(t0 + period * NS_PER_MS);
	}
	if (times) {
		FILE *f = fopen(times, "w");
		if (!f)
			fp_die_sys(FP_EXIT_SYS, "cannot write '%s'", times);
		for (long i = 0; i < periods; i++)
			fprintf(f, "known %lld %lld %lld\nother %lld %lld %lld\n", t[4 * i],
				t[4 * i + 1], t[4 * i + 3] + known * NS_PER_MS, t[4 * i + 1],
				t[4 * i + 2], t[4 * i + 3] + (known + other) * NS_PER_MS);
		if (fclose(f) != 0)
			fp_die_sys(FP_EXIT_SYS, "cannot write '%s'", times);
	}
	free(t);
	return 0;
}
