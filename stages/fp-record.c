/* fp-record: keep every sample that passes by in a recording on disk.
 *
 * Interface:
 *	fp-record --output FILE [--flush-interval MS] [--max-size BYTES]
 *	          [--keep DURATION] [--stats FILE] [--level N] [--name NAME]
 *	          < stream > stream
 *
 * A tee: every record is passed on unchanged and in order (the stage can
 * sit anywhere in a chain; `flamepipe live` puts it right after fp-read).
 * The S records are also appended to FILE in batches (a P record of the
 * stack-id stream, fifo/PROTOCOL.md, as the S record it stands for, so a
 * recording is always S records): one gzip member per
 * batch, written when the batch is --flush-interval old (default
 * FLUSH_INTERVAL_MS) and the input has nothing more right now, when it
 * holds BATCH_MAX bytes, and at the end of input. The format
 * (recording/fp_recording.h) makes FILE a capture every flamepipe command reads
 * (fp-read knows it), indexed by time, and readable up to its last batch
 * whenever the recorder dies.
 *
 * Retention: --max-size BYTES (k/M/G) keeps the recording's disk use at
 * most BYTES (plus one file system block), --keep DURATION (s/m/h/d)
 * keeps the newest DURATION of samples; the oldest batches are dropped
 * (their blocks freed with fallocate PUNCH_HOLE) before a new one is
 * written, never the newest one.
 *
 * Memory: the time index is the file's (member headers); the recorder
 * keeps totals only, and with retention 32 bytes for each batch it may
 * still drop (bounded by --keep / --max-size). Flat over hours without
 * them (tests/t7405).
 *
 * At the end of input: `I record recorded= batches= bytes= kept_batches=
 * kept_samples= kept_bytes= kept_from_ns= kept_to_ns= retention_dropped=
 * capture_from_ns= capture_to_ns= idle= failed= appended_to= unresolved=` downstream
 * (recorded= counts the whole file, appended_to= what it held before), and with --stats FILE the same
 * fields plus what the stream said of the source (read=, dropped=, lost=,
 * from the last `I read` record) as key=value lines, written atomically.
 *
 * An existing recording is appended to, never truncated: a recorder that
 * is restarted (the runner's restart=on-failure, `flamepipe ctl restart`)
 * goes on where the last one stopped: its batches continue the sequence
 * numbers, samples_before and capture start of the file's last good
 * batch, and an incomplete last batch (the old recorder was killed while
 * writing it) is cut off first. A non-empty FILE that is not a recording
 * is refused (exit 111), not overwritten. A new FILE is made 0600 (as
 * perf makes perf.data): a system-wide capture is for its owner only.
 *
 * A stack-id stream that begins mid-way (the recorder was started or
 * restarted after the source defined its ids): a P record of an id no K
 * record defined cannot be turned into a sample. It is counted
 * (unresolved=, in the I record and the stats file) and told once in a W
 * record, never dropped silently; the runner gives a restartable chain
 * S records (fifo/PROTOCOL.md, Negotiation), where this cannot happen.
 *
 * Errors: a failed write (disk full) stops the recording (W record and
 * one warning) but never the stream: the chain goes on.
 * Exit codes: 0 ok, 100 usage, 111 FILE cannot be created, 141 the reader
 * went away.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fp_error.h"
#include "fp_fmt.h"
#include "fp_idle.h"
#include "fp_io.h"
#include "fp_opts.h"
#include "fp_record.h"
#include "fp_tails.h"
#include "fp_recording.h"

#define USAGE                                                                       \
	"usage: fp-record --output FILE [--flush-interval MS] [--max-size BYTES]\n" \
	"                 [--keep DURATION] [--stats FILE] [--level N] [--name NAME]"

#define FLUSH_INTERVAL_MS 1000
#define FLUSH_INTERVAL_MIN_MS 10
#define FLUSH_INTERVAL_MAX_MS 60000
#define BATCH_MAX (4u << 20) /* uncompressed bytes: then write at once */
#define MEMBERS_INITIAL 256
#define DEFAULT_LEVEL 6 /* gzip's own default */

