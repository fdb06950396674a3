/* fp-push: a filter stage: pushes the samples to a Pyroscope-compatible
 * /ingest endpoint, one profile per interval, while passing every record on.
 *
 * Interface:
 *	fp-push URL [--app NAME] [--label KEY=VALUE]... [--interval S]
 *		[--format folded|pprof] [--queue N] [--retries N] [--timeout S]
 *		[--drain S] [--sample-rate HZ] [--spy-name NAME] [--max-depth N]
 *		[--sample-labels pid,tid,cpu,comm] [--auth-token-file F]
 *		[--basic-auth-file F] [--tenant ID]
 *		[--once [--until T] [--max-age S] [--restamp]]
 *
 * Input: a flamepipe stream (fifo/PROTOCOL.md). Every record is written to
 * stdout unchanged and in order; the network never holds it back: requests
 * are made by a sender thread from a bounded queue.
 *
 * The HTTP API (docs/fp-push.md): Pyroscope's /ingest, as Grafana Pyroscope's
 * ingest handler reads it (pkg/ingester/pyroscope, pkg/og/convert):
 *	POST URL/ingest?name=APP.cpu{k=v,...}&from=UNIX_S&until=UNIX_S
 *	     &sampleRate=HZ&spyName=flamepipe&units=samples&aggregationType=sum
 *	     &format=folded		(metric process_cpu, service_name APP)
 *	POST URL/ingest?name=APP{k=v,...}&...&format=pprof
 *	body: folded `comm;frame;...;leaf COUNT` lines (text/plain), or a
 *	      gzip'd pprof profile.proto (application/octet-stream) whose
 *	      sample types samples/count, cpu/nanoseconds make it process_cpu
 * from/until: the wall-clock seconds of the interval, back to back (until is
 * rounded up to the next second, the next profile's from is this until; an
 * interval without samples sends nothing); --once: until = --until (default
 * now), from = until - the samples' span; a profile outside Pyroscope's
 * default ingestion window (from more than --max-age s ago, or more than
 * 10 min ahead) is refused here, before sending, unless --restamp.
 * sampleRate: perf's sampling frequency: --sample-rate (perf's -F), else
 * 1e9 / the mean period of clock events (cpu-clock, task-clock, V8's
 * samples); another event without --sample-rate is not sent (its CPU time
 * is unknown).
 * The server reads folded lines of at most 64 KiB and ends its parse,
 * silently, at a longer one; it keeps the 1000 root-most frames of a
 * deeper stack: a stack over either limit is cut here instead, its root
 * frames, the marker frame FP_PUSH_MARKER and its leaf frames kept
 * (counted: truncated=N, and a W record).
 *
 * Delivery: a 2xx answer is success; no answer, 408, 429 or 5xx is retried
 * --retries times (default 3) with a doubling pause from 250 ms; another
 * answer is final (the profile is counted as failed). At most --queue
 * profiles (default 6) wait; when a new one finds the queue full the oldest
 * waiting one is dropped and counted. At end of input the queue gets
 * --drain seconds (default 5) to empty; what is left is dropped.
 * Each interval writes `I push profiles=.. sent=.. retries=.. failed=..
 * dropped=.. samples_sent=.. samples_dropped=..` and, after new losses, a W
 * record.
 *
 * Exit codes: 0 ok (also after losses while live: they are counted),
 * 100 usage, 111 --once and the profile was not delivered, 141 the reader
 * went away.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <curl/curl.h>
#include <ev.h>

#include "exports.h"
#include "fp_error.h"
#include "fp_fold.h"
#include "fp_io.h"
#include "fp_opts.h"
#include "fp_record.h"
#include "fp_strtab.h"
#include "pprof.h"
#include "sink.h"

#define USAGE                                                                             \
	"usage: fp-push URL [--app NAME] [--label KEY=VALUE]... [--interval S]\n"         \
	"\t[--format folded|pprof] [--queue N] [--retries N] [--timeout S] [--drain S]\n" \
	"\t[--sample-rate HZ] [--spy-name NAME] [--max-depth N] [--sample-labels LIST]\n" \
	"\t[--auth-token-file FILE] [--basic-auth-file FILE] [--tenant ID]\n"             \
	"\t[--once [--until UNIX_S] [--max-age S] [--restamp]]"
#define STAGE_NAME "push"
#define DEFAULT_APP "flamepipe"
#define CPU_SUFFIX ".cpu" /* folded: Pyroscope's APP.cpu = process_cpu */
#define FP_PUSH_MARKER "[flamepipe: frames elided]"
#define LINE_MAX_BYTES 65536 /* Go's bufio.MaxScanTokenSize, LF included */
#define LINE_SLACK 64        /* " COUNT\n" and what folding may add */
#define ROOT_FRAMES_KEPT 8
#define DEFAULT_MAX_DEPTH 1000 /* validation.max-profile-stacktrace-depth */
#define MAX_DEPTH_LIMIT 100000
#define DEFAULT_MAX_AGE_S 3600 /* validation.reject-older-than */
#define AHEAD_MAX_S 600        /* validation.reject-newer-than */
#define SECRET_MAX 4096
#define TENANT_MAX 150 /* dskit's tenant ID limit */
#define DEFAULT_SPY "flamepipe"
#define DEFAULT_INTERVAL_S 10.0
#define DEFAULT_QUEUE 6
#define DEFAULT_RETRIES 3
#define DEFAULT_TIMEOUT_S 5
#define DEFAULT_DRAIN_S 5.0
#define DEFAULT_RATE 100
#define MAX_LABELS 16
#define LABEL_MAX 128
#define NAME_MAX_LEN 2048
#define URL_MAX 4096
#define MAX_QUEUE 1000
#define MAX_RETRIES 20
#define BACKOFF_FIRST_MS 250
#define BACKOFF_MAX_MS 4000
#define CONNECT_TIMEOUT_S 2
#define NS_PER_MS 1000000L
#define HTTP_OK_MIN 200
#define HTTP_OK_MAX 299
#define HTTP_TOO_MANY 429
#define HTTP_TIMEOUT 408
#define HTTP_SERVER_MIN 500

