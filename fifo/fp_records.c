/* fp_records.c: the tag rule, the header check and the parsers of the
 * G, H, F, C, W and I records (fp_record.h, fifo/PROTOCOL.md). */
#include <inttypes.h>
#include <string.h>

#include "fp_error.h"
#include "fp_num.h"
#include "fp_record.h"

#define HEADER_PREFIX "%flamepipe\t"
#define HEADER_VERSION_MAX 1000000
#define HEADER_SHOWN_MAX 64 /* bytes of a bad header quoted in the message */

enum fp_rec fp_record_tag(const char *line, size_t *len)
{
	size_t n = *len;

	if (n && line[n - 1] == '\r')
		*len = --n;
	if (n == 0)
		return FP_REC_EMPTY;
	if (line[0] == FP_TAG_HEADER)
		return FP_REC_HEADER;
	if (line[0] == FP_TAG_COMMENT)
		return FP_REC_COMMENT;
	if (n > 1 && line[1] != '\t')
		return FP_REC_OTHER;
	switch (line[0]) {
	case FP_TAG_SAMPLE:
		return FP_REC_SAMPLE;
	case FP_TAG_GEOMETRY:
		return FP_REC_GEOMETRY;
	case FP_TAG_CELL:
		return FP_REC_CELL;
	case FP_TAG_FOLDED:
		return FP_REC_FOLDED;
	case FP_TAG_FOLDED_ID:
		return FP_REC_FOLDED_ID;
	case FP_TAG_CONTROL:
		return FP_REC_CONTROL;
	case FP_TAG_WARNING:
		return FP_REC_WARNING;
	case FP_TAG_INFO:
		return FP_REC_INFO;
	case FP_TAG_STACK:
		return FP_REC_STACK;
	case FP_TAG_REF:
		return FP_REC_REF;
	case FP_TAG_TAIL:
		return FP_REC_TAIL;
	case FP_TAG_TAIL_SAMPLE:
		return FP_REC_TAIL_SAMPLE;
	default:
		return FP_REC_OTHER;
	}
}

/* line's tag is `tag` (the parsers: the caller applied the CR rule). */
static int has_tag(const char *line, size_t len, char tag)
{
	return len >= 1 && line[0] == tag && (len == 1 || line[1] == '\t');
}

/* ---- % header ---------------------------------------------------------- */

int fp_header_version(const char *line, size_t len)
{
	size_t pl = sizeof HEADER_PREFIX - 1;
	uint64_t v;

	if (len <= pl || memcmp(line, HEADER_PREFIX, pl) != 0)
		return -1;
	/* Accept "1" and "1.x": the major version is what must match. */
	const char *dot = memchr(line + pl, '.', len - pl);
	size_t vl = dot ? (size_t)(dot - line) - pl : len - pl;

	if (fp_parse_u64(line + pl, vl, &v) < 0 || v > HEADER_VERSION_MAX)
		return -1;
	return (int)v;
}

int fp_header_check(const char *line, size_t len)
{
	return fp_header_version(line, len) == FP_PROTO_VERSION ? 0 : -1;
}

void fp_header_require(const char *line, size_t len, const char *where, uint64_t lineno)
{
	char shown[HEADER_SHOWN_MAX + 1];
	size_t n = len < HEADER_SHOWN_MAX ? len : HEADER_SHOWN_MAX;

	if (fp_header_check(line, len) == 0)
		return;
	memcpy(shown, line, n);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)shown[i] < ' ')
			shown[i] = ' ';
	shown[n] = '\0';
	fp_die(FP_EXIT_USAGE,
	       "%s:%" PRIu64 ": unsupported stream header \"%s\": unsupported "
	       "stream version (expected \"%%flamepipe<TAB>%d\")",
	       where, lineno, shown, FP_PROTO_VERSION);
}

/* ---- G, H, F ------------------------------------------------------------ */