struct recorder {
	struct fp_pump *pump;
	const char *path, *stats_path;
	int fd, failed, level;
	double interval; /* s */
	uint64_t max_size, keep_ns;
	ev_timer flush_w;
	/* the batch being gathered */
	char *batch;
	size_t len, cap;
	uint64_t b_min, b_max, b_samples, b_first;
	uint64_t interval_ns;
	ev_tstamp b_started;
	/* the source's C events line (perf report's event order), kept in
	 * every batch after its header so that a reader of any part of the
	 * recording knows the capture's first event; NULL if none came */
	char *events;
	size_t events_len;
	/* what was written */
	uint64_t seq, recorded, bytes, capture_min, capture_max;
	uint64_t retention_dropped;
	uint64_t idle; /* idle samples recorded (fifo/fp_idle.h) */
	/* What the file keeps: totals, and with --max-size or --keep the
	 * batches retention may drop (kept[first..n), oldest first); without
	 * them no batch is held, so memory stays flat however long the
	 * capture (the file's own index is on disk, fp_recording.h) */
	struct kept_batch *kept;
	size_t first, n, cap_members;
	uint64_t kept_batches, kept_samples, kept_from, kept_to;
	uint64_t kept_bytes, punched_to;
	/* the compressed batch, reused (fp_rec_encode_into) */
	unsigned char *enc;
	size_t enc_cap;
	int punch_warned;
	/* the source's own counts, from the last `I read` record */
	uint64_t src_samples, src_dropped, src_lost;
	/* ... of the sources before the last `C restarted read` (a restarted
	 * source unit counts from 0 again, runner/unit.c) */
	uint64_t src_base_samples, src_base_dropped, src_base_lost;
	uint64_t appended_to;  /* samples the file held when we opened it */
	uint64_t unresolved;   /* P records of ids never defined to us */
	uint64_t out_of_span;  /* samples over FP_REC_SPAN_MAX from the rest */
	struct fp_tails tails; /* K definitions of the stack-id stream */
	uint8_t *tail_idle;    /* by K id: TAIL_IDLE_UNKNOWN, _NO, _YES */
	size_t tail_idle_n;
};

enum { TAIL_IDLE_UNKNOWN, TAIL_IDLE_NO, TAIL_IDLE_YES };

/* A batch on disk, as retention needs it: 32 bytes (one a second at the
 * default --flush-interval: --keep 1d holds 2.7 MiB of them). */
struct kept_batch {
	uint64_t offset, min_ns, max_ns;
	uint32_t length, samples; /* a batch is at most BATCH_MAX and a line */
};

static int retention(const struct recorder *r)
{
	return r->max_size || r->keep_ns;
}

/* A batch written (or found in the file on start): into the totals, and
 * into kept[] when retention may drop it. */
static void kept_push(struct recorder *r, const struct fp_rec_member *m)
{
	r->kept_batches++;
	r->kept_samples += m->samples;
	r->kept_bytes += m->length;
	if (m->min_ns < r->kept_from)
		r->kept_from = m->min_ns;
	if (m->max_ns > r->kept_to)
		r->kept_to = m->max_ns;
	if (!retention(r))
		return;
	if (r->n == r->cap_members) {
		r->cap_members = r->cap_members ? r->cap_members * 2 : MEMBERS_INITIAL;
		r->kept = fp_xrealloc(r->kept, r->cap_members * sizeof *r->kept);
	}
	r->kept[r->n++] = (struct kept_batch){
		.offset = m->offset,
		.min_ns = m->min_ns,
		.max_ns = m->max_ns,
		.length = (uint32_t)m->length,
		.samples = (uint32_t)m->samples,
	};
}

static void batch_append(struct recorder *r, const char *p, size_t n)
{
	if (r->len + n + 1 > r->cap) {
		while (r->len + n + 1 > r->cap)
			r->cap = r->cap ? r->cap * 2 : 1u << 16;
		r->batch = fp_xrealloc(r->batch, r->cap);
	}
	memcpy(r->batch + r->len, p, n);
	r->len += n;
}

static void batch_start(struct recorder *r)
{
	r->len = 0;
	batch_append(r, FP_PROTO_HEADER "\n", sizeof FP_PROTO_HEADER);
	if (r->events) {
		batch_append(r, r->events, r->events_len);
		batch_append(r, "\n", 1);
	}
	r->b_min = UINT64_MAX;
	r->b_max = 0;
	r->b_samples = 0;
}

