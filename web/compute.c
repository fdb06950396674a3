/* compute.c: heatmaps and folded tables of capture files, via the stages,
 * with a cache.
 *
 *   heatmap:     fp-read < FILE | fp-bucket --rows N --cells-only [--keep-idle] [EVENTS]
 *   filtered:    fp-read < FILE | fp-range --history 0 FILTERS |
 *                fp-bucket --rows N --cells-only [--keep-idle] EVENTS, its columns
 *                shifted onto the unfiltered heatmap's axis (see heatmap_get)
 *   flame graph: fp-read < FILE | fp-bucket [--keep-idle] EVENTS |
 *                fp-range --history 0 [--from S] [--to E] [filters] |
 *                fp-fold --plain --all --all-events|--event-root
 * (fp-bucket is in the flame graph chain for its G record, which gives
 * fp-range the heatmap's time axis, and so that idle samples are dropped
 * exactly as in the heatmap: cell counts and flame graph totals agree.)
 * EVENTS: one event set in every chain. fp-bucket chooses it: --event
 * LIST for an event filter, --all-events for allevents=1, else the
 * capture's first event (the unfiltered heatmap's, named explicitly in
 * the filtered chains, whose fp-bucket sees only the matching samples).
 * fp-fold folds every event it is given.
 *
 * Results are cached (cache.c), keyed by the file's identity and the
 * request parameters; chains run through cache.c's limiter.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fp_error.h"
#include "fp_rangectl.h"
#include "fp_record.h"
#include "escape.h"
#include "fp_recording.h"
#include "fp_sniff.h"
#include "http.h"
#include "pprof.h"
#include "serve.h"
#include "timeline.h"

#define KEY_MAX 8192

static void fail_from_pipeline(const struct pipeline_result *res, int *status, char *err,
			       size_t errsz)
{
	/* a stage exited 1: the capture is bad (422); 100: the stages refused
	 * a checked parameter at run time, e.g. a regex over its match limit
	 * (400); anything else is ours (500) */
	*status = res->over_budget   ? res->over_budget
		  : res->data_error  ? 422
		  : res->usage_error ? 400
				     : 500;
	/* first line of the stages' stderr says why */
	const char *nl = strchr(res->err, '\n');
	int len = nl ? (int)(nl - res->err) : (int)strlen(res->err);
	snprintf(err, errsz, "%.*s", len, res->err);
}

/* fp-bucket's argv: [--rows R] [--keep-idle] and the event set:
 * --all-events, --event sel->event, --event default_event, or nothing
 * (fp-bucket's default, the first event). With rows_s the chain ends in
 * fp-bucket (a heatmap): --cells-only, its samples are not passed on to be
 * read here only to be dropped. */
#define BUCKET_ARGV_MAX 8
static void bucket_argv_of(char **argv, const char *rows_s, const struct selection *sel,
			   const char *default_event)
{
	size_t n = 0;
	argv[n++] = "fp-bucket";
	if (rows_s) {
		argv[n++] = "--rows";
		argv[n++] = (char *)rows_s;
		argv[n++] = "--cells-only";
	}
	if (sel->keep_idle)
		argv[n++] = "--keep-idle";
	if (sel->all_events) {
		argv[n++] = "--all-events";
	} else if (sel->event || default_event) {
		argv[n++] = "--event";
		argv[n++] = (char *)(sel->event ? sel->event : default_event);
	}
	argv[n] = NULL;
}

/* The capture's first event (fp-bucket's default): the first named line of
 * h->events (fp-bucket lists the events in the order first seen), or NULL. */
static char *first_event_of(const struct heatmap *h)
{
	for (const char *p = h->events; p && *p;) {
		const char *eol = strchr(p, '\n');
		const char *t1 = strchr(p, '\t');
		if (!eol || !t1 || t1 + 2 >= eol)
			break;
		if (!(eol - (t1 + 3) == 1 && t1[3] == '-'))
			return fp_xstrndup(t1 + 3, (size_t)(eol - t1 - 3));
		p = eol + 1;
	}
	return NULL;
}

/* h->events (every event of the capture, with its samples) with the
 * counted flags of sel: its event list, every event, or the first. */