int fp_geometry_parse(const char *line, size_t len, struct fp_geometry *g)
{
	struct fp_str f[4];

	if (!has_tag(line, len, FP_TAG_GEOMETRY) || fp_split_fields(line, len, f, 4) != 3 ||
	    fp_parse_u64(f[1].p, f[1].n, &g->rows) < 0 ||
	    fp_parse_u64(f[2].p, f[2].n, &g->base_sec) < 0 || g->rows == 0 ||
	    g->base_sec > UINT64_MAX / FP_NSEC_PER_SEC)
		return -1;
	return 0;
}

int fp_cell_parse(const char *line, size_t len, struct fp_cell *c)
{
	struct fp_str f[5];

	if (!has_tag(line, len, FP_TAG_CELL) || fp_split_fields(line, len, f, 5) != 4 ||
	    fp_parse_u64(f[1].p, f[1].n, &c->col) < 0 ||
	    fp_parse_u64(f[2].p, f[2].n, &c->row) < 0 ||
	    fp_parse_u64(f[3].p, f[3].n, &c->count) < 0)
		return -1;
	return 0;
}

int fp_folded_parse(const char *line, size_t len, struct fp_folded_rec *r)
{
	struct fp_str f[3];

	if (!has_tag(line, len, FP_TAG_FOLDED) || fp_split_fields(line, len, f, 3) != 3 ||
	    fp_parse_u64(f[1].p, f[1].n, &r->count) < 0 || f[2].n == 0)
		return -1;
	r->stack = f[2];
	return 0;
}

/* ---- D, R, E -------------------------------------------------------------- */

static int parse_id(struct fp_str f, uint32_t *id)
{
	uint64_t v;

	if (fp_parse_u64(f.p, f.n, &v) < 0 || v >= FP_STACK_ID_MAX)
		return -1;
	*id = (uint32_t)v;
	return 0;
}

int fp_folded_id_parse(const char *line, size_t len, struct fp_folded_id_rec *r)
{
	enum { FIELDS = 3 };
	struct fp_str f[FIELDS];

	if (!has_tag(line, len, FP_TAG_FOLDED_ID) ||
	    fp_split_fields(line, len, f, FIELDS) != FIELDS ||
	    fp_parse_u64(f[1].p, f[1].n, &r->count) < 0 || parse_id(f[2], &r->id) < 0)
		return -1;
	return 0;
}

int fp_stack_def_parse(const char *line, size_t len, struct fp_stack_def *d)
{
	enum { FIELDS = 4 };
	struct fp_str f[FIELDS];

	if (!has_tag(line, len, FP_TAG_STACK) || fp_split_fields(line, len, f, FIELDS) != FIELDS ||
	    parse_id(f[1], &d->id) < 0 || f[3].n == 0 || !fp_frames_ok(f[2], f[3]))
		return -1;
	d->kinds = f[2];
	d->folded = f[3];
	return 0;
}

/* ---- K, P --------------------------------------------------------------- */

int fp_tail_def_parse(const char *line, size_t len, struct fp_tail_def *d)
{
	enum { FIELDS = 6, FIELDS_MAX = 7 }; /* and the optional cgroup */
	struct fp_str f[FIELDS_MAX];
	size_t n;

	if (!has_tag(line, len, FP_TAG_TAIL) ||
	    (n = fp_split_fields(line, len, f, FIELDS_MAX)) < FIELDS ||
	    parse_id(f[1], &d->id) < 0 || !fp_frames_ok(f[4], f[5]))
		return -1;
	d->event = f[2];
	d->comm = f[3];
	d->kinds = f[4];
	d->stack = f[5];
	d->cgroup = n > FIELDS ? f[6] : (struct fp_str){ "", 0 };
	if (memchr(d->cgroup.p, '\t', d->cgroup.n))
		return -1;
	d->text.p = f[2].p;
	d->text.n = (size_t)(line + len - f[2].p);
	return 0;
}

static int id_field_ok(int64_t v)
{
	return v >= -1 && v <= FP_ID_MAX;
}

/* An R record is read field by field where it stands, as a P record is
 * (fp-render reads one per sample): no split first, then a parse of each
 * field. The rules are fp_split_fields' and fp_parse_u64/i64's. */
