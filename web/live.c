/* live.c: the live capture fp-serve reads on stdin (`fp-serve --live NAME`).
 *
 * The main thread feeds every protocol line to live_line(): G/H records
 * update the heatmap cells (the newest absolute count of each cell), F
 * records between `C begin fold` and `C end fold` build the next fold
 * snapshot of the whole capture, which replaces the current one when
 * complete, and those between `C begin fold-delta` and `C end fold-delta`
 * (fp-fold --delta-snapshots, negotiated by the runner) update the counts
 * they name (fold/fp_foldsnap.h keeps the table; its folded text is made
 * only when a client asks for it); `I read` records carry the live
 * reader's counts. Connection
 * threads read this state under l->lock and wait on l->changed (SSE
 * streams).
 *
 * Range and filter queries never touch the running chain: api.c answers
 * them per request from the chain's recording (--recording FILE, written
 * by fp-record), on this heatmap's time axis (live_base_sec), so every
 * viewer has a selection of their own and the final report stays the
 * whole capture.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "fp_clock.h"
#include "fp_error.h"
#include "fp_record.h"
#include "fp_recording.h"
#include "live.h"

static void on_change(void *ctx, uint32_t col)
{
	struct live *l = ctx;
	l->cells_dirty = 1;
	if (col >= FP_HEATMAP_AXIS_COLS)
		return; /* past a whole axis: page reloads see it (/heatmap/) */
	if (col >= l->ncolver) {
		uint32_t cap = l->ncolver ? l->ncolver : 64;
		while (cap <= col)
			cap *= 2;
		l->colver = fp_xrealloc(l->colver, cap * sizeof *l->colver);
		memset(l->colver + l->ncolver, 0, (cap - l->ncolver) * sizeof *l->colver);
		l->ncolver = cap;
	}
	l->colver[col] = l->version + 1; /* stamped with the next version */
	l->cells_dirty = 1;
}

static void on_geometry(void *ctx)
{
	struct live *l = ctx;
	l->geometry_version = l->version + 1;
	if (l->colver)
		memset(l->colver, 0, l->ncolver * sizeof *l->colver);
	l->cells_dirty = 1;
}

struct live *live_create(const char *name, const char *recording)
{
	struct live *l = fp_xcalloc(1, sizeof *l);
	pthread_mutex_init(&l->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&l->changed, &ca);
	pthread_condattr_destroy(&ca);
	l->name = fp_xstrdup(name);
	l->recording = recording ? fp_xstrdup(recording) : NULL;
	fp_heatmap_reset(&l->hb.h.hm, SERVE_ROWS_DEFAULT, 0); /* until the G record */
	l->hb.on_change = on_change;
	l->hb.on_geometry = on_geometry;
	l->hb.ctx = l;
	fp_foldsnap_init(&l->snap);
	fp_sink_init_mem(&l->snapshot);
	pthread_mutex_init(&l->flame_lock, NULL);
	return l;
}

int live_name_is(const struct live *l, const char *name, size_t n)
{
	return l && strlen(l->name) == n && memcmp(l->name, name, n) == 0;
}

const char *live_name(const struct live *l)
{
	return l->name;
}

/* key=value in an I record: 1 and *out if present and numeric */
static int info_field(const struct fp_info *i, const char *key, uint64_t *out)
{
	return fp_info_get(i, key, out) == 0;
}

static void bump(struct live *l)
{
	l->version++;
	pthread_cond_broadcast(&l->changed);
}

/* F inside a snapshot (full or delta); outside one it is ignored. */
static void on_folded(struct live *l, const char *line, size_t len)
{
	struct fp_folded_rec f;

	if (!fp_foldsnap_busy(&l->snap) || fp_folded_parse(line, len, &f) < 0)
		return;
	fp_foldsnap_folded(&l->snap, &f);
}

/* C end fold / fold-delta: the finished snapshot becomes current (its
 * text is made when a client asks: live_copy_snapshot). */
static void end_snapshot(struct live *l)
{
	l->snapshot_stale = 1;
	l->snapshot_total = l->snap.cur.total;
	l->snapshot_seq++;
	bump(l);
}

