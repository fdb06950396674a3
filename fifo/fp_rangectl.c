/* fp_rangectl.c: parser of the fp-range control language (see fp_rangectl.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_rangectl.h"
#include "fp_record.h"
#include "fp_words.h"

static const struct fp_word commands[] = {
	{ "range", FP_RC_RANGE },
	{ "pid", FP_RC_PID },
	{ "tid", FP_RC_TID },
	{ "cpu", FP_RC_CPU },
	{ "comm", FP_RC_COMM },
	{ "event", FP_RC_EVENT },
	{ "include", FP_RC_INCLUDE },
	{ "exclude", FP_RC_EXCLUDE },
	{ "container", FP_RC_CONTAINER },
	{ "clear", FP_RC_CLEAR },
	{ "replay", FP_RC_REPLAY },
};

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

const char *fp_rangectl_name(enum fp_rangectl_kind kind)
{
	return fp_word_name(commands, FP_WORDS(commands), (int)kind, "none");
}

int fp_rangectl_next_item(const char **cur, const char *end, struct fp_str *item)
{
	const char *p = *cur, *comma;

	if (p >= end)
		return 0;
	comma = memchr(p, ',', end - p);
	if (!comma)
		comma = end;
	item->p = p;
	item->n = comma - p;
	*cur = comma < end ? comma + 1 : end;
	return 1;
}

int fp_event_name_matches(const char *filter, size_t fn, const char *name, size_t n)
{
	static const char modifiers[] = "ukhIGHpPSDWe";
	size_t k;

	if (fn == n && !memcmp(filter, name, n))
		return 1;
	if (fn >= n || name[fn] != ':' || memcmp(filter, name, fn))
		return 0;
	for (k = fn + 1; k < n && strchr(modifiers, name[k]); k++)
		;
	return k == n && k > fn + 1;
}

int fp_event_in_list(const char *list, size_t listlen, const char *name, size_t n)
{
	const char *cur = list, *end = list + listlen;
	struct fp_str item;

	while (fp_rangectl_next_item(&cur, end, &item))
		if (fp_event_name_matches(item.p, item.n, name, n))
			return 1;
	return 0;
}

/* Takes the next space-separated word from [*cur, end). */
static int next_word(const char **cur, const char *end, struct fp_str *w)
{
	const char *p = *cur;

	while (p < end && is_blank(*p))
		p++;
	if (p >= end)
		return 0;
	w->p = p;
	while (p < end && !is_blank(*p))
		p++;
	w->n = p - w->p;
	*cur = p;
	return 1;
}

static int is_dash(struct fp_str s)
{
	return s.n == 1 && s.p[0] == '-';
}

/* A range end: "-" (open) or decimal seconds. */
static int parse_bound(struct fp_str w, int *has, uint64_t *ns)
{
	if (is_dash(w)) {
		*has = 0;
		*ns = 0;
		return 0;
	}
	*has = 1;
	return fp_parse_seconds_ns(w.p, w.n, ns);
}

static int check_id_list(struct fp_str arg, const char **why)
{
	const char *cur = arg.p, *end = arg.p + arg.n;
	struct fp_str item;
	int64_t v;

	if (arg.n && arg.p[arg.n - 1] == ',') {
		*why = "empty item in list";
		return -1;
	}
	while (fp_rangectl_next_item(&cur, end, &item)) {
		if (fp_parse_i64(item.p, item.n, &v) < 0) {
			*why = "expected a comma-separated list of decimal integers, or -";
			return -1;
		}
		if (v < INT32_MIN || v > INT32_MAX) {
			*why = "id out of range (32-bit)";
			return -1;
		}
	}
	return 0;
}

static int check_name_list(struct fp_str arg, const char **why)
{
	const char *cur = arg.p, *end = arg.p + arg.n;
	struct fp_str item;

	if (arg.n && arg.p[arg.n - 1] == ',') {
		*why = "empty item in list";
		return -1;
	}
	while (fp_rangectl_next_item(&cur, end, &item))
		if (item.n == 0) {
			*why = "empty item in list";
			return -1;
		}
	return 0;
}

/* "range FROM TO": the two bounds after the command word. */
static int parse_range_args(const char *cur, const char *end, struct fp_rangectl_cmd *cmd,
			    const char **why)
{
	struct fp_str a, b, extra;

	if (!next_word(&cur, end, &a) || !next_word(&cur, end, &b) ||
	    next_word(&cur, end, &extra)) {
		*why = "expected: range FROM TO (seconds or -)";
		return -1;
	}
	if (parse_bound(a, &cmd->has_from, &cmd->from_ns) < 0 ||
	    parse_bound(b, &cmd->has_to, &cmd->to_ns) < 0) {
		*why = "range bound is not decimal seconds (e.g. 1.25) or -";
		return -1;
	}
	if (cmd->has_from && cmd->has_to && cmd->from_ns > cmd->to_ns) {
		*why = "range FROM is after TO";
		return -1;
	}
	return 0;
}

