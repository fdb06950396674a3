/* fp_recwrite.c: the record writers (fp_record.h): every record a stage
 * writes is spelled here, once. */
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_fmt.h"
#include "fp_record.h"

#define NUM_MAX (FP_FMT_I64_MAX + 1) /* sign + digits + TAB */
#define WMEM_MIN 256u

/* ---- the memory writer ------------------------------------------------- */

void fp_wmem_add(struct fp_wmem *m, const void *p, size_t n)
{
	if (m->cap - m->len < n) {
		size_t cap = m->cap ? m->cap : WMEM_MIN;

		while (cap - m->len < n)
			cap *= 2;
		m->p = fp_xrealloc(m->p, cap);
		m->cap = cap;
	}
	memcpy(m->p + m->len, p, n);
	m->len += n;
}

static void wmem_write(void *ctx, const void *p, size_t n)
{
	fp_wmem_add(ctx, p, n);
}

struct fp_wr fp_wmem_wr(struct fp_wmem *m)
{
	return (struct fp_wr){ wmem_write, m };
}

void fp_wmem_free(struct fp_wmem *m)
{
	free(m->p);
	*m = (struct fp_wmem){ 0 };
}

/* ---- pieces -------------------------------------------------------------- */

static void put(struct fp_wr w, const void *p, size_t n)
{
	w.write(w.ctx, p, n);
}

static void put_str(struct fp_wr w, const char *s)
{
	w.write(w.ctx, s, strlen(s));
}

/* A TAB, then v. */
static void put_tab_u64(struct fp_wr w, uint64_t v)
{
	char buf[NUM_MAX], *end = buf + sizeof buf, *p = fp_fmt_u64(end, v);

	*--p = '\t';
	put(w, p, (size_t)(end - p));
}

static void put_tab_i64(struct fp_wr w, int64_t v)
{
	char buf[NUM_MAX], *end = buf + sizeof buf, *p = fp_fmt_i64(end, v);

	*--p = '\t';
	put(w, p, (size_t)(end - p));
}

static void put_tab_str(struct fp_wr w, const char *s, size_t n)
{
	put(w, "\t", 1);
	put(w, s, n);
}

static void put_lf(struct fp_wr w)
{
	put(w, "\n", 1);
}

/* A tag letter (its TAB follows with the first field). */
static void put_tag(struct fp_wr w, char tag)
{
	put(w, &tag, 1);
}

void fp_write_line(struct fp_wr w, const char *line, size_t len)
{
	if (w.line) {
		w.line(w.ctx, line, len);
		return;
	}
	put(w, line, len);
	put_lf(w);
}

/* ---- records ----------------------------------------------------------- */

void fp_write_header(struct fp_wr w)
{
	put_str(w, FP_PROTO_HEADER "\n");
}

/* The fields S and R records share: time_ns pid tid cpu period. */
static inline void put_tab_when_who(struct fp_wr w, uint64_t time_ns, int64_t pid, int64_t tid,
				    int64_t cpu, uint64_t period)
{
	put_tab_u64(w, time_ns);
	put_tab_i64(w, pid);
	put_tab_i64(w, tid);
	put_tab_i64(w, cpu);
	put_tab_u64(w, period);
}

void fp_write_sample(struct fp_wr w, const struct fp_sample *s)
{
	put_tag(w, FP_TAG_SAMPLE);
	put_tab_when_who(w, s->time_ns, s->pid, s->tid, s->cpu, s->period);
	put_tab_str(w, s->event.p, s->event.n);
	put_tab_str(w, s->comm.p, s->comm.n);
	put_tab_str(w, s->kinds.p, s->kinds.n);
	put_tab_str(w, s->stack.p, s->stack.n);
	if (s->cgroup.n)
		put_tab_str(w, s->cgroup.p, s->cgroup.n);
	put_lf(w);
}

void fp_write_geometry(struct fp_wr w, uint64_t rows, uint64_t base_sec)
{
	put_tag(w, FP_TAG_GEOMETRY);
	put_tab_u64(w, rows);
	put_tab_u64(w, base_sec);
	put_lf(w);
}