static void on_control(struct live *l, const char *line, size_t len)
{
	struct fp_control c;

	if (fp_control_parse(line, len, &c) < 0)
		return;
	switch (c.kind) {
	case FP_CTL_BEGIN:
	case FP_CTL_END: {
		enum fp_fsnap_result r = fp_foldsnap_control(&l->snap, &c);

		if (r == FP_FSNAP_DONE || r == FP_FSNAP_MISMATCH)
			end_snapshot(l);
		break;
	}
	case FP_CTL_EVENTS:
		if (!l->event_names)
			l->event_names = fp_xstrndup(c.rest.p, c.rest.n);
		break;
	default:
		break;
	}
}

static void on_info(struct live *l, const char *line, size_t len)
{
	struct fp_info info;
	uint64_t v;

	if (fp_info_parse(line, len, &info) < 0)
		return;
	if (fp_str_eq(info.stage, "read")) {
		/* samples= (read so far), dropped= (fp-read --live: samples
		 * dropped so as not to block perf) or dropped_samples= */
		if (info_field(&info, "samples", &v))
			l->samples_read = v;
		if (info_field(&info, "dropped", &v) || info_field(&info, "dropped_samples", &v))
			l->dropped = v;
		if (info_field(&info, "lost_events", &v))
			l->lost = v; /* perf's own PERF_RECORD_LOST */
		l->stats_version = l->version + 1;
		l->cells_dirty = 1;
	} else if (fp_str_eq(info.stage, "bucket") && info_field(&info, "idle", &v)) {
		l->idle = v;
	}
}

void live_line(struct live *l, const char *line, size_t len)
{
	enum fp_rec tag = fp_record_tag(line, &len);

	if (tag == FP_REC_EMPTY)
		return;
	pthread_mutex_lock(&l->lock);
	switch (tag) {
	case FP_REC_GEOMETRY:
	case FP_REC_CELL:
		heatmap_builder_line(&l->hb, line, len);
		break;
	case FP_REC_FOLDED:
		on_folded(l, line, len);
		break;
	case FP_REC_CONTROL:
		on_control(l, line, len);
		break;
	case FP_REC_WARNING:
		l->warnings++;
		l->stats_version = l->version + 1;
		l->cells_dirty = 1; /* published at the next idle */
		break;
	case FP_REC_INFO:
		on_info(l, line, len);
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&l->lock);
}

/* Called when the input is idle: publish cell changes in one go. */
void live_idle(struct live *l)
{
	pthread_mutex_lock(&l->lock);
	if (l->cells_dirty) {
		l->cells_dirty = 0;
		bump(l);
	}
	pthread_mutex_unlock(&l->lock);
}

void live_eof(struct live *l)
{
	pthread_mutex_lock(&l->lock);
	l->ended = 1;
	l->cells_dirty = 0;
	bump(l);
	pthread_mutex_unlock(&l->lock);
}

int live_base_sec(struct live *l, uint64_t *base)
{
	pthread_mutex_lock(&l->lock);
	int has = l->hb.h.hm.ncols > 0;
	*base = (uint64_t)l->hb.h.hm.base_sec;
	pthread_mutex_unlock(&l->lock);
	return has;
}

int live_ended(struct live *l)
{
	pthread_mutex_lock(&l->lock);
	int e = l->ended;
	pthread_mutex_unlock(&l->lock);
	return e;
}

/* l->snapshot: the table as plain folded lines (`stack count`), in id
 * order. Called with the lock held. */
static void snapshot_text(struct live *l)
{
	const struct fp_strtab *t = &l->snap.cur;

	if (!l->snapshot_stale)
		return;
	l->snapshot.len = 0;
	for (uint32_t id = 0; id < fp_strtab_count(t); id++) {
		size_t n;
		const char *stack = fp_strtab_str(t, id, &n);

		if (!t->ent[id].count)
			continue;
		fp_sink_write(&l->snapshot, stack, n);
		fp_sink_char(&l->snapshot, ' ');
		fp_sink_u64(&l->snapshot, t->ent[id].count);
		fp_sink_char(&l->snapshot, '\n');
	}
	l->snapshot_stale = 0;
}

