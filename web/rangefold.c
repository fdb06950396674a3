/* rangefold.c: a range of a capture's index folded inside fp-serve.
 *
 * The folded table of a range without filters over a capture's index
 * (index.c) is what the chain
 *	fp-read -q --time A,B INDEX | fp-bucket [--keep-idle] EVENTS | fp-fold --plain --all ROOT
 * writes; the chain's three processes cost 10 ms of CPU per query, most
 * of it process start-up (exec, dynamic linking, page faults), where the
 * work itself is a few members inflated and a few thousand samples
 * folded. So such a range is folded here, with the stages' own library
 * code and rules: the index's members of the range (fifo/fp_recording.h,
 * as fp-read --time), each sample kept when START <= time < END, of the
 * counted event set (fp_event_in_list of the capture's first event, or
 * every event; "-" always, as fp-bucket), not idle unless keepidle
 * (fp_idle.h, as fp-bucket), folded with fp-fold --all's rules
 * (fp_fold.h), counted 1 each, written sorted bytewise (fp_strtab's sort,
 * fp-fold's order). tests/t7214 compares it with the chain on ranges of
 * a capture. A range of more than RANGEFOLD_MAX_SAMPLES samples (by the
 * members' headers) goes to the chain, whose CPU and time budgets bound
 * it; so does any filter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_fold.h"
#include "fp_idle.h"
#include "fp_rangectl.h"
#include "fp_recording.h"
#include "fp_strsort.h"
#include "fp_strtab.h"
#include "serve.h"

#define RANGEFOLD_MAX_SAMPLES 1000000u

struct rf {
	const struct selection *sel;
	const char *first; /* the counted event, or NULL: every event */
	uint64_t from_ns, to_ns;
	struct fp_fold_opts o;
	struct fp_fold_buf b;
	struct fp_strtab t;
};

static void rf_line(void *ctx, char *line, size_t len)
{
	struct rf *r = ctx;
	struct fp_sample s;

	if (fp_record_tag(line, &len) != FP_REC_SAMPLE || fp_sample_parse(line, len, &s) < 0)
		return;
	if (s.time_ns < r->from_ns || s.time_ns >= r->to_ns)
		return;
	if (r->first && !fp_str_eq(s.event, "-") &&
	    !fp_event_in_list(r->first, strlen(r->first), s.event.p, s.event.n))
		return;
	if (!r->sel->keep_idle && fp_sample_is_idle(&s))
		return;
	if (fp_fold_build(&r->b, &s, &r->o, NULL) != 0)
		return; /* fp-fold skips it too */
	uint32_t id = fp_strtab_intern(&r->t, r->b.p, r->b.len, NULL);
	fp_strtab_add(&r->t, id, 1);
}

int rangefold(const struct job *job, int fd, const struct selection *sel, uint64_t from_ns,
	      uint64_t to_ns, struct fp_sink *out, uint64_t *total, char *err, size_t errsz)
{
	const struct fp_rec_index *ix = job->index_members; /* index.c's, shared */
	uint64_t n = 0;

	if (!job->indexed || !ix || selection_has_filters(sel) ||
	    (!sel->all_events && !job->index_first_event))
		return 0;
	for (size_t i = fp_rec_first_from(ix, from_ns); i < ix->n; i++)
		if (ix->m[i].min_ns < to_ns)
			n += ix->m[i].samples;
	if (n > RANGEFOLD_MAX_SAMPLES)
		return 0;
	struct rf r = {
		.sel = sel,
		.first = sel->all_events ? NULL : job->index_first_event,
		.from_ns = from_ns,
		.to_ns = to_ns,
		/* fp-fold --all [--event-root] [--pid|--tid|--container-root] */
		.o = { .root_id = sel->root == SEL_ROOT_PID   ? FP_FOLD_ROOT_PID
				  : sel->root == SEL_ROOT_TID ? FP_FOLD_ROOT_TID
							      : FP_FOLD_ROOT_COMM,
		       .annotate_kernel = 1,
		       .annotate_jit = 1,
		       .annotate_inlined = 1,
		       .event_root = sel->all_events,
		       .container_root = sel->root == SEL_ROOT_CONTAINER },
	};
	fp_strtab_init(&r.t);
	/* a damaged member in the range: the chain (fp-read --damage-ok)
	 * answers it, the one place that skips and counts damage */
	size_t bad = fp_rec_each_line(fd, ix, from_ns, to_ns, rf_line, &r, NULL, err, errsz);
	fp_fold_buf_free(&r.b);
	if (bad) {
		fp_strtab_free(&r.t);
		return 0;
	}
	size_t k = fp_strtab_count(&r.t);
	uint32_t *ids = fp_xmalloc((k ? k : 1) * sizeof *ids);
	for (size_t i = 0; i < k; i++)
		ids[i] = (uint32_t)i;
	fp_strtab_sort_ids(&r.t, ids, k);
	*total = 0;
	for (size_t i = 0; i < k; i++) {
		size_t len;
		const char *key = fp_strtab_str(&r.t, ids[i], &len);
		uint64_t c = r.t.ent[ids[i]].count;
		fp_sink_write(out, key, len);
		fp_sink_printf(out, " %llu\n", (unsigned long long)c);
		*total += c;
	}
	free(ids);
	fp_strtab_free(&r.t);
	return 1;
}
