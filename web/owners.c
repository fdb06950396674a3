/* owners.c: the processes or threads of a folded table rooted at
 * "comm-ID" frames (fp-fold --pid / --tid), and the containers of one
 * rooted at the container (fp-fold --container-root), for /threads/. fp-fold --tid
 * writes "comm-PID/TID" (stackcollapse-perf.pl's --tid) when it knows
 * both, "comm-TID" when it knows only the thread. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fp_error.h"
#include "fp_fold.h"
#include "fp_record.h"
#include "serve.h"

#define THREADS_MAX 200 /* entries of each list (the heaviest) */

static int cmp_owner(const void *a, const void *b)
{
	const struct owner *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The id of a root "comm-ID" or "comm-PID/TID" in [dash, end): the
 * TID and *pid = PID for the second form, else ID and *pid = -1. */
static long long root_id(const char *dash, const char *end, long long *pid)
{
	const char *slash = memchr(dash, '/', (size_t)(end - dash));
	*pid = slash ? strtoll(dash, NULL, 10) : -1;
	return strtoll(slash ? slash + 1 : dash, NULL, 10);
}

/* Sums a folded table rooted at "comm-ID" frames by root; sorted, heaviest
 * first. Returns the number of owners in *out (malloc'd). */
size_t owners_of(const struct folded_text *f, struct owner **out)
{
	struct owner *v = NULL;
	size_t n = 0, cap = 0;
	for (const char *p = f->buf, *end = f->buf + f->len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		const char *semi = memchr(p, ';', (size_t)(eol - p));
		const char *sp = eol;
		while (sp > p && sp[-1] != ' ')
			sp--;
		const char *root_end = semi ? semi : (sp > p ? sp - 1 : eol);
		const char *dash = root_end;
		while (dash > p && dash[-1] != '-')
			dash--;
		uint64_t count;
		if (dash > p && sp > p && fp_parse_u64(sp, (size_t)(eol - sp), &count) == 0) {
			long long pid, id = root_id(dash, root_end, &pid);
			size_t cl = (size_t)(dash - 1 - p), i;
			for (i = 0; i < n; i++)
				if (v[i].id == id && strlen(v[i].comm) == cl &&
				    !memcmp(v[i].comm, p, cl))
					break;
			if (i == n) {
				if (n == cap)
					v = fp_xrealloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
				v[n++] = (struct owner){ fp_xstrndup(p, cl), id, pid, 0 };
			}
			v[i].samples += count;
		}
		p = eol + 1;
	}
	if (n)
		qsort(v, n, sizeof *v, cmp_owner);
	*out = v;
	return n;
}

void owners_json(struct fp_sink *s, const char *key, const char *idkey, const struct owner *v,
		 size_t n)
{
	fp_sink_printf(s, ",\"%s\":[", key);
	for (size_t i = 0; i < n && i < THREADS_MAX; i++) {
		fp_sink_printf(s, "%s{\"%s\":%lld,", i ? "," : "", idkey, v[i].id);
		if (v[i].pid >= 0)
			fp_sink_printf(s, "\"pid\":%lld,", v[i].pid);
		fp_sink_str(s, "\"comm\":");
		fp_json_string(s, v[i].comm, strlen(v[i].comm));
		fp_sink_printf(s, ",\"samples\":%" PRIu64 "}", v[i].samples);
	}
	fp_sink_printf(s, "],\"%s_count\":%zu", key, n);
}

/* ---- containers ------------------------------------------------------------- */

struct container_sum {
	const char *name; /* into the folded text */
	size_t n;
	uint64_t samples;
};

static int cmp_container(const void *a, const void *b)
{
	const struct container_sum *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	size_t n = x->n < y->n ? x->n : y->n;
	int c = memcmp(x->name, y->name, n);
	return c ? c : (x->n > y->n) - (x->n < y->n);
}

void containers_json(struct fp_sink *s, const struct folded_text *f)
{
	struct container_sum *v = NULL;
	size_t n = 0, cap = 0;
	static const char none[] = FP_FOLD_NO_CONTAINER;

	for (const char *p = f->buf, *end = f->buf + f->len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		const char *sp = eol;
		while (sp > p && sp[-1] != ' ')
			sp--;
		const char *semi = memchr(p, ';', (size_t)(eol - p));
		const char *root_end = semi ? semi : (sp > p ? sp - 1 : eol);
		uint64_t count;
		if (sp > p && fp_parse_u64(sp, (size_t)(eol - sp), &count) == 0) {
			size_t rl = (size_t)(root_end - p), i;
			if (rl == sizeof none - 1 && !memcmp(p, none, rl))
				rl = 0; /* no cgroup: the name "" */
			for (i = 0; i < n; i++)
				if (v[i].n == rl && !memcmp(v[i].name, p, rl))
					break;
			if (i == n) {
				if (n == cap)
					v = fp_xrealloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
				v[n++] = (struct container_sum){ p, rl, 0 };
			}
			v[i].samples += count;
		}
		p = eol + 1;
	}
	if (n)
		qsort(v, n, sizeof *v, cmp_container);
	fp_sink_str(s, ",\"containers\":[");
	for (size_t i = 0; i < n && i < THREADS_MAX; i++) {
		fp_sink_str(s, i ? ",{\"name\":" : "{\"name\":");
		fp_json_string(s, v[i].name, v[i].n);
		fp_sink_printf(s, ",\"samples\":%" PRIu64 "}", v[i].samples);
	}
	fp_sink_printf(s, "],\"containers_count\":%zu", n);
	free(v);
}