enum format { FMT_FOLDED, FMT_PPROF };

struct options {
	const char *url, *app, *spy;
	const char *labels[MAX_LABELS];
	size_t nlabels;
	double interval_s, drain_s;
	enum format format;
	unsigned queue, retries, timeout_s;
	uint64_t sample_rate; /* 0: from the periods */
	int once, restamp;
	uint64_t until;     /* --once: 0 = now */
	uint64_t max_age_s; /* --once: 0 = no check */
	unsigned max_depth, sample_labels;
	const char *token_file, *basic_file, *tenant;
};

/* A closed profile waiting to be sent. */
struct item {
	char *body;
	size_t len;
	uint64_t from, until, rate, samples;
};

/* Shared between the loop thread and the sender. */
struct queue {
	pthread_mutex_t lock;
	pthread_cond_t more, drained;
	struct item *q;
	size_t head, n, cap;
	int stop, busy;
	uint64_t sent, retries, failed, dropped, samples_sent, samples_dropped;
};

struct push {
	struct options opt;
	struct fp_pump pump;
	ev_timer tick;
	/* the profile being collected */
	struct fp_strtab stacks; /* folded stack -> count */
	struct fp_pprof pprof;
	struct fp_fold_buf folded;
	uint64_t samples, first_ns, last_ns;
	uint64_t clock_n, clock_ns; /* samples of clock events, their periods */
	struct fp_str other_event;  /* a non-clock event seen (for the rate) */
	char other_event_buf[LABEL_MAX];
	uint64_t truncated, truncated_seen; /* samples whose stacks were cut */
	struct fp_fold_buf trim_stack, trim_kinds;
	uint64_t wall_from; /* the interval's from: the last one's until */
	uint64_t profiles;
	uint64_t lost_seen; /* losses already warned about */
	struct queue qu;
	pthread_t sender;
	CURL *curl;
	char name[NAME_MAX_LEN]; /* APP.cpu{k=v,...} (folded), APP{k=v,...} (pprof) */
	char *auth_header, *userpwd, *tenant_header; /* from the files, --tenant */
};

static uint64_t wall_now(void)
{
	return (uint64_t)time(NULL);
}

/* The current second, rounded up (an interval's until covers its end). */
static uint64_t wall_now_ceil(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec + (t.tv_nsec > 0);
}

/* ---- the queue --------------------------------------------------------- */

static void item_free(struct item *it)
{
	free(it->body);
	it->body = NULL;
}

/* Adds a closed profile; a full queue drops its oldest waiting one. */
static void enqueue(struct queue *q, struct item it)
{
	pthread_mutex_lock(&q->lock);
	if (q->n == q->cap) {
		struct item *old = &q->q[q->head];

		q->dropped++;
		q->samples_dropped += old->samples;
		item_free(old);
		q->head = (q->head + 1) % q->cap;
		q->n--;
	}
	q->q[(q->head + q->n) % q->cap] = it;
	q->n++;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
}

/* ---- HTTP (the sender thread) ------------------------------------------ */

static size_t discard_body(char *p, size_t size, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return size * n;
}

/* The request URL of one profile. */
static void ingest_url(struct push *ps, const struct item *it, char *out, size_t n)
{
	const char *base = ps->opt.url;
	size_t bl = strlen(base);
	int has_ingest = bl >= 7 && !strcmp(base + bl - 7, "/ingest");
	char *name = curl_easy_escape(ps->curl, ps->name, 0);
	char *spy = curl_easy_escape(ps->curl, ps->opt.spy, 0);

	snprintf(out, n,
		 "%.*s%s?name=%s&from=%" PRIu64 "&until=%" PRIu64 "&sampleRate=%" PRIu64
		 "&spyName=%s&units=samples&aggregationType=sum&format=%s",
		 (int)(bl - (bl && base[bl - 1] == '/' && !has_ingest)), base,
		 has_ingest ? "" : "/ingest", name, it->from, it->until, it->rate, spy,
		 ps->opt.format == FMT_PPROF ? "pprof" : "folded");
	curl_free(name);
	curl_free(spy);
}

