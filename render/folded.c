/* folded.c: the folded-stack table (see folded.h). */
#include "folded.h"

#include <stdlib.h>
#include <string.h>

#include "fp_error.h"

#define ARENA_CHUNK (1u << 20)
#define TABLE_MIN_CAP 1024
#define RUNS_MIN 64 /* fp_folded_sort: sorted runs, first allocation */

void fp_folded_init(struct fp_folded *t)
{
	memset(t, 0, sizeof *t);
}

void fp_folded_free(struct fp_folded *t)
{
	for (size_t i = 0; i < t->nchunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->e);
	memset(t, 0, sizeof *t);
}

void fp_folded_clear(struct fp_folded *t)
{
	/* Keep the first arena chunk, drop the rest. */
	for (size_t i = 1; i < t->nchunks; i++)
		free(t->chunks[i]);
	if (t->nchunks > 1) {
		t->nchunks = 1;
		t->chunk_cap = ARENA_CHUNK;
	}
	t->chunk_used = 0;
	t->n = 0;
	t->two_counts = 0;
	t->total = t->total2 = 0;
	t->ignored = t->first_ignored = t->lines = 0;
}

static char *arena_copy(struct fp_folded *t, const char *p, size_t n)
{
	if (t->nchunks == 0 || t->chunk_used + n > t->chunk_cap) {
		size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
		t->chunks = fp_xrealloc(t->chunks, (t->nchunks + 1) * sizeof *t->chunks);
		/* The current chunk may be partly used: start a fresh one and
		 * make it current (older chunks stay alive for their strings). */
		t->chunks[t->nchunks] = fp_xmalloc(cap);
		if (t->nchunks > 0) {
			char *tmp = t->chunks[t->nchunks];
			t->chunks[t->nchunks] = t->chunks[0];
			t->chunks[0] = tmp;
		}
		t->nchunks++;
		t->chunk_used = 0;
		t->chunk_cap = cap;
	}
	char *d = t->chunks[0] + t->chunk_used;
	memcpy(d, p, n);
	t->chunk_used += n;
	return d;
}

void fp_folded_add(struct fp_folded *t, const char *stack, size_t len, uint64_t count,
		   uint64_t count2, int copy)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : TABLE_MIN_CAP;
		t->e = fp_xrealloc(t->e, t->cap * sizeof *t->e);
	}
	struct fp_folded_entry *e = &t->e[t->n++];
	e->stack = copy ? arena_copy(t, stack, len) : stack;
	e->len = len;
	e->count = count;
	e->count2 = count2;
	t->total += count;
	t->total2 += count2;
}

void fp_folded_add2(struct fp_folded *t, const char *stack, size_t len, uint64_t count,
		    uint64_t count2, int copy)
{
	t->two_counts = 1;
	fp_folded_add(t, stack, len, count, count2, copy);
}

/* Parses the decimal number that ends at end (exclusive), walking back from
 * it. Returns its first byte, or NULL if there are no digits or it does not
 * fit 64 bits. */
static const char *number_before(const char *start, const char *end, uint64_t *v)
{
	const char *p = end;
	while (p > start && p[-1] >= '0' && p[-1] <= '9')
		p--;
	size_t digits = (size_t)(end - p);
	if (digits == 0 || digits > 20)
		return NULL;
	uint64_t x = 0;
	for (const char *q = p; q < end; q++) {
		uint64_t d = (uint64_t)(*q - '0');
		if (x > (UINT64_MAX - d) / 10)
			return NULL;
		x = x * 10 + d;
	}
	*v = x;
	return p;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

int fp_folded_parse_line(struct fp_folded *t, const char *line, size_t len, int copy)
{
	t->lines++;
	const char *end = line + len;
	while (end > line && (end[-1] == '\r' || is_blank(end[-1])))
		end--;
	if (end == line || line[0] == '#')
		return 0;
	uint64_t c2, c1;
	const char *p = number_before(line, end, &c2);
	if (!p || p == line || !is_blank(p[-1]))
		goto bad;
	/* Exactly one blank separates the stack from its count, as in
	 * flamegraph.pl (`^(.*)\s+?(\d+)$`): a frame may end in spaces
	 * (stackcollapse cuts `f<unsigned long (int)>` to `f<unsigned long `),
	 * and trimming them would split one frame into two nodes. */
	const char *stack_end = p - 1;
	/* A second number before the first: a differential line. */
	const char *q = number_before(line, stack_end, &c1);
	if (q && q > line && is_blank(q[-1])) {
		const char *s_end = q - 1;
		if (s_end > line) {
			fp_folded_add2(t, line, (size_t)(s_end - line), c1, c2, copy);
			return 0;
		}
	}
	if (stack_end == line)
		goto bad;
	fp_folded_add(t, line, (size_t)(stack_end - line), c2, 0, copy);
	return 0;
bad:
	if (!t->ignored)
		t->first_ignored = t->lines;
	t->ignored++;
	return -1;
}

void fp_folded_parse_buffer(struct fp_folded *t, const char *buf, size_t len, int copy)
{
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		fp_folded_parse_line(t, p, (size_t)(le - p), copy);
		p = nl ? nl + 1 : end;
	}
}