static char *events_counted_as(const struct heatmap *h, const struct selection *sel,
			       const char *first)
{
	char *out = h->events ? fp_xstrndup(h->events, h->events_len) : NULL;
	for (char *p = out; p && *p;) {
		char *eol = strchr(p, '\n');
		char *t1 = strchr(p, '\t');
		if (!eol || !t1 || t1 + 2 >= eol)
			break;
		const char *name = t1 + 3;
		size_t n = (size_t)(eol - name);
		int on = sel->all_events || (n == 1 && name[0] == '-') ||
			 (sel->event ? fp_event_in_list(sel->event, strlen(sel->event), name, n)
				     : first && strlen(first) == n && !memcmp(first, name, n));
		t1[1] = on ? '1' : '0';
		p = eol + 1;
	}
	return out;
}

/* fp-range's argv for a selection (time range only if with_range).
 * argv needs room for RANGE_ARGV_MAX entries. */
#define RANGE_ARGV_MAX 32
static void range_argv_of(const struct selection *sel, int with_range, char **argv)
{
	size_t n = 0;
	argv[n++] = "fp-range";
	argv[n++] = "--history"; /* one pass, no replays: keep nothing */
	argv[n++] = "0";
#define OPT(flag, val)                             \
	do {                                       \
		if (val) {                         \
			argv[n++] = flag;          \
			argv[n++] = (char *)(val); \
		}                                  \
	} while (0)
	if (with_range) {
		OPT("--from", sel->start);
		OPT("--to", sel->end);
	}
	OPT("--pid", sel->pid);
	OPT("--tid", sel->tid);
	OPT("--cpu", sel->cpu);
	OPT("--comm", sel->comm);
	OPT("--event", sel->event);
	OPT("--include", sel->include);
	OPT("--exclude", sel->exclude);
	OPT("--container", sel->container);
#undef OPT
	argv[n] = NULL;
}

static void key_add(char *key, size_t n, const char *name, const char *val)
{
	size_t used = strlen(key);
	if (val)
		snprintf(key + used, n - used, "%s=%zu:%s|", name, strlen(val), val);
}

static void key_add_axis(char *key, size_t n, const struct selection *sel)
{
	char axis[24];

	if (!sel->has_axis)
		return;
	snprintf(axis, sizeof axis, "%" PRIu64, sel->axis_base_sec);
	key_add(key, n, "axis", axis);
}

/* Appends the filters (not the range) to a cache key; 0, or -1 with a 414
 * in *status and err if the key is full. */
static int key_add_filters(char *key, size_t n, const struct selection *sel, int *status, char *err,
			   size_t errsz)
{
	key_add(key, n, "pid", sel->pid);
	key_add(key, n, "tid", sel->tid);
	key_add(key, n, "cpu", sel->cpu);
	key_add(key, n, "comm", sel->comm);
	key_add(key, n, "event", sel->event);
	key_add(key, n, "include", sel->include);
	key_add(key, n, "exclude", sel->exclude);
	key_add(key, n, "container", sel->container);
	key_add(key, n, "idle", sel->keep_idle ? "1" : "0");
	key_add(key, n, "allevents", sel->all_events ? "1" : "0");
	if (strlen(key) < n - 1)
		return 0;
	*status = 414;
	snprintf(err, errsz, "request parameters too long");
	return -1;
}

/* The input is read from its start again; 0, or -1 with a 500. */
static int rewind_input(int fd, int *status, char *err, size_t errsz)
{
	if (lseek(fd, 0, SEEK_SET) == 0)
		return 0;
	*status = 500;
	snprintf(err, errsz, "cannot rewind file: %s", strerror(errno));
	return -1;
}

/* A new cache entry for key (web/cache.c takes it with cache_insert). */
static struct cache_entry *new_entry(const char *key, enum entry_kind kind)
{
	struct cache_entry *e = fp_xcalloc(1, sizeof *e);

	e->key = fp_xstrdup(key);
	e->kind = kind;
	return e;
}

/* The cache key of a selection's samples of one file (KEY_MAX bytes):
 * what, the axis, the root, the range, the filters. 0, or -1 (414). */