int fp_ref_parse(const char *line, size_t len, struct fp_ref *r)
{
	struct fp_num_scan sc = { line + 2, line + len, 1 };
	const char *tab;
	uint64_t id;

	if (len < 2 || !has_tag(line, len, FP_TAG_REF) || fp_scan_u64(&sc, '\t', &id) < 0 ||
	    id >= FP_STACK_ID_MAX || fp_scan_u64(&sc, '\t', &r->time_ns) < 0 ||
	    fp_scan_i64(&sc, '\t', &r->pid) < 0 || fp_scan_i64(&sc, '\t', &r->tid) < 0 ||
	    fp_scan_i64(&sc, '\t', &r->cpu) < 0 || fp_scan_u64(&sc, '\t', &r->period) < 0 ||
	    fp_scan_u64(&sc, '\t', &r->count) < 0)
		return -1;
	/* then event TAB comm [TAB cgroup], neither of the last two with a TAB */
	const char *tab2;
	if (!(tab = memchr(sc.p, '\t', (size_t)(sc.end - sc.p))))
		return -1;
	r->id = (uint32_t)id;
	r->event = (struct fp_str){ sc.p, (size_t)(tab - sc.p) };
	r->cgroup = (struct fp_str){ "", 0 };
	if ((tab2 = memchr(tab + 1, '\t', (size_t)(sc.end - tab - 1)))) {
		if (memchr(tab2 + 1, '\t', (size_t)(sc.end - tab2 - 1)))
			return -1;
		r->cgroup = (struct fp_str){ tab2 + 1, (size_t)(sc.end - tab2 - 1) };
	} else {
		tab2 = sc.end;
	}
	r->comm = (struct fp_str){ tab + 1, (size_t)(tab2 - tab - 1) };
	return 0;
}

static int tail_ref_scan(const char *line, size_t len, struct fp_tail_ref *r, size_t *head_n,
			 int *canonical)
{
	struct fp_num_scan sc = { line + 2, line + len, 1 };
	uint64_t id;

	if (len < 2 || !has_tag(line, len, FP_TAG_TAIL_SAMPLE) ||
	    fp_scan_u64(&sc, '\t', &r->time_ns) < 0 || fp_scan_i64(&sc, '\t', &r->pid) < 0 ||
	    fp_scan_i64(&sc, '\t', &r->tid) < 0 || fp_scan_i64(&sc, '\t', &r->cpu) < 0 ||
	    fp_scan_u64(&sc, '\t', &r->period) < 0)
		return -1;
	*head_n = (size_t)(sc.p - 1 - line);
	if (fp_scan_u64(&sc, FP_SCAN_TO_END, &id) < 0 || id >= FP_STACK_ID_MAX ||
	    !id_field_ok(r->pid) || !id_field_ok(r->tid) || !id_field_ok(r->cpu))
		return -1;
	r->id = (uint32_t)id;
	*canonical = sc.canonical;
	return 0;
}

int fp_sample_head_parse(const char *line, size_t len, struct fp_sample *s, size_t *tail_off)
{
	struct fp_num_scan sc = { line + 2, line + len, 1 };

	if (len < 2 || line[0] != FP_TAG_SAMPLE || line[1] != '\t' ||
	    fp_scan_u64(&sc, '\t', &s->time_ns) < 0 || fp_scan_i64(&sc, '\t', &s->pid) < 0 ||
	    fp_scan_i64(&sc, '\t', &s->tid) < 0 || fp_scan_i64(&sc, '\t', &s->cpu) < 0 ||
	    fp_scan_u64(&sc, '\t', &s->period) < 0)
		return -1;
	*tail_off = (size_t)(sc.p - line);
	return 0;
}

int fp_tail_ref_parse(const char *line, size_t len, struct fp_tail_ref *r)
{
	size_t head_n;
	int canonical;

	return tail_ref_scan(line, len, r, &head_n, &canonical);
}

int fp_tail_ref_parse_head(const char *line, size_t len, struct fp_tail_ref *r, size_t *head_n,
			   int *canonical)
{
	return tail_ref_scan(line, len, r, head_n, canonical);
}

