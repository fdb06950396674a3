/* tui_model.c: what fp-tui keeps of the stream (tui.h): the heatmap, the
 * stacks and a ring of the newest samples, bounded by --max-samples (24
 * bytes a sample) and --max-frames (4 bytes a frame of a distinct stack).
 * A range's trees are built from the ring: its samples are in time order
 * as they came, so a range is one pass over them. */
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_record.h"
#include "tui.h"

void tui_model_init(struct tui_model *m, size_t max_samples, size_t max_frames)
{
	memset(m, 0, sizeof *m);
	fp_strtab_init(&m->names);
	fp_heatmap_init(&m->hm);
	m->ring_cap = max_samples ? max_samples : 1;
	m->max_pool = max_frames;
}

void tui_model_free(struct tui_model *m)
{
	fp_strtab_free(&m->names);
	fp_heatmap_free(&m->hm);
	FP_FREE_ALL(m->pool, m->stack, m->ring, m->acc, m->touched);
	for (unsigned i = 0; i < m->nevents; i++)
		free(m->events[i]);
}

unsigned tui_model_event(struct tui_model *m, const char *name, size_t n)
{
	struct fp_str ev = { name, n };

	for (unsigned i = 0; i < m->nevents; i++)
		if (strlen(m->events[i]) == n && !memcmp(m->events[i], name, n))
			return i;
	if (m->nevents == TUI_MAX_EVENTS)
		return TUI_MAX_EVENTS - 1;
	m->events[m->nevents] = fp_xstrndup(name, n);
	m->timed[m->nevents] = fp_event_is_timed(ev);
	m->gen++;
	return m->nevents++;
}

int tui_model_define(struct tui_model *m, uint32_t id, const char *kinds, size_t kn,
		     const char *folded, size_t fn)
{
	size_t nframes = 1, skip = 0;
	struct tui_stack *s;

	for (size_t i = 0; i < fn; i++)
		nframes += folded[i] == ';';
	if (nframes != kn)
		return -1;
	if (id >= m->nstack)
		m->stack = fp_xgrow_zeroed(m->stack, &m->nstack, (size_t)id + 1, sizeof *m->stack);
	s = &m->stack[id];
	s->n = 0; /* a redefinition replaces the stack (a restarted fp-fold) */
	if (m->npool + nframes > m->max_pool)
		return 0; /* its samples are counted as unknown */
	m->pool = fp_xgrow(m->pool, &m->cap_pool, m->npool + nframes, sizeof *m->pool, 4096);
	while (skip < kn && kinds[skip] == FP_KIND_ROOT)
		skip++;
	s->off = (uint32_t)m->npool;
	for (const char *p = folded, *end = folded + fn; p <= end;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *e = semi ? semi : end;

		m->pool[m->npool++] = fp_strtab_intern(&m->names, p, (size_t)(e - p), NULL);
		p = e + 1;
	}
	s->n = (uint32_t)nframes;
	s->skip = (uint32_t)(skip < nframes ? skip : nframes - 1);
	m->gen++;
	return 0;
}

void tui_model_sample(struct tui_model *m, uint32_t id, uint64_t time_ns, uint64_t count,
		      unsigned event)
{
	struct tui_sample *s;

	if (id >= m->nstack || !m->stack[id].n) {
		m->unknown++;
		return;
	}
	if (!m->ring)
		m->ring = fp_xmalloc(m->ring_cap * sizeof *m->ring);
	if (m->ring_n == m->ring_cap) { /* full: the oldest goes */
		s = &m->ring[m->ring_head];
		m->ring_head = (m->ring_head + 1) % m->ring_cap;
		m->evicted++;
	} else {
		s = &m->ring[(m->ring_head + m->ring_n++) % m->ring_cap];
	}
	s->time_ns = time_ns;
	s->stack = id;
	s->count = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
	s->event = (uint8_t)(event < TUI_MAX_EVENTS ? event : TUI_MAX_EVENTS - 1);
	m->gen++;
}

void tui_model_reset(struct tui_model *m)
{
	m->ring_head = m->ring_n = 0;
	m->evicted = 0;
	m->gen++;
}

/* Whether sample s is of the view of event (a timed event's samples are
 * never added to another event's: ns and samples do not add up). */
static int of_event(const struct tui_model *m, const struct tui_sample *s, int event)
{
	if (event == TUI_EV_UNTIMED)
		return s->event >= m->nevents || !m->timed[s->event];
	return s->event == event;
}

void tui_model_heatmap(struct tui_model *m, int event, struct fp_heatmap *hm)
{
	uint64_t base = m->hm.base_sec > 0 ? (uint64_t)m->hm.base_sec * FP_NSEC_PER_SEC : 0;
	unsigned rows = m->hm.rows ? m->hm.rows : 1;

	fp_heatmap_reset(hm, rows, m->hm.base_sec);
	for (size_t i = 0; i < m->ring_n; i++) {
		const struct tui_sample *s = &m->ring[(m->ring_head + i) % m->ring_cap];
		uint64_t col, row, ns;

		if (!of_event(m, s, event) || s->time_ns < base)
			continue;
		ns = s->time_ns - base;
		col = ns / FP_NSEC_PER_SEC;
		row = (ns % FP_NSEC_PER_SEC) * rows / FP_NSEC_PER_SEC;
		fp_heatmap_set(hm, col, row, fp_heatmap_get(hm, col, (unsigned)row) + s->count);
	}
	if (hm->ncols < m->hm.ncols) /* the same seconds as the stream's */
		hm->ncols = m->hm.ncols;
}

uint64_t tui_model_build(struct tui_model *m, uint64_t from, uint64_t to, int event,
			 struct fp_calltree *td, struct fp_calltree *bu, uint64_t *nsamples)
{
	uint64_t total = 0, n = 0;

	fp_calltree_clear(td);
	fp_calltree_clear(bu);
	if (m->nacc < m->nstack)
		m->acc = fp_xgrow_zeroed(m->acc, &m->nacc, m->nstack, sizeof *m->acc);
	m->ntouched = 0;
	for (size_t i = 0; i < m->ring_n; i++) {
		const struct tui_sample *s = &m->ring[(m->ring_head + i) % m->ring_cap];

		if (s->time_ns < from || s->time_ns >= to || !of_event(m, s, event))
			continue;
		if (!m->acc[s->stack]) {
			m->touched = fp_xgrow(m->touched, &m->cap_touched, m->ntouched + 1,
					      sizeof *m->touched, 1024);
			m->touched[m->ntouched++] = s->stack;
		}
		m->acc[s->stack] += s->count;
		total += s->count;
		n++;
	}
	for (size_t i = 0; i < m->ntouched; i++) {
		uint32_t id = m->touched[i];
		const struct tui_stack *st = &m->stack[id];

		fp_calltree_add(td, m->pool + st->off, st->n, st->skip, m->acc[id]);
		fp_calltree_add(bu, m->pool + st->off, st->n, st->skip, m->acc[id]);
		m->acc[id] = 0;
	}
	fp_calltree_sort(td);
	fp_calltree_sort(bu);
	*nsamples = n;
	return total;
}
