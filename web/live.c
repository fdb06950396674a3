/* live.c: the live capture fp-serve reads on stdin (`fp-serve --live NAME`).
 *
 * The main thread feeds every protocol line to live_line(): G/H records
 * update the heatmap cells (the newest absolute count of each cell), F
 * records between `C begin fold` and `C end fold` build the next fold
 * snapshot, which replaces the current one when complete; `C range` and
 * `C reset` (written by fp-range after a control command) tell which
 * selection the next snapshot shows. Connection threads read this state
 * under l->lock and wait on l->changed (SSE streams, requests waiting for
 * a new selection's snapshot).
 *
 * Selecting a range never re-reads the input: live_select() writes
 * `range FROM TO` and the filter commands into fp-range's control FIFO in
 * one write (so fp-range applies them as one batch and replays its
 * history once), and the page gets the new snapshot when it arrives.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "fp_error.h"
#include "fp_fifo.h"
#include "fp_rangectl.h"
#include "fp_record.h"
#include "live.h"

#define CONTROL_WRITE_WAIT_MS 2000

static void on_change(void *ctx, uint32_t col)
{
	struct live *l = ctx;
	if (col >= l->ncolver) {
		uint32_t cap = l->ncolver ? l->ncolver : 64;
		while (cap <= col)
			cap *= 2;
		l->colver = fp_xrealloc(l->colver, cap * sizeof *l->colver);
		memset(l->colver + l->ncolver, 0, (cap - l->ncolver) * sizeof *l->colver);
		l->ncolver = cap;
	}
	l->colver[col] = l->version + 1;	/* stamped with the next version */
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