void fp_write_cell(struct fp_wr w, uint64_t col, uint64_t row, uint64_t count)
{
	put_tag(w, FP_TAG_CELL);
	put_tab_u64(w, col);
	put_tab_u64(w, row);
	put_tab_u64(w, count);
	put_lf(w);
}

void fp_write_folded(struct fp_wr w, uint64_t count, const char *stack, size_t n)
{
	put_tag(w, FP_TAG_FOLDED);
	put_tab_u64(w, count);
	put_tab_str(w, stack, n);
	put_lf(w);
}

void fp_write_folded_id(struct fp_wr w, uint64_t count, uint32_t id)
{
	put_tag(w, FP_TAG_FOLDED_ID);
	put_tab_u64(w, count);
	put_tab_u64(w, id);
	put_lf(w);
}

void fp_write_stack_def(struct fp_wr w, uint32_t id, const char *kinds, size_t kn,
			const char *folded, size_t fn)
{
	put_tag(w, FP_TAG_STACK);
	put_tab_u64(w, id);
	put_tab_str(w, kinds, kn);
	put_tab_str(w, folded, fn);
	put_lf(w);
}

void fp_write_ref(struct fp_wr w, const struct fp_ref *r)
{
	put_tag(w, FP_TAG_REF);
	put_tab_u64(w, r->id);
	put_tab_when_who(w, r->time_ns, r->pid, r->tid, r->cpu, r->period);
	put_tab_u64(w, r->count);
	put_tab_str(w, r->event.p, r->event.n);
	put_tab_str(w, r->comm.p, r->comm.n);
	if (r->cgroup.n)
		put_tab_str(w, r->cgroup.p, r->cgroup.n);
	put_lf(w);
}

/* p[0..n) at d; returns the end. */
static char *cat(char *d, const char *p, size_t n)
{
	memcpy(d, p, n);
	return d + n;
}

/* v in decimal at d; returns the end. */
static char *cat_u64(char *d, uint64_t v)
{
	char num[NUM_MAX], *e = num + sizeof num, *q = fp_fmt_u64(e, v);

	return cat(d, q, (size_t)(e - q));
}

#define REF_LINE_MAX 512 /* an R record longer than this is written piece by piece */

/* fp-fold's every sample (R): one write of the line made in a buffer,
 * not eight of its pieces (each a call and a reservation: 8 % of fp-fold
 * on a capture that does not repeat). */
void fp_write_ref_head(struct fp_wr w, const struct fp_ref *r, const char *head, size_t n)
{
	size_t len = 2 * NUM_MAX + n + r->event.n + r->comm.n + r->cgroup.n + 8;

	if (len <= REF_LINE_MAX) {
		char buf[REF_LINE_MAX], *d = buf;

		*d++ = FP_TAG_REF;
		*d++ = '\t';
		d = cat_u64(d, r->id);
		*d++ = '\t';
		d = cat(d, head, n);
		*d++ = '\t';
		d = cat_u64(d, r->count);
		*d++ = '\t';
		d = cat(d, r->event.p, r->event.n);
		*d++ = '\t';
		d = cat(d, r->comm.p, r->comm.n);
		if (r->cgroup.n) {
			*d++ = '\t';
			d = cat(d, r->cgroup.p, r->cgroup.n);
		}
		*d++ = '\n';
		put(w, buf, (size_t)(d - buf));
		return;
	}
	put_tag(w, FP_TAG_REF);
	put_tab_u64(w, r->id);
	put_tab_str(w, head, n);
	put_tab_u64(w, r->count);
	put_tab_str(w, r->event.p, r->event.n);
	put_tab_str(w, r->comm.p, r->comm.n);
	if (r->cgroup.n)
		put_tab_str(w, r->cgroup.p, r->cgroup.n);
	put_lf(w);
}