static void fail(struct recorder *r, const char *what)
{
	if (r->failed)
		return;
	r->failed = 1;
	fp_pump_warn(r->pump, "%s %s: %s: the recording stops here (the stream goes on)", what,
		     r->path, strerror(errno));
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Drops the oldest batches while the recording would be over its limits
 * with the batch about to be written (pending bytes, its newest sample at
 * pending_max_ns), which is then the newest and stays. Before the write,
 * not after: the disk use never passes --max-size (plus a block), not
 * even between a write and its punch, and a disk full at the limit has
 * the room for it. */
static void apply_retention(struct recorder *r, uint64_t pending, uint64_t pending_max_ns)
{
	uint64_t punch_to = r->punched_to;

	while (r->first < r->n) {
		const struct kept_batch *m = &r->kept[r->first];
		int over_size = r->max_size && r->kept_bytes + pending > r->max_size;
		int too_old = r->keep_ns && m->max_ns + r->keep_ns < pending_max_ns;

		if (!over_size && !too_old)
			break;
		r->kept_bytes -= m->length;
		r->kept_batches--;
		r->kept_samples -= m->samples;
		r->retention_dropped += m->samples;
		punch_to = m->offset + m->length;
		r->first++;
	}
	if (punch_to > r->punched_to) {
		if (fallocate(r->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
			      (off_t)punch_to) < 0 &&
		    !r->punch_warned) {
			r->punch_warned = 1;
			fp_pump_warn(
				r->pump,
				"retention: cannot free the oldest batches of %s "
				"(fallocate PUNCH_HOLE: %s): its disk use grows past the limit",
				r->path, strerror(errno));
		}
		r->punched_to = punch_to;
	}
	if (r->first > r->n / 2 && r->first > MEMBERS_INITIAL) {
		memmove(r->kept, r->kept + r->first, (r->n - r->first) * sizeof *r->kept);
		r->n -= r->first;
		r->first = 0;
	}
}

static void flush_batch(struct recorder *r)
{
	if (!r->b_samples || r->failed) {
		if (r->failed)
			batch_start(r);
		return;
	}
	struct fp_rec_member m = {
		.offset = r->bytes,
		.min_ns = r->b_min,
		.max_ns = r->b_max,
		.samples = r->b_samples,
		.seq = r->seq,
		.samples_before = r->recorded,
	};

	if (r->b_min < r->capture_min)
		r->capture_min = r->b_min;
	if (r->b_max > r->capture_max)
		r->capture_max = r->b_max;
	m.capture_min_ns = r->capture_min;
	fp_rec_encode_into(r->batch, r->len, &m, r->level, &r->enc, &r->enc_cap);
	if (retention(r))
		apply_retention(r, m.length, m.max_ns);
	if (write_all(r->fd, r->enc, m.length) < 0) {
		int saved = errno;

		/* readers ignore a partial member; cut it off if we can */
		if (ftruncate(r->fd, (off_t)r->bytes) < 0)
			fp_warn_sys("cannot cut the partial batch off %s", r->path);
		errno = saved;
		fail(r, "cannot write");
		batch_start(r);
		return;
	}
	r->bytes += m.length;
	r->recorded += m.samples;
	r->seq++;
	kept_push(r, &m);
	batch_start(r);
}

/* `I read samples=.. dropped=.. lost_events=..`: the source's counts */
/* I read ...: the source's counts of samples, drops and lost events. */
static void note_read_stats(struct recorder *r, const char *line, size_t len)
{
	struct fp_info info;

	if (fp_info_parse(line, len, &info) < 0 || !fp_str_eq(info.stage, "read"))
		return;
	fp_info_get(&info, "samples", &r->src_samples);
	fp_info_get(&info, "dropped", &r->src_dropped);
	fp_info_get(&info, "lost_events", &r->src_lost);
}

/* `C restarted read`: the source starts counting again. */
static int source_restarted(const char *line, size_t len)
{
	struct fp_control c;

	return fp_control_parse(line, len, &c) == 0 && c.kind == FP_CTL_RESTARTED &&
	       fp_str_eq(c.arg[0], "read");
}

/* Before a valid sample's text goes into the batch: a batch spans one
 * interval of sample time (aligned: with the default 1 s, one heatmap
 * column), however fast samples come; a late sample of an earlier
 * interval joins the current batch (its min_ns says so), it does not cut
 * it. */
/* 0 if a sample at t keeps the recording within FP_REC_SPAN_MAX (what its
 * readers take for damage past it: fp_recording.h), else -1, counted
 * (out_of_span=) and said once: a sample a reader would skip is never
 * written as if it were recorded. */
static int within_span(struct recorder *r, struct fp_pump *p, uint64_t t)
{
	uint64_t lo = r->capture_min, hi = r->seq ? r->capture_max : 0;

	if (r->b_samples) {
		lo = r->b_min < lo ? r->b_min : lo;
		hi = r->b_max > hi ? r->b_max : hi;
	}
	if (lo == UINT64_MAX)
		return 0; /* the first sample */
	lo = t < lo ? t : lo;
	hi = t > hi ? t : hi;
	if (fp_rec_within_span(lo, hi))
		return 0;
	if (!r->out_of_span++)
		fp_pump_warn(p,
			     "a sample at %llu ns lies more than a year of sample time from "
			     "the others: samples so far apart are counted (out_of_span=) and "
			     "not recorded",
			     (unsigned long long)t);
	return -1;
}

static void sample_begin(struct recorder *r, struct fp_pump *p, const struct fp_sample *s)
{
	if (r->b_samples && s->time_ns / r->interval_ns > r->b_first / r->interval_ns)
		flush_batch(r);
	if (!r->b_samples) {
		r->b_first = s->time_ns;
		r->b_started = ev_now(p->loop);
	}
}

/* After it (its LF included): the batch's counts and span. */
static void sample_end(struct recorder *r, const struct fp_sample *s, int idle)
{
	r->b_samples++;
	r->idle += idle != 0;
	if (s->time_ns < r->b_min)
		r->b_min = s->time_ns;
	if (s->time_ns > r->b_max)
		r->b_max = s->time_ns;
	if (r->len >= BATCH_MAX)
		flush_batch(r);
}

/* A valid S record into the current batch (line: its text, no LF). */
static void record_sample(struct recorder *r, struct fp_pump *p, const struct fp_sample *s,
			  const char *line, size_t len)
{
	if (within_span(r, p, s->time_ns) < 0)
		return;
	sample_begin(r, p, s);
	batch_append(r, line, len);
	batch_append(r, "\n", 1);
	sample_end(r, s, fp_sample_is_idle(s));
}

/* Whether the samples of tail id are idle (fifo/fp_idle.h): the rule
 * reads only the tail, so it runs once per K definition. */
static int tail_is_idle(struct recorder *r, uint32_t id, const struct fp_sample *s)
{
	if (id >= r->tail_idle_n) {
		size_t n = r->tail_idle_n ? r->tail_idle_n : MEMBERS_INITIAL;
		while (n <= id)
			n *= 2;
		r->tail_idle = fp_xrealloc(r->tail_idle, n);
		memset(r->tail_idle + r->tail_idle_n, TAIL_IDLE_UNKNOWN, n - r->tail_idle_n);
		r->tail_idle_n = n;
	}
	if (r->tail_idle[id] == TAIL_IDLE_UNKNOWN)
		r->tail_idle[id] = fp_sample_is_idle(s) ? TAIL_IDLE_YES : TAIL_IDLE_NO;
	return r->tail_idle[id] == TAIL_IDLE_YES;
}

/* "S TAB time TAB pid TAB tid TAB cpu TAB period TAB" of a P record's
 * numbers, ending at end, in the decimal every writer writes
 * (lib/fp_fmt.h); returns its start. */
static char *s_head(char *end, const struct fp_tail_ref *ref)
{
	*--end = '\t';
	end = fp_fmt_u64(end, ref->period);
	*--end = '\t';
	end = fp_fmt_i64(end, ref->cpu);
	*--end = '\t';
	end = fp_fmt_i64(end, ref->tid);
	*--end = '\t';
	end = fp_fmt_i64(end, ref->pid);
	*--end = '\t';
	end = fp_fmt_u64(end, ref->time_ns);
	*--end = '\t';
	*--end = 'S';
	return end;
}

/* "S", five numbers and six TABs */
#define S_HEAD_MAX (1 + 2 * FP_FMT_U64_MAX + 3 * FP_FMT_I64_MAX + 6)

/* The stack-id stream (fifo/PROTOCOL.md): K and P go on unchanged; a P
 * is recorded as the S record it stands for ("S head tail-of-id"), so a
 * recording is always S records: the head from the P record's numbers,
 * the tail the K definition's text as it came (event, comm, kinds,
 * stack: contiguous in fp_tails), copied once, into the batch. Bad K/P
 * records are the next stages' to report. */
static void record_tail_sample(struct recorder *r, struct fp_pump *p, const char *line, size_t len)
{
	struct fp_tail_ref ref;
	struct fp_sample s;
	char head[S_HEAD_MAX], *end = head + sizeof head;

	if (fp_tail_ref_parse(line, len, &ref) < 0)
		return;
	int rc = fp_tails_sample(&r->tails, &ref, &s);

	if (rc == FP_TAILS_UNDEFINED && !r->unresolved++)
		fp_pump_warn(p,
			     "a sample names stack id %u, which this recorder never saw defined "
			     "(it started after the source did): such samples are counted "
			     "(unresolved=) and not recorded",
			     (unsigned)ref.id);
	if (rc != FP_TAILS_OK)
		return;
	if (within_span(r, p, s.time_ns) < 0)
		return;
	const char *h = s_head(end, &ref);

	sample_begin(r, p, &s);
	batch_append(r, h, (size_t)(end - h));
	const char *tail_end = s.cgroup.n ? s.cgroup.p + s.cgroup.n : s.stack.p + s.stack.n;
	batch_append(r, s.event.p, (size_t)(tail_end - s.event.p));
	batch_append(r, "\n", 1);
	sample_end(r, &s, tail_is_idle(r, ref.id, &s));
}

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	struct recorder *r = p->ctx;
	struct fp_sample s;
	enum fp_rec tag = fp_record_tag(line, &len);

	fp_write_line(fp_out_wr(&p->out), line, len);
	if (tag == FP_REC_INFO) {
		note_read_stats(r, line, len);
	} else if (tag == FP_REC_CONTROL && source_restarted(line, len)) {
		r->src_base_samples += r->src_samples;
		r->src_base_dropped += r->src_dropped;
		r->src_base_lost += r->src_lost;
		r->src_samples = r->src_dropped = r->src_lost = 0;
	} else if (tag == FP_REC_CONTROL && !r->events && r->recorded == r->appended_to &&
		   !r->b_samples) {
		struct fp_control c;
		if (fp_control_parse(line, len, &c) == 0 && c.kind == FP_CTL_EVENTS) {
			r->events = fp_xstrndup(line, len);
			r->events_len = len;
			batch_start(r); /* the batch holds no sample yet */
		}
	} else if (r->failed) {
		return;
	} else if (tag == FP_REC_SAMPLE && fp_sample_parse(line, len, &s) == 0) {
		record_sample(r, p, &s, line, len);
	} else if (tag == FP_REC_TAIL) {
		uint32_t id;

		if (fp_tails_define_line(&r->tails, line, len, &id) == FP_TAILS_OK &&
		    id < r->tail_idle_n)
			r->tail_idle[id] = TAIL_IDLE_UNKNOWN; /* a new definition */
	} else if (tag == FP_REC_TAIL_SAMPLE) {
		record_tail_sample(r, p, line, len);
	}
}