struct live *live_create(const char *name, const char *control_path)
{
	struct live *l = fp_xcalloc(1, sizeof *l);
	pthread_mutex_init(&l->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&l->changed, &ca);
	pthread_condattr_destroy(&ca);
	l->name = fp_xstrdup(name);
	l->control = control_path ? fp_xstrdup(control_path) : NULL;
	l->hb.h.rows = SERVE_ROWS_DEFAULT;
	l->hb.on_change = on_change;
	l->hb.on_geometry = on_geometry;
	l->hb.ctx = l;
	fp_sink_init_mem(&l->building);
	l->cur.has_from = l->cur.has_to = 0;
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

/* "C range FROM TO": FROM/TO decimal seconds or "-" */
static void parse_range(const struct fp_control *c, struct live_range *r)
{
	if (c->nargs != 2)
		return;
	r->has_from = !fp_str_eq(c->arg[0], "-") &&
		fp_parse_seconds_ns(c->arg[0].p, c->arg[0].n, &r->from_ns) == 0;
	r->has_to = !fp_str_eq(c->arg[1], "-") &&
		fp_parse_seconds_ns(c->arg[1].p, c->arg[1].n, &r->to_ns) == 0;
}

/* key=value in an I record: 1 and *out if present and numeric */
static int info_field(const struct fp_info *i, const char *key, uint64_t *out)
{
	return fp_info_get(i, key, out) == 0;
}

static const char *const filter_word[] = { "pid", "tid", "cpu", "comm", "event",
					   "include", "exclude" };
#define NWORDS (sizeof filter_word / sizeof filter_word[0])

static unsigned words_of(const struct selection *sel)
{
	const char *v[NWORDS] = { sel->pid, sel->tid, sel->cpu, sel->comm, sel->event,
				  sel->include, sel->exclude };
	unsigned w = 0;
	for (size_t i = 0; i < NWORDS; i++)
		if (v[i])
			w |= 1u << i;
	return w;
}

/* "C filter WORD ...": the bit of WORD (0 for "clear" or unknown) */
static unsigned filter_bit(const struct fp_control *c)
{
	const char *p = c->rest.p;
	size_t n = c->rest.n;
	for (size_t i = 0; i < NWORDS; i++) {
		size_t wl = strlen(filter_word[i]);
		if (n > wl && memcmp(p, filter_word[i], wl) == 0 && p[wl] == ' ')
			return 1u << i;
	}
	return 0;
}

static int range_equal(const struct live_range *a, const struct live_range *b);

/* The selection fp-serve wrote is no longer known to be in force.
 * Called with the lock held. */
static void forget_sent(struct live *l)
{
	if (!l->sent_sel)
		return;
	free(l->sent_sel);
	l->sent_sel = NULL;
	l->sent_confirmed = 0;
	l->forgotten++;
}

/* C flush after C range: fp-range's account of the selection in force */
static void check_batch(struct live *l)
{
	l->in_sel_batch = 0;
	if (!l->sent_sel)
		return;
	int same = range_equal(&l->batch_range, &l->sent_range) &&
		l->batch_words == l->sent_words;
	if (same)
		l->sent_confirmed = 1;
	else if (l->sent_confirmed)	/* (before: an older batch still in the pipe) */
		forget_sent(l);
}

static void bump(struct live *l)
{
	l->version++;
	pthread_cond_broadcast(&l->changed);
}

/* F inside a snapshot: added to the one being built, as a plain folded
 * line (`stack count`). */
static void on_folded(struct live *l, const char *line, size_t len)
{
	struct fp_folded_rec f;

	if (!l->in_fold || fp_folded_parse(line, len, &f) < 0)
		return;
	fp_sink_write(&l->building, f.stack.p, f.stack.n);
	fp_sink_char(&l->building, ' ');
	fp_sink_u64(&l->building, f.count);
	fp_sink_char(&l->building, '\n');
	l->building_total += f.count;
}

/* C end fold: the finished snapshot becomes current. */
static void end_snapshot(struct live *l)
{
	struct fp_sink t = l->snapshot;

	l->in_fold = 0;
	l->snapshot = l->building;
	l->building = t.buf ? t : (struct fp_sink){ 0 };
	if (!l->building.buf)
		fp_sink_init_mem(&l->building);
	l->building.len = 0;
	l->snapshot_total = l->building_total;
	l->snapshot_seq++;
	l->snapshot_range = l->cur;
	l->snapshot_resets = l->resets;
	bump(l);
}

static void on_control(struct live *l, const char *line, size_t len)
{
	struct fp_control c;

	if (fp_control_parse(line, len, &c) < 0)
		return;
	switch (c.kind) {
	case FP_CTL_BEGIN:
		if (fp_control_is(&c, FP_CTL_BEGIN, "fold")) {
			l->in_fold = 1;
			l->building.len = 0;
			l->building_total = 0;
		}
		break;
	case FP_CTL_END:
		if (fp_control_is(&c, FP_CTL_END, "fold") && l->in_fold)
			end_snapshot(l);
		break;
	case FP_CTL_RESET:
		l->resets++;
		break;
	case FP_CTL_RANGE:
		parse_range(&c, &l->cur);
		l->in_sel_batch = 1;
		l->batch_range = l->cur;
		l->batch_words = 0;
		break;
	case FP_CTL_FILTER:
		if (l->in_sel_batch)
			l->batch_words |= filter_bit(&c);
		break;
	case FP_CTL_FLUSH:
		if (l->in_sel_batch)
			check_batch(l);
		break;
	case FP_CTL_RESTARTED:
		/* the runner restarted a stage (runner/supervise.c): if it was
		 * fp-range, its selection is gone; re-sending costs one replay
		 * if it was another stage */
		forget_sent(l);
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
		l->stats_version = l->version + 1;
		l->cells_dirty = 1;
	} else if (info_field(&info, "replays", &v) && info_field(&info, "history", &v)) {
		/* fp-range's final report (it ended: stopped or restarted
		 * by the runner): the selection it held ended with it */
		forget_sent(l);
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
		l->cells_dirty = 1;	/* published at the next idle */
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

int live_select(struct live *l, const struct selection *sel, uint64_t *resets_before,
		char *err, size_t errsz)
{
	if (!l->control) {
		snprintf(err, errsz, "this live capture has no control FIFO: range selection is off");
		return 409;
	}
	struct fp_sink s;
	fp_sink_init_mem(&s);
	fp_sink_printf(&s, "range %s %s\n", sel->start ? sel->start : "-", sel->end ? sel->end : "-");
	fp_sink_printf(&s, "pid %s\n", sel->pid ? sel->pid : "-");
	fp_sink_printf(&s, "tid %s\n", sel->tid ? sel->tid : "-");
	fp_sink_printf(&s, "cpu %s\n", sel->cpu ? sel->cpu : "-");
	fp_sink_printf(&s, "comm %s\n", sel->comm ? sel->comm : "-");
	fp_sink_printf(&s, "event %s\n", sel->event ? sel->event : "-");
	fp_sink_printf(&s, "include %s\n", sel->include ? sel->include : "-");
	fp_sink_printf(&s, "exclude %s\n", sel->exclude ? sel->exclude : "-");
	fp_sink_char(&s, '\0');
	s.len--;
	pthread_mutex_lock(&l->lock);
	if (l->sent_sel && strcmp(l->sent_sel, s.buf) == 0) {
		/* already in force: the snapshots keep coming for it, so a
		 * polling client does not make fp-range replay its history */
		*resets_before = l->sent_resets_before;
		pthread_mutex_unlock(&l->lock);
		fp_sink_free(&s);
		return 0;
	}
	*resets_before = l->resets;
	pthread_mutex_unlock(&l->lock);

	int status = 0;
	int fd = fp_fifo_open_writer(l->control);
	if (fd < 0) {
		snprintf(err, errsz, "cannot open control FIFO: %s", strerror(errno));
		status = 503;
	} else {
		/* one write: the commands arrive (and are applied) together;
		 * they are far below PIPE_BUF... unless regexes are huge. A
		 * stuck fp-range must not hold this thread for ever: the fd is
		 * non-blocking and each wait for room is bounded. */
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			fcntl(fd, F_SETFL, fl | O_NONBLOCK);
		size_t off = 0;
		while (off < s.len) {
			ssize_t n = write(fd, s.buf + off, s.len - off);
			if (n < 0 && errno == EAGAIN) {
				struct pollfd pf = { .fd = fd, .events = POLLOUT };
				if (poll(&pf, 1, CONTROL_WRITE_WAIT_MS) > 0)
					continue;
				snprintf(err, errsz, "control FIFO full: fp-range does not read it");
				status = 503;
				break;
			}
			if (n < 0) {
				if (errno == EINTR)
					continue;
				snprintf(err, errsz, "cannot write control FIFO: %s", strerror(errno));
				status = 503;
				break;
			}
			off += (size_t)n;
		}
		close(fd);
	}
	if (status == 0) {
		pthread_mutex_lock(&l->lock);
		free(l->sent_sel);
		l->sent_sel = fp_xstrdup(s.buf);
		l->sent_resets_before = *resets_before;
		l->sent_words = words_of(sel);
		l->sent_confirmed = 0;
		l->sent_range.has_from = sel->start != NULL;
		l->sent_range.has_to = sel->end != NULL;
		l->sent_range.from_ns = l->sent_range.to_ns = 0;
		if (sel->start)
			fp_parse_seconds_ns(sel->start, strlen(sel->start), &l->sent_range.from_ns);
		if (sel->end)
			fp_parse_seconds_ns(sel->end, strlen(sel->end), &l->sent_range.to_ns);
		pthread_mutex_unlock(&l->lock);
	}
	fp_sink_free(&s);
	return status;
}

static int range_equal(const struct live_range *a, const struct live_range *b)
{
	return a->has_from == b->has_from && a->has_to == b->has_to &&
		(!a->has_from || a->from_ns == b->from_ns) && (!a->has_to || a->to_ns == b->to_ns);
}

int live_wait_snapshot(struct live *l, const struct live_range *want, uint64_t resets_before,
		       unsigned timeout_ms)
{
	struct timespec dl;
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	int ok = 0;
	pthread_mutex_lock(&l->lock);
	for (;;) {
		if (l->snapshot_resets > resets_before && range_equal(&l->snapshot_range, want)) {
			ok = 1;
			break;
		}
		if (l->ended)
			break;
		if (pthread_cond_timedwait(&l->changed, &l->lock, &dl) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&l->lock);
	return ok;
}

int live_range_matches(struct live *l, const struct live_range *want)
{
	pthread_mutex_lock(&l->lock);
	int m = range_equal(&l->snapshot_range, want);
	pthread_mutex_unlock(&l->lock);
	return m;
}

char *live_copy_snapshot(struct live *l, size_t *len, uint64_t *total)
{
	pthread_mutex_lock(&l->lock);
	char *buf = fp_xmalloc(l->snapshot.len + 1);
	if (l->snapshot.len)
		memcpy(buf, l->snapshot.buf, l->snapshot.len);
	*len = l->snapshot.len;
	*total = l->snapshot_total;
	pthread_mutex_unlock(&l->lock);
	return buf;
}

void live_heatmap_json(struct live *l, struct fp_sink *s)
{
	pthread_mutex_lock(&l->lock);
	l->hb.h.counted = 0;
	for (size_t i = 0; i < (size_t)l->hb.h.ncols * l->hb.h.rows; i++)
		l->hb.h.counted += l->hb.h.cell[i];
	l->hb.h.samples = l->samples_read;
	l->hb.h.warnings = l->warnings;
	heatmap_json(s, &l->hb.h);
	/* heatmap_json ends with '}': add live fields */
	s->len--;
	fp_sink_printf(s, ",\"live\":true,\"ended\":%s,\"version\":%llu,\"dropped\":%llu}",
		       l->ended ? "true" : "false", (unsigned long long)l->version,
		       (unsigned long long)l->dropped);
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
			       l->hb.h.rows, (unsigned long long)l->hb.h.base_sec);
		wrote = 1;
	} else if (l->version > c->seen_version) {
		int any = 0;
		uint64_t maxv = 0;
		for (size_t i = 0; i < (size_t)l->hb.h.ncols * l->hb.h.rows; i++)
			if (l->hb.h.cell[i] > maxv)
				maxv = l->hb.h.cell[i];
		for (uint32_t col = 0; col < l->hb.h.ncols && col < l->ncolver; col++) {
			if (l->colver[col] <= c->seen_version)
				continue;
			if (!any)
				fp_sink_printf(out, "event: cells\ndata: {\"ncols\":%u,\"maxvalue\":%llu,\"cols\":{",
					       l->hb.h.ncols, (unsigned long long)maxv);
			else
				fp_sink_char(out, ',');
			any = 1;
			fp_sink_printf(out, "\"%u\":[", col);
			for (unsigned r = l->hb.h.rows; r-- > 0;) {
				fp_sink_u64(out, l->hb.h.cell[(size_t)col * l->hb.h.rows + r]);
				if (r)
					fp_sink_char(out, ',');
			}
			fp_sink_char(out, ']');
		}
		if (any) {
			fp_sink_str(out, "}}\n\n");
			wrote = 1;
		}
	}
	if (l->snapshot_seq > c->seen_snapshot) {
		char a[FP_RANGECTL_SECONDS_MAX], b[FP_RANGECTL_SECONDS_MAX];
		fp_sink_printf(out, "event: fold\ndata: {\"seq\":%llu,\"total\":%llu,\"from\":%s%s%s,\"to\":%s%s%s}\n\n",
			       (unsigned long long)l->snapshot_seq,
			       (unsigned long long)l->snapshot_total,
			       l->snapshot_range.has_from ? "\"" : "",
			       l->snapshot_range.has_from ? fp_rangectl_format_seconds(l->snapshot_range.from_ns, a) : "null",
			       l->snapshot_range.has_from ? "\"" : "",
			       l->snapshot_range.has_to ? "\"" : "",
			       l->snapshot_range.has_to ? fp_rangectl_format_seconds(l->snapshot_range.to_ns, b) : "null",
			       l->snapshot_range.has_to ? "\"" : "");
		c->seen_snapshot = l->snapshot_seq;
		wrote = 1;
	}
	if (l->stats_version > c->seen_stats) {
		fp_sink_printf(out, "event: stats\ndata: {\"samples\":%llu,\"dropped\":%llu,"
			       "\"warnings\":%llu}\n\n", (unsigned long long)l->samples_read,
			       (unsigned long long)l->dropped, (unsigned long long)l->warnings);
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

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Blocks (this connection's thread only) until there is something to send,
 * a heartbeat is due, or the capture ended. Pushes are spaced at least
 * SSE_MIN_INTERVAL_MS apart. Returns bytes in c->out, 0 at the end. */
size_t live_sse_next(struct live *l, struct live_client *c)
{
	uint64_t now = now_ms();
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
	c->last_push = now_ms();
	return c->out.len;
}