void fp_write_tail_def(struct fp_wr w, uint32_t id, const struct fp_sample *s)
{
	put_tag(w, FP_TAG_TAIL);
	put_tab_u64(w, id);
	put_tab_str(w, s->event.p, s->event.n);
	put_tab_str(w, s->comm.p, s->comm.n);
	put_tab_str(w, s->kinds.p, s->kinds.n);
	put_tab_str(w, s->stack.p, s->stack.n);
	if (s->cgroup.n)
		put_tab_str(w, s->cgroup.p, s->cgroup.n);
	put_lf(w);
}

void fp_write_tail_def_text(struct fp_wr w, uint32_t id, const char *text, size_t n)
{
	put_tag(w, FP_TAG_TAIL);
	put_tab_u64(w, id);
	put_tab_str(w, text, n);
	put_lf(w);
}

/* Every sample of the stack-id stream: made back to front in one buffer
 * and written at once (not eight writes of its pieces). */
void fp_write_tail_ref(struct fp_wr w, const struct fp_tail_ref *r)
{
	char buf[2 + 6 * NUM_MAX], *end = buf + sizeof buf, *p = end;

	*--p = '\n';
	p = fp_fmt_u64(p, r->id);
	*--p = '\t';
	p = fp_fmt_u64(p, r->period);
	*--p = '\t';
	p = fp_fmt_i64(p, r->cpu);
	*--p = '\t';
	p = fp_fmt_i64(p, r->tid);
	*--p = '\t';
	p = fp_fmt_i64(p, r->pid);
	*--p = '\t';
	p = fp_fmt_u64(p, r->time_ns);
	*--p = '\t';
	*--p = FP_TAG_TAIL_SAMPLE;
	put(w, p, (size_t)(end - p));
}

/* fp-read's and fp-range's every sample (P): one write when the line
 * fits REF_LINE_MAX, as fp_write_ref_head. */
void fp_write_tail_ref_head(struct fp_wr w, const char *head, size_t n, uint32_t id)
{
	if (n + NUM_MAX + 4 <= REF_LINE_MAX) {
		char buf[REF_LINE_MAX], *d = buf;

		*d++ = FP_TAG_TAIL_SAMPLE;
		*d++ = '\t';
		d = cat(d, head, n);
		*d++ = '\t';
		d = cat_u64(d, id);
		*d++ = '\n';
		put(w, buf, (size_t)(d - buf));
		return;
	}
	put_tag(w, FP_TAG_TAIL_SAMPLE);
	put_tab_str(w, head, n);
	put_tab_u64(w, id);
	put_lf(w);
}

static void put_control(struct fp_wr w, const char *verb)
{
	put_tag(w, FP_TAG_CONTROL);
	put_tab_str(w, verb, strlen(verb));
}

void fp_write_reset(struct fp_wr w)
{
	put_control(w, "reset");
	put_lf(w);
}

void fp_write_flush(struct fp_wr w)
{
	put_control(w, "flush");
	put_lf(w);
}

void fp_write_range(struct fp_wr w, const char *from, const char *to)
{
	put_control(w, "range");
	put_tab_str(w, from, strlen(from));
	put_tab_str(w, to, strlen(to));
	put_lf(w);
}

void fp_write_filter(struct fp_wr w, const char *spec, size_t n)
{
	put_control(w, "filter");
	put_tab_str(w, spec, n);
	put_lf(w);
}

void fp_write_begin(struct fp_wr w, const char *what)
{
	put_control(w, "begin");
	put_tab_str(w, what, strlen(what));
	put_lf(w);
}

void fp_write_end(struct fp_wr w, const char *what, const uint64_t *fields, size_t n)
{
	put_control(w, "end");
	put_tab_str(w, what, strlen(what));
	for (size_t i = 0; i < n; i++)
		put_tab_u64(w, fields[i]);
	put_lf(w);
}

void fp_write_restarted(struct fp_wr w, const char *stage)
{
	put_control(w, "restarted");
	put_tab_str(w, stage, strlen(stage));
	put_lf(w);
}

