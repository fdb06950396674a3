/* pd_cgroup.c: cgroup ids to paths (pd_cgroup.h). */
#include <string.h>

#include "fp_error.h"
#include "pd_cgroup.h"

#define PATH_SHOWN_MAX 4096 /* PATH_MAX: a longer path is cut */

void pd_cgroups_init(struct pd_cgroups *c)
{
	memset(c, 0, sizeof *c);
	fp_map_init(&c->ids);
	fp_strtab_init(&c->paths);
}

void pd_cgroups_free(struct pd_cgroups *c)
{
	fp_map_free(&c->ids);
	fp_strtab_free(&c->paths);
	memset(c, 0, sizeof *c);
}

void pd_cgroups_add(struct pd_cgroups *c, uint64_t id, const char *path, size_t n)
{
	char clean[PATH_SHOWN_MAX];

	if (n > sizeof clean)
		n = sizeof clean;
	for (size_t i = 0; i < n; i++)
		clean[i] = path[i] == '\t' || path[i] == '\n' || path[i] == '\r' ? ' ' : path[i];
	uint32_t sid = fp_strtab_intern(&c->paths, clean, n, NULL);
	fp_map_del(&c->ids, id, 0);
	fp_map_add(&c->ids, id, 0, sid);
}

const char *pd_cgroups_path(struct pd_cgroups *c, uint64_t id, size_t *n, uint32_t *sid)
{
	uint32_t v = fp_map_get(&c->ids, id, 0);

	if (v == FP_MAP_NONE) {
		c->unknown++;
		return NULL;
	}
	*sid = v;
	return fp_strtab_str(&c->paths, v, n);
}
