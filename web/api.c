/* api.c: fp-serve's JSON/SVG routes (docs/fp-serve.md lists them).
 *
 * Every handler validates its parameters first (query.c, safepath.c) and
 * answers 4xx with {"error":...} on the first bad one; only then are
 * stages run (compute.c). The live capture is addressed by its name in
 * `filename` like a file: its heatmap and whole-capture flame graph come
 * from the running chain (live.c), every range or filter query from its
 * recording (--recording, written by fp-record), per request, on the live
 * heatmap's axis: the chain itself is never changed by a viewer.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baseline.h"
#include "diff.h"
#include "escape.h"
#include "flamegraph.h"
#include "folded.h"
#include "fp_error.h"
#include "fp_sniff.h"
#include "fp_rangectl.h"
#include "heatmap.h"
#include "http.h"
#include "live.h"
#include "routes.h"
#include "serve.h"

#define ERR_MAX 1024
#define SVG_WIDTH_MIN 200
#define SVG_WIDTH_MAX 10000
#define TITLE_MAX 200

/* ---- parameters ------------------------------------------------------------------ */

/* The capture a request names: the live one (fd: its recording, or -1
 * without one), or an opened file. */
struct target {
	int live;
	int fd;         /* the capture's index (index.c), or the file */
	struct stat st; /* the file's (cache keys) */
	struct job job; /* what its chains run as (upload, index counts) */
};

/* A name below DIR/uploads/: a capture someone sent, whose reader may use
 * no file of this host (docs/fp-serve.md "Privilege"). */
static int is_upload_name(const char *v, size_t n)
{
	return n > 8 && memcmp(v, "uploads/", 8) == 0;
}

/* The live capture's recording, opened for this request. */
static void open_recording(const struct server *srv, struct target *t)
{
	const char *path = srv->live->recording;

	if (!path)
		return;
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd >= 0 && fstat(t->fd, &t->st) < 0) {
		close(t->fd);
		t->fd = -1;
	}
}

/* Resolves parameter `param` (filename / compareFilename). 0 or an HTTP
 * status with err. */
static int get_target(const struct server *srv, struct MHD_Connection *c, const char *param,
		      struct target *t, char *err, size_t errsz)
{
	size_t n;
	const char *v = http_arg(c, param, &n);
	t->live = 0;
	t->fd = -1;
	t->job = http_job(srv, c);
	if (!v) {
		snprintf(err, errsz, "missing parameter %s", param);
		return 400;
	}
	if (srv->live && live_name_is(srv->live, v, n)) {
		t->live = 1;
		open_recording(srv, t);
		return 0;
	}
	int status;
	const char *why;
	t->fd = safepath_open(srv, v, n, &t->st, &status, &why);
	if (t->fd < 0) {
		snprintf(err, errsz, "%s: %s", param, why);
		return status;
	}
	t->job.untrusted = is_upload_name(v, n) && !srv->upload_host_symbols;
	/* the first open of a capture builds its time index; every chain
	 * then reads the index */
	t->fd = index_open(&t->job, t->fd, &t->st, &status, err, errsz);
	return t->fd < 0 ? status : 0;
}

static void target_close(struct target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	if (!t->live)
		index_release(&t->job);
}

static const char *const filter_words[] = { "pid",   "tid",     "cpu",     "comm",
					    "event", "include", "exclude", "container" };
#define NFILTERS (sizeof filter_words / sizeof filter_words[0])

/* The filters and keepidle into sel. 0 or an HTTP status. */
static int get_filters(struct MHD_Connection *c, struct selection *sel, char *err, size_t errsz)
{
	size_t n;
	const char *v;
	const char **slot[NFILTERS] = { &sel->pid,   &sel->tid,     &sel->cpu,     &sel->comm,
					&sel->event, &sel->include, &sel->exclude, &sel->container };
	for (size_t i = 0; i < NFILTERS; i++) {
		if (!(v = http_arg(c, filter_words[i], &n)))
			continue;
		if (n == 0)
			continue; /* an empty form field: no filter */
		char fwhy[QUERY_WHY_MAX];
		if (!query_filter_ok(filter_words[i], v, n, fwhy, sizeof fwhy)) {
			snprintf(err, errsz, "%s: %s", filter_words[i], fwhy);
			return 400;
		}
		*slot[i] = v;
	}
	if ((v = http_arg(c, "keepidle", &n)))
		sel->keep_idle = n == 1 && v[0] == '1';
	if ((v = http_arg(c, "allevents", &n)) && n > 0) {
		if (n != 1 || (v[0] != '0' && v[0] != '1')) {
			snprintf(err, errsz, "allevents: expected 0 or 1");
			return 400;
		}
		sel->all_events = v[0] == '1';
		if (sel->all_events && sel->event) {
			snprintf(err, errsz, "allevents=1 and event exclude each other");
			return 400;
		}
	}
	return 0;
}