/* One attempt: 1 delivered, 0 worth retrying, -1 refused for good. */
static int post_once(struct push *ps, const struct item *it, const char *url)
{
	struct curl_slist *hdr = curl_slist_append(
		NULL, ps->opt.format == FMT_PPROF ? "Content-Type: application/octet-stream"
						  : "Content-Type: text/plain");
	long code = 0;
	CURLcode rc;

	if (ps->auth_header)
		hdr = curl_slist_append(hdr, ps->auth_header);
	if (ps->tenant_header)
		hdr = curl_slist_append(hdr, ps->tenant_header);

	curl_easy_reset(ps->curl);
	curl_easy_setopt(ps->curl, CURLOPT_URL, url);
	curl_easy_setopt(ps->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(ps->curl, CURLOPT_POSTFIELDS, it->body);
	curl_easy_setopt(ps->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)it->len);
	curl_easy_setopt(ps->curl, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(ps->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(ps->curl, CURLOPT_CONNECTTIMEOUT, (long)CONNECT_TIMEOUT_S);
	curl_easy_setopt(ps->curl, CURLOPT_TIMEOUT, (long)ps->opt.timeout_s);
	curl_easy_setopt(ps->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(ps->curl, CURLOPT_WRITEFUNCTION, discard_body);
	if (ps->userpwd) {
		curl_easy_setopt(ps->curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(ps->curl, CURLOPT_USERPWD, ps->userpwd);
	}
	rc = curl_easy_perform(ps->curl);
	if (rc == CURLE_OK)
		curl_easy_getinfo(ps->curl, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(hdr);
	if (rc != CURLE_OK)
		return 0;
	if (code >= HTTP_OK_MIN && code <= HTTP_OK_MAX)
		return 1;
	/* Pyroscope: 408 the body was not read, 429 over the tenant's limits */
	if (code == HTTP_TIMEOUT || code == HTTP_TOO_MANY || code >= HTTP_SERVER_MIN)
		return 0;
	fp_warn("push: %s answered %ld: profile not accepted (not retried)", ps->opt.url, code);
	return -1;
}

/* Sleeps ms unless the stage stops meanwhile; 1 if it stops. */
static int pause_ms(struct queue *q, long ms)
{
	struct timespec until;
	int stop;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (ms % 1000) * NS_PER_MS;
	if (until.tv_nsec >= 1000 * NS_PER_MS) {
		until.tv_sec++;
		until.tv_nsec -= 1000 * NS_PER_MS;
	}
	pthread_mutex_lock(&q->lock);
	while (!q->stop && pthread_cond_timedwait(&q->more, &q->lock, &until) != ETIMEDOUT)
		;
	stop = q->stop;
	pthread_mutex_unlock(&q->lock);
	return stop;
}

/* Sends one profile with retries; counts the outcome. */
static void deliver(struct push *ps, struct item *it)
{
	struct queue *q = &ps->qu;
	char url[URL_MAX];
	long backoff = BACKOFF_FIRST_MS;
	int r = 0;

	ingest_url(ps, it, url, sizeof url);
	for (unsigned attempt = 0; attempt <= ps->opt.retries; attempt++) {
		if (attempt) {
			pthread_mutex_lock(&q->lock);
			q->retries++;
			pthread_mutex_unlock(&q->lock);
			if (pause_ms(q, backoff))
				break;
			backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
		}
		if ((r = post_once(ps, it, url)) != 0)
			break;
	}
	pthread_mutex_lock(&q->lock);
	if (r == 1) {
		q->sent++;
		q->samples_sent += it->samples;
	} else {
		q->failed++;
		q->samples_dropped += it->samples;
	}
	pthread_mutex_unlock(&q->lock);
}

static void *sender_main(void *arg)
{
	struct push *ps = arg;
	struct queue *q = &ps->qu;

	for (;;) {
		struct item it;

		pthread_mutex_lock(&q->lock);
		while (!q->n && !q->stop)
			pthread_cond_wait(&q->more, &q->lock);
		if (!q->n) {
			pthread_mutex_unlock(&q->lock);
			return NULL;
		}
		it = q->q[q->head];
		q->head = (q->head + 1) % q->cap;
		q->n--;
		q->busy = 1;
		pthread_mutex_unlock(&q->lock);
		deliver(ps, &it);
		item_free(&it);
		pthread_mutex_lock(&q->lock);
		q->busy = 0;
		pthread_cond_broadcast(&q->drained);
		pthread_mutex_unlock(&q->lock);
	}
}

/* ---- collecting (the loop thread) --------------------------------------- */

static void pprof_start(struct push *ps)
{
	fp_pprof_init(&ps->pprof);
	ps->pprof.push_rate = 1; /* Pyroscope's shape; the rate is set when written */
	ps->pprof.push_labels = ps->opt.sample_labels;
}

static void profile_reset(struct push *ps)
{
	fp_strtab_clear(&ps->stacks);
	if (ps->opt.format == FMT_PPROF) {
		fp_pprof_free(&ps->pprof);
		pprof_start(ps);
	}
	ps->samples = 0;
	ps->clock_n = ps->clock_ns = 0;
	ps->other_event.n = 0;
}

/* Where UTF-8 text may be cut at or before n: not inside a character. */
static size_t utf8_cut(const char *p, size_t n)
{
	while (n && ((unsigned char)p[n] & 0xC0) == 0x80)
		n--;
	return n;
}

/* The start of the frame that ends at end (exclusive) in st. */
static size_t frame_start(const char *st, size_t end)
{
	while (end && st[end - 1] != ';')
		end--;
	return end;
}

/* A stack deeper than --max-depth frames (its comm root included) or
 * longer than a line may be becomes its first frames (at most ROOT_FRAMES_KEPT), FP_PUSH_MARKER and
 * as many leaf frames as fit (the leaf's name itself cut if it alone does
 * not fit); s->stack and s->kinds then point into ps's buffers. The leaf
 * keeps its self time, the root its process; Pyroscope would instead end
 * its parse (64 KiB) or drop the leaf frames (depth). 1 if cut. */
static int trim_stack(struct push *ps, struct fp_sample *s)
{
	const char *st = s->stack.p;
	size_t n = s->stack.n, nframes = n ? 1 : 0, mlen = strlen(FP_PUSH_MARKER);
	size_t comm = s->comm.n < LINE_MAX_BYTES / 4 ? s->comm.n : LINE_MAX_BYTES / 4;
	size_t budget = LINE_MAX_BYTES - LINE_SLACK - comm - 1, root_end = 0, root_n, pos = n;
	size_t leaf_n = 0, max_leaf, room, depth = ps->opt.max_depth - 1; /* the comm root is one */
	struct fp_fold_buf *b = &ps->trim_stack, *k = &ps->trim_kinds;
	int kinds_ok;

	for (const char *q = st; (q = memchr(q, ';', st + n - q)); q++)
		nframes++;
	if (nframes <= depth && n <= budget)
		return 0;
	kinds_ok = s->kinds.n == nframes;
	root_n = ROOT_FRAMES_KEPT < (depth - 1) / 2 ? ROOT_FRAMES_KEPT : (depth - 1) / 2;
	for (size_t i = 0; i < root_n; i++) {
		const char *semi = memchr(st + root_end, ';', n - root_end);
		size_t next = semi ? (size_t)(semi - st) + 1 : n + 1;

		if (!semi || next > budget / 4) {
			root_n = i;
			break;
		}
		root_end = next; /* the root frames and their ';' */
	}
	room = budget - root_end - mlen - 1;
	max_leaf = depth - root_n - 1;
	while (leaf_n < max_leaf && pos > root_end) {
		size_t start = frame_start(st, pos == n ? n : pos - 1);

		if (start < root_end || n - start > room)
			break;
		pos = start;
		leaf_n++;
	}
	b->len = k->len = 0;
	fp_fold_buf_add(b, st, root_end);
	fp_fold_buf_add(b, FP_PUSH_MARKER, mlen);
	fp_fold_buf_add(b, ";", 1);
	if (kinds_ok) {
		fp_fold_buf_add(k, s->kinds.p, root_n);
		fp_fold_buf_add(k, (const char[]){ FP_KIND_UNKNOWN }, 1);
	}
	if (leaf_n) {
		fp_fold_buf_add(b, st + pos, n - pos);
		if (kinds_ok)
			fp_fold_buf_add(k, s->kinds.p + nframes - leaf_n, leaf_n);
	} else { /* one leaf frame longer than a line: its start */
		size_t start = frame_start(st, n);

		fp_fold_buf_add(b, st + start,
				utf8_cut(st + start, room < n - start ? room : n - start));
		if (kinds_ok)
			fp_fold_buf_add(k, s->kinds.p + nframes - 1, 1);
	}
	s->stack = (struct fp_str){ b->p, b->len };
	if (kinds_ok)
		s->kinds = (struct fp_str){ k->p, k->len };
	return 1;
}

/* Events whose periods are nanoseconds: perf's clocks, and V8's samples
 * (fp-chrome: a sample's period is the time since the one before). */
static int timed_event(const struct fp_str *ev)
{
	static const char v8[] = "v8-sample";

	return fp_export_clock_event(ev->p, ev->n) ||
	       (ev->n == sizeof v8 - 1 && !memcmp(ev->p, v8, ev->n));
}

static void on_sample(struct push *ps, const char *line, size_t len)
{
	static const struct fp_fold_opts plain = FP_FOLD_OPTS_DEFAULT;
	struct fp_sample s;
	int cut;

	if (fp_sample_parse(line, len, &s) < 0)
		return; /* fp-read's output: malformed ones are counted there */
	cut = trim_stack(ps, &s);
	if (ps->opt.format == FMT_PPROF) {
		if (fp_pprof_add(&ps->pprof, &s) < 0)
			return;
	} else {
		if (fp_fold_build(&ps->folded, &s, &plain, NULL) < 0)
			return;
		if (ps->folded.len > LINE_MAX_BYTES - LINE_SLACK) { /* a comm that long */
			ps->folded.len = utf8_cut(ps->folded.p, LINE_MAX_BYTES - LINE_SLACK);
			cut = 1;
		}
		fp_strtab_add(&ps->stacks,
			      fp_strtab_intern(&ps->stacks, ps->folded.p, ps->folded.len, NULL), 1);
	}
	ps->truncated += (uint64_t)cut;
	if (!ps->samples++ || s.time_ns < ps->first_ns)
		ps->first_ns = s.time_ns;
	if (s.time_ns > ps->last_ns || ps->samples == 1)
		ps->last_ns = s.time_ns;
	if (timed_event(&s.event)) {
		if (s.period > 1) {
			ps->clock_n++;
			ps->clock_ns += s.period;
		}
	} else if (!ps->other_event.n) {
		size_t m = s.event.n < sizeof ps->other_event_buf - 1
				   ? s.event.n
				   : sizeof ps->other_event_buf - 1;

		memcpy(ps->other_event_buf, s.event.p, m);
		ps->other_event = (struct fp_str){ ps->other_event_buf, m };
	}
}

/* perf's sampling frequency, Hz; 0 when not known. A sample of any event
 * sampled at F Hz stands for 1/F s of CPU time (perf record -F adjusts a
 * hardware event's period to that rate); the periods of a clock event are
 * that time in ns. Samples per second of the profile would understate it
 * by the number of busy CPUs. */
static uint64_t sample_rate(const struct push *ps)
{
	if (ps->opt.sample_rate)
		return ps->opt.sample_rate;
	if (ps->clock_n && !ps->other_event.n) /* 1e9 / the mean period */
		return (FP_NSEC_PER_SEC * ps->clock_n + ps->clock_ns / 2) / ps->clock_ns;
	return 0;
}

/* A closed profile that is not sent: counted as failed, told in a W record. */
static void refuse(struct push *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refuse(struct push *ps, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fp_pump_warn(&ps->pump, "%s", msg);
	pthread_mutex_lock(&ps->qu.lock);
	ps->qu.failed++;
	ps->qu.samples_dropped += ps->samples;
	ps->lost_seen++; /* told already */
	pthread_mutex_unlock(&ps->qu.lock);
	ps->profiles++;
	profile_reset(ps);
}

/* --once: Pyroscope refuses a profile whose time (from) is more than its
 * reject-older-than before now, or reject-newer-than after it. 0 ok. */
static int outside_window(struct push *ps, uint64_t from, uint64_t now)
{
	char when[64];
	time_t t = (time_t)from;
	struct tm tm;

	if (ps->opt.max_age_s && from + ps->opt.max_age_s < now) {
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&t, &tm));
		refuse(ps,
		       "the profile starts at %s, %" PRIu64 " s ago: Pyroscope refuses profiles "
		       "older than its ingestion window (validation.reject-older-than, 1 h by "
		       "default; --max-age %" PRIu64 " s here): not sent (--restamp sends it as of "
		       "now, --max-age S for a server that keeps older ones)",
		       when, now - from, ps->opt.max_age_s);
		return 1;
	}
	if (from > now + AHEAD_MAX_S) {
		refuse(ps,
		       "the profile starts %" PRIu64 " s in the future (a wrong clock or "
		       "--until?): Pyroscope refuses profiles more than %d s ahead: not sent",
		       from - now, AHEAD_MAX_S);
		return 1;
	}
	return 0;
}

/* The body of the profile collected so far. */
static void profile_body(struct push *ps, struct fp_sink *s)
{
	if (ps->opt.format == FMT_PPROF) {
		fp_pprof_write(&ps->pprof, s);
		return;
	}
	for (size_t i = 0; i < fp_strtab_count(&ps->stacks); i++) {
		size_t n;
		const char *st = fp_strtab_str(&ps->stacks, (uint32_t)i, &n);

		fp_sink_write(s, st, n);
		fp_sink_char(s, ' ');
		fp_sink_u64(s, ps->stacks.ent[i].count);
		fp_sink_char(s, '\n');
	}
}

/* Closes the interval: its profile (if it has samples) joins the queue. */
static void close_profile(struct push *ps)
{
	struct fp_sink s;
	struct item it;
	uint64_t now = wall_now_ceil();

	if (!ps->samples) {
		ps->wall_from = now > ps->wall_from ? now : ps->wall_from;
		return;
	}
	it = (struct item){ NULL, 0, ps->wall_from, now, sample_rate(ps), ps->samples };
	if (!it.rate) {
		refuse(ps,
		       "%.*s samples: perf's sampling frequency is not known (give --sample-rate "
		       "HZ, perf record's -F): their CPU time would be wrong: profile not sent",
		       (int)ps->other_event.n, ps->other_event.p);
		return;
	}
	if (ps->opt.once) {
		uint64_t span = (ps->last_ns - ps->first_ns) / FP_NSEC_PER_SEC;

		it.until = ps->opt.until && !ps->opt.restamp ? ps->opt.until : now;
		it.from = it.until > span ? it.until - span : 0;
	}
	if (it.until <= it.from) { /* Pyroscope wants from < until */
		if (ps->opt.once)
			it.from = it.until - 1;
		else
			it.until = it.from + 1;
	}
	if (ps->opt.once && outside_window(ps, it.from, wall_now()))
		return;
	if (ps->opt.format == FMT_PPROF) {
		ps->pprof.push_rate = it.rate;
		ps->pprof.time_nanos = (int64_t)(it.from * FP_NSEC_PER_SEC);
		ps->pprof.duration_nanos = (int64_t)((it.until - it.from) * FP_NSEC_PER_SEC);
	}
	fp_sink_init_mem(&s);
	profile_body(ps, &s);
	it.body = s.buf;
	it.len = s.len;
	ps->wall_from = it.until; /* intervals back to back */
	enqueue(&ps->qu, it);
	ps->profiles++;
	profile_reset(ps);
}

/* I push ... and, after new losses, a W record. */
static void report(struct push *ps)
{
	struct queue *q = &ps->qu;
	uint64_t sent, retries, failed, dropped, ssent, sdropped;

	pthread_mutex_lock(&q->lock);
	sent = q->sent, retries = q->retries, failed = q->failed, dropped = q->dropped;
	ssent = q->samples_sent, sdropped = q->samples_dropped;
	pthread_mutex_unlock(&q->lock);
	if (ps->truncated > ps->truncated_seen) {
		fp_pump_warn(&ps->pump,
			     "%" PRIu64 " sample(s) so far had a stack deeper than %u "
			     "frames or longer than a %d-byte line (Pyroscope's limits): cut to "
			     "its root, "
			     "\"" FP_PUSH_MARKER "\" and its leaf frames",
			     ps->truncated, ps->opt.max_depth, LINE_MAX_BYTES);
		ps->truncated_seen = ps->truncated;
	}
	if (failed + dropped > ps->lost_seen) {
		fp_pump_warn(&ps->pump,
			     "%" PRIu64 " profile(s) (%" PRIu64 " samples) not delivered "
			     "to %s so far: %" PRIu64 " failed after retries, %" PRIu64 " dropped "
			     "from the full queue",
			     failed + dropped, sdropped, ps->opt.url, failed, dropped);
		ps->lost_seen = failed + dropped;
	}
	fp_write_info(fp_out_wr(&ps->pump.out), STAGE_NAME,
		      (const struct fp_stat[]){ { "profiles", ps->profiles },
						{ "sent", sent },
						{ "retries", retries },
						{ "failed", failed },
						{ "dropped", dropped },
						{ "samples_sent", ssent },
						{ "samples_dropped", sdropped },
						{ "truncated", ps->truncated } },
		      8);
}

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct push *ps = w->data;

	(void)loop;
	(void)revents;
	close_profile(ps);
	report(ps);
}

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	struct push *ps = p->ctx;
	size_t n = len;

	if (fp_record_tag(line, &n) == FP_REC_SAMPLE)
		on_sample(ps, line, n);
	fp_write_line(fp_out_wr(&p->out), line, len);
}

/* Waits up to --drain s for the queue to empty; the rest is dropped. */
static void drain(struct push *ps)
{
	struct queue *q = &ps->qu;
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)ps->opt.drain_s;
	until.tv_nsec += (long)((ps->opt.drain_s - (double)(time_t)ps->opt.drain_s) * 1e9);
	if (until.tv_nsec >= 1000 * NS_PER_MS) {
		until.tv_sec++;
		until.tv_nsec -= 1000 * NS_PER_MS;
	}
	pthread_mutex_lock(&q->lock);
	while ((q->n || q->busy) &&
	       pthread_cond_timedwait(&q->drained, &q->lock, &until) != ETIMEDOUT)
		;
	for (; q->n; q->n--, q->head = (q->head + 1) % q->cap) {
		q->dropped++;
		q->samples_dropped += q->q[q->head].samples;
		item_free(&q->q[q->head]);
	}
	q->stop = 1;
	pthread_cond_broadcast(&q->more);
	pthread_mutex_unlock(&q->lock);
	pthread_join(ps->sender, NULL);
}

static void on_eof(struct fp_pump *p)
{
	struct push *ps = p->ctx;

	ev_timer_stop(p->loop, &ps->tick);
	close_profile(ps);
	drain(ps);
	report(ps);
}

static const struct fp_pump_ops push_ops = {
	.line = on_line,
	.eof = on_eof,
};

/* ---- options ------------------------------------------------------------- */

static int name_chars_ok(const char *s, const char *extra)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(extra, *s)))
			return 0;
	return 1;
}

