/*
 * multiproc.c - multi-process, multi-thread demo workload for flamepipe.
 *
 * The parent ("multiproc") forks 2 child processes; each child renames
 * itself and runs 2 pthreads, each thread with its own comm name and its
 * own chain of named noinline functions, busy for SECONDS (argv[1],
 * default 6):
 *
 *   child "mp-hasher"  thread "mp-hash-parse": parse_request -> hash_block -> mix_round
 *                      thread "worker2":       compress_chunk -> match_window -> emit_literal
 *   child "mp-sorter"  thread "mp-sort-merge": sort_records -> merge_runs -> compare_keys
 *                      thread "mp-crc32":      checksum_file -> crc_update -> crc_step
 *
 * Every chain starts at <thread>_main -> run_for -> ... so user stacks are
 * 5-6 frames deep.  Each caller does work after the call returns so that
 * no call becomes a sibling (tail) call and every frame stays visible.
 *
 * Build: cc -O2 -g -fno-omit-frame-pointer -pthread -o multiproc multiproc.c
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
/*
 * GCC 12 emits no push %rbp / mov %rsp,%rbp in leaf functions that need no
 * stack, even with -fno-omit-frame-pointer, so a sample in the leaf would
 * lose its caller from the frame-pointer chain.  Taking the frame address
 * forces a real frame; put LEAF_FRAME() at the top of every leaf.
 */
#define LEAF_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

static double seconds = 6.0;
static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- hasher, thread 1 ---- */
NOINLINE static uint64_t mix_round(uint64_t h, uint64_t v)
{
	LEAF_FRAME();
	for (int i = 0; i < 64; i++) {
		h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
	}
	return h;
}

NOINLINE static uint64_t hash_block(uint64_t seed)
{
	uint64_t h = seed;
	for (int i = 0; i < 16; i++)
		h = mix_round(h, (uint64_t)i) + 1;
	return h ^ (h >> 33);
}

NOINLINE static uint64_t parse_request(uint64_t seed)
{
	uint64_t acc = 0;
	for (int i = 0; i < 8; i++)
		acc += hash_block(seed + (uint64_t)i) * 31;
	return acc;
}

/* ---- hasher, thread 2 ("worker2") ---- */
NOINLINE static uint64_t emit_literal(uint64_t x)
{
	LEAF_FRAME();
	for (int i = 0; i < 96; i++)
		x = (x >> 3) ^ (x * 0xff51afd7ed558ccdULL) ^ (uint64_t)i;
	return x;
}

NOINLINE static uint64_t match_window(uint64_t x)
{
	uint64_t best = 0;
	for (int i = 0; i < 12; i++) {
		uint64_t c = emit_literal(x + (uint64_t)i);
		if (c > best)
			best = c;
	}
	return best + 7;
}

NOINLINE static uint64_t compress_chunk(uint64_t x)
{
	uint64_t out = 1;
	for (int i = 0; i < 8; i++)
		out ^= match_window(x ^ out) << 1;
	return out;
}

/* ---- sorter, thread 1 ---- */
NOINLINE static int compare_keys(uint64_t a, uint64_t b)
{
	int r = 0;
	LEAF_FRAME();
	for (int i = 0; i < 48; i++) {
		a = a * 2862933555777941757ULL + 3037000493ULL;
		b = b * 2862933555777941757ULL + 3037000493ULL;
		r += (a < b) - (a > b);
	}
	return r;
}

NOINLINE static uint64_t merge_runs(uint64_t x)
{
	uint64_t n = 0;
	for (int i = 0; i < 24; i++)
		n += (uint64_t)(compare_keys(x + (uint64_t)i, x ^ (uint64_t)i) + 100);
	return n * 3;
}

NOINLINE static uint64_t sort_records(uint64_t x)
{
	uint64_t s = 0;
	for (int i = 0; i < 8; i++)
		s += merge_runs(x + s) + 1;
	return s;
}

/* ---- sorter, thread 2 ---- */
NOINLINE static uint32_t crc_step(uint32_t crc, uint64_t v)
{
	LEAF_FRAME();
	for (int i = 0; i < 64; i++) {
		crc ^= (uint32_t)(v >> (i & 31));
		crc = (crc >> 1) ^ (0xedb88320U & (0U - (crc & 1U)));
	}
	return crc;
}

NOINLINE static uint32_t crc_update(uint32_t crc, uint64_t x)
{
	for (int i = 0; i < 16; i++)
		crc = crc_step(crc, x + (uint64_t)i) ^ 0x5a;
	return ~crc;
}

NOINLINE static uint64_t checksum_file(uint64_t x)
{
	uint32_t crc = 0xffffffffU;
	for (int i = 0; i < 8; i++)
		crc = crc_update(crc, x + (uint64_t)i) + 3;
	return crc;
}

/* ---- common driver ---- */
typedef uint64_t (*work_fn)(uint64_t);

NOINLINE static uint64_t run_for(work_fn fn, double secs)
{
	double end = now() + secs;
	uint64_t x = 12345, n = 0;
	while (now() < end) {
		for (int i = 0; i < 64; i++)
			x = fn(x) + 1;
		n++;
	}
	sink += x;
	return n;
}

/* A thread's entry: a function of its own (so each thread's stacks start
 * with its own frame), named COMM, running WORK for the given seconds. */
#define THREAD_MAIN(fn_name, comm, work)           \
	NOINLINE static void *fn_name(void *arg)   \
	{                                          \
		(void)arg;                         \
		prctl(PR_SET_NAME, comm, 0, 0, 0); \
		sink += run_for(work, seconds);    \
		return NULL;                       \
	}

THREAD_MAIN(hash_parse_main, "mp-hash-parse", parse_request)
THREAD_MAIN(worker2_main, "worker2", compress_chunk)
THREAD_MAIN(sort_merge_main, "mp-sort-merge", sort_records)
THREAD_MAIN(crc_main, "mp-crc32", checksum_file)

static int child(const char *name, void *(*a)(void *), void *(*b)(void *))
{
	pthread_t ta, tb;

	prctl(PR_SET_NAME, name, 0, 0, 0);
	if (pthread_create(&ta, NULL, a, NULL) != 0 || pthread_create(&tb, NULL, b, NULL) != 0) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	pid_t pids[2];
	int rc = 0;

	if (argc > 1)
		seconds = atof(argv[1]);
	for (int i = 0; i < 2; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fork");
			return 1;
		}
		if (pids[i] == 0)
			_exit(i == 0 ? child("mp-hasher", hash_parse_main, worker2_main)
				     : child("mp-sorter", sort_merge_main, crc_main));
	}
	for (int i = 0; i < 2; i++) {
		int st;
		if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			rc = 1;
	}
	printf("multiproc: 2 processes x 2 threads, %.1f s each\n", seconds);
	return rc;
}