/* start/end from (ps, pe) and the shared filters. 0 or an HTTP status. */
static int get_selection(struct MHD_Connection *c, const char *ps, const char *pe,
			 struct selection *sel, struct live_range *r, char *err, size_t errsz)
{
	memset(sel, 0, sizeof *sel);
	memset(r, 0, sizeof *r);
	const char *why;
	size_t n;
	const char *v;
	if ((v = http_arg(c, ps, &n)) && n > 0) { /* empty: absent */
		if (!query_seconds(v, n, &r->from_ns, &why)) {
			snprintf(err, errsz, "%s: %s", ps, why);
			return 400;
		}
		sel->start = v;
		r->has_from = 1;
	}
	if ((v = http_arg(c, pe, &n)) && n > 0) {
		if (!query_seconds(v, n, &r->to_ns, &why)) {
			snprintf(err, errsz, "%s: %s", pe, why);
			return 400;
		}
		sel->end = v;
		r->has_to = 1;
	}
	if (r->has_from && r->has_to && r->from_ns > r->to_ns) {
		snprintf(err, errsz, "%s is after %s", ps, pe);
		return 416;
	}
	return get_filters(c, sel, err, errsz);
}

/* The folded text of a target's selection: for the live capture's whole
 * unfiltered profile a malloc'ed copy of the chain's snapshot, else the
 * cached result of a stage chain over the file or the live recording.
 * *fref must be released with folded_put (NULL for the snapshot). */
struct folded_view {
	const struct folded_text *fref;
	char *live_buf;
	const char *buf;
	size_t len;
	uint64_t total;
};

/* fp-record writes a batch at most its --flush-interval (1 s by default)
 * after its first sample: a range query waits this long at most for the
 * recording to hold what the heatmap counted (live.h). */
#define LIVE_RECORDED_WAIT_MS 5000

/* A live selection is read from the recording on the live heatmap's axis,
 * once the recording holds every sample the heatmap counted in it. */
static void live_axis(const struct server *srv, struct target *t, struct selection *sel)
{
	uint64_t base;

	if (live_base_sec(srv->live, &base)) {
		sel->has_axis = 1;
		sel->axis_base_sec = base;
	}
	if (live_wait_recorded(srv->live, t->fd, sel->end, LIVE_RECORDED_WAIT_MS) < 0)
		fp_warn("live %s: the recording still lacks samples the heatmap counted "
			"after %u ms: the answer may be short of them",
			srv->live->name, LIVE_RECORDED_WAIT_MS);
	if (fstat(t->fd, &t->st) < 0) /* the cache key: the file as read now */
		memset(&t->st, 0, sizeof t->st);
}

/* What a selection of target t reads: 1 the live capture's current
 * snapshot (its whole profile, unfiltered), 0 the file (t->fd) with
 * *lsel (a live capture's recording on the live heatmap's axis), or an
 * HTTP status with err. */
static int selection_source(const struct server *srv, struct target *t, const struct selection *sel,
			    struct selection *lsel, char *err, size_t errsz)
{
	*lsel = *sel;
	if (!t->live)
		return 0;
	if (!sel->start && !sel->end && !selection_has_filters(sel) && !sel->keep_idle)
		return 1;
	if (t->fd < 0) {
		snprintf(err, errsz,
			 "this live capture has no recording (fp-serve "
			 "--recording FILE): only its whole profile can be shown");
		return 409;
	}
	live_axis(srv, t, lsel);
	return 0;
}

static int get_folded(const struct server *srv, struct MHD_Connection *c, struct target *t,
		      const struct selection *sel, const struct live_range *r,
		      struct folded_view *fv, char *err, size_t errsz)
{
	memset(fv, 0, sizeof *fv);
	(void)r;
	struct selection lsel;
	int status = selection_source(srv, t, sel, &lsel, err, errsz);
	if (status == 1) {
		fv->live_buf = live_copy_snapshot(srv->live, &fv->len, &fv->total);
		fv->buf = fv->live_buf;
		return 0;
	}
	if (status)
		return status;
	fv->fref = folded_get(&t->job, t->fd, &t->st, &lsel, &status, err, errsz);
	if (!fv->fref)
		return status ? status : 500;
	fv->buf = fv->fref->buf ? fv->fref->buf : "";
	fv->len = fv->fref->len;
	fv->total = fv->fref->total;
	return 0;
}

static void folded_view_free(struct folded_view *fv)
{
	folded_put(fv->fref);
	free(fv->live_buf);
	memset(fv, 0, sizeof *fv);
}

/* The folded view of filename's selection into fv and, with csel, of
 * compareFilename's csel into cfv. 0, or an HTTP status with err (both
 * views empty). */
static int get_folded_pair(const struct server *srv, struct MHD_Connection *c,
			   const struct selection *sel, const struct live_range *r,
			   const struct selection *csel, const struct live_range *cr,
			   struct folded_view *fv, struct folded_view *cfv, char *err, size_t errsz)
{
	struct target t, ct = { .fd = -1 };

	memset(fv, 0, sizeof *fv);
	memset(cfv, 0, sizeof *cfv);
	int st = get_target(srv, c, "filename", &t, err, errsz);
	if (!st && csel && (st = get_target(srv, c, "compareFilename", &ct, err, errsz)))
		target_close(&t);
	if (st)
		return st;
	st = get_folded(srv, c, &t, sel, r, fv, err, errsz);
	if (!st && csel)
		st = get_folded(srv, c, &ct, csel, cr, cfv, err, errsz);
	target_close(&t);
	target_close(&ct);
	if (st) {
		folded_view_free(fv);
		folded_view_free(cfv);
	}
	return st;
}