/* ';' sorts before every other byte, so a frame's children are ordered by
 * name and "a" < "a;b" < "a!" (the folded-line order would put "a!" first
 * and split a's subtree). */
int fp_stack_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	size_t n = an < bn ? an : bn, i = fp_common_prefix(a, an, b, bn);

	if (i < n) { /* the first byte that differs decides */
		unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];

		if (x == ';')
			return -1;
		if (y == ';')
			return 1;
		return x < y ? -1 : 1;
	}
	return an < bn ? -1 : an > bn ? 1 : 0;
}

static int entry_cmp(const struct fp_folded_entry *a, const struct fp_folded_entry *b)
{
	return fp_stack_cmp(a->stack, a->len, b->stack, b->len);
}

/* Merges the sorted runs src[lo..mid) and src[mid..hi) into dst[lo..hi),
 * the left run's entry first when two are equal (stable). */
static void merge_runs(const struct fp_folded_entry *src, struct fp_folded_entry *dst, size_t lo,
		       size_t mid, size_t hi)
{
	size_t i = lo, j = mid, out = lo;

	while (i < mid && j < hi)
		dst[out++] = entry_cmp(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
	while (i < mid)
		dst[out++] = src[i++];
	while (j < hi)
		dst[out++] = src[j++];
}

/* A stable merge sort of the runs already in order (a natural merge
 * sort): a table mostly arrives sorted (fp-fold's bytewise order differs
 * from the frame-wise one only where a ';' meets a smaller byte), so it
 * takes about one pass of compares where a merge sort of single entries
 * took log2(n) of them. */
void fp_folded_sort(struct fp_folded *t)
{
	size_t n = t->n, nruns = 0, cap = 0;
	size_t *run = NULL; /* run k: [run[k], run[k + 1]), run[nruns] = n */

	for (size_t i = 1; i < n; i++) {
		if (entry_cmp(&t->e[i - 1], &t->e[i]) <= 0)
			continue;
		run = fp_xgrow(run, &cap, nruns + 3, sizeof *run, RUNS_MIN);
		if (!nruns)
			run[nruns++] = 0; /* the first run */
		run[nruns++] = i;
	}
	if (!nruns) {
		free(run); /* already in order (or n < 2) */
		return;
	}
	run[nruns] = n;
	struct fp_folded_entry *src = t->e, *dst = fp_xmalloc(n * sizeof *dst);

	while (nruns > 1) { /* merge runs 2k and 2k+1; an odd last one is copied */
		size_t k, merged = 0;

		for (k = 0; k + 1 < nruns; k += 2) {
			merge_runs(src, dst, run[k], run[k + 1], run[k + 2]);
			run[merged++] = run[k];
		}
		if (k < nruns) {
			memcpy(dst + run[k], src + run[k], (n - run[k]) * sizeof *dst);
			run[merged++] = run[k];
		}
		run[merged] = n;
		nruns = merged;
		struct fp_folded_entry *swap = src;
		src = dst;
		dst = swap;
	}
	if (src != t->e) {
		memcpy(t->e, src, n * sizeof *src);
		free(src);
	} else {
		free(dst);
	}
	free(run);
}

void fp_folded_merge(struct fp_folded *t)
{
	fp_folded_sort(t);
	size_t out = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (out && t->e[out - 1].len == t->e[i].len &&
		    memcmp(t->e[out - 1].stack, t->e[i].stack, t->e[i].len) == 0) {
			t->e[out - 1].count += t->e[i].count;
			t->e[out - 1].count2 += t->e[i].count2;
			continue;
		}
		t->e[out++] = t->e[i];
	}
	t->n = out;
}

void fp_folded_reverse(struct fp_folded *t)
{
	char *tmp = NULL;
	size_t tmp_cap = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct fp_folded_entry *e = &t->e[i];
		if (e->len > tmp_cap) {
			tmp_cap = e->len;
			tmp = fp_xrealloc(tmp, tmp_cap);
		}
		/* Copy frames from the last to the first. */
		size_t out = 0, end = e->len;
		while (end > 0) {
			size_t start = end;
			while (start > 0 && e->stack[start - 1] != ';')
				start--;
			if (out)
				tmp[out++] = ';';
			memcpy(tmp + out, e->stack + start, end - start);
			out += end - start;
			end = start ? start - 1 : 0;
			if (start == 0)
				break;
		}
		e->stack = arena_copy(t, tmp, out);
		e->len = out;
	}
	free(tmp);
}

void fp_folded_write(struct fp_sink *s, const struct fp_folded *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct fp_folded_entry *e = &t->e[i];
		fp_sink_write(s, e->stack, e->len);
		fp_sink_char(s, ' ');
		fp_sink_u64(s, e->count);
		if (t->two_counts) {
			fp_sink_char(s, ' ');
			fp_sink_u64(s, e->count2);
		}
		fp_sink_char(s, '\n');
	}
}
