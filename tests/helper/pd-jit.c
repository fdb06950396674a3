/* pd-jit: JIT-style code with a perf map file, for fp-perfdata's
 * real-capture test (t1106). x86-64 only.
 *
 *	pd-jit MS PIDFILE [HOLD]
 *
 * Copies two small counting loops into an anonymous executable mapping,
 * names the first in /tmp/perf-PID.map (as JIT runtimes do with
 * --perf-basic-prof) and leaves the second unnamed, then calls both for MS
 * milliseconds of wall time, and writes its pid to PIDFILE. With HOLD it
 * then waits (at most 100 s) until the file HOLD exists before it exits, so
 * a test can read its maps through /proc/PID/root (t1156). Removes
 * nothing: the test removes the map.
 * Exit codes: 0 ok, 100 usage or not x86-64, 111 mmap or file error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fp_error.h"

#define NS_PER_MS 1000000ull
#define CODE_SIZE 4096
#define SECOND_OFFSET 256 /* the unnamed function */
#define NAMED_SIZE 16

/* mov ecx, 200000; 1: dec ecx; jnz 1b; ret */
static const unsigned char loop_code[] = {
	0xb9, 0x40, 0x0d, 0x03, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3,
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	fp_set_prog(argv[0]);
#if !defined(__x86_64__)
	fp_die(FP_EXIT_USAGE, "x86-64 only");
#endif
	if (argc != 3 && argc != 4)
		fp_die(FP_EXIT_USAGE, "usage: pd-jit MS PIDFILE [HOLD]");
	uint64_t end = now_ns() + strtoull(argv[1], NULL, 10) * NS_PER_MS;
	unsigned char *code = mmap(NULL, CODE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		fp_die_sys(FP_EXIT_SYS, "mmap");
	memcpy(code, loop_code, sizeof loop_code);
	memcpy(code + SECOND_OFFSET, loop_code, sizeof loop_code);
	char path[64];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f ||
	    fprintf(f, "%lx %x pd_jit_named_loop\n", (unsigned long)(uintptr_t)code, NAMED_SIZE) <
		    0 ||
	    fclose(f) != 0)
		fp_die_sys(FP_EXIT_SYS, "write %s", path);
	void (*named)(void) = (void (*)(void))(uintptr_t)code;
	void (*unnamed)(void) = (void (*)(void))(uintptr_t)(code + SECOND_OFFSET);
	while (now_ns() < end) {
		named();
		unnamed();
	}
	FILE *pf = fopen(argv[2], "w");
	if (!pf || fprintf(pf, "%d\n", (int)getpid()) < 0 || fclose(pf) != 0)
		fp_die_sys(FP_EXIT_SYS, "write %s", argv[2]);
	for (uint64_t until = now_ns() + 100000 * NS_PER_MS;
	     argc == 4 && now_ns() < until && access(argv[3], F_OK) != 0;)
		usleep(5000);
	return 0;
}
