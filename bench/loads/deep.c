/* deep.c: deep, mostly unique recursion for the bench's recursion corpus.
 *
 * Usage: deep [SECONDS]   (default 10)
 *
 * Two processes, each recursing 60..120 levels (perf keeps 127 frames)
 * through eight named noinline functions chosen by a hash of the depth
 * and a per-descent seed, so nearly every stack is new: what a recursive
 * parser or a tree walk over real data looks like, and the worst case for
 * anything that caches stacks. Not part of the product.
 *
 * Build: cc -O2 -fno-omit-frame-pointer -o deep bench/loads/deep.c
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define DEPTH_MIN 60
#define DEPTH_SPAN 61
#define LEAF_ROUNDS 3000

static volatile uint64_t sink;
typedef uint64_t (*step_fn)(uint64_t seed, int depth);
static uint64_t go(uint64_t seed, int depth);

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	return x ^ (x >> 29);
}

/* Macro calls without semicolons: clang-format would join them. */
/* clang-format off */
#define STEP(name, k)                                           \
	NOINLINE static uint64_t name(uint64_t seed, int depth) \
	{                                                       \
		return go(seed * 31 + k, depth - 1) + k;        \
	}
STEP(expr_binary, 1)
STEP(expr_unary, 2)
STEP(stmt_block, 3)
STEP(stmt_if, 4)
STEP(stmt_loop, 5)
STEP(call_args, 6)
STEP(type_resolve, 7)
STEP(scope_lookup, 8)
/* clang-format on */

static const step_fn steps[8] = {
	expr_binary, expr_unary, stmt_block,   stmt_if,
	stmt_loop,   call_args,  type_resolve, scope_lookup,
};

NOINLINE static uint64_t leaf_work(uint64_t seed)
{
	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
	for (int i = 0; i < LEAF_ROUNDS; i++)
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return seed;
}

static uint64_t go(uint64_t seed, int depth)
{
	if (depth <= 0)
		return leaf_work(seed);
	return steps[mix(seed ^ (uint64_t)depth) & 7](seed, depth);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	pid_t child = fork();
	double end = now() + seconds;
	uint64_t seed = (uint64_t)getpid() * 7919;

	while (now() < end) {
		seed = mix(seed + 1);
		sink += go(seed, DEPTH_MIN + (int)(seed % DEPTH_SPAN));
	}
	if (child > 0)
		waitpid(child, NULL, 0);
	return 0;
}
