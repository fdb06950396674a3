/* offcpu-waker: one thread woken by another, for the off-CPU wakeup tests
 * (t1161).
 *
 *	offcpu-waker [ROUNDS [WAIT_MS]]      defaults: 10 rounds of 30 ms
 *
 * The main thread blocks in offcpu_wait_token (a read of a pipe); a second
 * thread of the same process sleeps WAIT_MS, then writes a byte in
 * offcpu_wake_peer, which wakes it: the sched_waking is taken in the
 * waker's context, a task perf records (`perf record -- offcpu-waker`
 * follows both threads). As in offcpu-sleeper, the read and the write are
 * the syscall instruction inside each named noinline function with a
 * frame pointer, so frame-pointer stacks name them.
 * Exit codes: 0 ok, 100 usage, 111 a system call failed.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fp_error.h"

#define FP_FUNC __attribute__((noinline, optimize("no-omit-frame-pointer")))

static int fds[2];
static long rounds = 10, wait_ms = 30;

static inline __attribute__((always_inline)) long sys3(long nr, long a, long b, long c)
{
	long rc;

	__asm__ volatile("syscall"
			 : "=a"(rc)
			 : "0"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return rc;
}

FP_FUNC void offcpu_wait_token(void)
{
	char c;
	long rc;

	while ((rc = sys3(SYS_read, fds[0], (long)&c, 1)) == -4) /* EINTR */
		;
	if (rc != 1)
		fp_die(FP_EXIT_SYS, "read of the token failed (%ld)", rc);
}

FP_FUNC void offcpu_wake_peer(void)
{
	char c = 'x';

	if (sys3(SYS_write, fds[1], (long)&c, 1) != 1)
		fp_die(FP_EXIT_SYS, "write of the token failed");
}

static void *waker(void *arg)
{
	struct timespec ts = { wait_ms / 1000, (wait_ms % 1000) * 1000000L };

	(void)arg;
	for (long i = 0; i < rounds; i++) {
		while (nanosleep(&ts, &ts) != 0)
			;
		ts = (struct timespec){ wait_ms / 1000, (wait_ms % 1000) * 1000000L };
		offcpu_wake_peer();
	}
	return NULL;
}

static long arg(int argc, char **argv, int i, long def)
{
	if (argc <= i)
		return def;
	char *end;
	long v = strtol(argv[i], &end, 10);
	if (*end || v < 1 || v > 100000)
		fp_die(FP_EXIT_USAGE, "argument %d: want 1..100000, got \"%s\"", i, argv[i]);
	return v;
}

int main(int argc, char **argv)
{
	pthread_t t;

	fp_set_prog(argv[0]);
	rounds = arg(argc, argv, 1, rounds);
	wait_ms = arg(argc, argv, 2, wait_ms);
	if (pipe(fds) != 0)
		fp_die_sys(FP_EXIT_SYS, "pipe");
	if (pthread_create(&t, NULL, waker, NULL) != 0)
		fp_die(FP_EXIT_SYS, "pthread_create failed");
	for (long i = 0; i < rounds; i++)
		offcpu_wait_token();
	pthread_join(t, NULL);
	return 0;
}