/* ---- /heatmap/ and /svg/heatmap ---------------------------------------------------- */

static void heatmap_svg_from(struct fp_sink *s, const struct heatmap *h, const char *title)
{
	struct fp_heatmap_opts o;
	fp_heatmap_opts_init(&o);
	o.title = title;
	fp_heatmap_svg(s, &h->hm, &o);
}

/* The live capture's heatmap: the running chain's cells (unfiltered). */
static enum MHD_Result live_heatmap(struct server *srv, struct MHD_Connection *c, int svg,
				    const char *fname, struct fp_sink *s)
{
	if (svg) {
		/* snapshot the live cells under the lock, then render */
		struct live *l = srv->live;
		struct heatmap h = { 0 };
		pthread_mutex_lock(&l->lock);
		fp_heatmap_copy(&h.hm, &l->hb.h.hm);
		pthread_mutex_unlock(&l->lock);
		heatmap_svg_from(s, &h, fname);
		fp_heatmap_free(&h.hm);
		return http_reply(c, 200, CT_SVG, s);
	}
	live_heatmap_json(srv->live, s);
	fp_sink_char(s, '\n');
	return http_reply(c, 200, CT_JSON, s);
}

enum MHD_Result api_heatmap(struct server *srv, struct MHD_Connection *c, int svg)
{
	char err[ERR_MAX];
	const char *why;
	unsigned rows = SERVE_ROWS_DEFAULT;
	size_t n;
	const char *v = http_arg(c, "rows", &n);
	if (v && !query_rows(v, n, &rows, &why))
		return http_error(c, 400, "rows: %s", why);
	/* filters (start/end are ignored: a heatmap is always the whole
	 * capture); a running live capture's heatmap is never filtered: once
	 * it ended, a filtered one comes from its recording (docs/fp-serve.md) */
	struct selection sel = { 0 };
	int st = get_filters(c, &sel, err, sizeof err);
	if (st)
		return http_error(c, (unsigned)st, "%s", err);
	struct target t;
	st = get_target(srv, c, "filename", &t, err, sizeof err);
	if (st)
		return http_error(c, (unsigned)st, "%s", err);
	size_t fnlen;
	const char *fname = http_arg(c, "filename", &fnlen);

	struct fp_sink s;
	fp_sink_init_mem(&s);
	/* recording=1: a running live capture's filtered heatmap from its
	 * recording as it is now (the page asks again as the capture grows) */
	const char *rv = http_arg(c, "recording", &n);
	int from_rec = t.live && (live_ended(srv->live) || (rv && n == 1 && rv[0] == '1'));
	uint64_t live_base = 0;
	if (t.live && !(selection_has_filters(&sel) && t.fd >= 0 && from_rec &&
			live_base_sec(srv->live, &live_base))) {
		target_close(&t);
		return live_heatmap(srv, c, svg, fname, &s);
	}
	const struct heatmap *h = heatmap_get(&t.job, t.fd, &t.st, rows, &sel, &st, err,
					      sizeof err);
	target_close(&t);
	if (!h) {
		fp_sink_free(&s);
		return http_error(c, (unsigned)(st ? st : 500), "%s", err);
	}
	if (t.live && (uint64_t)h->hm.base_sec != live_base) {
		/* retention dropped the recording's oldest seconds: its axis is
		 * not the page's; the live (unfiltered) heatmap it is */
		heatmap_put(h);
		return live_heatmap(srv, c, svg, fname, &s);
	}
	if (svg) {
		char title[TITLE_MAX + 1];
		snprintf(title, sizeof title, "%.*s", (int)(fnlen < TITLE_MAX ? fnlen : TITLE_MAX),
			 fname);
		heatmap_svg_from(&s, h, title);
	} else {
		heatmap_json(&s, h);
		if (t.live) { /* filtered from the live capture's recording */
			s.len--;
			fp_sink_printf(&s, ",\"live\":true,\"ended\":%s}",
				       live_ended(srv->live) ? "true" : "false");
		}
		fp_sink_char(&s, '\n');
	}
	heatmap_put(h);
	return http_reply(c, 200, svg ? CT_SVG : CT_JSON, &s);
}

/* ---- /flamegraph/, /svg/flamegraph, /folded ----------------------------------------- */

static int flame_opts_from(struct MHD_Connection *c, struct fp_flame_opts *o, char *title,
			   char *err, size_t errsz)
{
	const char *why;
	size_t n;
	const char *v;
	fp_flame_opts_init(o);
	if ((v = http_arg(c, "title", &n))) {
		if (!query_value_ok(v, n, TITLE_MAX, &why)) {
			snprintf(err, errsz, "title: %s", why);
			return 400;
		}
		memcpy(title, v, n);
		title[n] = '\0';
		o->title = title;
	}
	if ((v = http_arg(c, "inverted", &n)))
		o->inverted = n == 1 && v[0] == '1';
	if ((v = http_arg(c, "negate", &n)))
		o->negate = n == 1 && v[0] == '1';
	if ((v = http_arg(c, "width", &n))) {
		unsigned w = 0;
		int ok = n > 0 && n <= 5;
		for (size_t i = 0; ok && i < n; i++) {
			if (v[i] < '0' || v[i] > '9')
				ok = 0;
			else
				w = w * 10 + (unsigned)(v[i] - '0');
		}
		if (!ok || w < SVG_WIDTH_MIN || w > SVG_WIDTH_MAX) {
			snprintf(err, errsz, "width must be an integer from %d to %d",
				 SVG_WIDTH_MIN, SVG_WIDTH_MAX);
			return 400;
		}
		o->width = w;
	}
	if ((v = http_arg(c, "palette", &n))) {
		if (!query_value_ok(v, n, 32, &why) || strlen(v) != n ||
		    fp_palette_parse(v, &o->palette) < 0) {
			snprintf(err, errsz, "palette: unknown palette");
			return 400;
		}
	}
	return 0;
}