static void on_idle(struct fp_pump *p)
{
	struct recorder *r = p->ctx;

	if (r->b_samples && ev_now(p->loop) - r->b_started >= r->interval)
		flush_batch(r);
}

/* A steady stream may never leave the input idle: the timer writes too. */
static void on_flush_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct recorder *r = w->data;

	(void)loop;
	(void)revents;
	on_idle(r->pump);
}

/* The end-of-input fields, `key=value` joined by sep. */
enum { N_STATS = 16 };

/* The recorder's statistics: the I record's and the stats file's fields. */
static void recorder_stats(const struct recorder *r, struct fp_stat st[N_STATS])
{
	uint64_t from = r->kept_from, to = r->kept_to;

	if (retention(r)) { /* the span of what retention left */
		from = UINT64_MAX;
		to = 0;
		for (size_t i = r->first; i < r->n; i++) {
			if (r->kept[i].min_ns < from)
				from = r->kept[i].min_ns;
			if (r->kept[i].max_ns > to)
				to = r->kept[i].max_ns;
		}
	}
	const struct fp_stat v[N_STATS] = {
		{ "recorded", r->recorded },
		{ "batches", r->seq },
		{ "bytes", r->bytes },
		{ "kept_batches", r->kept_batches },
		{ "kept_samples", r->kept_samples },
		{ "kept_bytes", r->kept_bytes },
		{ "kept_from_ns", r->kept_batches ? from : 0 },
		{ "kept_to_ns", to },
		{ "retention_dropped", r->retention_dropped },
		{ "capture_from_ns", r->seq ? r->capture_min : 0 },
		{ "capture_to_ns", r->capture_max },
		{ "idle", r->idle },
		{ "failed", (uint64_t)r->failed },
		{ "appended_to", r->appended_to },
		{ "unresolved", r->unresolved },
		{ "out_of_span", r->out_of_span },
	};
	memcpy(st, v, sizeof v);
}