static int selection_key(char *key, const struct stat *st, const char *what,
			 const struct selection *sel, int *status, char *err, size_t errsz)
{
	cache_file_key(key, KEY_MAX, st, what);
	key_add_axis(key, KEY_MAX, sel);
	key_add(key, KEY_MAX, "root",
		sel->root == SEL_ROOT_PID         ? "pid"
		: sel->root == SEL_ROOT_TID       ? "tid"
		: sel->root == SEL_ROOT_CONTAINER ? "container"
						  : NULL);
	key_add(key, KEY_MAX, "from", sel->start);
	key_add(key, KEY_MAX, "to", sel->end);
	return key_add_filters(key, KEY_MAX, sel, status, err, errsz);
}

/* A folded-text entry: text's buffer moves to the cache. */
static const struct folded_text *cache_text(const char *key, struct fp_sink *text, uint64_t total)
{
	struct cache_entry *e = new_entry(key, KIND_FOLDED);

	e->ft.buf = text->buf;
	e->ft.len = text->len;
	e->ft.total = total;
	e->bytes = text->cap + sizeof *e;
	e = cache_insert(e);
	return &e->ft;
}

/* "--damage-ok" for fp-read of a recording: a damaged batch is skipped and
 * counted (the page says so, from the I record), not a failed query;
 * NULL (the end of argv) for any other input. */
static char *damage_arg(int fd)
{
	return fp_rec_is_recording(fd) ? "--damage-ok" : NULL;
}

/* A range of a recording (recording/fp_recording.h) is read through its time
 * index: fp-read --time gets the range in absolute perf time (on the
 * axis of floor(earliest sample), which is fp-bucket's, or the caller's)
 * and reads only those seconds; fp-range then only filters. Returns 1
 * and the --time argument in buf, or 0: fp-range cuts the range. */
#define TIME_ARG_MAX 64
static int recording_range(const struct job *job, int fd, const struct selection *sel, char *buf,
			   size_t n, uint64_t *from_ns, uint64_t *to_ns)
{
	uint64_t base, from = 0, to = 0;
	char a[32] = "", b[32] = "";

	if ((!sel->start && !sel->end) || (!job->indexed && !fp_rec_is_recording(fd)))
		return 0;
	if (sel->has_axis) {
		base = sel->axis_base_sec;
	} else if (job->indexed) {
		base = job->index_base_sec; /* scanned once, when it was built */
	} else {
		struct fp_rec_index ix = { 0 };

		if (fp_rec_scan(fd, &ix) < 0) {
			fp_rec_index_free(&ix);
			return 0;
		}
		base = fp_rec_base_sec(&ix);
		fp_rec_index_free(&ix);
	}
	if ((sel->start && fp_parse_seconds_ns(sel->start, strlen(sel->start), &from) < 0) ||
	    (sel->end && fp_parse_seconds_ns(sel->end, strlen(sel->end), &to) < 0))
		return 0;
	const uint64_t ns = FP_NSEC_PER_SEC;

	base *= ns;
	if (from_ns)
		*from_ns = sel->start ? base + from : 0;
	if (to_ns)
		*to_ns = sel->end ? base + to : UINT64_MAX;
	if (sel->start)
		snprintf(a, sizeof a, "%" PRIu64 ".%09" PRIu64, (base + from) / ns,
			 (base + from) % ns);
	if (sel->end)
		snprintf(b, sizeof b, "%" PRIu64 ".%09" PRIu64, (base + to) / ns, (base + to) % ns);
	snprintf(buf, n, "%s,%s", a, b);
	return 1;
}

/* The chain of a folded table or profile: fp-read [--time] | fp-bucket
 * [--keep-idle] | fp-range FILTERS [--from --to] | fold_argv. The arrays
 * are the caller's (they live as long as argv). */
struct sel_chain {
	char time_arg[TIME_ARG_MAX];
	char *read_argv[6];
	char *bucket_argv[BUCKET_ARGV_MAX];
	char *range_argv[RANGE_ARGV_MAX];
	char *const *argv[4];
};

/* 1 if the chain has no fp-range: the range was read through the index
 * and there is no filter (fp-range would only pass everything on). */