/* The flame graph SVG of fv, or with cfv (the compare range) its
 * differential (diff: before = compare range, after = this one) or
 * elided graph (the stacks only the compare range has). */
static void flame_svg(struct fp_sink *s, const struct folded_view *fv,
		      const struct folded_view *cfv, int diff, const struct fp_flame_opts *o)
{
	struct fp_folded a, b, out;

	fp_folded_init(&a);
	fp_folded_parse_buffer(&a, fv->buf, fv->len, FP_FOLDED_REF);
	if (cfv) {
		fp_folded_init(&b);
		fp_folded_parse_buffer(&b, cfv->buf, cfv->len, FP_FOLDED_REF);
		fp_folded_init(&out);
		if (diff)
			fp_folded_diff(&out, &b, &a);
		else
			fp_folded_elided(&out, &b, &a);
		fp_flame_render(s, &out, o);
		fp_folded_free(&out);
		fp_folded_free(&b);
	} else {
		fp_flame_render(s, &a, o);
	}
	fp_folded_free(&a);
}

/* A request on one capture's samples (?filename=F[&start=S][&end=E]
 * [&filters]): the selection, the open file, and room for an error. */
struct request {
	struct selection sel;
	struct target t;
	char err[ERR_MAX];
	int status; /* the HTTP status of an error, 0 if none */
	/* an answer shared by every viewer (share_answer), instead of the
	 * body: what it is (Server-Timing's name), whether this request made
	 * it and how long that took */
	struct http_shared *shared;
	const char *what;
	struct answer_how how;
};

/* Fills s with the answer to q (the reply's body): 0, or an HTTP status
 * with q->err. */
typedef int request_answer(const struct job *job, struct request *q, struct fp_sink *s);

static enum MHD_Result answer_request(struct server *srv, struct MHD_Connection *c,
				      const char *no_live, request_answer *answer,
				      const char *ctype, const char *attachment);
static int tree_answer(const struct job *job, struct request *q, struct fp_sink *s);

enum MHD_Result api_flamegraph(struct server *srv, struct MHD_Connection *c, int kind)
{
	if (kind == FG_TREE)
		return answer_request(srv, c, NULL, tree_answer, CT_JSON, NULL);
	char err[ERR_MAX];
	struct selection sel;
	struct live_range r;
	struct fp_flame_opts o;
	char title[TITLE_MAX + 1];
	int st = get_selection(c, "start", "end", &sel, &r, err, sizeof err);
	if (!st && kind == FG_SVG)
		st = flame_opts_from(c, &o, title, err, sizeof err);
	if (st)
		return http_error(c, (unsigned)st, "%s", err);
	/* compare views of the SVG route */
	size_t n;
	const char *v;
	int diff = 0, elided = 0;
	if (kind == FG_SVG) {
		if ((v = http_arg(c, "diff", &n)))
			diff = n == 1 && v[0] == '1';
		if ((v = http_arg(c, "elided", &n)))
			elided = n == 1 && v[0] == '1';
		if ((diff || elided) && !http_arg(c, "compareFilename", &n))
			return http_error(c, 400, "diff and elided need compareFilename");
	}
	struct selection csel;
	struct live_range cr;
	if (diff || elided) {
		st = get_selection(c, "compareStart", "compareEnd", &csel, &cr, err, sizeof err);
		if (st)
			return http_error(c, (unsigned)st, "%s", err);
	}
	struct folded_view fv, cfv;
	st = get_folded_pair(srv, c, &sel, &r, diff || elided ? &csel : NULL, &cr, &fv, &cfv, err,
			     sizeof err);
	if (st)
		return http_error(c, (unsigned)st, "%s", err);

	struct fp_sink s;
	fp_sink_init_mem(&s);
	const char *ctype = CT_JSON;
	const char *hname = NULL;
	if (kind == FG_FOLDED) {
		fp_sink_write(&s, fv.buf, fv.len);
		ctype = CT_TEXT;
		folded_view_free(&fv);
		return http_reply_hdr(c, 200, ctype, &s, "Content-Disposition",
				      "attachment; filename=\"flamepipe.folded\"");
	} else {
		flame_svg(&s, &fv, diff || elided ? &cfv : NULL, diff, &o);
		ctype = CT_SVG;
	}
	folded_view_free(&fv);
	folded_view_free(&cfv);
	return http_reply_hdr(c, 200, ctype, &s, hname, hname ? "1" : NULL);
}

