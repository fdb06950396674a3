/* speedscope.c: samples -> speedscope.json (see speedscope.h). */
#include "speedscope.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "exports.h"
#include "fp_error.h"

#define CAP_MIN 1024u
#define SCHEMA_URL "https://www.speedscope.app/file-format-schema.json"
#define EXPORTER "flamepipe fp-render"

void fp_speedscope_init(struct fp_speedscope *ss, size_t max_samples)
{
	memset(ss, 0, sizeof *ss);
	ss->max_samples = max_samples;
	fp_strtab_init(&ss->frames);
	fp_strtab_init(&ss->stacks);
	fp_strtab_init(&ss->threads);
	ss->stack_off = fp_xgrow(NULL, &ss->stack_off_cap, 1, sizeof *ss->stack_off, CAP_MIN);
	ss->stack_off[0] = 0;
}

void fp_speedscope_free(struct fp_speedscope *ss)
{
	fp_fold_buf_free(&ss->folded);
	fp_fold_buf_free(&ss->kinds);
	fp_fold_buf_free(&ss->scratch);
	fp_strtab_free(&ss->frames);
	fp_strtab_free(&ss->stacks);
	fp_strtab_free(&ss->threads);
	free(ss->stack_frames);
	free(ss->stack_off);
	free(ss->s);
	memset(ss, 0, sizeof *ss);
}

void fp_speedscope_reset(struct fp_speedscope *ss)
{
	ss->n = 0;
	ss->overflow = 0;
	ss->non_clock = 0;
}

/* A new stack's frames, root first. */
static void add_stack_frames(struct fp_speedscope *ss, const char *frames, size_t n,
			     const char *kinds, size_t nkinds)
{
	const char *q = frames, *end = frames + n;
	struct fp_fold_buf *key = &ss->scratch;

	for (size_t k = 0; n && k < nkinds; k++) {
		const char *semi = memchr(q, ';', end - q);
		const char *stop = semi ? semi : end;

		key->len = 0;
		fp_fold_buf_add(key, &kinds[k], 1);
		fp_fold_buf_add(key, q, stop - q);
		ss->stack_frames = fp_xgrow(ss->stack_frames, &ss->stack_frames_cap,
					    ss->stack_frames_len + 1, sizeof *ss->stack_frames,
					    CAP_MIN);
		ss->stack_frames[ss->stack_frames_len++] = fp_strtab_intern(&ss->frames, key->p,
									    key->len, NULL);
		if (!semi)
			break;
		q = semi + 1;
	}
}

static uint32_t stack_id(struct fp_speedscope *ss, const char *frames, size_t nframes,
			 const char *kinds, size_t nkinds)
{
	struct fp_fold_buf *key = &ss->scratch;
	int added;
	uint32_t id;

	key->len = 0; /* frames NUL kinds */
	fp_fold_buf_add(key, frames, nframes);
	fp_fold_buf_add(key, "", 1);
	fp_fold_buf_add(key, kinds, nkinds);
	id = fp_strtab_intern(&ss->stacks, key->p, key->len, &added);
	if (added) {
		add_stack_frames(ss, frames, nframes, kinds, nkinds);
		ss->stack_off = fp_xgrow(ss->stack_off, &ss->stack_off_cap, id + 2,
					 sizeof *ss->stack_off, CAP_MIN);
		ss->stack_off[id + 1] = ss->stack_frames_len;
	}
	return id;
}

static uint32_t thread_id(struct fp_speedscope *ss, const struct fp_sample *s)
{
	struct fp_fold_buf *key = &ss->scratch;

	key->len = 0; /* pid tid comm */
	fp_fold_buf_add(key, &s->pid, sizeof s->pid);
	fp_fold_buf_add(key, &s->tid, sizeof s->tid);
	fp_fold_buf_add(key, s->comm.p, s->comm.n);
	return fp_strtab_intern(&ss->threads, key->p, key->len, NULL);
}

int fp_speedscope_add(struct fp_speedscope *ss, const struct fp_sample *s)
{
	const char *frames, *kinds;
	size_t nframes, nkinds;

	if (ss->n >= ss->max_samples) {
		ss->overflow++;
		return -1;
	}
	if (fp_export_fold(&ss->folded, &ss->kinds, s, &frames, &nframes, &kinds, &nkinds) < 0) {
		ss->bad++;
		return -1;
	}
	ss->s = fp_xgrow(ss->s, &ss->cap, ss->n + 1, sizeof *ss->s, CAP_MIN);
	ss->s[ss->n].time_ns = s->time_ns;
	ss->s[ss->n].period = s->period;
	ss->s[ss->n].stack = stack_id(ss, frames, nframes, kinds, nkinds);
	ss->s[ss->n].thread = thread_id(ss, s);
	ss->n++;
	if (!fp_export_clock_event(s->event.p, s->event.n))
		ss->non_clock = 1;
	return 0;
}

