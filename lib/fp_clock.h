/* fp_clock.h: a clock read in milliseconds, for fp-serve's deadlines,
 * timers and costs (CLOCK_MONOTONIC for the wall, CLOCK_THREAD_CPUTIME_ID
 * for what a thread spent).
 *
 *	uint64_t t0 = fp_clock_ms(CLOCK_MONOTONIC);
 */
#ifndef FP_CLOCK_H
#define FP_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t fp_clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

#endif