/* KEY=VALUE: KEY [A-Za-z_][A-Za-z0-9_.]*, VALUE [A-Za-z0-9_.:/@+-]+ (no
 * character that ends a label in Pyroscope's name{k=v,...}). */
static void check_label(const char *kv)
{
	const char *eq = strchr(kv, '=');
	char key[LABEL_MAX];

	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof key || strlen(eq + 1) >= LABEL_MAX)
		fp_die(FP_EXIT_USAGE, "--label: want KEY=VALUE (each under %d bytes), got '%s'",
		       LABEL_MAX, kv);
	memcpy(key, kv, eq - kv);
	key[eq - kv] = '\0';
	if ((key[0] >= '0' && key[0] <= '9') || key[0] == '.' || !name_chars_ok(key, "_.") ||
	    !name_chars_ok(eq + 1, "_.:/@+-"))
		fp_die(FP_EXIT_USAGE,
		       "--label: '%s': KEY is [A-Za-z_][A-Za-z0-9_.]*, VALUE "
		       "[A-Za-z0-9_.:/@+-]+",
		       kv);
	if (!strcmp(key, "__name__") || !strcmp(key, "service_name"))
		fp_die(FP_EXIT_USAGE, "--label: %s is the service name: use --app", key);
}

static double parse_seconds(const char *opt, const char *arg, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > max)
		fp_die(FP_EXIT_USAGE, "--%s: want seconds in (0, %g], got '%s'", opt, max, arg);
	return v;
}

