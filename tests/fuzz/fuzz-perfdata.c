/* fuzz-perfdata: libFuzzer target for fp-perfdata's reader (perf.data in
 * the file format and in the pipe format), through the program's own path.
 *
 * fuzz-sources: stages/fp-perfdata.c lib/*.c fifo/*.c recording/*.c fold/*.c perf/script/*.c perf/data/*.c
 * fuzz-cflags: -DFP_PERFDATA_NO_MAIN
 * fuzz-libs: -lev -lz -lm -lpcre2-8 -ldeflate -lxxhash
 * (run.sh adds -ldw -lelf -liberty for the perf/data/pd_*.c modules)
 * fuzz-max-len: 65536
 *
 * An input of odd length is read as a file (mmap), an even one
 * through a pipe (the streaming path); one of length 3 mod 4 with
 * --inline. Samples with user registers and stack go through the dwarf
 * unwinder (perf/data/pd_unwind.c). The kernel's symbols come from an
 * empty file, so a run costs what the record parser costs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pd_symbols.h"

/* Field for field stages/fp-perfdata.c's struct perfdata_opts. */
struct perfdata_opts {
	const char *stage;
	int quiet, live;
	size_t live_buffer;
	int preload_kernel; /* 0 here: no kallsyms thread per input */
	int stack_ids;
	int inline_frames; /* --inline: inputs whose length is 3 mod 4 */
	int off_cpu;       /* 0: auto, sched_switch samples become off-CPU time */
	unsigned off_cpu_rows;
	size_t off_cpu_max;          /* small here: the bound is reached */
	uint32_t off_cpu_max_pieces; /* likewise: a damaged time costs 4096 pieces, not 2^20 */
};
int perfdata_run(int fd, int out_fd, const char *in_name, const struct perfdata_opts *o);

/* Fits a default pipe buffer, so the write never blocks. */
#define PIPE_MAX 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	int out = open("/dev/null", O_WRONLY | O_CLOEXEC), fd;

	pd_symbols_set_kallsyms("/dev/null");
	if (out < 0)
		return 0;
	if (n & 1) {
		fd = memfd_create("perfdata", MFD_CLOEXEC);
		if (fd < 0 || write(fd, data, n) != (ssize_t)n) {
			close(out);
			return 0;
		}
		lseek(fd, 0, SEEK_SET);
	} else {
		int p[2];
		if (n > PIPE_MAX || pipe(p) < 0) {
			close(out);
			return 0;
		}
		if (write(p[1], data, n) != (ssize_t)n) {
			close(p[0]);
			close(p[1]);
			close(out);
			return 0;
		}
		close(p[1]);
		fd = p[0];
	}
	const struct perfdata_opts o = { "perfdata", 1, 0, 0, 0, 0, (n & 3) == 3, 0, 50, 4, 4096 };
	perfdata_run(fd, out, "fuzz", &o);
	close(fd);
	close(out);
	return 0;
}
