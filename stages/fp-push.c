/* fp-push: a filter stage: pushes the samples to a Pyroscope-compatible
 * /ingest endpoint, one profile per interval, while passing every record on.
 *
 * Interface:
 *	fp-push URL [--app NAME] [--label KEY=VALUE]... [--interval S]
 *		[--format folded|pprof] [--queue N] [--retries N] [--timeout S]
 *		[--drain S] [--sample-rate HZ] [--spy-name NAME] [--once [--until T]]
 *
 * Input: a flamepipe stream (fifo/PROTOCOL.md). Every record is written to
 * stdout unchanged and in order; the network never holds it back: requests
 * are made by a sender thread from a bounded queue.
 *
 * The HTTP API (docs/fp-push.md): Pyroscope's /ingest, as Grafana Pyroscope
 * documents it and its /ingest handler reads it:
 *	POST URL/ingest?name=APP{k=v,...}&from=UNIX_S&until=UNIX_S
 *	     &sampleRate=HZ&spyName=flamepipe&units=samples&aggregationType=sum
 *	     &format=folded|pprof
 *	body: folded `comm;frame;...;leaf COUNT` lines (text/plain), or a
 *	      gzip'd pprof profile.proto (application/octet-stream)
 * from/until: the wall-clock seconds of the interval, back to back (until is
 * rounded up to the next second, the next profile's from is this until; an
 * interval without samples sends nothing);
 * --once: until = --until (default now), from = until - the samples' span. sampleRate: --sample-rate,
 * else 1e9 / the first clock event's period (cpu-clock, task-clock), else the
 * profile's samples per second over its time span, else 100.
 *
 * Delivery: a 2xx answer is success; no answer, 429 or 5xx is retried
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

#define USAGE "usage: fp-push URL [--app NAME] [--label KEY=VALUE]... [--interval S]\n" \
	"\t[--format folded|pprof] [--queue N] [--retries N] [--timeout S] [--drain S]\n" \
	"\t[--sample-rate HZ] [--spy-name NAME] [--once [--until UNIX_S]]"
#define STAGE_NAME "push"
#define DEFAULT_APP "flamepipe.cpu"
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
#define HTTP_SERVER_MIN 500

enum format { FMT_FOLDED, FMT_PPROF };

struct options {
	const char *url, *app, *spy;
	const char *labels[MAX_LABELS];
	size_t nlabels;
	double interval_s, drain_s;
	enum format format;
	unsigned queue, retries, timeout_s;
	uint64_t sample_rate;		/* 0: from the periods */
	int once;
	uint64_t until;			/* --once: 0 = now */
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
	struct fp_strtab stacks;	/* folded stack -> count */
	struct fp_pprof pprof;
	struct fp_fold_buf folded;
	uint64_t samples, first_ns, last_ns, clock_period;
	uint64_t wall_from;		/* the interval's from: the last one's until */
	uint64_t profiles;
	uint64_t lost_seen;		/* losses already warned about */
	struct queue qu;
	pthread_t sender;
	CURL *curl;
	char name[NAME_MAX_LEN];	/* APP{k=v,...} */
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

	snprintf(out, n, "%.*s%s?name=%s&from=%" PRIu64 "&until=%" PRIu64 "&sampleRate=%" PRIu64
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
	struct curl_slist *hdr = curl_slist_append(NULL, ps->opt.format == FMT_PPROF ?
		"Content-Type: application/octet-stream" : "Content-Type: text/plain");
	long code = 0;
	CURLcode rc;

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
	rc = curl_easy_perform(ps->curl);
	if (rc == CURLE_OK)
		curl_easy_getinfo(ps->curl, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(hdr);
	if (rc != CURLE_OK)
		return 0;
	if (code >= HTTP_OK_MIN && code <= HTTP_OK_MAX)
		return 1;
	if (code == HTTP_TOO_MANY || code >= HTTP_SERVER_MIN)
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

static void profile_reset(struct push *ps)
{
	fp_strtab_clear(&ps->stacks);
	if (ps->opt.format == FMT_PPROF) {
		fp_pprof_free(&ps->pprof);
		fp_pprof_init(&ps->pprof);
	}
	ps->samples = 0;
}

static void on_sample(struct push *ps, const char *line, size_t len)
{
	static const struct fp_fold_opts plain = FP_FOLD_OPTS_DEFAULT;
	struct fp_sample s;

	if (fp_sample_parse(line, len, &s) < 0)
		return;		/* fp-read's output: malformed ones are counted there */
	if (ps->opt.format == FMT_PPROF) {
		if (fp_pprof_add(&ps->pprof, &s) < 0)
			return;
	} else {
		if (fp_fold_build(&ps->folded, &s, &plain, NULL) < 0)
			return;
		fp_strtab_add(&ps->stacks, fp_strtab_intern(&ps->stacks, ps->folded.p,
							     ps->folded.len, NULL), 1);
	}
	if (!ps->samples++ || s.time_ns < ps->first_ns)
		ps->first_ns = s.time_ns;
	if (s.time_ns > ps->last_ns || ps->samples == 1)
		ps->last_ns = s.time_ns;
	if (!ps->clock_period && fp_export_clock_event(s.event.p, s.event.n) && s.period > 1)
		ps->clock_period = s.period;
}

static uint64_t sample_rate(const struct push *ps)
{
	if (ps->opt.sample_rate)
		return ps->opt.sample_rate;
	if (ps->clock_period)
		return (FP_NSEC_PER_SEC + ps->clock_period / 2) / ps->clock_period;
	/* another event: the samples per second of this profile */
	uint64_t span_s = (ps->last_ns - ps->first_ns) / FP_NSEC_PER_SEC;
	return span_s && ps->samples / span_s ? ps->samples / span_s : DEFAULT_RATE;
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
	fp_sink_init_mem(&s);
	profile_body(ps, &s);
	it = (struct item){ s.buf, s.len, ps->wall_from, now, sample_rate(ps), ps->samples };
	if (ps->opt.once) {
		uint64_t span = (ps->last_ns - ps->first_ns) / FP_NSEC_PER_SEC;

		it.until = ps->opt.until ? ps->opt.until : now;
		it.from = it.until > span ? it.until - span : 0;
	}
	if (it.until <= it.from) {	/* Pyroscope wants from < until */
		if (ps->opt.once)
			it.from = it.until - 1;
		else
			it.until = it.from + 1;
	}
	ps->wall_from = it.until;	/* intervals back to back */
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
	if (failed + dropped > ps->lost_seen) {
		fp_pump_warn(&ps->pump, "%" PRIu64 " profile(s) (%" PRIu64 " samples) not delivered "
			     "to %s so far: %" PRIu64 " failed after retries, %" PRIu64 " dropped "
			     "from the full queue", failed + dropped, sdropped, ps->opt.url,
			     failed, dropped);
		ps->lost_seen = failed + dropped;
	}
	fp_write_info(fp_out_wr(&ps->pump.out), STAGE_NAME, (const struct fp_stat[]){
		{ "profiles", ps->profiles }, { "sent", sent }, { "retries", retries },
		{ "failed", failed }, { "dropped", dropped }, { "samples_sent", ssent },
		{ "samples_dropped", sdropped } }, 7);
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
		fp_die(FP_EXIT_USAGE, "--label: '%s': KEY is [A-Za-z_][A-Za-z0-9_.]*, VALUE "
		       "[A-Za-z0-9_.:/@+-]+", kv);
	if (!strcmp(key, "__name__"))
		fp_die(FP_EXIT_USAGE, "--label: __name__ is the application name: use --app");
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

static void opt_app(void *ctx, const char *opt, const char *arg)
{
	struct options *o = ctx;

	if (!name_chars_ok(arg, "_.-") || strlen(arg) >= LABEL_MAX)
		fp_die(FP_EXIT_USAGE, "--app: want [A-Za-z0-9_.-]+, got '%s'", arg);
	o->app = arg;
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

	*(strcmp(opt, "drain") ? &o->interval_s : &o->drain_s) = parse_seconds(opt, arg, MAX_INTERVAL_S);
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
	static const char *const formats[] = { "folded", "pprof", NULL };	/* enum order */
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
		{ NULL },
	};
	int first;

	*o = (struct options){ .app = DEFAULT_APP, .spy = DEFAULT_SPY,
			       .interval_s = DEFAULT_INTERVAL_S, .drain_s = DEFAULT_DRAIN_S,
			       .queue = DEFAULT_QUEUE, .retries = DEFAULT_RETRIES,
			       .timeout_s = DEFAULT_TIMEOUT_S };
	first = fp_opts_parse(argc, argv, options, USAGE, 1, o);
	if (first != argc - 1)
		fp_die(FP_EXIT_USAGE, "%s", USAGE);
	o->url = argv[first];
	if (strncmp(o->url, "http://", 7) && strncmp(o->url, "https://", 8))
		fp_die(FP_EXIT_USAGE, "URL: want http://HOST[:PORT][/PATH], got '%s'", o->url);
	if (strlen(o->url) > URL_MAX / 2)
		fp_die(FP_EXIT_USAGE, "URL: longer than %d bytes", URL_MAX / 2);
}

/* APP{k=v,...} (Pyroscope's name parameter). */
static void build_name(struct push *ps)
{
	size_t n = (size_t)snprintf(ps->name, sizeof ps->name, "%s", ps->opt.app);

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
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0 || !(ps.curl = curl_easy_init()))
		fp_die(FP_EXIT_SYS, "push: cannot initialise libcurl");
	fp_strtab_init(&ps.stacks);
	if (ps.opt.format == FMT_PPROF)
		fp_pprof_init(&ps.pprof);
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
	free(ps.qu.q);
	return rc;
}
