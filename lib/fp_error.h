/* fp_error.h: one way to report errors, for every flamepipe program.
 *
 * Messages look like `prog: what failed: why` (git/skalibs style: lower case,
 * no final full stop). Every exit code of every program (stages, the
 * runner, fp-serve) is defined here, once, and documented in README.md and
 * docs/flamepipe.md:
 *
 *   0   success
 *   1   bad input data (a file, line and expectation were printed)
 *   2   the runner: a stage failed otherwise (another code, a signal, gave
 *       up restarting, killed after a deadline)
 *   100 usage error or permanent failure (bad option, bad pipeline file)
 *   111 a system call failed (open, read, write, fork, mkfifo ...)
 *   141 a stage's reader went away (128 + SIGPIPE); not a failure when the
 *       stage after it has finished
 *
 * Calling sequence: fp_set_prog(argv[0]) first thing in main().
 */
#ifndef FP_ERROR_H
#define FP_ERROR_H

#include <stdarg.h>

enum {
	FP_EXIT_OK = 0,
	FP_EXIT_DATA = 1,
	FP_EXIT_STAGE = 2,
	FP_EXIT_USAGE = 100,
	FP_EXIT_SYS = 111,
	FP_EXIT_PIPE = 141,
};

/* Sets the name used as message prefix: the basename of argv0. */
void fp_set_prog(const char *argv0);
const char *fp_prog(void);

/* prog: <fmt...> and exit(code). */
_Noreturn void fp_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* prog: <fmt...>: strerror(errno) and exit(code). */
_Noreturn void fp_die_sys(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* prog: warning: <fmt...> (never exits). */
void fp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* prog: warning: <fmt...>: strerror(errno). */
void fp_warn_sys(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that dies with FP_EXIT_SYS on failure. */
void *fp_xmalloc(size_t n);
void *fp_xcalloc(size_t n, size_t size);
/* fp_xcalloc for a hash table's slots, probed at random: every page is
 * written now. A calloc'd page that a lookup reads before the first
 * insert writes it maps the shared zero page, and that write then costs a
 * second, copy-on-write fault, which in a process with threads flushes
 * the TLB of every CPU they run on: fp-read's table of tails spent 6 % of
 * its time in those flushes (IPIs, which a VM traps). */
void *fp_xcalloc_touched(size_t n, size_t size);
void *fp_xrealloc(void *p, size_t n);
/* free() of each pointer given, for the arrays a struct owns:
 *	FP_FREE_ALL(t->ids, t->names, t->buf);
 */
#define FP_FREE_ALL(...)                            \
	fp_free_all((void *const[]){ __VA_ARGS__ }, \
		    sizeof(void *const[]){ __VA_ARGS__ } / sizeof(void *))
void fp_free_all(void *const *p, size_t n);

/* Grows p, an array of *cap elements of `size` bytes, so it holds at
 * least `need` (doubling, from `min`); returns the array, *cap its size. */
void *fp_xgrow(void *p, size_t *cap, size_t need, size_t size, size_t min);
/* Grows p, an array of *n elements indexed by id, so it holds at least
 * `need` (to twice need, the new elements zeroed); returns the array, *n its
 * size. For tables indexed by ids handed out one by one. */
void *fp_xgrow_zeroed(void *p, size_t *n, size_t need, size_t size);
char *fp_xstrdup(const char *s);
char *fp_xstrndup(const char *s, size_t n);

#endif