static int sel_chain_init(struct sel_chain *c, const struct job *job, int fd,
			  const struct selection *sel, char **fold_argv)
{
	int by_index = recording_range(job, fd, sel, c->time_arg, sizeof c->time_arg, NULL, NULL);
	int no_range = by_index && !selection_has_filters(sel);

	size_t n = 0;

	c->read_argv[n++] = (char *)fp_sniff_reader(fp_sniff_fd(fd));
	c->read_argv[n++] = "-q";
	if (by_index) {
		c->read_argv[n++] = "--time";
		c->read_argv[n++] = c->time_arg;
	}
	c->read_argv[n++] = damage_arg(fd);
	c->read_argv[n] = NULL;
	/* a range read of an index starts mid-capture: fp-bucket's default
	 * would be the range's first event, not the capture's */
	bucket_argv_of(c->bucket_argv, NULL, sel, by_index ? job->index_first_event : NULL);
	range_argv_of(sel, !by_index, c->range_argv);
	c->argv[0] = c->read_argv;
	c->argv[1] = c->bucket_argv;
	c->argv[2] = no_range ? fold_argv : c->range_argv;
	c->argv[3] = no_range ? NULL : fold_argv;
	return no_range;
}

/* Runs the chain of sel over fd, from its start, ending in fold_argv (NULL:
 * after fp-range) into on_line. 0, or -1 with *status and err. */
static int sel_chain_run(const struct job *job, int fd, const struct selection *sel,
			 char **fold_argv, void (*on_line)(void *ctx, char *line, size_t len),
			 void *ctx, int *status, char *err, size_t errsz)
{
	struct sel_chain chain;
	struct pipeline_result res;

	int no_range = sel_chain_init(&chain, job, fd, sel, fold_argv);
	size_t nstages = (fold_argv ? 4 : 3) - (size_t)no_range;
	if (rewind_input(fd, status, err, errsz) < 0)
		return -1;
	chain_run(job, chain.argv, nstages, fd, on_line, ctx, &res);
	if (res.ok)
		return 0;
	fail_from_pipeline(&res, status, err, errsz);
	return -1;
}

void selection_chain_run(const struct job *job, int fd, const struct selection *sel,
			 void (*on_line)(void *ctx, char *line, size_t len), void *ctx, int *status,
			 char *err, size_t errsz)
{
	*status = 0;
	sel_chain_run(job, fd, sel, NULL, on_line, ctx, status, err, errsz);
}

int selection_has_filters(const struct selection *sel)
{
	return sel->pid || sel->tid || sel->cpu || sel->comm || sel->event || sel->include ||
	       sel->exclude || sel->container;
}

/* ---- heatmap ---------------------------------------------------------------- */

static void hm_set(struct heatmap_builder *b, uint64_t col, uint64_t row, uint64_t count)
{
	if (!b->geometry || row >= b->h.hm.rows)
		return; /* no G record yet, or not one of its rows */
	if (col > FP_HEATMAP_MAX_COL) {
		b->too_big = 1;
		return;
	}
	fp_heatmap_set(&b->h.hm, col, row, count);
	if (b->on_change)
		b->on_change(b->ctx, (uint32_t)col);
}

/* Appends an "I bucket-event samples=N counted=0|1 event=NAME" record to
 * h->events. */
static void add_event(struct heatmap *h, const struct fp_info *info)
{
	uint64_t samples, counted;
	struct fp_str name;
	if (fp_info_get(info, "samples", &samples) < 0 ||
	    fp_info_get(info, "counted", &counted) < 0 ||
	    fp_info_get_text(info, "event", &name) < 0)
		return;
	char num[24];
	int k = snprintf(num, sizeof num, "%" PRIu64 "\t", samples);
	size_t add = (size_t)k + 2 + name.n + 1;
	h->events = fp_xrealloc(h->events, h->events_len + add + 1);
	char *p = h->events + h->events_len;
	memcpy(p, num, (size_t)k);
	p[k] = counted ? '1' : '0';
	p[k + 1] = '\t';
	memcpy(p + k + 2, name.p, name.n);
	p[k + 2 + name.n] = '\n';
	h->events_len += add;
	h->events[h->events_len] = '\0';
}

static void hm_line(void *ctx, char *line, size_t len)
{
	heatmap_builder_line(ctx, line, len);
}

static void hm_geometry(struct heatmap_builder *b, const char *line, size_t len)
{
	/* live: rows come from fp-bucket */
	if (fp_heatmap_geometry(&b->h.hm, line, len) < 0)
		return;
	b->geometry = 1;
	if (b->on_geometry)
		b->on_geometry(b->ctx);
}