/* 0, or the HTTP status to answer with q->err. A route that has no
 * answer for the live capture names itself in no_live (a 409). */
static int get_request(const struct server *srv, struct MHD_Connection *c, struct request *q,
		       const char *no_live)
{
	struct live_range r;
	int st = get_selection(c, "start", "end", &q->sel, &r, q->err, sizeof q->err);

	q->status = 0;
	q->shared = NULL;
	q->what = NULL;
	q->how = (struct answer_how){ 0 };
	if (!st)
		st = get_target(srv, c, "filename", &q->t, q->err, sizeof q->err);
	if (!st && no_live && q->t.live) {
		target_close(&q->t);
		snprintf(q->err, sizeof q->err, "%s: not available for a live capture", no_live);
		st = 409;
	}
	return st;
}

/* A route on one capture's samples: get_request, answer, then a reply of
 * type ctype (an attachment named so when attachment is not NULL). */
static enum MHD_Result answer_request(struct server *srv, struct MHD_Connection *c,
				      const char *no_live, request_answer *answer,
				      const char *ctype, const char *attachment)
{
	struct request q;
	struct fp_sink s;
	int st = get_request(srv, c, &q, no_live);

	if (st)
		return http_error(c, (unsigned)st, "%s", q.err);
	fp_sink_init_mem(&s);
	st = answer(&q.t.job, &q, &s);
	target_close(&q.t);
	if (st) {
		fp_sink_free(&s);
		return http_error(c, (unsigned)st, "%s", q.err);
	}
	if (!q.shared)
		return http_reply_hdr(c, 200, ctype, &s, attachment ? "Content-Disposition" : NULL,
				      attachment);
	/* Server-Timing: whether this request made the shared answer */
	char timing[64];

	fp_sink_free(&s);
	if (q.how.made)
		snprintf(timing, sizeof timing, "%s;desc=\"made\";dur=%" PRIu64, q.what, q.how.ms);
	else
		snprintf(timing, sizeof timing, "%s;desc=\"shared\"", q.what);
	enum MHD_Result ret = http_reply_shared_hdr(c, 200, ctype, q.shared, "Server-Timing",
						    timing);
	http_shared_unref(q.shared);
	return ret;
}

/* The answer to q made once for every viewer of its selection
 * (answer_shared), what names it; fill makes it (ctx: q). 0, or an HTTP
 * status with q->err. */
static int share_answer(const struct job *job, struct request *q, const char *what,
			answer_fill *fill)
{
	q->what = what;
	q->shared = answer_shared(job, &q->t.st, &q->sel, what, fill, q, &q->how, &q->status,
				  q->err, sizeof q->err);
	return q->shared ? 0 : q->status ? q->status : 500;
}

/* /flamegraph/'s tree (tree_json) of the selection's folded table. */
static int tree_fill(void *ctx, struct fp_sink *s)
{
	struct request *q = ctx;
	const struct folded_text *f = folded_get(&q->t.job, q->t.fd, &q->t.st, &q->sel, &q->status,
						 q->err, sizeof q->err);

	if (!f)
		return q->status ? q->status : 500;
	tree_json(s, f->buf ? f->buf : "", f->len, TREE_ROOTS(SEL_EVENT_ROOT(&q->sel)));
	fp_sink_char(s, '\n');
	folded_put(f);
	return 0;
}

/* /flamegraph/: a capture's tree is made once per selection for every
 * viewer; the live capture's whole profile is its current snapshot's
 * (/live/flamegraph shares that one). */
static int tree_answer(const struct job *job, struct request *q, struct fp_sink *s)
{
	struct selection lsel;
	int st = selection_source(job->srv, &q->t, &q->sel, &lsel, q->err, sizeof q->err);

	if (st == 1) {
		size_t len;
		uint64_t total;
		char *buf = live_copy_snapshot(job->srv->live, &len, &total);

		tree_json(s, buf ? buf : "", len, TREE_ROOTS(SEL_EVENT_ROOT(&q->sel)));
		fp_sink_char(s, '\n');
		free(buf);
		return 0;
	}
	if (st)
		return st;
	q->sel = lsel;
	return share_answer(job, q, "tree", tree_fill);
}

/* A route that reads a live capture's recording (the whole of it; the
 * chain's snapshot will not do): q's selection on the live heatmap's
 * axis, or 409 naming the route when there is no recording. 0 for a
 * capture file. */
static int from_recording(const struct job *job, struct request *q, const char *route)
{
	if (!q->t.live)
		return 0;
	if (q->t.fd < 0) {
		snprintf(q->err, sizeof q->err,
			 "%s: this live capture has no recording (fp-serve --recording FILE)",
			 route);
		return 409;
	}
	live_axis(job->srv, &q->t, &q->sel);
	return 0;
}

/* A cached folded_text's answer: its status (500 if it has none) when f
 * is NULL. */
static int text_status(const struct folded_text *f, const struct request *q)
{
	return f ? 0 : q->status ? q->status : 500;
}

/* ---- /pprof/ ------------------------------------------------------------------------ */

#define CT_PPROF "application/octet-stream"

/* /pprof/?filename=F[&start=S][&end=E][&filters]: the samples of that
 * selection as profile.pb.gz (the same samples as /folded's table); for
 * the live capture, from its recording. */