/* The stats file: key=value lines. */
static void format_stats(const struct recorder *r, char *buf, size_t n)
{
	struct fp_stat st[N_STATS];
	size_t used = 0;

	recorder_stats(r, st);
	buf[0] = '\0';
	for (size_t i = 0; i < N_STATS && used < n; i++)
		used += (size_t)snprintf(buf + used, n - used, "%s%s=%llu", i ? "\n" : "",
					 st[i].key, (unsigned long long)st[i].value);
}

#define STATS_MAX 1024

static void write_stats_file(const struct recorder *r, const char *fields)
{
	size_t n = strlen(r->stats_path);
	char *tmp = fp_xmalloc(n + 5);
	FILE *f;

	memcpy(tmp, r->stats_path, n);
	memcpy(tmp + n, ".tmp", 5);
	f = fopen(tmp, "w");
	if (!f) {
		fp_warn_sys("cannot write %s", tmp);
		free(tmp);
		return;
	}
	fprintf(f, "%s\nread=%llu\ndropped=%llu\nlost=%llu\n", fields,
		(unsigned long long)(r->src_base_samples + r->src_samples),
		(unsigned long long)(r->src_base_dropped + r->src_dropped),
		(unsigned long long)(r->src_base_lost + r->src_lost));
	if (fclose(f) != 0 || rename(tmp, r->stats_path) < 0)
		fp_warn_sys("cannot write %s", r->stats_path);
	free(tmp);
}