/* ---- writing ---- */

/* By thread, then time, then arrival (the index): a total order, so
 * qsort's instability cannot reorder equal times. */
static int by_thread_time(const void *a, const void *b, void *ctx)
{
	const struct fp_ss_sample *s = ctx;
	const struct fp_ss_sample *x = &s[*(const uint32_t *)a], *y = &s[*(const uint32_t *)b];
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return i < j ? -1 : i > j;
}

static void write_frames(struct fp_speedscope *ss, struct fp_sink *out)
{
	size_t n = fp_strtab_count(&ss->frames);

	fp_sink_str(out, "\"shared\":{\"frames\":[");
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const char *key = fp_strtab_str(&ss->frames, (uint32_t)i, &len);

		fp_sink_str(out, i ? ",\n{\"name\":" : "\n{\"name\":");
		fp_json_string(out, key + 1, len - 1);
		fp_sink_str(out, ",\"file\":\"");
		fp_sink_str(out, fp_export_kind_name(key[0]));
		fp_sink_str(out, "\"}");
	}
	fp_sink_str(out, "]},\n");
}

/* One thread's profile: the samples order[from, to). */
static void write_profile(struct fp_speedscope *ss, struct fp_sink *out, const uint32_t *order,
			  size_t from, size_t to, int weight_period)
{
	const struct fp_ss_sample *first = &ss->s[order[from]];
	size_t len;
	const char *key = fp_strtab_str(&ss->threads, first->thread, &len);
	int64_t pid, tid;
	uint64_t total = 0;

	memcpy(&pid, key, sizeof pid);
	memcpy(&tid, key + sizeof pid, sizeof tid);
	fp_sink_str(out, "{\"type\":\"sampled\",\"name\":\"");
	fp_json_escape(out, key + 2 * sizeof pid, len - 2 * sizeof pid);
	fp_sink_printf(out, " %lld/%lld\",\"unit\":\"%s\",\"startValue\":0,\n\"samples\":[",
		       (long long)pid, (long long)tid,
		       weight_period && !ss->non_clock ? "nanoseconds" : "none");
	for (size_t i = from; i < to; i++) {
		uint32_t st = ss->s[order[i]].stack;

		fp_sink_str(out, i > from ? ",[" : "[");
		for (size_t f = ss->stack_off[st]; f < ss->stack_off[st + 1]; f++) {
			if (f > ss->stack_off[st])
				fp_sink_char(out, ',');
			fp_sink_u64(out, ss->stack_frames[f]);
		}
		fp_sink_char(out, ']');
	}
	fp_sink_str(out, "],\n\"weights\":[");
	for (size_t i = from; i < to; i++) {
		uint64_t w = weight_period ? ss->s[order[i]].period : 1;

		if (i > from)
			fp_sink_char(out, ',');
		fp_sink_u64(out, w);
		total += w;
	}
	fp_sink_str(out, "],\"endValue\":");
	fp_sink_u64(out, total);
	fp_sink_char(out, '}');
}

void fp_speedscope_write(struct fp_speedscope *ss, struct fp_sink *out, const char *name,
			 int weight_period)
{
	uint32_t *order = fp_xcalloc(ss->n + 1, sizeof *order);
	size_t nthreads = fp_strtab_count(&ss->threads), active = 0, nprof = 0;
	uint64_t *weight = fp_xcalloc(nthreads + 1, sizeof *weight);

	for (size_t i = 0; i < ss->n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, ss->n, sizeof *order, by_thread_time, ss->s);
	/* speedscope opens the profile with the most weight */
	for (size_t i = 0, prof = 0; i < ss->n; i++) {
		weight[prof] += weight_period ? ss->s[order[i]].period : 1;
		if (weight[prof] > weight[active])
			active = prof;
		if (i + 1 < ss->n && ss->s[order[i + 1]].thread != ss->s[order[i]].thread)
			prof++;
	}
	fp_sink_str(out, "{\"$schema\":\"" SCHEMA_URL "\",\n\"name\":");
	fp_json_string(out, name, strlen(name));
	fp_sink_str(out, ",\"exporter\":\"" EXPORTER "\",\"activeProfileIndex\":");
	fp_sink_u64(out, active);
	fp_sink_str(out, ",\n");
	write_frames(ss, out);
	fp_sink_str(out, "\"profiles\":[");
	for (size_t i = 0; i < ss->n;) {
		size_t j = i;

		while (j < ss->n && ss->s[order[j]].thread == ss->s[order[i]].thread)
			j++;
		fp_sink_str(out, nprof++ ? ",\n" : "\n");
		write_profile(ss, out, order, i, j, weight_period);
		i = j;
	}
	fp_sink_str(out, "]}\n");
	free(order);
	free(weight);
}