static int pprof_answer(const struct job *job, struct request *q, struct fp_sink *s)
{
	int st = from_recording(job, q, "pprof");

	if (st)
		return st;
	const struct folded_text *p = pprof_get(job, q->t.fd, &q->t.st, &q->sel, &q->status, q->err,
						sizeof q->err);
	if (p)
		fp_sink_write(s, p->buf, p->len);
	folded_put(p);
	return text_status(p, q);
}

enum MHD_Result api_pprof(struct server *srv, struct MHD_Connection *c)
{
	return answer_request(srv, c, NULL, pprof_answer, CT_PPROF,
			      "attachment; filename=\"profile.pb.gz\"");
}

/* ---- /threads/ ------------------------------------------------------------------------ */

/* /threads/?filename=F[&filters]: {"total":N,"processes":[{"pid","comm",
 * "samples"}...],"threads":[{"tid",...}...],"containers":[{"name",
 * "samples"}...]}, heaviest first, from the folded tables rooted at
 * comm-pid, comm-tid and the container (fp-fold --pid, --tid,
 * --container-root) of the whole capture with the same event set and
 * filters as /heatmap/; for a live capture, of its recording so far. */
static int threads_fill(void *ctx, struct fp_sink *s)
{
	struct request *q = ctx;
	const struct job *job = &q->t.job;

	q->sel.root = SEL_ROOT_PID;
	const struct folded_text *fp = folded_get(job, q->t.fd, &q->t.st, &q->sel, &q->status,
						  q->err, sizeof q->err);
	q->sel.root = SEL_ROOT_TID;
	const struct folded_text *ft = fp ? folded_get(job, q->t.fd, &q->t.st, &q->sel, &q->status,
						       q->err, sizeof q->err)
					  : NULL;
	q->sel.root = SEL_ROOT_CONTAINER;
	const struct folded_text *fc = ft ? folded_get(job, q->t.fd, &q->t.st, &q->sel, &q->status,
						       q->err, sizeof q->err)
					  : NULL;
	if (!fc) {
		folded_put(fp);
		folded_put(ft);
		return text_status(fc, q);
	}
	struct owner *pv, *tv;
	size_t np = owners_of(fp, &pv), nt = owners_of(ft, &tv);
	fp_sink_printf(s, "{\"total\":%" PRIu64, fp->total);
	owners_json(s, "processes", "pid", pv, np);
	owners_json(s, "threads", "tid", tv, nt);
	containers_json(s, fc);
	fp_sink_str(s, "}\n");
	for (size_t i = 0; i < np; i++)
		free(pv[i].comm);
	for (size_t i = 0; i < nt; i++)
		free(tv[i].comm);
	free(pv);
	free(tv);
	folded_put(fp);
	folded_put(ft);
	folded_put(fc);
	return 0;
}

/* Made once per selection for every viewer (its three folded tables are
 * large: the cache may not keep them, the answer is a few KB). */
static int threads_answer(const struct job *job, struct request *q, struct fp_sink *s)
{
	int st = from_recording(job, q, "threads");

	if (st)
		return st;
	return share_answer(job, q, "threads", threads_fill);
}

enum MHD_Result api_threads(struct server *srv, struct MHD_Connection *c)
{
	return answer_request(srv, c, NULL, threads_answer, CT_JSON, NULL);
}

/* /flamechart/?filename=F[&start&end&filters]: the selection's samples in
 * time order, runs of one stack merged (web/flamechart.c). */
static int flamechart_fill(void *ctx, struct fp_sink *s)
{
	struct request *q = ctx;

	return flamechart_json(&q->t.job, q->t.fd, &q->sel, s, q->err, sizeof q->err);
}

/* Made once per selection for every viewer. */
static int flamechart_answer(const struct job *job, struct request *q, struct fp_sink *s)
{
	return share_answer(job, q, "flamechart", flamechart_fill);
}

enum MHD_Result api_flamechart(struct server *srv, struct MHD_Connection *c)
{
	return answer_request(srv, c, "flamechart", flamechart_answer, CT_JSON, NULL);
}

/* ---- /differential/, /elided/ --------------------------------------------------------- */

enum MHD_Result api_compare(struct server *srv, struct MHD_Connection *c, int elided)
{
	char err[ERR_MAX];
	struct selection sel, csel;
	struct live_range r, cr;
	int st = get_selection(c, "start", "end", &sel, &r, err, sizeof err);
	if (!st)
		st = get_selection(c, "compareStart", "compareEnd", &csel, &cr, err, sizeof err);
	if (st)
		return http_error(c, (unsigned)st, "%s", err);
	struct folded_view a, b;
	st = get_folded_pair(srv, c, &sel, &r, &csel, &cr, &a, &b, err, sizeof err);
	if (st)
		return http_error(c, (unsigned)st, "%s", err);
	struct fp_sink s;
	fp_sink_init_mem(&s);
	if (elided)
		tree_elided_json(&s, a.buf, a.len, b.buf, b.len, TREE_ROOTS(SEL_EVENT_ROOT(&sel)));
	else
		tree_differential_json(&s, a.buf, a.len, b.buf, b.len,
				       TREE_ROOTS(SEL_EVENT_ROOT(&sel)));
	fp_sink_char(&s, '\n');
	folded_view_free(&a);
	folded_view_free(&b);
	return http_reply(c, 200, CT_JSON, &s);
}