#define MAX_INTERVAL_S 3600.0
#define MAX_TIMEOUT_S 300
#define MAX_RATE 1000000

/* The service name (Pyroscope's ValidateServiceName: [A-Za-z0-9_.\-/]);
 * a trailing .cpu (Pyroscope's old APP.cpu naming) is the same service. */
static void opt_app(void *ctx, const char *opt, const char *arg)
{
	struct options *o = ctx;
	size_t n = strlen(arg), m = strlen(CPU_SUFFIX);
	static char app[LABEL_MAX];

	(void)opt;
	if (!name_chars_ok(arg, "_.-/") || n >= LABEL_MAX)
		fp_die(FP_EXIT_USAGE, "--app: want [A-Za-z0-9_.-/]+, got '%s'", arg);
	if (n > m && !strcmp(arg + n - m, CPU_SUFFIX))
		n -= m;
	memcpy(app, arg, n);
	app[n] = '\0';
	o->app = app;
}

/* --sample-labels pid,tid,cpu,comm (pprof only). */
static void opt_sample_labels(void *ctx, const char *opt, const char *arg)
{
	static const char *const names[] = { "pid", "tid", "cpu", "comm" };
	struct options *o = ctx;
	const char *p = arg;

	(void)opt;
	o->sample_labels = 0;
	while (*p) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < sizeof names / sizeof *names; i++)
			if (strlen(names[i]) == n && !strncmp(p, names[i], n))
				break;
		if (i == sizeof names / sizeof *names)
			fp_die(FP_EXIT_USAGE,
			       "--sample-labels: want a list of pid, tid, cpu, comm, "
			       "got '%s'",
			       arg);
		o->sample_labels |= 1u << i; /* FP_PPROF_LABEL_* order */
		p += n + (p[n] == ',');
	}
}