static void on_eof(struct fp_pump *p)
{
	struct recorder *r = p->ctx;
	char fields[STATS_MAX];

	ev_timer_stop(p->loop, &r->flush_w);
	flush_batch(r);
	if (!r->failed && fdatasync(r->fd) < 0 && errno != EINVAL)
		fail(r, "cannot sync");
	struct fp_stat st[N_STATS];

	recorder_stats(r, st);
	fp_write_info(fp_out_wr(&p->out), p->stage, st, N_STATS);
	if (r->stats_path) {
		format_stats(r, fields, sizeof fields);
		write_stats_file(r, fields);
	}
}

/* FILE already holds a recording: go on after its last good batch (the
 * sequence, samples_before and capture start continue; retention sees
 * its batches), cutting an incomplete last batch off. Damage inside it
 * stays for readers to skip. */
static void open_existing(struct recorder *r)
{
	struct fp_rec_index ix = { 0 };
	struct stat st;

	if (fstat(r->fd, &st) < 0)
		fp_die_sys(FP_EXIT_SYS, "cannot read recording %s", r->path);
	if (!S_ISREG(st.st_mode) || st.st_size == 0)
		return;
	if (!fp_rec_is_recording(r->fd))
		fp_die(FP_EXIT_SYS,
		       "%s exists and is not a flamepipe recording: not overwritten "
		       "(remove it, or record to another file)",
		       r->path);
	if (fp_rec_scan(r->fd, &ix) < 0)
		fp_die_sys(FP_EXIT_SYS, "cannot read recording %s", r->path);
	if (ix.end < ix.file_size) {
		fp_warn("%s: cutting off an incomplete last batch (%llu bytes from byte %llu: the "
			"last recorder stopped while writing it)",
			r->path, (unsigned long long)(ix.file_size - ix.end),
			(unsigned long long)ix.end);
		if (ftruncate(r->fd, (off_t)ix.end) < 0)
			fp_die_sys(FP_EXIT_SYS, "cannot cut the incomplete batch off %s", r->path);
	}
	r->bytes = ix.end;
	r->punched_to = ix.start;
	for (size_t i = 0; i < ix.n; i++) {
		const struct fp_rec_member *m = &ix.m[i];

		if (m->seq >= r->seq) { /* the last batch written: go on from it */
			r->seq = m->seq + 1;
			r->recorded = m->samples_before + m->samples;
		}
		if (m->capture_min_ns < r->capture_min)
			r->capture_min = m->capture_min_ns;
		if (m->max_ns > r->capture_max)
			r->capture_max = m->max_ns;
		kept_push(r, m);
	}
	r->appended_to = r->recorded;
	r->retention_dropped = ix.n ? ix.m[0].samples_before : 0;
	if (lseek(r->fd, (off_t)r->bytes, SEEK_SET) < 0)
		fp_die_sys(FP_EXIT_SYS, "cannot append to recording %s", r->path);
	fp_rec_index_free(&ix);
}

