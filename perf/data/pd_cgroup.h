/* pd_cgroup.h: the cgroups of a perf.data (perf record --all-cgroups):
 * PERF_RECORD_CGROUP gives each cgroup id its path, PERF_SAMPLE_CGROUP
 * each sample its task's cgroup id. fp-perfdata writes the path as the S
 * record's cgroup field (fifo/PROTOCOL.md).
 *
 *	struct pd_cgroups c; pd_cgroups_init(&c);
 *	PD_EV_CGROUP: pd_cgroups_add(&c, id, path, n);
 *	a sample:     path = pd_cgroups_path(&c, id, &len, &sid);  NULL: unknown id
 *	pd_cgroups_free(&c);
 *
 * Paths are kept once each (fp_strtab), TAB, CR and LF in them as spaces
 * (protocol names). Memory follows the cgroups the capture names.
 */
#ifndef PD_CGROUP_H
#define PD_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "fp_map.h"
#include "fp_strtab.h"

struct pd_cgroups {
	struct fp_map ids; /* cgroup id -> path's strtab id */
	struct fp_strtab paths;
	uint64_t unknown; /* samples of an id no record named */
};

void pd_cgroups_init(struct pd_cgroups *c);
void pd_cgroups_free(struct pd_cgroups *c);
/* A cgroup id's path (a later record of the same id replaces it: ids of
 * removed cgroups are reused). */
void pd_cgroups_add(struct pd_cgroups *c, uint64_t id, const char *path, size_t n);
/* The path of id and (sid) its strtab id, or NULL (counted in unknown). */
const char *pd_cgroups_path(struct pd_cgroups *c, uint64_t id, size_t *n, uint32_t *sid);

#endif
