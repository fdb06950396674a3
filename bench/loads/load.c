/* load.c: the benchmark's CPU load, captured by bench/make-corpus.sh.
 *
 * Usage: load [SECONDS]   (default 12)
 *
 * 3 processes x 2 threads, each thread with its own comm name. Every thread
 * loops: pick a depth of 20..60, recurse through a few named noinline
 * functions (the order depends on the depth, so there are many different
 * but recurring call chains), and at the bottom either compute or make
 * system calls (so kernel frames appear on top of deep user stacks).
 * That gives perf script text with deep stacks, several comms, pids and
 * tids, user and kernel frames: what a busy real service looks like.
 *
 * Build: cc -O2 -fno-omit-frame-pointer -pthread -o load bench/load.c
 * Not part of the product.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
/* GCC omits the frame setup in leaf functions even with
 * -fno-omit-frame-pointer; taking the frame address forces one so the
 * leaf's caller stays visible to frame-pointer unwinding. */
#define LEAF_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

#define PROCESSES 3
#define THREADS_PER_PROCESS 2
#define DEPTH_MIN 20
#define DEPTH_SPAN 41 /* depths 20..60 */
#define DEFAULT_SECONDS 12.0
#define SPIN_ROUNDS 20000
#define SYSCALLS_PER_LEAF 40

static const char *const process_names[PROCESSES] = {
	"ld-frontend",
	"ld-indexer",
	"ld-compactor",
};
static const char *const thread_names[PROCESSES][THREADS_PER_PROCESS] = {
	{ "fe-parse", "fe-render" },
	{ "ix-tokenize", "ix-merge" },
	{ "cp-scan", "cp-write" },
};

static double run_seconds = DEFAULT_SECONDS;
static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE static uint64_t spin_leaf(uint64_t x)
{
	LEAF_FRAME();
	for (int i = 0; i < SPIN_ROUNDS; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

NOINLINE static uint64_t syscall_leaf(uint64_t x)
{
	struct timespec ts;
	for (int i = 0; i < SYSCALLS_PER_LEAF; i++) {
		syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
		x += (uint64_t)ts.tv_nsec + (uint64_t)syscall(SYS_getppid);
	}
	return x;
}

static uint64_t descend(uint64_t x, int depth, uint64_t pattern);

/* Four named levels; which one comes next depends on the pattern bits, so
 * chains differ but recur. Work after each call keeps it out of tail
 * position (a tail call would lose the frame). */
NOINLINE static uint64_t parse_node(uint64_t x, int depth, uint64_t pattern)
{
	return descend(x + 1, depth - 1, pattern >> 1) * 3 + 1;
}

NOINLINE static uint64_t visit_child(uint64_t x, int depth, uint64_t pattern)
{
	return descend(x ^ 5, depth - 1, pattern >> 1) * 5 + 2;
}

NOINLINE static uint64_t apply_rule(uint64_t x, int depth, uint64_t pattern)
{
	return descend(x + 7, depth - 1, pattern >> 1) * 7 + 3;
}

NOINLINE static uint64_t reduce_expr(uint64_t x, int depth, uint64_t pattern)
{
	return descend(x ^ 11, depth - 1, pattern >> 1) * 11 + 4;
}

static uint64_t descend(uint64_t x, int depth, uint64_t pattern)
{
	if (depth <= 0)
		return (pattern & 1) ? syscall_leaf(x) : spin_leaf(x);
	switch ((pattern ^ (uint64_t)depth) & 3) {
	case 0:
		return parse_node(x, depth, pattern);
	case 1:
		return visit_child(x, depth, pattern);
	case 2:
		return apply_rule(x, depth, pattern);
	default:
		return reduce_expr(x, depth, pattern);
	}
}

NOINLINE static void work_loop(unsigned seed)
{
	double end = now() + run_seconds;
	uint64_t x = seed;
	while (now() < end) {
		seed = seed * 1103515245u + 12345u;
		int depth = DEPTH_MIN + (int)((seed >> 8) % DEPTH_SPAN);
		/* few distinct patterns, so stacks recur like a real service */
		uint64_t pattern = (seed >> 16) & 0x7;
		x = descend(x, depth, pattern * 0x9249249249249249ULL);
	}
	sink += x;
}

struct thread_arg {
	const char *name;
	unsigned seed;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	prctl(PR_SET_NAME, a->name);
	work_loop(a->seed);
	return NULL;
}

static void run_process(int index)
{
	pthread_t t[THREADS_PER_PROCESS];
	struct thread_arg args[THREADS_PER_PROCESS];
	prctl(PR_SET_NAME, process_names[index]);
	for (int i = 0; i < THREADS_PER_PROCESS; i++) {
		args[i].name = thread_names[index][i];
		args[i].seed = (unsigned)(index * 7919 + i * 104729 + 1);
		if (pthread_create(&t[i], NULL, thread_main, &args[i]) != 0) {
			perror("load: pthread_create");
			exit(1);
		}
	}
	for (int i = 0; i < THREADS_PER_PROCESS; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		run_seconds = atof(argv[1]);
	for (int i = 0; i < PROCESSES; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("load: fork");
			return 1;
		}
		if (pid == 0) {
			run_process(i);
			_exit(0);
		}
	}
	int status, failed = 0;
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	return failed;
}