/* ---- live ------------------------------------------------------------------------------ */

static int get_live(const struct server *srv, struct MHD_Connection *c, char *err, size_t errsz)
{
	size_t n;
	const char *v = http_arg(c, "name", &n);
	if (!v) {
		snprintf(err, errsz, "missing parameter name");
		return 400;
	}
	if (!srv->live || !live_name_is(srv->live, v, n)) {
		snprintf(err, errsz, "no live capture of that name");
		return 404;
	}
	return 0;
}

/* {"seq":..,"total":..,"ended":..} (no closing brace) */
/* ---- the live flame graph against a baseline ------------------------------------------ */

#define BASELINE_TOP 10 /* keys listed that grew, and that shrank */

/* now = the live capture's last `window` whole seconds and the current
 * one (the whole capture without window=), from its recording: folded as the baseline is, so
 * their stacks compare (the chain's snapshot is folded without frame
 * annotations). */
static int live_now_selection(const struct server *srv, struct MHD_Connection *c,
			      struct selection *sel, char *buf, size_t bufsz, char *err,
			      size_t errsz)
{
	size_t n;
	const char *v = http_arg(c, "window", &n), *why;
	uint64_t w = 0, ncols;

	memset(sel, 0, sizeof *sel);
	if (v && n && !query_seconds(v, n, &w, &why)) {
		snprintf(err, errsz, "window: %s", why);
		return 400;
	}
	pthread_mutex_lock(&srv->live->lock);
	ncols = srv->live->hb.h.hm.ncols;
	pthread_mutex_unlock(&srv->live->lock);
	/* the last column is the second being filled (the recording may not
	 * have its newest samples yet): the window is the w seconds before it,
	 * and what it has so far */
	uint64_t end_ns = (ncols ? ncols - 1 : 0) * FP_NSEC_PER_SEC;
	uint64_t from = w && w < end_ns ? end_ns - w : 0;
	snprintf(buf, bufsz, "%" PRIu64 ".%09" PRIu64, (uint64_t)(from / FP_NSEC_PER_SEC),
		 (uint64_t)(from % FP_NSEC_PER_SEC));
	sel->start = buf;
	return 0;
}

/* {"name":..,"points":..,"now":..,"base":..} for the keys of d at idx */
static void changes_json(struct fp_sink *s, const struct fp_folded *d, const size_t *idx, size_t n)
{
	fp_sink_char(s, '[');
	for (size_t k = 0; k < n; k++) {
		size_t i = idx[k];

		fp_sink_str(s, k ? ",{\"name\":" : "{\"name\":");
		fp_json_string(s, d->e[i].stack, d->e[i].len);
		fp_sink_printf(s, ",\"points\":%.2f,\"now\":%.2f,\"base\":%.2f}",
			       fp_baseline_delta(d, i), fp_baseline_share_now(d, i),
			       fp_baseline_share_base(d, i));
	}
	fp_sink_char(s, ']');
}

/* The comparison of now with base by key (render/baseline.h), and the
 * differential tree (FlameScope's shape: a node's delta is its self count
 * minus the baseline's scaled to this total, i.e. shares). */
static void baseline_json(struct fp_sink *s, const struct folded_view *now,
			  const struct folded_view *base, enum fp_base_by by)
{
	struct fp_folded a, b, ka, kb, d;
	size_t idx[BASELINE_TOP];

	fp_folded_init(&a);
	fp_folded_init(&b);
	fp_folded_parse_buffer(&a, now->buf, now->len, FP_FOLDED_REF);
	fp_folded_parse_buffer(&b, base->buf, base->len, FP_FOLDED_REF);
	fp_baseline_keyed(&ka, &a, by);
	fp_baseline_keyed(&kb, &b, by);
	fp_folded_diff(&d, &kb, &ka);
	fp_sink_printf(s,
		       ",\"baseline\":{\"by\":\"%s\",\"samples\":%" PRIu64
		       ",\"now_samples\":%" PRIu64 ",\"grew\":",
		       by == FP_BASE_BY_STACK ? "stack" : "function", d.total, d.total2);
	changes_json(s, &d, idx, fp_baseline_top(&d, 1, idx, BASELINE_TOP));
	fp_sink_str(s, ",\"shrank\":");
	changes_json(s, &d, idx, fp_baseline_top(&d, 0, idx, BASELINE_TOP));
	fp_sink_str(s, "},\"tree\":");
	tree_differential_json(s, now->buf, now->len, base->buf, base->len, TREE_ROOTS(0));
	fp_folded_free(&d);
	fp_folded_free(&kb);
	fp_folded_free(&ka);
	fp_folded_free(&b);
	fp_folded_free(&a);
}

/* /live/flamegraph?name=N&baseline=FILE[&baselineStart=S][&baselineEnd=E]
 * or ?name=N&baselineStart=S&baselineEnd=E (a range of this capture),
 * [&window=S] [&by=function|stack]. */