static void hm_info(struct heatmap_builder *b, const char *line, size_t len)
{
	struct fp_info info;

	if (fp_info_parse(line, len, &info) < 0)
		return;
	if (fp_str_eq(info.stage, "read")) {
		uint64_t rec = 0;

		fp_info_get(&info, "samples", &b->h.samples);
		if (fp_info_get(&info, "recording", &rec) == 0 && rec) {
			b->h.recording = 1;
			fp_info_get(&info, "retention_dropped", &b->h.retention_dropped);
			fp_info_get(&info, "kept_from_ns", &b->h.kept_from_ns);
			fp_info_get(&info, "capture_from_ns", &b->h.capture_from_ns);
			fp_info_get(&info, "damaged_batches", &b->h.damaged_batches);
			fp_info_get(&info, "damaged_samples", &b->h.damaged_samples);
			fp_info_get(&info, "damaged_regions", &b->h.damaged_regions);
			/* fp-read's one W record for them is no bad input line:
			 * the page says it as the damage */
			if ((b->h.damaged_batches || b->h.damaged_regions) && b->h.warnings)
				b->h.warnings--;
		}
	} else if (fp_str_eq(info.stage, "bucket"))
		fp_info_get(&info, "idle", &b->h.idle);
	else if (fp_str_eq(info.stage, "bucket-event"))
		add_event(&b->h, &info);
}

void heatmap_builder_line(struct heatmap_builder *b, const char *line, size_t len)
{
	struct fp_cell c;

	switch (fp_record_tag(line, &len)) {
	case FP_REC_GEOMETRY:
		hm_geometry(b, line, len);
		break;
	case FP_REC_CELL:
		if (fp_cell_parse(line, len, &c) == 0)
			hm_set(b, c.col, c.row, c.count);
		break;
	case FP_REC_INFO:
		hm_info(b, line, len);
		break;
	case FP_REC_WARNING:
		b->h.warnings++;
		break;
	default:
		break;
	}
}

/* Runs a chain that ends in fp-bucket over the whole file into b. Returns
 * 0, or -1 with *status and err set (b's cells freed). */
static int run_heatmap_chain(const struct job *job, char *const *const *argv, size_t nstages,
			     int fd, struct heatmap_builder *b, int *status, char *err,
			     size_t errsz)
{
	struct pipeline_result res;
	if (rewind_input(fd, status, err, errsz) < 0)
		return -1;
	chain_run(job, argv, nstages, fd, hm_line, b, &res);
	if (!res.ok || b->too_big) {
		fp_heatmap_free(&b->h.hm);
		/* the event list add_event built before the chain failed */
		free(b->h.events);
		b->h.events = NULL;
		b->h.events_len = 0;
		if (b->too_big) {
			*status = 422;
			snprintf(err, errsz, "heatmap column past %" PRIu64 " s",
				 (uint64_t)FP_HEATMAP_MAX_COL);
		} else {
			fail_from_pipeline(&res, status, err, errsz);
		}
		return -1;
	}
	return 0;
}

static const struct heatmap *heatmap_filtered(const struct job *job, int fd, const struct stat *st,
					      unsigned rows, const struct selection *sel,
					      int *status, char *err, size_t errsz);

/* A heatmap read from a capture's index (index.c) says what the capture's
 * reader said: its samples and warnings; the index is no live recording. */
static void index_counts(const struct job *job, struct heatmap *h)
{
	if (!job->indexed)
		return;
	h->recording = 0;
	h->retention_dropped = h->kept_from_ns = h->capture_from_ns = 0;
	h->samples = job->index_samples;
	h->warnings += job->index_warnings;
}

