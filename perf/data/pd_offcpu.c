/* pd_offcpu.c: blocked intervals per thread, written as timed samples
 * split at the heatmap's cells (pd_offcpu.h). */
#include "pd_offcpu.h"

#include <stdlib.h>
#include <string.h>

#include "fp_error.h"

#define OPEN_MIN 64u
/* prev_state as the sched_switch tracepoint reports it: one bit per
 * state, 0 for running; 0x100 (TASK_REPORT_MAX) marks a preemption. */
#define STATE_MASK 0xffu
#define STATE_EXITING 0x30u /* X (dead), Z (zombie): never runs again */

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

int pd_sched_switch_fields(const unsigned char *raw, uint32_t n, int32_t *prev_pid,
			   int64_t *prev_state, int32_t *next_pid)
{
	if (!raw || n < 64)
		return -1;
	*prev_pid = (int32_t)rd32(raw + 24);
	memcpy(prev_state, raw + 32, sizeof *prev_state);
	*next_pid = (int32_t)rd32(raw + 56);
	return 0;
}

int pd_sched_wakeup_pid(const unsigned char *raw, uint32_t n, int32_t *pid)
{
	if (!raw || n < 28)
		return -1;
	*pid = (int32_t)rd32(raw + 24);
	return 0;
}

int pd_sched_state_blocked(int64_t prev_state)
{
	uint64_t s = (uint64_t)prev_state;

	return (s & STATE_MASK) != 0 && (s & STATE_EXITING) == 0;
}

void pd_offcpu_init(struct pd_offcpu *o, unsigned rows, size_t max_open, pd_offcpu_piece_fn piece,
		    void *ctx)
{
	memset(o, 0, sizeof *o);
	o->rows = rows ? rows : 50;
	o->max_open = max_open ? max_open : PD_OFFCPU_MAX_OPEN_DEFAULT;
	o->max_pieces = PD_OFFCPU_MAX_PIECES;
	fp_map_init(&o->by_tid);
	o->piece = piece;
	o->ctx = ctx;
}

static void tail_free(struct pd_offcpu_tail *t)
{
	free(t->text);
	t->text = NULL;
}

void pd_offcpu_free(struct pd_offcpu *o)
{
	for (size_t i = 0; i < o->n; i++) {
		tail_free(&o->open[i].blocked);
		tail_free(&o->open[i].waker);
	}
	free(o->open);
	fp_map_free(&o->by_tid);
	memset(o, 0, sizeof *o);
}

static void tail_keep(struct pd_offcpu_tail *t, const struct fp_sample *s)
{
	size_t n = s->comm.n + s->kinds.n + s->stack.n + s->cgroup.n;
	char *p = fp_xmalloc(n ? n : 1);

	t->pid = s->pid;
	t->tid = s->tid;
	t->cpu = s->cpu;
	t->text = p;
	/* an empty field may have no pointer at all (memcpy's NULL) */
	const struct fp_str *parts[] = { &s->comm, &s->kinds, &s->stack, &s->cgroup };
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
		if (parts[i]->n) {
			memcpy(p, parts[i]->p, parts[i]->n);
			p += parts[i]->n;
		}
	t->comm_n = (uint32_t)s->comm.n;
	t->kinds_n = (uint32_t)s->kinds.n;
	t->stack_n = (uint32_t)s->stack.n;
	t->cgroup_n = (uint32_t)s->cgroup.n;
}

static struct fp_sample tail_sample(const struct pd_offcpu_tail *t, const char *event)
{
	const char *p = t->text;
	struct fp_sample s = {
		.pid = t->pid,
		.tid = t->tid,
		.cpu = t->cpu,
		.event = { event, strlen(event) },
	};

	s.comm = (struct fp_str){ p, t->comm_n };
	p += t->comm_n;
	s.kinds = (struct fp_str){ p, t->kinds_n };
	p += t->kinds_n;
	s.stack = (struct fp_str){ p, t->stack_n };
	p += t->stack_n;
	s.cgroup = (struct fp_str){ p, t->cgroup_n };
	return s;
}

/* The start of the heatmap row after the one of t (fp-bucket's row:
 * (t mod 1e9) * rows / 1e9, so row r starts at ceil(r * 1e9 / rows)). */
static uint64_t next_row_start(const struct pd_offcpu *o, uint64_t t)
{
	uint64_t sec = t / FP_NSEC_PER_SEC, off = t % FP_NSEC_PER_SEC;
	uint64_t r = off * o->rows / FP_NSEC_PER_SEC + 1;

	return sec * FP_NSEC_PER_SEC + (r * FP_NSEC_PER_SEC + o->rows - 1) / o->rows;
}

/* [from, to) as pieces, one a heatmap cell, of the blocked stack and,
 * when woken, of the waker's. */