static enum MHD_Result live_against_baseline(struct server *srv, struct MHD_Connection *c)
{
	char err[ERR_MAX], from[64];
	struct selection bsel, nsel;
	struct live_range br;
	struct target bt, nt;
	struct folded_view base, now;
	enum fp_base_by by = FP_BASE_BY_FUNCTION;
	size_t n;
	const char *v = http_arg(c, "by", &n);
	int st;

	if (v && n) {
		if (n == 5 && !memcmp(v, "stack", 5))
			by = FP_BASE_BY_STACK;
		else if (!(n == 8 && !memcmp(v, "function", 8)))
			return http_error(c, 400, "by: expected function or stack");
	}
	st = get_selection(c, "baselineStart", "baselineEnd", &bsel, &br, err, sizeof err);
	if (!st && !http_arg(c, "baseline", &n) && !bsel.start && !bsel.end)
		return http_error(c, 400,
				  "baseline: give baseline=FILE, or baselineStart and "
				  "baselineEnd (a range of this capture)");
	if (!st)
		st = live_now_selection(srv, c, &nsel, from, sizeof from, err, sizeof err);
	if (st)
		return http_error(c, (unsigned)st, "%s", err);
	/* the baseline: a served file, or this capture (by its name) */
	st = get_target(srv, c, http_arg(c, "baseline", &n) ? "baseline" : "name", &bt, err,
			sizeof err);
	if (!st && (st = get_target(srv, c, "name", &nt, err, sizeof err)))
		target_close(&bt);
	if (st)
		return http_error(c, (unsigned)st, "%s", err);
	st = get_folded(srv, c, &bt, &bsel, &br, &base, err, sizeof err);
	if (!st && (st = get_folded(srv, c, &nt, &nsel, NULL, &now, err, sizeof err)))
		folded_view_free(&base);
	target_close(&bt);
	target_close(&nt);
	if (st)
		return http_error(c, (unsigned)st, "%s", err);
	if (!base.total) {
		folded_view_free(&base);
		folded_view_free(&now);
		return http_error(c, 422, "baseline: no samples in it: nothing to compare against");
	}
	struct fp_sink s;
	fp_sink_init_mem(&s);
	live_state_json(&s, srv->live);
	baseline_json(&s, &now, &base, by);
	fp_sink_str(&s, "}\n");
	folded_view_free(&base);
	folded_view_free(&now);
	return http_reply(c, 200, CT_JSON, &s);
}

enum MHD_Result api_live_flamegraph(struct server *srv, struct MHD_Connection *c)
{
	char err[ERR_MAX];
	size_t n;
	int st = get_live(srv, c, err, sizeof err);
	if (st)
		return http_error(c, (unsigned)st, "%s", err);
	if (http_arg(c, "baseline", &n) || http_arg(c, "baselineStart", &n) ||
	    http_arg(c, "baselineEnd", &n))
		return live_against_baseline(srv, c);
	struct http_shared *b = live_flame_body(srv->live);
	enum MHD_Result r = http_reply_shared(c, 200, CT_JSON, b);
	http_shared_unref(b);
	return r;
}

/* SSE: one live_client per stream; the reader callback blocks this
 * connection's thread in live_sse_next until there is something to send. */
struct sse {
	struct live_client c;
	struct live *live;
};

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	(void)pos;
	struct sse *e = cls;
	struct live_client *lc = &e->c;
	if (lc->out_off >= lc->out.len) {
		lc->out.len = lc->out_off = 0;
		if (lc->sent_end)
			return MHD_CONTENT_READER_END_OF_STREAM;
		live_sse_next(e->live, lc);
		if (lc->out.len == 0)
			return MHD_CONTENT_READER_END_OF_STREAM;
	}
	size_t n = lc->out.len - lc->out_off;
	if (n > max)
		n = max;
	memcpy(buf, lc->out.buf + lc->out_off, n);
	lc->out_off += n;
	return (ssize_t)n;
}

static void sse_free(void *cls)
{
	struct sse *e = cls;
	fp_sink_free(&e->c.out);
	free(e);
}

#define SSE_BLOCK 4096

enum MHD_Result api_live_events(struct server *srv, struct MHD_Connection *c)
{
	char err[ERR_MAX];
	int st = get_live(srv, c, err, sizeof err);
	if (st)
		return http_error(c, (unsigned)st, "%s", err);
	struct sse *e = fp_xcalloc(1, sizeof *e);
	e->live = srv->live;
	fp_sink_init_mem(&e->c.out);
	/* tell the client how long to wait before reconnecting */
	fp_sink_str(&e->c.out, "retry: 1000\n\n");
	struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, SSE_BLOCK,
								   sse_read, e, sse_free);
	if (!r) {
		sse_free(e);
		return MHD_NO;
	}
	http_common_headers(r, "text/event-stream");
	MHD_add_response_header(r, "X-Accel-Buffering", "no");
	enum MHD_Result ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

void api_shutdown(struct server *srv)
{
	struct live *l = srv->live;
	if (!l)
		return;
	/* ends SSE streams and selection waits */
	pthread_mutex_lock(&l->lock);
	l->ended = 1;
	l->version++;
	pthread_cond_broadcast(&l->changed);
	pthread_mutex_unlock(&l->lock);
}