const struct heatmap *heatmap_get(const struct job *job, int fd, const struct stat *st,
				  unsigned rows, const struct selection *sel, int *status,
				  char *err, size_t errsz)
{
	int keep_idle = sel->keep_idle;
	if (selection_has_filters(sel))
		return heatmap_filtered(job, fd, st, rows, sel, status, err, errsz);
	char key[KEY_MAX];
	int m = cache_file_key(key, sizeof key, st, "heatmap");
	snprintf(key + m, sizeof key - (size_t)m, "%u|%d|%d", rows, keep_idle, sel->all_events);
	struct cache_entry *e = cache_lookup(key);
	if (e)
		return &e->hm;

	char rows_s[16];
	snprintf(rows_s, sizeof rows_s, "%u", rows);
	char *read_argv[] = {
		(char *)fp_sniff_reader(fp_sniff_fd(fd)), "-q", NULL, NULL, NULL, NULL
	};
	size_t ra = 2;
	if (read_argv[0] && strcmp(read_argv[0], FP_PERFDATA_READER) == 0) {
		read_argv[ra++] = "--off-cpu-rows"; /* off-CPU time split at these rows */
		read_argv[ra++] = rows_s;
	}
	read_argv[ra] = damage_arg(fd);
	char *bucket_argv[BUCKET_ARGV_MAX];
	bucket_argv_of(bucket_argv, rows_s, sel, NULL);
	char *const *argv[] = { read_argv, bucket_argv };
	struct heatmap_builder b = { .h = { .all_events = sel->all_events } };
	fp_heatmap_reset(&b.h.hm, rows, 0); /* the rows listed if no G comes */
	if (run_heatmap_chain(job, argv, 2, fd, &b, status, err, errsz) < 0)
		return NULL;
	index_counts(job, &b.h);
	b.h.counted = fp_heatmap_total(&b.h.hm);
	e = new_entry(key, KIND_HEATMAP);
	e->hm = b.h;
	e->bytes = fp_heatmap_bytes(&b.h.hm) + sizeof *e;
	e = cache_insert(e);
	return &e->hm;
}

#define ENTRY_OF(ptr, member) \
	((struct cache_entry *)((char *)(ptr)-offsetof(struct cache_entry, member)))

void heatmap_put(const struct heatmap *h)
{
	if (h)
		cache_release(ENTRY_OF(h, hm));
}

/* The heatmap of the samples that pass the filters, on the unfiltered
 * heatmap's axis (same start_sec, same columns, whole or cut), so that a
 * page can draw it in place of the unfiltered one. fp-range runs before
 * fp-bucket so the counting (idle rule, rows arithmetic, column limit) is
 * fp-bucket's own: the cells are exactly `fp-read | fp-range FILTERS |
 * fp-bucket`'s, moved onto the unfiltered heatmap's columns by
 * fp_heatmap_onto (render/heatmap.h): that fp-bucket's column 0 is the
 * first *matching* sample's second. */
static const struct heatmap *heatmap_filtered(const struct job *job, int fd, const struct stat *st,
					      unsigned rows, const struct selection *sel,
					      int *status, char *err, size_t errsz)
{
	char key[KEY_MAX];
	int m = cache_file_key(key, sizeof key, st, "heatmapf");
	snprintf(key + m, sizeof key - (size_t)m, "%u|", rows);
	if (key_add_filters(key, sizeof key, sel, status, err, errsz) < 0)
		return NULL;
	struct cache_entry *e = cache_lookup(key);
	if (e)
		return &e->hm;

	/* the axis: the unfiltered heatmap (cached, usually already asked for) */
	/* every event's samples: a filter may pick another event than the
	 * first, whose seconds the first event's heatmap may not reach */
	struct selection plain = { .keep_idle = sel->keep_idle, .all_events = 1 };
	const struct heatmap *all = heatmap_get(job, fd, st, rows, &plain, status, err, errsz);
	if (!all)
		return NULL;

	char rows_s[16];
	snprintf(rows_s, sizeof rows_s, "%u", rows);
	char *read_argv[] = { (char *)fp_sniff_reader(fp_sniff_fd(fd)), "-q", damage_arg(fd),
			      NULL };
	char *range_argv[RANGE_ARGV_MAX];
	range_argv_of(sel, 0, range_argv);
	char *first = sel->event || sel->all_events ? NULL : first_event_of(all);
	char *bucket_argv[BUCKET_ARGV_MAX];
	bucket_argv_of(bucket_argv, rows_s, sel, first);
	char *const *argv[] = { read_argv, range_argv, bucket_argv };
	struct heatmap_builder b = { .geometry = 0 };
	fp_heatmap_reset(&b.h.hm, rows, 0);
	int rc = run_heatmap_chain(job, argv, 3, fd, &b, status, err, errsz);
	char *events = rc < 0 ? NULL : events_counted_as(all, sel, first);
	free(first);
	free(b.h.events); /* the whole capture's list is the unfiltered one */
	if (rc < 0) {
		heatmap_put(all);
		return NULL;
	}
	index_counts(job, &b.h);
	struct heatmap h = {
		.samples = b.h.samples,
		.idle = b.h.idle,
		.warnings = b.h.warnings,
		.recording = b.h.recording,
		.retention_dropped = b.h.retention_dropped,
		.kept_from_ns = b.h.kept_from_ns,
		.capture_from_ns = b.h.capture_from_ns,
		.damaged_batches = b.h.damaged_batches,
		.damaged_samples = b.h.damaged_samples,
		.damaged_regions = b.h.damaged_regions,
		.filtered = 1,
		.all_events = sel->all_events,
		.events = events,
		.events_len = all->events_len,
	};
	rc = fp_heatmap_onto(&h.hm, &b.h.hm, &all->hm);
	fp_heatmap_free(&b.h.hm);
	heatmap_put(all);
	if (rc < 0) {
		/* only if the file changed between the two runs */
		heatmap_free(&h);
		*status = 500;
		snprintf(err, errsz, "the capture changed while it was read: try again");
		return NULL;
	}
	h.counted = fp_heatmap_total(&h.hm);
	e = new_entry(key, KIND_HEATMAP);
	e->hm = h;
	e->bytes = fp_heatmap_bytes(&h.hm) + sizeof *e;
	e = cache_insert(e);
	return &e->hm;
}

