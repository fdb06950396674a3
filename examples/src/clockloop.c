/*
 * clockloop.c - the classic FlameScope demo workload.
 *
 * Calls clock_gettime(CLOCK_MONOTONIC) N times in a tight loop
 * (default 2^25; argv[1] overrides the count).
 *
 * Why syscall(2) and not clock_gettime(3): glibc's clock_gettime() is
 * served by the vDSO entirely in user space, so the work would never
 * enter the kernel.  Going through syscall(SYS_clock_gettime, ...)
 * forces a real system call each iteration, so the time is spent in
 * kernel code (do_syscall_64 -> __x64_sys_clock_gettime -> ...) and
 * each run shows up as a distinct vertical band of kernel stacks in a
 * subsecond-offset heatmap.
 *
 * Build: cc -O2 -g -fno-omit-frame-pointer -o clockloop clockloop.c
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	unsigned long n = 1UL << 25, i;
	struct timespec ts;

	if (argc > 1)
		n = strtoul(argv[1], NULL, 0);
	for (i = 0; i < n; i++)
		syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	printf("clockloop: %lu calls, last %ld.%09ld\n", n, (long)ts.tv_sec, ts.tv_nsec);
	return 0;
}
