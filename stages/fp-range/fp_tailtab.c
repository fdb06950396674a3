/* fp_tailtab: interned sample tails and the upstream stack-id map
 * (fp_tailtab.h). */
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_tailtab.h"

#define TAILS_MIN 1024u /* entries of the first allocation */
#define TAIL_FIELDS 5   /* event comm kinds stack [cgroup] */

void fp_tailtab_init(struct fp_tailtab *tt)
{
	memset(tt, 0, sizeof *tt);
	fp_strtab_init(&tt->strs);
	tt->texts_are_own = 1;
}

void fp_tailtab_free(struct fp_tailtab *tt)
{
	free(tt->tails);
	free(tt->texts);
	free(tt->text_own);
	fp_strtab_free(&tt->strs);
	free(tt->up);
	memset(tt, 0, sizeof *tt);
}

/* Room for entry i of an array of *cap elements of size each. */
static void *grow_for(void *v, size_t *cap, size_t i, size_t size)
{
	if (i < *cap)
		return v;
	size_t cap2 = *cap ? *cap : TAILS_MIN;
	while (cap2 <= i)
		cap2 *= 2;
	*cap = cap2;
	return fp_xrealloc(v, cap2 * size);
}

/* The texts index of a tail text ("event TAB comm TAB kinds TAB stack"),
 * kept on first sight with the offsets of its comm and stack. */
static uint32_t intern_text(struct fp_tailtab *tt, const char *text, size_t n, size_t event_n,
			    size_t comm_off, size_t comm_n, size_t stack_off, size_t stack_n,
			    size_t cgroup_n)
{
	int added;
	uint32_t id = fp_strtab_intern(&tt->strs, text, n, &added);

	if (!added)
		return id;
	if (id >= tt->captexts) {
		size_t cap = tt->captexts;

		tt->texts = grow_for(tt->texts, &cap, id, sizeof *tt->texts);
		tt->text_own = grow_for(tt->text_own, &tt->captexts, id, sizeof *tt->text_own);
	}
	tt->texts[id] = (struct fp_tailtab_text){
		.len = (uint32_t)n,
		.event_len = (uint32_t)event_n,
		.comm_off = (uint32_t)comm_off,
		.comm_len = (uint32_t)comm_n,
		.stack_off = (uint32_t)stack_off,
		.stack_len = (uint32_t)stack_n,
		.cgroup_len = (uint32_t)cgroup_n,
		.cgroup_off = (uint32_t)(n - cgroup_n),
	};
	tt->text_own[id] = FP_TAILTAB_NO_OWN;
	return id;
}

/* The own id of text id: a new one at its first sample. */
static uint32_t own_of(struct fp_tailtab *tt, uint32_t text)
{
	uint32_t *own = &tt->text_own[text];

	if (*own != FP_TAILTAB_NO_OWN)
		return *own - 1;
	tt->tails = grow_for(tt->tails, &tt->captails, tt->ntails, sizeof *tt->tails);
	tt->tails[tt->ntails] = (struct fp_tailtab_tail){ .text = text };
	*own = (uint32_t)++tt->ntails;
	return *own - 1;
}

uint32_t fp_tailtab_intern_sample(struct fp_tailtab *tt, const char *line, size_t len,
				  const struct fp_sample *s)
{
	const char *text = s->event.p;
	size_t ntexts = fp_strtab_count(&tt->strs);
	uint32_t id = intern_text(tt, text, (size_t)(line + len - text), s->event.n,
				  (size_t)(s->comm.p - text), s->comm.n,
				  (size_t)(s->stack.p - text), s->stack.n, s->cgroup.n);

	if (tt->texts_are_own && id < ntexts)
		return id; /* a text seen before: its own id is its id */
	return own_of(tt, id);
}

void fp_tailtab_fields(const struct fp_tailtab *tt, uint32_t id, struct fp_sample *s)
{
	struct fp_str f[TAIL_FIELDS];
	size_t n = fp_split_fields(fp_tailtab_text(tt, id), fp_tailtab_info(tt, id)->len, f,
				   TAIL_FIELDS);

	s->event = f[0];
	s->comm = f[1];
	s->kinds = f[2];
	s->stack = f[3];
	s->cgroup = n == TAIL_FIELDS ? f[4] : (struct fp_str){ "", 0 };
}

/* The rules of fp_tails_define (fp_tails.h): an id is the next one or
 * one defined before (a new definition, a restarted source). */
int fp_tailtab_define_line(struct fp_tailtab *tt, const char *line, size_t len)
{
	struct fp_tail_def d;

	if (fp_tail_def_parse(line, len, &d) < 0)
		return FP_TAILS_MALFORMED;
	if (d.id > tt->up_n)
		return FP_TAILS_SKIPS_AHEAD;
	const char *base = d.text.p;
	size_t ntexts = fp_strtab_count(&tt->strs);
	uint32_t text = intern_text(tt, base, d.text.n, d.event.n, (size_t)(d.comm.p - base),
				    d.comm.n, (size_t)(d.stack.p - base), d.stack.n, d.cgroup.n);
	if (text == ntexts)
		tt->texts_are_own = 0; /* a new text without a sample */
	if (d.id == tt->up_n) {
		tt->up = grow_for(tt->up, &tt->up_cap, d.id, sizeof *tt->up);
		tt->up_n++;
	}
	tt->up[d.id] = (struct fp_tailtab_up){ .text = text, .own = tt->text_own[text] };
	return FP_TAILS_OK;
}

int fp_tailtab_ref_line(struct fp_tailtab *tt, const char *line, size_t len,
			struct fp_tailtab_ref *r)
{
	if (fp_tail_ref_parse_head(line, len, &r->ref, &r->head_n, &r->canonical) < 0)
		return FP_TAILS_MALFORMED;
	r->len = len;
	if (r->ref.id >= tt->up_n)
		return FP_TAILS_UNDEFINED;
	struct fp_tailtab_up *u = &tt->up[r->ref.id];
	if (u->own == FP_TAILTAB_NO_OWN)
		u->own = own_of(tt, u->text) + 1;
	r->own = u->own - 1;
	return FP_TAILS_OK;
}

void fp_tailtab_write_ref(struct fp_wr w, const char *line, const struct fp_tailtab_ref *r)
{
	if (!r->canonical) {
		struct fp_tail_ref own = r->ref;

		own.id = r->own;
		fp_write_tail_ref(w, &own);
	} else if (r->own == r->ref.id) {
		fp_write_line(w, line, r->len);
	} else {
		fp_write_tail_ref_head(w, line + 2, r->head_n - 2, r->own);
	}
}

void fp_tailtab_write_def(const struct fp_tailtab *tt, struct fp_wr w, uint32_t id)
{
	fp_write_tail_def_text(w, id, fp_tailtab_text(tt, id), fp_tailtab_info(tt, id)->len);
}