/* --tenant: dskit's tenant ID rules (X-Scope-OrgID). */
static void opt_tenant(void *ctx, const char *opt, const char *arg)
{
	struct options *o = ctx;

	(void)opt;
	if (!name_chars_ok(arg, "!-_.*'()") || strlen(arg) > TENANT_MAX || !strcmp(arg, ".") ||
	    !strcmp(arg, ".."))
		fp_die(FP_EXIT_USAGE, "--tenant: want at most %d of [A-Za-z0-9!-_.*'()], got '%s'",
		       TENANT_MAX, arg);
	o->tenant = arg;
}

static void opt_label(void *ctx, const char *opt, const char *arg)
{
	struct options *o = ctx;

	if (o->nlabels == MAX_LABELS)
		fp_die(FP_EXIT_USAGE, "--label: at most %d labels", MAX_LABELS);
	check_label(arg);
	o->labels[o->nlabels++] = arg;
}

static void opt_seconds(void *ctx, const char *opt, const char *arg)
{
	struct options *o = ctx;

	*(strcmp(opt, "drain") ? &o->interval_s : &o->drain_s) = parse_seconds(opt, arg,
									       MAX_INTERVAL_S);
}

static void opt_spy(void *ctx, const char *opt, const char *arg)
{
	struct options *o = ctx;

	if (!name_chars_ok(arg, "_.-"))
		fp_die(FP_EXIT_USAGE, "--spy-name: want [A-Za-z0-9_.-]+, got '%s'", arg);
	o->spy = arg;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	static const char *const formats[] = { "folded", "pprof", NULL }; /* enum order */
	const struct fp_opt options[] = {
		{ "app", FP_OPT_FN, .fn = opt_app },
		{ "label", FP_OPT_FN, .fn = opt_label },
		{ "interval", FP_OPT_FN, .fn = opt_seconds },
		{ "format", FP_OPT_CHOICE, &o->format, .choices = formats },
		{ "queue", FP_OPT_UINT, &o->queue, 1, MAX_QUEUE },
		{ "retries", FP_OPT_UINT, &o->retries, 0, MAX_RETRIES },
		{ "timeout", FP_OPT_UINT, &o->timeout_s, 1, MAX_TIMEOUT_S },
		{ "drain", FP_OPT_FN, .fn = opt_seconds },
		{ "sample-rate", FP_OPT_U64, &o->sample_rate, 1, MAX_RATE },
		{ "spy-name", FP_OPT_FN, .fn = opt_spy },
		{ "once", FP_OPT_FLAG, &o->once },
		{ "until", FP_OPT_U64, &o->until, 1, UINT32_MAX * 4ull },
		{ "max-age", FP_OPT_U64, &o->max_age_s, 0, UINT32_MAX },
		{ "restamp", FP_OPT_FLAG, &o->restamp },
		{ "max-depth", FP_OPT_UINT, &o->max_depth, 3, MAX_DEPTH_LIMIT },
		{ "sample-labels", FP_OPT_FN, .fn = opt_sample_labels },
		{ "auth-token-file", FP_OPT_STR, &o->token_file },
		{ "basic-auth-file", FP_OPT_STR, &o->basic_file },
		{ "tenant", FP_OPT_FN, .fn = opt_tenant },
		{ NULL },
	};
	int first;

	*o = (struct options){ .app = DEFAULT_APP,
			       .spy = DEFAULT_SPY,
			       .interval_s = DEFAULT_INTERVAL_S,
			       .drain_s = DEFAULT_DRAIN_S,
			       .queue = DEFAULT_QUEUE,
			       .retries = DEFAULT_RETRIES,
			       .timeout_s = DEFAULT_TIMEOUT_S,
			       .max_age_s = DEFAULT_MAX_AGE_S,
			       .max_depth = DEFAULT_MAX_DEPTH };
	first = fp_opts_parse(argc, argv, options, USAGE, 1, o);
	if (first != argc - 1)
		fp_die(FP_EXIT_USAGE, "%s", USAGE);
	o->url = argv[first];
	if (strncmp(o->url, "http://", 7) && strncmp(o->url, "https://", 8))
		fp_die(FP_EXIT_USAGE, "URL: want http://HOST[:PORT][/PATH], got '%s'", o->url);
	if (strlen(o->url) > URL_MAX / 2)
		fp_die(FP_EXIT_USAGE, "URL: longer than %d bytes", URL_MAX / 2);
	{
		const char *host = strstr(o->url, "://") + 3;
		size_t auth = strcspn(host, "/?#");

		if (memchr(host, '@', auth))
			fp_die(FP_EXIT_USAGE,
			       "URL: has credentials (USER:PASSWORD@), which every user "
			       "of this machine can read in the command line: put them in a file "
			       "for --basic-auth-file");
	}
	if (o->sample_labels && o->format != FMT_PPROF)
		fp_die(FP_EXIT_USAGE, "--sample-labels: only --format pprof has sample labels");
	if (o->token_file && o->basic_file)
		fp_die(FP_EXIT_USAGE, "--auth-token-file and --basic-auth-file exclude each other");
	if ((o->restamp || o->until) && !o->once)
		fp_die(FP_EXIT_USAGE, "--until and --restamp go with --once");
}

