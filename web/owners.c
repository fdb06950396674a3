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
#include "fp_map.h"
#include "fp_record.h"
#include "fp_strsort.h"
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

/* One comm an owner had, and its samples under it. */
struct comm_tally {
	const char *comm; /* into the folded text */
	size_t len;
	uint64_t samples;
};

struct owner_tally {
	long long id, pid;
	uint64_t samples;
	struct comm_tally *comms;
	size_t ncomms, cap;
};

/* The comm an owner is named by: its busiest; of equals, the first in
 * byte order (ui/reportsource.js names it the same way). */
static const struct comm_tally *busiest(const struct owner_tally *o)
{
	const struct comm_tally *best = &o->comms[0];

	for (size_t k = 1; k < o->ncomms; k++) {
		const struct comm_tally *c = &o->comms[k];

		if (c->samples > best->samples ||
		    (c->samples == best->samples &&
		     fp_bytes_cmp(c->comm, c->len, best->comm, best->len) < 0))
			best = c;
	}
	return best;
}

static void tally(struct owner_tally *o, const char *comm, size_t len, uint64_t count)
{
	size_t k = 0;

	while (k < o->ncomms && !(o->comms[k].len == len && !memcmp(o->comms[k].comm, comm, len)))
		k++;
	if (k == o->ncomms) {
		o->comms = fp_xgrow(o->comms, &o->cap, k + 1, sizeof *o->comms, 2);
		o->comms[o->ncomms++] = (struct comm_tally){ comm, len, 0 };
	}
	o->comms[k].samples += count;
	o->samples += count;
}

/* Sums a folded table rooted at "comm-ID" frames by ID: one owner per
 * process or thread, however many comms it had (a thread renamed, a
 * process that exec'd), named by its busiest; sorted, heaviest first.
 * Returns the number of owners in *out (malloc'd). */
size_t owners_of(const struct folded_text *f, struct owner **out)
{
	struct owner_tally *t = NULL;
	size_t n = 0, cap = 0;
	struct fp_map by_id;

	fp_map_init(&by_id);
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
			uint32_t i = fp_map_put(&by_id, (uint64_t)id, 0, (uint32_t)n);

			if (i == n) {
				t = fp_xgrow(t, &cap, n + 1, sizeof *t, 64);
				t[n++] = (struct owner_tally){ id, pid, 0, NULL, 0, 0 };
			}
			tally(&t[i], p, (size_t)(dash - 1 - p), count);
		}
		p = eol + 1;
	}
	fp_map_free(&by_id);
	struct owner *v = n ? fp_xmalloc(n * sizeof *v) : NULL;
	for (size_t i = 0; i < n; i++) {
		const struct comm_tally *c = busiest(&t[i]);

		v[i] = (struct owner){ fp_xstrndup(c->comm, c->len), t[i].id, t[i].pid,
				       t[i].samples };
		free(t[i].comms);
	}
	free(t);
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
	return fp_bytes_cmp(x->name, x->n, y->name, y->n);
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