/* A copy (malloc) of the snapshot's text. Called with the lock held. */
static char *snapshot_copy(struct live *l, size_t *len)
{
	snapshot_text(l);
	char *buf = fp_xmalloc(l->snapshot.len + 1);
	if (l->snapshot.len)
		memcpy(buf, l->snapshot.buf, l->snapshot.len);
	*len = l->snapshot.len;
	return buf;
}

char *live_copy_snapshot(struct live *l, size_t *len, uint64_t *total)
{
	pthread_mutex_lock(&l->lock);
	char *buf = snapshot_copy(l, len);
	*total = l->snapshot_total;
	pthread_mutex_unlock(&l->lock);
	return buf;
}

static void state_json(struct fp_sink *s, uint64_t seq, uint64_t total, int ended)
{
	fp_sink_printf(s, "{\"seq\":%" PRIu64 ",\"total\":%" PRIu64 ",\"ended\":%s", seq, total,
		       ended ? "true" : "false");
}

void live_state_json(struct fp_sink *s, struct live *l)
{
	pthread_mutex_lock(&l->lock);
	state_json(s, l->snapshot_seq, l->snapshot_total, l->ended);
	pthread_mutex_unlock(&l->lock);
}

/* Every viewer's page asks for the whole tree at each snapshot (ui/live.js,
 * at most once a second): made per request, a capture of 85,857 stacks
 * cost fp-serve 0.4 s of CPU (0.6 s gzipped) a viewer a second. It is made
 * once per snapshot now, for every viewer: those that ask while it is
 * being made wait for it (flame_lock) and take the same answer. And at
 * most 1/FLAME_CPU_SHARE of a core: after a tree that took B CPU seconds
 * to make and gzip, the next one is made no sooner than
 * (FLAME_CPU_SHARE - 1) B later; until then viewers get the last one,
 * whose seq and total say which snapshot it is (the end is shown at
 * once). */
#define FLAME_CPU_SHARE 4

struct http_shared *live_flame_body(struct live *l)
{
	pthread_mutex_lock(&l->flame_lock);
	pthread_mutex_lock(&l->lock);
	uint64_t seq = l->snapshot_seq, total = l->snapshot_total;
	int ended = l->ended;
	/* its cost: the tree's making and, once a client took it, its gzip's */
	uint64_t next = l->flame_built_ms +
			(FLAME_CPU_SHARE - 1) *
				(l->flame_cost_ms + (l->flame ? http_shared_gzip_ms(l->flame) : 0));
	int fresh = l->flame && l->flame_ended == ended &&
		    (l->flame_seq == seq || (!ended && fp_clock_ms(CLOCK_MONOTONIC) < next));
	char *text = NULL;
	size_t len = 0;
	if (!fresh) /* the snapshot's text and its state, in one look */
		text = snapshot_copy(l, &len);
	pthread_mutex_unlock(&l->lock);
	if (!fresh) {
		struct fp_sink s;
		uint64_t cpu0 = fp_clock_ms(CLOCK_THREAD_CPUTIME_ID);

		fp_sink_init_mem(&s);
		state_json(&s, seq, total, ended);
		fp_sink_str(&s, ",\"tree\":");
		tree_json(&s, text, len, TREE_ROOTS(0));
		fp_sink_str(&s, "}\n");
		free(text);
		http_shared_unref(l->flame);
		l->flame = http_shared_new(&s);
		l->flame_seq = seq;
		l->flame_ended = ended;
		l->flame_built_ms = fp_clock_ms(CLOCK_MONOTONIC);
		l->flame_cost_ms = fp_clock_ms(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	}
	struct http_shared *b = http_shared_ref(l->flame);
	pthread_mutex_unlock(&l->flame_lock);
	return b;
}

/* The newest sample time in the recording open on fd (its members'
 * max_ns), 0 if none. */
static uint64_t recorded_to_ns(int fd)
{
	struct fp_rec_index ix = { 0 };
	uint64_t to = 0;

	if (fp_rec_scan(fd, &ix) == 0)
		for (size_t i = 0; i < ix.n; i++)
			if (ix.m[i].max_ns > to)
				to = ix.m[i].max_ns;
	fp_rec_index_free(&ix);
	return to;
}

/* fp-record sits before fp-bucket in the chain and writes a batch at most
 * --flush-interval after its first sample, so a sample the heatmap has
 * counted is soon in the file; until then a range query of the newest
 * seconds would count fewer samples than the cells it was chosen from.
 * The recording holds everything before time T once it holds a sample at
 * T or later (fp-record writes in arrival order). T is the range's end,
 * or, for a range reaching into the newest column, that column's start:
 * its samples are still arriving. */
int live_wait_recorded(struct live *l, int fd, const char *end, unsigned max_ms)
{
	struct timespec t0, now;
	uint64_t need;

	pthread_mutex_lock(&l->lock);
	int has = l->hb.h.hm.ncols > 0;
	uint64_t base = (uint64_t)l->hb.h.hm.base_sec;
	uint64_t newest = has ? (uint64_t)l->hb.h.hm.ncols - 1 : 0;
	pthread_mutex_unlock(&l->lock);
	if (!has || fd < 0)
		return 0;
	need = newest * FP_NSEC_PER_SEC;
	if (end) {
		double e = strtod(end, NULL);

		if (e <= 0)
			return 0;
		if (e < (double)newest)
			need = (uint64_t)(e * 1e9);
	}
	need += base * FP_NSEC_PER_SEC;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (recorded_to_ns(fd) >= need)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 >=
		    (long)max_ms)
			return -1;
		nanosleep(&(struct timespec){ 0, 20 * 1000000 }, NULL);
	}
}