/* ---- folded tables ------------------------------------------------------------ */

struct fold_build {
	struct fp_sink *text;
	uint64_t total;
};

static void fold_line(void *ctx, char *line, size_t len)
{
	struct fold_build *b = ctx;
	const char *sp = len ? memrchr(line, ' ', len) : NULL;
	uint64_t v;
	if (!sp || fp_parse_u64(sp + 1, len - (size_t)(sp + 1 - line), &v) < 0)
		return;
	b->total += v;
	fp_sink_write(b->text, line, len);
	fp_sink_char(b->text, '\n');
}

/* Builds the text of a selection into out (its total in *total): 0, or
 * -1 with *status and err (out freed). */
typedef int text_builder(const struct job *job, int fd, const struct selection *sel,
			 struct fp_sink *out, uint64_t *total, int *status, char *err,
			 size_t errsz);

/* The cached text result `what` of sel, built by build on a miss. */
static const struct folded_text *text_get(const struct job *job, int fd, const struct stat *st,
					  const struct selection *sel, const char *what,
					  text_builder *build, int *status, char *err, size_t errsz)
{
	char key[KEY_MAX];
	struct fp_sink out;
	uint64_t total = 0;

	if (selection_key(key, st, what, sel, status, err, errsz) < 0)
		return NULL;
	struct cache_entry *e = cache_lookup(key);
	if (e)
		return &e->ft;
	fp_sink_init_mem(&out);
	if (build(job, fd, sel, &out, &total, status, err, errsz) < 0)
		return NULL;
	return cache_text(key, &out, total);
}

static int build_folded(const struct job *job, int fd, const struct selection *sel,
			struct fp_sink *out, uint64_t *total, int *status, char *err, size_t errsz)
{
	/* a range of an index without filters: folded here (rangefold.c) */
	char targ[TIME_ARG_MAX];
	uint64_t from_ns, to_ns;
	if (job->indexed && recording_range(job, fd, sel, targ, sizeof targ, &from_ns, &to_ns)) {
		int rc = rangefold(job, fd, sel, from_ns, to_ns, out, total, err, errsz);
		if (rc > 0)
			return 0;
		if (rc < 0) {
			fp_sink_free(out);
			*status = 422;
			return -1;
		}
	}
	char *fold_argv[] = { "fp-fold",
			      "--plain",
			      "--all",
			      SEL_EVENT_ROOT(sel) ? "--event-root" : "--all-events",
			      sel->root == SEL_ROOT_PID         ? "--pid"
			      : sel->root == SEL_ROOT_TID       ? "--tid"
			      : sel->root == SEL_ROOT_CONTAINER ? "--container-root"
								: NULL,
			      NULL };
	struct fold_build b = { .text = out, .total = 0 };
	int rc = sel_chain_run(job, fd, sel, fold_argv, fold_line, &b, status, err, errsz);