static uint32_t write_interval(struct pd_offcpu *o, const struct pd_offcpu_open *e, uint64_t to,
			       uint32_t max_pieces)
{
	uint64_t from = e->out;
	struct fp_sample b = tail_sample(&e->blocked, FP_EVENT_OFFCPU), w;

	if (e->waker.text)
		w = tail_sample(&e->waker, FP_EVENT_WAKEUP);
	o->st.intervals++;
	o->st.blocked_ns += to - from;
	o->st.woken += e->waker.text != NULL;
	uint32_t n = 0;
	for (; from < to; n++) {
		if (n == max_pieces) { /* bounded CPU and output */
			o->st.clipped++;
			o->st.blocked_ns -= to - from;
			break;
		}
		uint64_t end = next_row_start(o, from);
		if (end > to)
			end = to;
		b.time_ns = from;
		b.period = end - from;
		o->piece(o->ctx, &b);
		if (e->waker.text) {
			w.time_ns = from;
			w.period = end - from;
			o->piece(o->ctx, &w);
		}
		from = end;
	}
	return n;
}

static void remove_at(struct pd_offcpu *o, uint32_t i)
{
	struct pd_offcpu_open *e = &o->open[i];

	fp_map_del(&o->by_tid, (uint64_t)e->blocked.tid, 0);
	tail_free(&e->blocked);
	tail_free(&e->waker);
	if (i != o->n - 1) {
		*e = o->open[o->n - 1]; /* the last entry moves to i */
		fp_map_del(&o->by_tid, (uint64_t)e->blocked.tid, 0);
		fp_map_add(&o->by_tid, (uint64_t)e->blocked.tid, 0, i);
	}
	o->n--;
}

int pd_offcpu_block(struct pd_offcpu *o, uint64_t time, const struct fp_sample *tail)
{
	uint32_t i = fp_map_get(&o->by_tid, (uint64_t)tail->tid, 0);

	pd_offcpu_time(o, time);
	if (i != FP_MAP_NONE) { /* its switch-in was not seen (lost events) */
		o->st.unpaired++;
		remove_at(o, i);
	}
	if (o->n >= o->max_open) {
		o->st.overflow++;
		return -1;
	}
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : OPEN_MIN;
		o->open = fp_xrealloc(o->open, o->cap * sizeof *o->open);
	}
	struct pd_offcpu_open *e = &o->open[o->n];
	memset(e, 0, sizeof *e);
	e->out = time;
	tail_keep(&e->blocked, tail);
	fp_map_put(&o->by_tid, (uint64_t)tail->tid, 0, (uint32_t)o->n);
	o->n++;
	return 0;
}

int pd_offcpu_wakeup(struct pd_offcpu *o, uint64_t time, int64_t tid, const struct fp_sample *waker)
{
	uint32_t i = fp_map_get(&o->by_tid, (uint64_t)tid, 0);

	pd_offcpu_time(o, time);
	if (i == FP_MAP_NONE)
		return 0;
	struct pd_offcpu_open *e = &o->open[i];
	if (e->wake || time < e->out)
		return 1; /* the first wakeup ended the blocking */
	e->wake = time;
	if (waker)
		tail_keep(&e->waker, waker);
	return 1;
}

void pd_offcpu_run(struct pd_offcpu *o, uint64_t time, int64_t tid)
{
	uint32_t i = fp_map_get(&o->by_tid, (uint64_t)tid, 0);

	pd_offcpu_time(o, time);
	if (i == FP_MAP_NONE)
		return;
	struct pd_offcpu_open *e = &o->open[i];
	uint64_t to = e->wake ? e->wake : time;
	if (to > e->out)
		write_interval(o, e, to, o->max_pieces);
	remove_at(o, i);
}

/* At the end every open interval runs to the last time seen, which a
 * damaged time can put years away: all of them together get what four
 * intervals may, so the end costs what four long intervals do. */
void pd_offcpu_end(struct pd_offcpu *o)
{
	uint64_t budget = 4 * (uint64_t)o->max_pieces;

	while (o->n) {
		struct pd_offcpu_open *e = &o->open[o->n - 1];
		uint64_t to = e->wake ? e->wake : o->last_time;
		if (to > e->out) {
			o->st.at_end++;
			budget -= write_interval(o, e, to,
						 budget < o->max_pieces ? (uint32_t)budget
									: o->max_pieces);
		}
		remove_at(o, (uint32_t)(o->n - 1));
	}
}

size_t pd_offcpu_blocked_now(const struct pd_offcpu *o)
{
	return o->n;
}

int pd_offcpu_waiting(const struct pd_offcpu *o, int64_t tid)
{
	uint32_t i = fp_map_get(&o->by_tid, (uint64_t)tid, 0);

	return i != FP_MAP_NONE && o->open[i].wake == 0;
}