int fp_rangectl_parse(const char *line, size_t len, struct fp_rangectl_cmd *cmd, const char **why)
{
	const char *cur = line, *end = line + len;
	struct fp_str word, extra;

	memset(cmd, 0, sizeof *cmd);
	cmd->kind = FP_RC_NONE;
	*why = "";
	while (end > cur && is_blank(end[-1]))
		end--;
	if (!next_word(&cur, end, &word) || word.p[0] == '#')
		return 0;
	if (len > FP_RANGECTL_LINE_MAX) {
		*why = "control line too long";
		return -1;
	}
	cmd->kind = fp_word_value(commands, FP_WORDS(commands), word.p, word.n, FP_RC_NONE);
	if (cmd->kind == FP_RC_NONE) {
		*why = "unknown command (expected range, pid, tid, cpu, comm, event, "
		       "include, exclude, container, clear or replay)";
		return -1;
	}

	switch (cmd->kind) {
	case FP_RC_CLEAR:
	case FP_RC_REPLAY:
		if (next_word(&cur, end, &extra)) {
			*why = "this command takes no argument";
			return -1;
		}
		return 0;
	case FP_RC_RANGE:
		return parse_range_args(cur, end, cmd, why);
	default:
		break;
	}

	/* The rest of the line is the argument. */
	while (cur < end && is_blank(*cur))
		cur++;
	cmd->arg.p = cur;
	cmd->arg.n = end - cur;
	if (cmd->arg.n == 0) {
		*why = "missing argument (use - to turn the filter off)";
		return -1;
	}
	if (is_dash(cmd->arg)) {
		cmd->off = 1;
		return 0;
	}
	switch (cmd->kind) {
	case FP_RC_PID:
	case FP_RC_TID:
	case FP_RC_CPU:
		return check_id_list(cmd->arg, why);
	case FP_RC_COMM:
	case FP_RC_EVENT:
		return check_name_list(cmd->arg, why);
	default:
		return 0;
	}
}

char *fp_rangectl_format_seconds(uint64_t ns, char *buf)
{
	uint64_t sec = ns / FP_NSEC_PER_SEC, frac = ns % FP_NSEC_PER_SEC;
	int digits = 9;

	if (!frac) {
		snprintf(buf, FP_RANGECTL_SECONDS_MAX, "%llu", (unsigned long long)sec);
		return buf;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	snprintf(buf, FP_RANGECTL_SECONDS_MAX, "%llu.%0*llu", (unsigned long long)sec, digits,
		 (unsigned long long)frac);
	return buf;
}

/* ---- filter sets ---------------------------------------------------------- */

static int cmp_i32(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;

	return (a > b) - (a < b);
}

void fp_id_set_from(struct fp_id_set *set, const struct fp_rangectl_cmd *c)
{
	const char *cur = c->arg.p, *end = c->arg.p + c->arg.n;
	struct fp_str item;
	int64_t v;

	free(set->v);
	memset(set, 0, sizeof *set);
	if (c->off)
		return;
	set->on = 1;
	set->v = fp_xmalloc((c->arg.n / 2 + 1) * sizeof *set->v);
	while (fp_rangectl_next_item(&cur, end, &item))
		if (fp_parse_i64(item.p, item.n, &v) == 0) /* checked by the parser */
			set->v[set->n++] = (int32_t)v;
	qsort(set->v, set->n, sizeof *set->v, cmp_i32);
}

void fp_name_set_from(struct fp_name_set *set, const struct fp_rangectl_cmd *c)
{
	const char *cur, *end;
	struct fp_str item;

	free(set->text);
	free(set->v);
	memset(set, 0, sizeof *set);
	if (c->off)
		return;
	set->on = 1;
	set->text = fp_xstrndup(c->arg.p, c->arg.n);
	set->v = fp_xmalloc((c->arg.n / 2 + 1) * sizeof *set->v);
	cur = set->text;
	end = set->text + c->arg.n;
	while (fp_rangectl_next_item(&cur, end, &item))
		set->v[set->n++] = item;
}

int fp_name_set_has(const struct fp_name_set *set, const char *p, size_t n)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i].n == n && !memcmp(set->v[i].p, p, n))
			return 1;
	return 0;
}

int fp_name_set_has_event(const struct fp_name_set *set, const char *p, size_t n)
{
	if (fp_name_set_has(set, p, n))
		return 1;
	for (size_t i = 0; i < set->n; i++)
		if (fp_event_name_matches(set->v[i].p, set->v[i].n, p, n))
			return 1;
	return 0;
}

void fp_id_set_command(const struct fp_id_set *set, const char *word, struct fp_wmem *out)
{
	char num[FP_I64_TEXT_MAX];

	out->len = 0;
	fp_wmem_add(out, word, strlen(word));
	for (size_t i = 0; i < set->n; i++) {
		int n = snprintf(num, sizeof num, "%c%lld", i ? ',' : ' ', (long long)set->v[i]);

		fp_wmem_add(out, num, (size_t)n);
	}
}
