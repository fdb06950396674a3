/* fp_tails.c: K definitions by id for the readers of the stack-id stream,
 * tail numbering for its writers (fp_tails.h, fifo/PROTOCOL.md). */
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_tails.h"

#define TAILS_MIN 1024

void fp_tails_init(struct fp_tails *t)
{
	memset(t, 0, sizeof *t);
}

void fp_tails_free(struct fp_tails *t)
{
	free(t->off);
	fp_wmem_free(&t->text);
	memset(t, 0, sizeof *t);
}

int fp_tails_define(struct fp_tails *t, const struct fp_tail_def *d)
{
	if (d->id > t->n)
		return FP_TAILS_SKIPS_AHEAD;
	if (d->id == t->n) {
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : TAILS_MIN;
			t->off = fp_xrealloc(t->off, t->cap * sizeof *t->off);
		}
		t->n++;
		t->defined++;
	} else {
		t->redefined++; /* the old text stays in the arena: bounded by input */
	}
	const struct fp_tail_head h = {
		.event_n = (uint32_t)d->event.n,
		.comm_n = (uint32_t)d->comm.n,
		.kinds_n = (uint32_t)d->kinds.n,
		.stack_n = (uint32_t)d->stack.n,
		.cgroup_n = (uint32_t)d->cgroup.n,
	};
	t->off[d->id] = t->text.len; /* the arena: the memory writer's buffer */
	fp_wmem_add(&t->text, &h, sizeof h);
	fp_wmem_add(&t->text, d->text.p, d->text.n);
	return FP_TAILS_OK;
}

int fp_tails_define_line(struct fp_tails *t, const char *line, size_t len, uint32_t *id)
{
	struct fp_tail_def d;

	if (fp_tail_def_parse(line, len, &d) < 0)
		return FP_TAILS_MALFORMED;
	if (id)
		*id = d.id;
	return fp_tails_define(t, &d);
}

int fp_tails_sample(const struct fp_tails *t, const struct fp_tail_ref *r, struct fp_sample *s)
{
	struct fp_tail_head h;

	if (r->id >= t->n)
		return FP_TAILS_UNDEFINED;
	const char *at = t->text.p + t->off[r->id];
	memcpy(&h, at, sizeof h); /* the arena has no alignment */
	const char *event = at + sizeof h, *comm = event + h.event_n + 1;
	const char *kinds = comm + h.comm_n + 1, *stack = kinds + h.kinds_n + 1;
	s->time_ns = r->time_ns;
	s->pid = r->pid;
	s->tid = r->tid;
	s->cpu = r->cpu;
	s->period = r->period;
	s->event = (struct fp_str){ event, h.event_n };
	s->comm = (struct fp_str){ comm, h.comm_n };
	s->kinds = (struct fp_str){ kinds, h.kinds_n };
	s->stack = (struct fp_str){ stack, h.stack_n };
	s->cgroup = (struct fp_str){ stack + h.stack_n + 1, h.cgroup_n };
	return FP_TAILS_OK;
}

int fp_tails_shed(struct fp_tails *t, uint32_t id)
{
	struct fp_tail_head h;

	if (id >= t->n)
		return 0;
	char *at = t->text.p + t->off[id];
	memcpy(&h, at, sizeof h);
	char *kinds = at + sizeof h + h.event_n + 1 + h.comm_n + 1;
	char *cgroup = kinds + h.kinds_n + 1 + h.stack_n + 1;
	size_t end = (size_t)(cgroup - t->text.p) + h.cgroup_n - !h.cgroup_n;
	if (end != t->text.len || (h.kinds_n == 0 && h.stack_n == 0))
		return 0;
	/* kinds and stack empty: their two separators, then the cgroup */
	kinds[0] = kinds[1] = '\t';
	memmove(kinds + 2, cgroup, h.cgroup_n);
	t->text.len = (size_t)(kinds + 2 - t->text.p) + h.cgroup_n - !h.cgroup_n;
	h.kinds_n = h.stack_n = 0;
	memcpy(at, &h, sizeof h);
	return 1;
}

int fp_tails_sample_line(const struct fp_tails *t, const char *line, size_t len,
			 struct fp_sample *s, uint32_t *id)
{
	struct fp_tail_ref r;

	if (fp_tail_ref_parse(line, len, &r) < 0)
		return FP_TAILS_MALFORMED;
	if (id)
		*id = r.id;
	return fp_tails_sample(t, &r, s);
}

const char *fp_tails_problem(int err)
{
	switch (err) {
	case FP_TAILS_MALFORMED:
		return "malformed K or P record (K id event comm kinds stack [cgroup]; "
		       "P time_ns pid tid cpu period id; see PROTOCOL.md): dropped";
	case FP_TAILS_SKIPS_AHEAD:
		return "K record whose id skips ahead (ids are 0, 1, 2, ...): dropped";
	case FP_TAILS_UNDEFINED:
		return "P record of a tail id no K record defined: dropped";
	default:
		return "ok";
	}
}

/* ---- writers -------------------------------------------------------------- */

void fp_tailw_init(struct fp_tailw *w)
{
	memset(w, 0, sizeof *w);
	fp_digtab_init(&w->keys);
}

void fp_tailw_free(struct fp_tailw *w)
{
	fp_digtab_free(&w->keys);
	fp_wmem_free(&w->scratch);
	for (size_t i = 0; i < FP_TAILW_AHEAD + 1; i++)
		fp_wmem_free(&w->held[i].rec);
}

