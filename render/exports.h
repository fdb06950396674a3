/* exports.h: the samples fp-render receives, kept for the export formats
 * (render/pprof.h) that want each sample with its labels.
 *
 * fp-render hands every S record to fp_exports_add; each wanted export
 * gets the parsed struct fp_sample. A representation that keeps stacks and
 * per-sample references instead of S records feeds the exports the same
 * way, through fp_pprof_add with one fp_sample per reference.
 */
#ifndef FP_EXPORTS_H
#define FP_EXPORTS_H

#include <stddef.h>
#include <stdint.h>

#include "pprof.h"

struct fp_exports {
	int pprof_on;
	struct fp_pprof pprof;
	uint64_t bad;		/* S records that did not parse */
};

void fp_exports_init(struct fp_exports *e, int pprof);
void fp_exports_free(struct fp_exports *e);
/* One S record (the whole line); malformed ones are counted in e->bad. */
void fp_exports_add(struct fp_exports *e, const char *line, size_t len);
/* C reset: the samples are about to be sent again. */
void fp_exports_reset(struct fp_exports *e);

#endif
