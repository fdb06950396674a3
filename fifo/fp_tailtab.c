/* fp_tailtab: interned sample tails and the upstream stack-id map
 * (fp_tailtab.h). */
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_tailtab.h"

#define TAILS_MIN 1024u		/* entries of the first allocation */

void fp_tailtab_init(struct fp_tailtab *tt)
{
	memset(tt, 0, sizeof *tt);
	fp_strtab_init(&tt->strs);
	fp_tails_init(&tt->up_defs);
}

void fp_tailtab_free(struct fp_tailtab *tt)
{
	free(tt->tails);
	fp_strtab_free(&tt->strs);
	fp_tails_free(&tt->up_defs);
	free(tt->up_tail);
	memset(tt, 0, sizeof *tt);
}

/* Returns the id of a tail text ("event TAB comm TAB kinds TAB stack"),
 * interning it on first sight; offsets of its comm and stack given. */
static uint32_t intern_text(struct fp_tailtab *tt, const char *text, size_t n, size_t event_n,
			    size_t comm_off, size_t comm_n, size_t stack_off)
{
	int added;
	uint32_t id = fp_strtab_intern(&tt->strs, text, n, &added);
	struct fp_tailtab_tail *t;

	if (!added)
		return id;
	if (tt->ntails == tt->captails) {
		tt->captails = tt->captails ? tt->captails * 2 : TAILS_MIN;
		tt->tails = fp_xrealloc(tt->tails, tt->captails * sizeof *tt->tails);
	}
	t = &tt->tails[tt->ntails++];
	t->len = (uint32_t)n;
	t->event_len = (uint32_t)event_n;
	t->comm_off = (uint32_t)comm_off;
	t->comm_len = (uint32_t)comm_n;
	t->stack_off = (uint32_t)stack_off;
	t->verdict_gen = 0;
	t->verdict = 0;
	return id;
}

uint32_t fp_tailtab_intern_sample(struct fp_tailtab *tt, const char *line, size_t len,
				  const struct fp_sample *s)
{
	const char *text = s->event.p;

	return intern_text(tt, text, (size_t)(line + len - text), s->event.n,
			   (size_t)(s->comm.p - text), s->comm.n, (size_t)(s->stack.p - text));
}

void fp_tailtab_fields(const struct fp_tailtab *tt, uint32_t id, struct fp_sample *s)
{
	struct fp_str f[4];

	fp_split_fields(fp_tailtab_text(tt, id), tt->tails[id].len, f, 4);
	s->event = f[0];
	s->comm = f[1];
	s->kinds = f[2];
	s->stack = f[3];
}

int fp_tailtab_define_line(struct fp_tailtab *tt, const char *line, size_t len)
{
	struct fp_tail_def d;
	int err = fp_tail_def_parse(line, len, &d) < 0 ? FP_TAILS_MALFORMED
							: fp_tails_define(&tt->up_defs, &d);

	if (err)
		return err;
	if (d.id >= tt->up_tail_cap) {
		size_t cap = tt->up_tail_cap ? tt->up_tail_cap : TAILS_MIN;
		while (cap <= d.id)
			cap *= 2;
		tt->up_tail = fp_xrealloc(tt->up_tail, cap * sizeof *tt->up_tail);
		memset(tt->up_tail + tt->up_tail_cap, 0,
		       (cap - tt->up_tail_cap) * sizeof *tt->up_tail);
		tt->up_tail_cap = cap;
	}
	tt->up_tail[d.id] = 0;	/* (re)defined: interned at its next sample */
	return 0;
}

int fp_tailtab_ref_line(struct fp_tailtab *tt, const char *line, size_t len,
			struct fp_tail_ref *ref, uint32_t *id)
{
	struct fp_sample s;
	int err = fp_tail_ref_parse(line, len, ref) < 0 ? FP_TAILS_MALFORMED
							: fp_tails_sample(&tt->up_defs, ref, &s);

	if (err)
		return err;
	if (!tt->up_tail[ref->id]) {
		const char *text = s.event.p;
		tt->up_tail[ref->id] = intern_text(tt, text, (size_t)(s.stack.p + s.stack.n - text),
						   s.event.n, (size_t)(s.comm.p - text), s.comm.n,
						   (size_t)(s.stack.p - text)) + 1;
	}
	*id = tt->up_tail[ref->id] - 1;
	return 0;
}
