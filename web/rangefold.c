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
 *
 * Members cost their samples, and many viewers of one dense capture ask
 * for ranges over the same members (200 queries of 2-20 s on a 40-s
 * capture of 10,000 samples/s folded ~22 M samples). So a member that
 * lies wholly inside a range is folded once per fold mode (the root
 * kind, every event or the first, idle kept or not) and its table kept
 * with the index (struct rf_cache, freed with it, at most RF_CACHE_MAX
 * bytes of tables per index: past that, members are folded per query as
 * before); a query adds the tables of its whole members to the samples of
 * its edge members. The result is the same table, line for line.
 */
#include <pthread.h>
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
#define RF_MODES 16 /* 4 root kinds x every event or not x idle kept or not */
#define RF_CACHE_MAX (64u << 20)

/* A member's folded table: entries of a uint32_t length, a uint64_t count
 * and the folded stack's bytes, one after another. */
struct rf_table {
	char *p;
	size_t len;
	int built;
};

struct rf_cache {
	pthread_mutex_t lock;
	size_t members;
	size_t bytes;       /* of every table */
	struct rf_table *t; /* members x RF_MODES */
};

struct rf_cache *rf_cache_new(size_t members)
{
	struct rf_cache *c = fp_xcalloc(1, sizeof *c);

	pthread_mutex_init(&c->lock, NULL);
	c->members = members;
	c->t = fp_xcalloc(members ? members * RF_MODES : 1, sizeof *c->t);
	return c;
}

void rf_cache_free(struct rf_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->members * RF_MODES; i++)
		free(c->t[i].p);
	free(c->t);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

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

/* Every line of member m through rf_line. 0, or -1 if it cannot be read. */
static int fold_member(struct rf *r, int fd, const struct fp_rec_member *m, char **buf, size_t *cap,
		       char *err, size_t errsz)
{
	return fp_rec_member_lines(fd, m, buf, cap, rf_line, r, err, errsz);
}

/* r's table as a member table (struct rf_table's entries). */
static void serialize(const struct fp_strtab *t, struct rf_table *out)
{
	size_t k = fp_strtab_count(t), len = 0;

	for (size_t i = 0; i < k; i++) {
		size_t n;
		fp_strtab_str(t, (uint32_t)i, &n);
		len += sizeof(uint32_t) + sizeof(uint64_t) + n;
	}
	out->p = fp_xmalloc(len ? len : 1);
	out->len = len;
	char *w = out->p;
	for (size_t i = 0; i < k; i++) {
		size_t n;
		const char *str = fp_strtab_str(t, (uint32_t)i, &n);
		uint32_t n32 = (uint32_t)n;
		uint64_t c = t->ent[i].count;

		memcpy(w, &n32, sizeof n32);
		memcpy(w + sizeof n32, &c, sizeof c);
		memcpy(w + sizeof n32 + sizeof c, str, n);
		w += sizeof n32 + sizeof c + n;
	}
}

static void add_table(struct rf *r, const struct rf_table *tb)
{
	for (const char *p = tb->p, *end = tb->p + tb->len; p < end;) {
		uint32_t n;
		uint64_t c;

		memcpy(&n, p, sizeof n);
		memcpy(&c, p + sizeof n, sizeof c);
		p += sizeof n + sizeof c;
		fp_strtab_add(&r->t, fp_strtab_intern(&r->t, p, n, NULL), c);
		p += n;
	}
}

/* Member i, wholly inside r's range, from the cache: folded once per mode
 * (with r's rules and no time bound), or folded into r as it stands when
 * the cache is full. 0, or -1 if the member cannot be read. */
static int cached_member(struct rf *r, struct rf_cache *c, int fd, const struct fp_rec_index *ix,
			 size_t i, unsigned mode, char **buf, size_t *cap, char *err, size_t errsz)
{
	struct rf_table *slot = &c->t[i * RF_MODES + mode];
	int built;

	pthread_mutex_lock(&c->lock);
	built = slot->built;
	pthread_mutex_unlock(&c->lock);
	if (!built) {
		struct rf one = { .sel = r->sel, .first = r->first, .to_ns = UINT64_MAX, .o = r->o };
		struct rf_table tb = { 0 };

		fp_strtab_init(&one.t);
		int rc = fold_member(&one, fd, &ix->m[i], buf, cap, err, errsz);
		fp_fold_buf_free(&one.b);
		if (rc == 0)
			serialize(&one.t, &tb);
		fp_strtab_free(&one.t);
		if (rc < 0)
			return -1;
		pthread_mutex_lock(&c->lock);
		/* another query may have built it meanwhile: the first stays */
		if (!slot->built && c->bytes + tb.len <= RF_CACHE_MAX) {
			*slot = tb;
			slot->built = 1;
			c->bytes += tb.len;
			tb.p = NULL;
		}
		pthread_mutex_unlock(&c->lock);
		if (tb.p) { /* not kept: used once */
			add_table(r, &tb);
			free(tb.p);
			return 0;
		}
	}
	/* built tables never change or go while the index lives */
	add_table(r, slot);
	return 0;
}

int rangefold(const struct job *job, int fd, const struct selection *sel, uint64_t from_ns,
	      uint64_t to_ns, struct fp_sink *out, uint64_t *total, char *err, size_t errsz)
{
	const struct fp_rec_index *ix = job->index_members; /* index.c's, shared */
	struct rf_cache *cache = index_fold_cache(job);
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
		       .event_root = SEL_EVENT_ROOT(sel),
		       .container_root = sel->root == SEL_ROOT_CONTAINER },
	};
	unsigned mode = ((unsigned)sel->root & 3u) * 4 + (sel->all_events ? 2u : 0u) +
			(sel->keep_idle ? 1u : 0u);
	char *buf = NULL;
	size_t cap = 0, bad = 0;

	fp_strtab_init(&r.t);
	/* the members fp_rec_each_line reads for the range; a damaged one
	 * goes to the chain (fp-read --damage-ok), the one place that skips
	 * and counts damage */
	for (size_t i = fp_rec_first_from(ix, from_ns); i < ix->n && !bad; i++) {
		const struct fp_rec_member *m = &ix->m[i];

		if (m->max_ns < from_ns || m->min_ns >= to_ns)
			continue;
		if (cache && i < cache->members && m->min_ns >= from_ns && m->max_ns < to_ns)
			bad = cached_member(&r, cache, fd, ix, i, mode, &buf, &cap, err, errsz) < 0;
		else
			bad = fold_member(&r, fd, m, &buf, &cap, err, errsz) < 0;
	}
	free(buf);
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
