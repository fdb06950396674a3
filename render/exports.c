/* exports.c: samples for the export formats (see exports.h). */
#include "exports.h"

#include <string.h>

#include "fp_record.h"

void fp_exports_init(struct fp_exports *e, int pprof)
{
	memset(e, 0, sizeof *e);
	e->pprof_on = pprof;
	if (pprof)
		fp_pprof_init(&e->pprof);
}

void fp_exports_free(struct fp_exports *e)
{
	if (e->pprof_on)
		fp_pprof_free(&e->pprof);
	memset(e, 0, sizeof *e);
}

void fp_exports_add(struct fp_exports *e, const char *line, size_t len)
{
	struct fp_sample s;

	if (!e->pprof_on)
		return;
	if (fp_sample_parse(line, len, &s) < 0) {
		e->bad++;
		return;
	}
	if (e->pprof_on)
		fp_pprof_add(&e->pprof, &s);
}

void fp_exports_reset(struct fp_exports *e)
{
	if (e->pprof_on)
		fp_pprof_reset(&e->pprof);
}
