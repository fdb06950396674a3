/* summary.c: counts for the last line of report and live (summary.h). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"

int fp_folded_totals(const char *dir, uint64_t *samples, uint64_t *stacks)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, FP_FOLDED_NAME);
	if (!(f = fopen(path, "r")))
		return -1;
	*samples = *stacks = 0;
	while (getline(&line, &cap, f) > 0) {
		char *sp = strrchr(line, ' ');

		if (sp) {
			*samples += strtoull(sp + 1, NULL, 10);
			(*stacks)++;
		}
	}
	free(line);
	fclose(f);
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