/* ---- C ------------------------------------------------------------------ */

static const struct {
	const char *verb;
	enum fp_ctl kind;
	size_t min_args;
} verbs[] = {
	{ "reset", FP_CTL_RESET, 0 },         { "flush", FP_CTL_FLUSH, 0 },
	{ "range", FP_CTL_RANGE, 2 },         { "filter", FP_CTL_FILTER, 1 },
	{ "begin", FP_CTL_BEGIN, 1 },         { "end", FP_CTL_END, 1 },
	{ "restarted", FP_CTL_RESTARTED, 1 }, { FP_EVENTS_VERB, FP_CTL_EVENTS, 1 },
};

int fp_control_parse(const char *line, size_t len, struct fp_control *c)
{
	struct fp_str f[FP_CTL_ARGS_MAX + 2];
	size_t n;

	memset(c, 0, sizeof *c);
	c->rest.p = "";
	if (!has_tag(line, len, FP_TAG_CONTROL))
		return -1;
	n = fp_split_fields(line, len, f, FP_CTL_ARGS_MAX + 2);
	if (n < 2)
		return -1;
	c->verb = f[1];
	c->nargs = n - 2;
	memcpy(c->arg, f + 2, c->nargs * sizeof *c->arg);
	if (n > 2)
		c->rest = (struct fp_str){ f[2].p, len - (size_t)(f[2].p - line) };
	for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++)
		if (fp_str_eq(c->verb, verbs[i].verb)) {
			if (c->nargs < verbs[i].min_args)
				return -1;
			c->kind = verbs[i].kind;
			break;
		}
	return 0;
}

int fp_events_first(const struct fp_control *c, struct fp_str *first)
{
	if (c->kind != FP_CTL_EVENTS || c->nargs < 1 || c->arg[0].n == 0)
		return -1;
	*first = c->arg[0]; /* never the last-of-many field that keeps TABs */
	return 0;
}

int fp_control_is(const struct fp_control *c, enum fp_ctl kind, const char *what)
{
	return c->kind == kind && c->nargs >= 1 && fp_str_eq(c->arg[0], what);
}

/* ---- W, I --------------------------------------------------------------- */

int fp_warning_parse(const char *line, size_t len, struct fp_warning *w)
{
	struct fp_str f[4];

	if (!has_tag(line, len, FP_TAG_WARNING) || fp_split_fields(line, len, f, 4) != 4)
		return -1;
	w->stage = f[1];
	w->where = f[2];
	w->message = f[3];
	return 0;
}

int fp_info_parse(const char *line, size_t len, struct fp_info *i)
{
	struct fp_str f[3];
	size_t n;

	if (!has_tag(line, len, FP_TAG_INFO))
		return -1;
	n = fp_split_fields(line, len, f, 3);
	if (n < 2 || f[1].n == 0)
		return -1;
	i->stage = f[1];
	i->fields = n == 3 ? f[2] : (struct fp_str){ "", 0 };
	return 0;
}

int fp_info_get_text(const struct fp_info *i, const char *key, struct fp_str *v)
{
	size_t kl = strlen(key);
	const char *p = i->fields.p, *end = p + i->fields.n;

	while (p < end) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));
		size_t n = tab ? (size_t)(tab - p) : (size_t)(end - p);

		if (n > kl && p[kl] == '=' && memcmp(p, key, kl) == 0) {
			v->p = p + kl + 1;
			v->n = n - kl - 1;
			return 0;
		}
		p += n + 1;
	}
	return -1;
}

int fp_info_get(const struct fp_info *i, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	const char *p = i->fields.p, *end = p + i->fields.n;

	while (p < end) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));
		size_t n = tab ? (size_t)(tab - p) : (size_t)(end - p);

		if (n > kl && p[kl] == '=' && memcmp(p, key, kl) == 0)
			return fp_parse_u64(p + kl + 1, n - kl - 1, v);
		p += n + 1;
	}
	return -1;
}