	*total = b.total;
	if (rc < 0)
		fp_sink_free(out);
	return rc;
}

const struct folded_text *folded_get(const struct job *job, int fd, const struct stat *st,
				     const struct selection *sel, int *status, char *err,
				     size_t errsz)
{
	return text_get(job, fd, st, sel, "folded", build_folded, status, err, errsz);
}

/* ---- answers made once for every viewer ------------------------------------------ */

struct http_shared *answer_shared(const struct job *job, const struct stat *st,
				  const struct selection *sel, const char *what, answer_fill *fill,
				  void *ctx, struct answer_how *how, int *status, char *err,
				  size_t errsz)
{
	char key[KEY_MAX];
	int claimed;
	struct http_shared *b;

	*how = (struct answer_how){ 0 };
	if (selection_key(key, st, what, sel, status, err, errsz) < 0)
		return NULL;
	struct cache_entry *e = cache_lookup_claim(key, job, &claimed);
	if (e) {
		b = http_shared_ref(e->answer);
		cache_release(e);
		return b;
	}
	long long t0 = budget_now_ms();
	struct fp_sink s;
	fp_sink_init_mem(&s);
	if ((*status = fill(ctx, &s)) != 0) {
		fp_sink_free(&s);
		if (claimed)
			cache_unclaim(key);
		return NULL;
	}
	e = new_entry(key, KIND_ANSWER);
	e->answer = http_shared_new_packed(&s);
	e->bytes = http_shared_bytes(e->answer) + sizeof *e;
	e = cache_insert(e); /* wakes the requests waiting for it */
	b = http_shared_ref(e->answer);
	cache_release(e);
	*how = (struct answer_how){ .made = 1, .ms = (uint64_t)(budget_now_ms() - t0) };
	return b;
}

/* ---- pprof ---------------------------------------------------------------------- */

struct pprof_build {
	struct fp_pprof p;
	struct fp_timeline stacks; /* the D records; no sample is kept */
	uint64_t bad;
};

static void pprof_line(void *ctx, char *line, size_t len)
{
	struct pprof_build *b = ctx;
	struct fp_stack_def d;
	struct fp_ref r;
	struct fp_sample s;

	switch (fp_record_tag(line, &len)) {
	case FP_REC_STACK:
		if (fp_stack_def_parse(line, len, &d) < 0 || fp_timeline_define(&b->stacks, &d) < 0)
			b->bad++;
		break;
	case FP_REC_REF:
		if (fp_ref_parse(line, len, &r) < 0 ||
		    fp_timeline_ref_sample(&b->stacks, &r, &s) < 0 || fp_pprof_add(&b->p, &s) < 0)
			b->bad++;
		break;
	default:
		break;
	}
}

/* The same chain as folded_get's, but fp-fold passes the samples it
 * counted (--pass-samples: D and R records) and they become a pprof
 * profile (render/pprof.h): its stacks and counts are that folded table's. */
static int build_pprof(const struct job *job, int fd, const struct selection *sel,
		       struct fp_sink *out, uint64_t *total, int *status, char *err, size_t errsz)
{
	char *fold_argv[] = { "fp-fold", "--pass-samples", "--all-events", NULL };
	struct pprof_build b = { .bad = 0 };

	fp_pprof_init(&b.p);
	fp_timeline_init(&b.stacks, 0);
	int rc = sel_chain_run(job, fd, sel, fold_argv, pprof_line, &b, status, err, errsz);
	fp_timeline_free(&b.stacks);
	if (rc < 0)
		fp_sink_free(out);
	else
		fp_pprof_write(&b.p, out);
	*total = b.p.n_samples;
	fp_pprof_free(&b.p);
	return rc;
}

const struct folded_text *pprof_get(const struct job *job, int fd, const struct stat *st,
				    const struct selection *sel, int *status, char *err,
				    size_t errsz)
{
	return text_get(job, fd, st, sel, "pprof", build_pprof, status, err, errsz);
}

void folded_put(const struct folded_text *f)
{
	if (f)
		cache_release(ENTRY_OF(f, ft));
}