/* Names and messages never hold TAB, CR or LF: they become spaces. */
static void put_tab_text(struct fp_wr w, const char *s)
{
	put(w, "\t", 1);
	for (;;) {
		size_t n = strcspn(s, "\t\r\n");

		put(w, s, n);
		if (!s[n])
			return;
		put(w, " ", 1);
		s += n + 1;
	}
}

/* W stage where message, where = file[:line] or "-". */
static void put_warning(struct fp_wr w, const char *stage, const char *file, int has_line,
			uint64_t line, const char *message)
{
	put_tag(w, FP_TAG_WARNING);
	put_tab_text(w, stage);
	if (!file) {
		put_str(w, "\t-");
	} else {
		put_tab_text(w, file);
		if (has_line) {
			char buf[NUM_MAX], *end = buf + sizeof buf, *p = fp_fmt_u64(end, line);

			*--p = ':';
			put(w, p, (size_t)(end - p));
		}
	}
	put_tab_text(w, message);
	put_lf(w);
}

void fp_write_warning(struct fp_wr w, const char *stage, const char *file, uint64_t line,
		      const char *message)
{
	put_warning(w, stage, file, 1, line, message);
}

void fp_write_warning_at(struct fp_wr w, const char *stage, const char *where, const char *message)
{
	put_warning(w, stage, where, 0, 0, message);
}

static void put_info_fields(struct fp_wr w, const char *stage, const struct fp_stat *kv, size_t n)
{
	put_tag(w, FP_TAG_INFO);
	put_tab_text(w, stage);
	for (size_t i = 0; i < n; i++) {
		char buf[NUM_MAX], *end = buf + sizeof buf, *p = fp_fmt_u64(end, kv[i].value);

		put_tab_str(w, kv[i].key, strlen(kv[i].key));
		*--p = '=';
		put(w, p, (size_t)(end - p));
	}
}

void fp_write_info(struct fp_wr w, const char *stage, const struct fp_stat *kv, size_t n)
{
	put_info_fields(w, stage, kv, n);
	put_lf(w);
}

void fp_write_info_text(struct fp_wr w, const char *stage, const struct fp_stat *kv, size_t n,
			const char *key, const char *text)
{
	put_info_fields(w, stage, kv, n);
	put_tab_str(w, key, strlen(key));
	put(w, "=", 1);
	for (const char *p = text; *p; p++)
		put(w, *p == '\t' || *p == '\r' || *p == '\n' ? " " : p, 1);
	put_lf(w);
}

void fp_write_control(struct fp_wr w, const char *verb, const char *const *args, size_t n)
{
	put_control(w, verb);
	for (size_t i = 0; i < n; i++)
		put_tab_str(w, args[i], strlen(args[i]));
	put_lf(w);
}

static size_t put_back(char *r, size_t h, const char *s, size_t n)
{
	h -= n;
	memcpy(r + h, s, n);
	return h;
}

size_t fp_write_sample_head_back(char *r, size_t h, uint64_t time, int64_t pid, int64_t tid,
				 int64_t cpu, uint64_t period, const char *event, size_t en,
				 const char *comm, size_t cn, const char *kinds, size_t kn)
{
	r[--h] = '\t';
	h = put_back(r, h, kinds, kn);
	r[--h] = '\t';
	h = put_back(r, h, comm, cn);
	r[--h] = '\t';
	h = put_back(r, h, event, en);
	r[--h] = '\t';
	h = (size_t)(fp_fmt_u64(r + h, period) - r);
	r[--h] = '\t';
	h = (size_t)(fp_fmt_i64(r + h, cpu) - r);
	r[--h] = '\t';
	h = (size_t)(fp_fmt_i64(r + h, tid) - r);
	r[--h] = '\t';
	h = (size_t)(fp_fmt_i64(r + h, pid) - r);
	r[--h] = '\t';
	h = (size_t)(fp_fmt_u64(r + h, time) - r);
	r[--h] = '\t';
	r[--h] = FP_TAG_SAMPLE;
	return h;
}