/* A secret from a file: its first line, without the LF (CR). Refused when
 * empty, when it has a control character, or when the file is one others
 * may write. */
static char *read_secret(const char *opt, const char *path)
{
	char buf[SECRET_MAX + 2];
	struct stat st;
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f || fstat(fileno(f), &st) < 0)
		fp_die_sys(FP_EXIT_USAGE, "--%s: cannot read %s", opt, path);
	if (st.st_mode & S_IWOTH)
		fp_die(FP_EXIT_USAGE, "--%s: %s is writable by every user: not used", opt, path);
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	n = strcspn(buf, "\r\n");
	buf[n] = '\0';
	if (!n || n > SECRET_MAX)
		fp_die(FP_EXIT_USAGE, "--%s: %s: want one line of 1 to %d bytes", opt, path,
		       SECRET_MAX);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			fp_die(FP_EXIT_USAGE, "--%s: %s: a control character in the first line",
			       opt, path);
	return fp_xstrdup(buf);
}

/* Authorization, basic auth and X-Scope-OrgID, read once at start. */
static void load_credentials(struct push *ps)
{
	const struct options *o = &ps->opt;

	if (o->token_file) {
		char *tok = read_secret("auth-token-file", o->token_file);
		size_t n = strlen(tok) + sizeof "Authorization: Bearer ";

		ps->auth_header = fp_xmalloc(n);
		snprintf(ps->auth_header, n, "Authorization: Bearer %s", tok);
		memset(tok, 0, strlen(tok));
		free(tok);
	}
	if (o->basic_file) {
		ps->userpwd = read_secret("basic-auth-file", o->basic_file);
		if (!strchr(ps->userpwd, ':'))
			fp_die(FP_EXIT_USAGE, "--basic-auth-file: %s: want USER:PASSWORD",
			       o->basic_file);
	}
	if (o->tenant) {
		size_t n = strlen(o->tenant) + sizeof "X-Scope-OrgID: ";

		ps->tenant_header = fp_xmalloc(n);
		snprintf(ps->tenant_header, n, "X-Scope-OrgID: %s", o->tenant);
	}
}