void fp_tailw_ref(struct fp_wr out, const struct fp_sample *s, uint32_t id)
{
	const struct fp_tail_ref r = {
		.time_ns = s->time_ns,
		.pid = s->pid,
		.tid = s->tid,
		.cpu = s->cpu,
		.period = s->period,
		.id = id,
	};

	fp_write_tail_ref(out, &r);
}

void fp_tailw_write(struct fp_tailw *w, struct fp_wr out, const struct fp_sample *s)
{
	const char *key = s->event.p;
	size_t n;
	int added;

	/* an S record's tail is one run of bytes; else join the fields */
	if (s->comm.p == s->event.p + s->event.n + 1 && s->kinds.p == s->comm.p + s->comm.n + 1 &&
	    s->stack.p == s->kinds.p + s->kinds.n + 1) {
		n = (size_t)(s->stack.p + s->stack.n - key);
	} else {
		w->scratch.len = 0;
		fp_wmem_add(&w->scratch, s->event.p, s->event.n);
		fp_wmem_add(&w->scratch, "\t", 1);
		fp_wmem_add(&w->scratch, s->comm.p, s->comm.n);
		fp_wmem_add(&w->scratch, "\t", 1);
		fp_wmem_add(&w->scratch, s->kinds.p, s->kinds.n);
		fp_wmem_add(&w->scratch, "\t", 1);
		fp_wmem_add(&w->scratch, s->stack.p, s->stack.n);
		key = w->scratch.p;
		n = w->scratch.len;
	}
	uint32_t id = fp_digtab_intern(&w->keys, fp_digtab_digest(&w->keys, key, n), &added);
	if (added)
		fp_write_tail_def(out, id, s);
	fp_tailw_ref(out, s, id);
}

#define SAMPLE_HEAD_FIELDS 5 /* time pid tid cpu period, before the tail */
#define NO_TAB SIZE_MAX

/* The offset of the TAB before an S record's tail (rec without its LF),
 * or NO_TAB when it has not that many fields. */
static size_t tail_tab(const char *rec, size_t len)
{
	const char *end = rec + len, *p = len > 1 ? rec + 1 : NULL; /* the TAB after the tag */

	for (int i = 0; i < SAMPLE_HEAD_FIELDS && p && p + 1 < end; i++)
		p = memchr(p + 1, '\t', (size_t)(end - p - 1));
	return p ? (size_t)(p - rec) : NO_TAB;
}

/* The K record (a new tail) and the P record of the S record rec (without
 * its LF), whose tail starts after the TAB at offset tab and has digest d. */
static void write_sample_line(struct fp_tailw *w, struct fp_wr out, const char *rec, size_t len,
			      size_t tab, struct fp_digest d)
{
	const char *tail = tab == NO_TAB ? rec + len : rec + tab + 1;
	size_t n = (size_t)(rec + len - tail);
	uint32_t id = tab != NO_TAB ? fp_digtab_find(&w->keys, d) : FP_DIGTAB_NONE;
	struct fp_sample s;

	if (id == FP_DIGTAB_NONE) {
		if (tab == NO_TAB || fp_sample_parse(rec, len, &s) < 0) {
			/* not a well-formed S record: passed on as it is */
			fp_write_line(out, rec, len);
			return;
		}
		id = fp_digtab_intern(&w->keys, d, NULL);
		/* the tail is the K record's fields as they are (twelve writes
		 * of them were 2 % of fp-read); not when an empty cgroup field
		 * follows, which fp_write_tail_def leaves out */
		if (n == s.event.n + s.comm.n + s.kinds.n + s.stack.n + 3 +
				 (s.cgroup.n ? s.cgroup.n + 1 : 0))
			fp_write_tail_def_text(out, id, tail, n);
		else
			fp_write_tail_def(out, id, &s);
	}
	fp_write_tail_ref_head(out, rec + 2, tab - 2, id);
}

static struct fp_digest tail_digest(const struct fp_tailw *w, const char *rec, size_t len,
				    size_t tab)
{
	if (tab == NO_TAB)
		return (struct fp_digest){ 0, 0 };
	return fp_digtab_digest(&w->keys, rec + tab + 1, len - tab - 1);
}

void fp_tailw_defer(struct fp_tailw *w, int on)
{
	w->defer = on;
}

/* Writes the oldest held record. */
static void write_held(struct fp_tailw *w, struct fp_wr out)
{
	struct fp_tailw_held *h = &w->held[w->first];

	write_sample_line(w, out, h->rec.p, h->rec.len, h->tab, h->d);
	w->first = (w->first + 1) % (FP_TAILW_AHEAD + 1);
	w->nheld--;
}

void fp_tailw_flush(struct fp_tailw *w, struct fp_wr out)
{
	while (w->nheld)
		write_held(w, out);
}

void fp_tailw_write_line(struct fp_tailw *w, struct fp_wr out, const char *rec, size_t len)
{
	const size_t ring = FP_TAILW_AHEAD + 1;

	if (len && rec[len - 1] == '\n')
		len--;
	if (!w->defer) {
		size_t tab = tail_tab(rec, len);

		write_sample_line(w, out, rec, len, tab, tail_digest(w, rec, len, tab));
		return;
	}
	struct fp_tailw_held *h = &w->held[(w->first + w->nheld) % ring];
	h->rec.len = 0;
	fp_wmem_add(&h->rec, rec, len);
	h->tab = tail_tab(h->rec.p, len);
	h->d = tail_digest(w, h->rec.p, len, h->tab);
	if (h->tab != NO_TAB)
		fp_digtab_prefetch(&w->keys, h->d);
	w->nheld++;
	if (w->nheld > FP_TAILW_AHEAD)
		write_held(w, out);
}