/* What retention dropped from the recording so far (its index). */
static void recording_state(const struct live *l, struct heatmap *h)
{
	struct fp_rec_index ix = { 0 };
	int fd = l->recording ? open(l->recording, O_RDONLY | O_CLOEXEC) : -1;

	if (fd < 0)
		return;
	if (fp_rec_scan(fd, &ix) == 0) {
		h->recording = 1;
		h->damaged_batches = ix.skips.members;
		h->damaged_samples = ix.skips.samples;
		h->damaged_regions = ix.skips.regions;
		if (ix.n) {
			h->retention_dropped = ix.m[0].samples_before;
			h->capture_from_ns = ix.m[0].capture_min_ns;
			h->kept_from_ns = ix.m[0].min_ns;
			for (size_t i = 0; i < ix.n; i++)
				if (ix.m[i].min_ns < h->kept_from_ns)
					h->kept_from_ns = ix.m[i].min_ns;
		}
	}
	fp_rec_index_free(&ix);
	close(fd);
}

/* ,"event_names":["N",...]: the events the source named, in perf report's
 * order (the running chain counts the first; their samples are not known
 * before the end) */
static void event_names_json(struct fp_sink *s, const char *names)
{
	if (!names || !*names)
		return;
	fp_sink_str(s, ",\"event_names\":[");
	for (const char *p = names; *p;) {
		const char *tab = strchr(p, '\t');
		size_t n = tab ? (size_t)(tab - p) : strlen(p);
		if (p != names)
			fp_sink_char(s, ',');
		fp_json_string(s, p, n);
		p += n + (tab ? 1 : 0);
	}
	fp_sink_char(s, ']');
}

void live_heatmap_json(struct live *l, struct fp_sink *s)
{
	struct heatmap rec = { 0 };

	recording_state(l, &rec); /* file reads: not under the lock */
	pthread_mutex_lock(&l->lock);
	l->hb.h.counted = fp_heatmap_total(&l->hb.h.hm);
	l->hb.h.samples = l->samples_read;
	l->hb.h.warnings = l->warnings;
	heatmap_json(s, &l->hb.h);
	/* heatmap_json ends with '}': add live fields */
	s->len--;
	fp_sink_printf(s,
		       ",\"live\":true,\"ended\":%s,\"version\":%llu,\"dropped\":%llu,"
		       "\"lost\":%llu",
		       l->ended ? "true" : "false", (unsigned long long)l->version,
		       (unsigned long long)l->dropped, (unsigned long long)l->lost);
	heatmap_recording_json(s, &rec);
	event_names_json(s, l->event_names);
	fp_sink_char(s, '}');
	pthread_mutex_unlock(&l->lock);
}