static const struct fp_pump_ops record_ops = {
	.line = on_line,
	.eof = on_eof,
	.idle = on_idle,
};

static void opt_interval(void *ctx, const char *opt, const char *arg)
{
	struct recorder *r = ctx;

	r->interval = (double)fp_opt_u64(opt, arg, FLUSH_INTERVAL_MIN_MS, FLUSH_INTERVAL_MAX_MS) /
		      1000.0;
}

static void opt_max_size(void *ctx, const char *opt, const char *arg)
{
	struct recorder *r = ctx;

	r->max_size = fp_rec_size_arg(opt, arg);
}

static void opt_keep(void *ctx, const char *opt, const char *arg)
{
	struct recorder *r = ctx;

	r->keep_ns = fp_rec_duration_arg(opt, arg);
}

static void parse_options(int argc, char **argv, struct recorder *r, const char **name)
{
	const struct fp_opt options[] = {
		{ "output", FP_OPT_STR, &r->path, .short_name = 'o' },
		{ "flush-interval", FP_OPT_FN, .fn = opt_interval },
		{ "max-size", FP_OPT_FN, .fn = opt_max_size },
		{ "keep", FP_OPT_FN, .fn = opt_keep },
		{ "stats", FP_OPT_STR, &r->stats_path },
		{ "level", FP_OPT_UINT, &r->level, 1, 9 },
		{ "name", FP_OPT_NAME, name },
		{ NULL },
	};

	fp_opts_parse(argc, argv, options, USAGE, 0, r);
	if (!r->path)
		fp_die(FP_EXIT_USAGE, "%s", USAGE);
}

int main(int argc, char **argv)
{
	static struct recorder r;
	struct fp_pump p;
	const char *name = "record";
	int rc;

	fp_set_prog(argv[0]);
	r.interval = FLUSH_INTERVAL_MS / 1000.0;
	r.level = DEFAULT_LEVEL;
	r.capture_min = UINT64_MAX;
	r.kept_from = UINT64_MAX;
	parse_options(argc, argv, &r, &name);
	r.interval_ns = (uint64_t)(r.interval * 1e9 + 0.5);
	r.fd = open(r.path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (r.fd < 0)
		fp_die_sys(FP_EXIT_SYS, "cannot create recording %s", r.path);
	open_existing(&r);
	batch_start(&r);

	fp_pump_init(&p, EV_DEFAULT, 0, 1, &record_ops, &r, 0);
	p.stage = name;
	r.pump = &p;
	ev_timer_init(&r.flush_w, on_flush_timer, r.interval, r.interval);
	r.flush_w.data = &r;
	ev_timer_start(p.loop, &r.flush_w);
	fp_tails_init(&r.tails);
	rc = fp_pump_run(&p);
	fp_tails_free(&r.tails);
	free(r.tail_idle);
	close(r.fd);
	free(r.batch);
	free(r.kept);
	free(r.enc);
	free(r.events);
	return rc;
}
