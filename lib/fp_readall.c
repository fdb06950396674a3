/* fp_readall.c: a whole input in memory (fp_readall.h). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "fp_error.h"
#include "fp_readall.h"

#define READ_CHUNK (1u << 20)

uint64_t fp_inflate_max(void)
{
	static int read_env;
	static uint64_t max;

	if (!read_env) {
		const char *v = getenv("FP_INFLATE_MAX");
		char *end;

		read_env = 1;
		if (v && *v) {
			unsigned long long n = strtoull(v, &end, 10);
			if (*end == '\0')
				max = n;
		}
	}
	return max;
}

void fp_inflate_check(const char *name, uint64_t inflated)
{
	uint64_t max = fp_inflate_max();

	if (max && inflated > max)
		fp_die(FP_EXIT_DATA,
		       "%s: gzip data inflates to more than FP_INFLATE_MAX=%llu "
		       "bytes: stopped",
		       name, (unsigned long long)max);
}

char *fp_read_all(const char *path, const char *name, size_t max, size_t *len)
{
	int stdin_ = !path || strcmp(path, "-") == 0;
	int fd = stdin_ ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = READ_CHUNK, n = 0;
	struct stat st;

	if (fd < 0)
		fp_die_sys(FP_EXIT_SYS, "open %s", name);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = (size_t)st.st_size + READ_CHUNK;
	gzFile gz = gzdopen(fd, "rb");
	if (!gz)
		fp_die_sys(FP_EXIT_SYS, "open %s", name);

	char *buf = fp_xmalloc(cap + 1); /* + the NUL */
	int got;

	for (;;) {
		if (cap - n < READ_CHUNK) {
			cap *= 2;
			buf = fp_xrealloc(buf, cap + 1);
		}
		got = gzread(gz, buf + n, READ_CHUNK);
		if (got <= 0)
			break;
		n += (size_t)got;
		if (gzdirect(gz) == 0)
			fp_inflate_check(name, n);
		if (max && n > max)
			fp_die(FP_EXIT_DATA, "%s: larger than %zu MB (--max-mb): not read", name,
			       max / FP_BYTES_PER_MB);
	}
	if (got < 0) {
		int zerr;
		const char *msg = gzerror(gz, &zerr);

		if (zerr == Z_ERRNO)
			fp_die_sys(FP_EXIT_SYS, "read %s", name);
		fp_die(FP_EXIT_DATA, "%s: bad gzip data: %s", name, msg);
	}
	gzclose(gz);
	buf[n] = '\0';
	*len = n;
	return buf;
}
