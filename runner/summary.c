/* summary.c: counts for the last line of report and live (summary.h). */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fp_num.h"
#include "summary.h"

/* Mapped, not read line by line: at the end of a report this runs after
 * every stage, on the whole stacks.folded (58 MB on the bench's mixed
 * capture: 17 ms with getline and strrchr, 7 ms so). */
int fp_folded_totals(const char *dir, uint64_t *samples, uint64_t *stacks)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	snprintf(path, sizeof path, "%s/%s", dir, FP_FOLDED_NAME);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	*samples = *stacks = 0;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return 0;
	}
	size_t size = (size_t)st.st_size;
	const char *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 0;
	for (const char *p = map, *end = map + size; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *sp = memrchr(p, ' ', (size_t)(le - p));

		uint64_t v;

		if (sp) { /* `stack count`: the count after the last blank */
			if (fp_parse_u64(sp + 1, (size_t)(le - sp - 1), &v) == 0)
				*samples += v;
			(*stacks)++;
		}
		p = le + 1;
	}
	munmap((void *)map, size);
	return 0;
}

void fp_list_files(const char *dir, char *buf, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t used = 0;

	buf[0] = '\0';
	if (!d)
		return;
	while ((e = readdir(d)) && used + 1 < len) {
		int m;

		if (e->d_name[0] == '.')
			continue;
		m = snprintf(buf + used, len - used, "%s%s", used ? " " : "", e->d_name);
		if (m < 0)
			break;
		used += (size_t)m;
	}
	closedir(d);
}

void fp_record_stats_read(const char *dir, const char *name, struct fp_record_stats *rs)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
#define K(f) { #f, offsetof(struct fp_record_stats, f) }
		K(read),
		K(dropped),
		K(lost),
		K(idle),
		K(recorded),
		K(kept_samples),
		K(kept_bytes),
		K(kept_from_ns),
		K(kept_to_ns),
		K(retention_dropped),
		K(capture_from_ns),
		K(capture_to_ns),
		K(failed),
		K(appended_to),
		K(unresolved),
#undef K
	};
	char path[PATH_MAX], line[256];
	FILE *f;

	memset(rs, 0, sizeof *rs);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof line, f)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
			if (!strcmp(line, keys[i].key))
				*(uint64_t *)((char *)rs + keys[i].off) = strtoull(eq + 1, NULL,
										   10);
	}
	fclose(f);
	rs->ok = 1;
}

/* "; recording PATH: all 12.0 s (0.1 MB)" or which window it kept. */
void fp_recording_summary(char *buf, size_t n, const struct fp_record_stats *rs, const char *path)
{
	double kept_s = (double)(rs->kept_to_ns - rs->kept_from_ns) / 1e9;
	double mb = (double)rs->kept_bytes / (1 << 20);

	if (rs->failed)
		snprintf(buf, n,
			 "; recording %s stopped early (a write failed: see "
			 "above), %" PRIu64 " samples kept",
			 path, rs->kept_samples);
	else if (rs->retention_dropped)
		snprintf(buf, n,
			 "; recording %s keeps the newest %.1f s (%" PRIu64 " of %" PRIu64
			 " samples, %.1f MB; the oldest %.1f s dropped by retention)",
			 path, kept_s, rs->kept_samples, rs->recorded, mb,
			 (double)(rs->kept_from_ns - rs->capture_from_ns) / 1e9);
	else
		snprintf(buf, n, "; recording %s: all of it (%" PRIu64 " samples, %.1f s, %.1f MB)",
			 path, rs->recorded, kept_s, mb);
}

const char *fp_signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

void fp_status_text(int status, char *buf, size_t len)
{
	char sig[32];

	if (WIFEXITED(status))
		snprintf(buf, len, "exited with code %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %s",
			 fp_signal_name(WTERMSIG(status), sig, sizeof sig));
	else
		snprintf(buf, len, "status 0x%x", (unsigned)status);
}