/* Pyroscope's name parameter: APP.cpu{k=v,...} for folded (the handler
 * strips .cpu: metric process_cpu, service_name APP), APP{k=v,...} for
 * pprof (service_name is the name as given; the metric comes from the
 * sample types). */
static void build_name(struct push *ps)
{
	size_t n = (size_t)snprintf(ps->name, sizeof ps->name, "%s%s", ps->opt.app,
				    ps->opt.format == FMT_PPROF ? "" : CPU_SUFFIX);

	if (!ps->opt.nlabels)
		return;
	for (size_t i = 0; i < ps->opt.nlabels && n < sizeof ps->name; i++)
		n += (size_t)snprintf(ps->name + n, sizeof ps->name - n, "%c%s", i ? ',' : '{',
				      ps->opt.labels[i]);
	if (n < sizeof ps->name)
		snprintf(ps->name + n, sizeof ps->name - n, "}");
}

int main(int argc, char **argv)
{
	static struct push ps;
	int rc;

	fp_set_prog(argv[0]);
	parse_options(argc, argv, &ps.opt);
	build_name(&ps);
	load_credentials(&ps);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0 || !(ps.curl = curl_easy_init()))
		fp_die(FP_EXIT_SYS, "push: cannot initialise libcurl");
	fp_strtab_init(&ps.stacks);
	if (ps.opt.format == FMT_PPROF)
		pprof_start(&ps);
	ps.wall_from = wall_now();
	pthread_mutex_init(&ps.qu.lock, NULL);
	pthread_cond_init(&ps.qu.more, NULL);
	pthread_cond_init(&ps.qu.drained, NULL);
	ps.qu.cap = ps.opt.queue;
	ps.qu.q = fp_xcalloc(ps.qu.cap, sizeof *ps.qu.q);
	if ((errno = pthread_create(&ps.sender, NULL, sender_main, &ps)) != 0)
		fp_die_sys(FP_EXIT_SYS, "push: cannot start the sender thread");
	fp_pump_init(&ps.pump, EV_DEFAULT, 0, 1, &push_ops, &ps, FP_PUMP_GZIP);
	ps.pump.stage = STAGE_NAME;
	if (!ps.opt.once) {
		ev_timer_init(&ps.tick, on_tick, ps.opt.interval_s, ps.opt.interval_s);
		ps.tick.data = &ps;
		ev_timer_start(ps.pump.loop, &ps.tick);
	}
	rc = fp_pump_run(&ps.pump);
	if (rc == FP_EXIT_OK && ps.opt.once && ps.qu.sent != ps.profiles)
		rc = FP_EXIT_SYS;
	if (rc == FP_EXIT_SYS)
		fp_warn("push: the profile was not delivered to %s", ps.opt.url);
	curl_easy_cleanup(ps.curl);
	curl_global_cleanup();
	fp_strtab_free(&ps.stacks);
	if (ps.opt.format == FMT_PPROF)
		fp_pprof_free(&ps.pprof);
	fp_fold_buf_free(&ps.folded);
	fp_fold_buf_free(&ps.trim_stack);
	fp_fold_buf_free(&ps.trim_kinds);
	FP_FREE_ALL(ps.auth_header, ps.userpwd, ps.tenant_header);
	free(ps.qu.q);
	return rc;
}
