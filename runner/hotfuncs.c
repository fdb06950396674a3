/* hotfuncs.c: the hottest functions of a recording (hotfuncs.h).
 *
 * Read through the recording's index (fifo/fp_recording.h): every S
 * record once, frames interned in one fp_strtab, self and total counts
 * side by side (total counts a frame once per sample: `seen` holds the
 * number of the last sample that counted it). Memory follows the distinct
 * frame names, not the samples. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fp_error.h"
#include "fp_idle.h"
#include "fp_record.h"
#include "fp_recording.h"
#include "fp_strtab.h"
#include "hotfuncs.h"

struct hot {
	struct fp_strtab names;
	uint64_t *self, *total, *seen; /* by name id */
	size_t cap;
	uint64_t samples; /* counted (not idle), numbered from 1 */
};

static uint32_t frame_id(struct hot *h, const char *p, size_t n)
{
	uint32_t id = fp_strtab_intern(&h->names, p, n, NULL);

	if (id >= h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 1024;

		while (cap <= id)
			cap *= 2;
		h->self = fp_xrealloc(h->self, cap * sizeof *h->self);
		h->total = fp_xrealloc(h->total, cap * sizeof *h->total);
		h->seen = fp_xrealloc(h->seen, cap * sizeof *h->seen);
		memset(h->self + h->cap, 0, (cap - h->cap) * sizeof *h->self);
		memset(h->total + h->cap, 0, (cap - h->cap) * sizeof *h->total);
		memset(h->seen + h->cap, 0, (cap - h->cap) * sizeof *h->seen);
		h->cap = cap;
	}
	return id;
}

static void count_line(void *ctx, char *line, size_t len)
{
	struct hot *h = ctx;
	struct fp_sample s;
	uint32_t id = 0;

	if (fp_record_tag(line, &len) != FP_REC_SAMPLE || fp_sample_parse(line, len, &s) < 0 ||
	    fp_sample_is_idle(&s) || !s.stack.n)
		return;
	h->samples++;
	for (const char *p = s.stack.p, *end = s.stack.p + s.stack.n; p < end;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *stop = semi ? semi : end;

		id = frame_id(h, p, (size_t)(stop - p));
		if (h->seen[id] != h->samples) {
			h->seen[id] = h->samples;
			h->total[id]++;
		}
		p = stop + 1;
	}
	h->self[id]++; /* the leaf */
}

static const uint64_t *sort_counts;

static int by_count(const void *a, const void *b)
{
	uint64_t x = sort_counts[*(const uint32_t *)a], y = sort_counts[*(const uint32_t *)b];

	return x < y ? 1 : x > y ? -1 : 0;
}

static void print_top(FILE *f, struct hot *h, const uint64_t *counts, const char *what, size_t n)
{
	size_t names = h->names.n;
	uint32_t *order = fp_xmalloc((names ? names : 1) * sizeof *order);

	for (size_t i = 0; i < names; i++)
		order[i] = (uint32_t)i;
	sort_counts = counts;
	qsort(order, names, sizeof *order, by_count);
	fprintf(f, "  hottest by %s:\n", what);
	for (size_t i = 0; i < n && i < names && counts[order[i]]; i++) {
		size_t len;
		const char *name = fp_strtab_str(&h->names, order[i], &len);

		fprintf(f, "    %6.2f%%  %10" PRIu64 "  %.*s\n",
			100.0 * (double)counts[order[i]] / (double)h->samples, counts[order[i]],
			(int)(len > 100 ? 100 : len), name);
	}
	free(order);
}

long long fp_print_hot_functions(FILE *f, const char *path, size_t n)
{
	struct fp_rec_index ix = { 0 };
	struct hot h = { .cap = 0 };
	char err[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fp_rec_scan(fd, &ix) < 0) {
		fprintf(f, "  (cannot read the recording %s for the hottest functions)\n", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fp_strtab_init(&h.names);
	fp_rec_each_line(fd, &ix, 0, UINT64_MAX, count_line, &h, NULL, err, sizeof err);
	if (h.samples) {
		print_top(f, &h, h.self, "self (samples in the function itself)", n);
		print_top(f, &h, h.total, "total (samples in it and what it calls)", n);
	}
	long long counted = (long long)h.samples;

	fp_strtab_free(&h.names);
	free(h.self);
	free(h.total);
	free(h.seen);
	fp_rec_index_free(&ix);
	close(fd);
	return counted;
}