/* Writes the SSE events a client that has seen `*seen` needs (at most one
 * cells event and one fold event), then sets *seen. Called with the lock
 * held. Returns 1 if something was written. */
static int sse_collect(struct live *l, struct live_client *c, struct fp_sink *out)
{
	int wrote = 0;
	if (!c->started || l->geometry_version > c->seen_version) {
		c->started = 1;
		fp_sink_printf(out, "event: heatmap\ndata: {\"rows\":%u,\"start_sec\":%llu}\n\n",
			       l->hb.h.hm.rows, (unsigned long long)l->hb.h.hm.base_sec);
		wrote = 1;
	} else if (l->version > c->seen_version) {
		int any = 0;
		uint64_t maxv = fp_heatmap_max(&l->hb.h.hm);
		uint32_t ncols = l->hb.h.hm.ncols < l->ncolver ? (uint32_t)l->hb.h.hm.ncols
							       : l->ncolver;
		for (uint32_t col = 0; col < ncols; col++) {
			if (l->colver[col] <= c->seen_version)
				continue;
			if (!any)
				fp_sink_printf(out,
					       "event: cells\ndata: "
					       "{\"ncols\":%u,\"maxvalue\":%llu,\"cols\":{",
					       (unsigned)l->hb.h.hm.ncols,
					       (unsigned long long)maxv);
			else
				fp_sink_char(out, ',');
			any = 1;
			fp_sink_printf(out, "\"%u\":", col);
			fp_heatmap_json_column(out, &l->hb.h.hm, col);
		}
		if (any) {
			fp_sink_str(out, "}}\n\n");
			wrote = 1;
		}
	}
	if (l->snapshot_seq > c->seen_snapshot) {
		fp_sink_printf(out, "event: fold\ndata: {\"seq\":%llu,\"total\":%llu}\n\n",
			       (unsigned long long)l->snapshot_seq,
			       (unsigned long long)l->snapshot_total);
		c->seen_snapshot = l->snapshot_seq;
		wrote = 1;
	}
	if (l->stats_version > c->seen_stats) {
		fp_sink_printf(out,
			       "event: stats\ndata: {\"samples\":%llu,\"dropped\":%llu,"
			       "\"lost\":%llu,\"warnings\":%llu}\n\n",
			       (unsigned long long)l->samples_read, (unsigned long long)l->dropped,
			       (unsigned long long)l->lost, (unsigned long long)l->warnings);
		c->seen_stats = l->stats_version;
		wrote = 1;
	}
	c->seen_version = l->version;
	if (l->ended && !c->sent_end) {
		fp_sink_str(out, "event: end\ndata: {}\n\n");
		c->sent_end = 1;
		wrote = 1;
	}
	return wrote;
}

/* Blocks (this connection's thread only) until there is something to send,
 * a heartbeat is due, or the capture ended. Pushes are spaced at least
 * SSE_MIN_INTERVAL_MS apart. Returns bytes in c->out, 0 at the end. */
size_t live_sse_next(struct live *l, struct live_client *c)
{
	uint64_t now = fp_clock_ms(CLOCK_MONOTONIC);
	if (c->last_push && now < c->last_push + SSE_MIN_INTERVAL_MS) {
		uint64_t wait = c->last_push + SSE_MIN_INTERVAL_MS - now;
		struct timespec ts = { (time_t)(wait / 1000), (long)(wait % 1000) * 1000000L };
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	struct timespec dl;
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += SSE_HEARTBEAT_S;
	pthread_mutex_lock(&l->lock);
	for (;;) {
		if (c->sent_end)
			break;
		if (sse_collect(l, c, &c->out))
			break;
		if (pthread_cond_timedwait(&l->changed, &l->lock, &dl) == ETIMEDOUT) {
			fp_sink_str(&c->out, ": keep-alive\n\n");
			break;
		}
	}
	pthread_mutex_unlock(&l->lock);
	c->last_push = fp_clock_ms(CLOCK_MONOTONIC);
	return c->out.len;
}
