/* pd_read.c: perf.data records to decoded events, in time order
 * (pd_read.h). Attributes, features and names: pd_attr.c.
 *
 * Hot path: a memcpy of a record into an aligned scratch buffer only when
 * it is not 8-byte aligned (perf does not align records in pipe mode; a
 * mapped file's are), a queue entry per timed record, a merge of the
 * round's sorted runs, and a field walk of each sample.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "fp_error.h"
#include "pd_attr.h"
#include "pd_read.h"
#include "pd_zstd.h"

#define HDR_SIZE sizeof(struct perf_event_header)
#define REC_MAX 65536u /* header.size is 16 bits */
#define SCRATCH_WORDS (REC_MAX / 8 + 1)
#define QUEUE_MIN 1024
#define PD_DROP_CHUNK (1u << 20) /* a mapped file's read pages dropped this often */
/* A PERF_RECORD_AUXTRACE record is followed by its payload, which its
 * header.size does not count; the payload size is the first u64. */
#define AUXTRACE_SIZE_OFF HDR_SIZE
/* PERF_RECORD_HEADER_TRACING_DATA (pipe mode): u32 size after the header,
 * then that many bytes not counted in header.size. */
#define TRACING_SIZE_OFF HDR_SIZE
#define PAD8(n) (((n) + 7u) & ~(uint64_t)7)
/* perf's own mark on the FORK records it synthesizes for the tasks running
 * when it starts (tools/perf/util/event.h; the bit of COMM_EXEC). */
#define PD_MISC_FORK_EXEC (1 << 13)

#define PROBLEM_MAX 256               /* a problem's message, at most */
#define MISC_MMAP_BUILD_ID (1u << 14) /* PERF_RECORD_MISC_MMAP_BUILD_ID */
#define MMAP_BUILD_ID_MAX 20

struct pd_queued {
	uint64_t time, seq;
	const unsigned char *rec; /* points into the file, or owned */
	uint32_t len;
	uint32_t owned;
};

void pd_reader_vproblem(struct pd_reader *r, enum pd_problem what, uint64_t off, const char *fmt,
			va_list ap)
{
	char msg[PROBLEM_MAX];

	vsnprintf(msg, sizeof msg, fmt, ap);
	if (what == PD_PROB_FATAL)
		r->failed = 1;
	if (what == PD_PROB_BAD_RECORD)
		r->st.bad_records++;
	if (r->ops->problem)
		r->ops->problem(r->ctx, what, off, msg);
}

void pd_reader_problem(struct pd_reader *r, enum pd_problem what, uint64_t off, const char *fmt,
		       ...)
{
	va_list ap;

	va_start(ap, fmt);
	pd_reader_vproblem(r, what, off, fmt, ap);
	va_end(ap);
}

/* ---- sample_id trailers and sample decoding ---------------------------- */

/* The evsel of a sample: by its id when there are several. */
static const struct pd_evsel *sample_evsel(struct pd_reader *r, const uint64_t *w, size_t nw)
{
	if (r->nevsels <= 1)
		return r->nevsels ? &r->evsels[0] : NULL;
	uint64_t st = r->evsels[0].sample_type;
	size_t pos;
	if (st & PERF_SAMPLE_IDENTIFIER)
		pos = 0;
	else if (st & PERF_SAMPLE_ID)
		pos = !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
		      !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR);
	else
		return &r->evsels[0];
	if (pos >= nw)
		return NULL;
	return pd_evsel_by_id(r, w[pos]);
}

/* Time of a side-band record from its sample_id trailer; 0 if none. */
static int trailer_time(struct pd_reader *r, const uint64_t *w, size_t nw, uint64_t *time)
{
	const struct pd_evsel *ev = r->nevsels ? &r->evsels[0] : NULL;

	if (!ev || !ev->sample_id_all)
		return 0;
	uint64_t st = ev->sample_type;
	if (r->nevsels > 1 && (st & PERF_SAMPLE_IDENTIFIER) && nw >= 1) {
		const struct pd_evsel *e = pd_evsel_by_id(r, w[nw - 1]);
		if (e)
			st = e->sample_type;
	}
	if (!(st & PERF_SAMPLE_TIME))
		return 0;
	size_t back = 1 + !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
		      !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER);
	if (back > nw)
		return 0;
	*time = w[nw - back];
	return 1;
}

/* pid, tid and cpu of a side-band record from its sample_id trailer
 * (the fields before the time, and after it); -1 where it has none. */
static void trailer_task(struct pd_reader *r, const uint64_t *w, size_t nw, int64_t *pid,
			 int64_t *tid, int64_t *cpu)
{
	const struct pd_evsel *ev = r->nevsels ? &r->evsels[0] : NULL;

	*pid = *tid = *cpu = -1;
	if (!ev || !ev->sample_id_all)
		return;
	uint64_t st = ev->sample_type;
	if (r->nevsels > 1 && (st & PERF_SAMPLE_IDENTIFIER) && nw >= 1) {
		const struct pd_evsel *e = pd_evsel_by_id(r, w[nw - 1]);
		if (e)
			st = e->sample_type;
	}
	size_t back = !!(st & PERF_SAMPLE_IDENTIFIER);
	if ((st & PERF_SAMPLE_CPU) && back + 1 <= nw)
		*cpu = (int64_t)(w[nw - back - 1] & 0xffffffffu);
	back += !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID) +
		!!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_TIME);
	if (!(st & PERF_SAMPLE_TID) || back + 1 > nw)
		return;
	*pid = (int32_t)(uint32_t)(w[nw - back - 1] & 0xffffffffu);
	*tid = (int32_t)(uint32_t)(w[nw - back - 1] >> 32);
}

static size_t read_format_words(const struct pd_evsel *ev, const uint64_t *w, size_t left)
{
	uint64_t rf = ev->read_format;
	size_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	size_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);

	if (!(rf & PERF_FORMAT_GROUP))
		return per + times;
	if (left < 1 || w[0] > left)
		return (size_t)-1;
	return 1 + times + (size_t)w[0] * per;
}

#define NEED(n)                              \
	do {                                 \
		if ((n) > (size_t)(end - p)) \
			return -1;           \
	} while (0)

/* Decodes a SAMPLE record (words w[0..nw), header excluded). */
static int decode_sample(const struct pd_evsel *ev, const uint64_t *w, size_t nw,
			 struct pd_sample *s)
{
	const uint64_t *p = w, *end = w + nw;
	uint64_t st = ev->sample_type;

	memset(s, 0, sizeof *s);
	s->ev = ev;
	s->pid = s->tid = s->cpu = -1;
	s->period = 1;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		NEED(1);
		s->id = *p++;
	}
	if (st & PERF_SAMPLE_IP) {
		NEED(1);
		s->ip = *p++;
	}
	if (st & PERF_SAMPLE_TID) {
		NEED(1);
		s->pid = (int32_t)(uint32_t)(*p & 0xffffffffu);
		s->tid = (int32_t)(uint32_t)(*p >> 32);
		p++;
	}
	if (st & PERF_SAMPLE_TIME) {
		NEED(1);
		s->time = *p++;
		s->has_time = 1;
	}
	if (st & PERF_SAMPLE_ADDR) {
		NEED(1);
		p++;
	}
	if (st & PERF_SAMPLE_ID) {
		NEED(1);
		s->id = *p++;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		NEED(1);
		p++;
	}
	if (st & PERF_SAMPLE_CPU) {
		NEED(1);
		s->cpu = (int64_t)(*p & 0xffffffffu);
		p++;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		NEED(1);
		s->period = *p++;
	}
	if (st & PERF_SAMPLE_READ) {
		size_t n = read_format_words(ev, p, (size_t)(end - p));
		NEED(n);
		p += n;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		NEED(1);
		uint64_t nr = *p++;
		NEED(nr);
		s->nr = nr;
		s->chain = p;
		p += nr;
	}
	if (st & PERF_SAMPLE_RAW) {
		NEED(1);
		uint64_t bytes = 4 + (*p & 0xffffffffu); /* u32 size + data */
		NEED(PAD8(bytes) / 8);
		s->raw = (const unsigned char *)p + 4;
		s->raw_size = (uint32_t)(bytes - 4);
		p += PAD8(bytes) / 8;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		NEED(1);
		uint64_t nr = *p++;
		if (ev->branch_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
			NEED(1);
			p++;
		}
		if (nr > (size_t)(end - p) / 3)
			return -1;
		p += nr * 3;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		NEED(1);
		s->regs_abi = *p++;
		if (s->regs_abi) {
			size_t n = (size_t)__builtin_popcountll(ev->regs_user);
			NEED(n);
			s->regs = p;
			s->nregs = n;
			p += n;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		NEED(1);
		uint64_t size = *p++;
		if (size) {
			/* before PAD8: a size near 2^64 wraps it to 0 and the
			 * stack copy would run past the record (fuzz-perfdata) */
			if (size / 8 >= (uint64_t)(end - p))
				return -1;
			NEED(PAD8(size) / 8 + 1);
			s->stack = (const unsigned char *)p;
			p += PAD8(size) / 8;
			uint64_t dyn = *p++;
			s->stack_size = dyn < size ? dyn : size;
		}
	}
	if (!(st & PERF_SAMPLE_CGROUP))
		return 0;
	/* the fields between STACK_USER and CGROUP, in the kernel's order */
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		NEED(1);
		p++;
	}
	if (st & PERF_SAMPLE_DATA_SRC) {
		NEED(1);
		p++;
	}
	if (st & PERF_SAMPLE_TRANSACTION) {
		NEED(1);
		p++;
	}
	if (st & PERF_SAMPLE_REGS_INTR) {
		NEED(1);
		if (*p++) {
			size_t n = (size_t)__builtin_popcountll(ev->regs_intr);
			NEED(n);
			p += n;
		}
	}
	if (st & PERF_SAMPLE_PHYS_ADDR) {
		NEED(1);
		p++;
	}
	NEED(1);
	s->cgroup = *p++;
	s->has_cgroup = 1;
	return 0;
}

/* ---- side-band records --------------------------------------------------- */

/* A NUL-terminated string in [p, end): its length, or -1. */
static long cstr_len(const unsigned char *p, const unsigned char *end)
{
	const unsigned char *z = p < end ? memchr(p, 0, (size_t)(end - p)) : NULL;
	return z ? (long)(z - p) : -1;
}

static int decode_side(struct pd_reader *r, const struct perf_event_header *h,
		       const unsigned char *body, const unsigned char *end, struct pd_event *e)
{
	size_t n = (size_t)(end - body);
	long sl;

	switch (h->type) {
	case PERF_RECORD_COMM:
		if (n < 8 || (sl = cstr_len(body + 8, end)) < 0)
			return -1;
		e->type = PD_EV_COMM;
		e->u.comm.pid = (int32_t)pd_rd32(body);
		e->u.comm.tid = (int32_t)pd_rd32(body + 4);
		e->u.comm.comm = (const char *)body + 8;
		e->u.comm.len = (size_t)sl;
		e->u.comm.exec = !!(h->misc & PERF_RECORD_MISC_COMM_EXEC);
		r->st.comm++;
		return 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (n < 16)
			return -1;
		e->type = h->type == PERF_RECORD_FORK ? PD_EV_FORK : PD_EV_EXIT;
		e->u.fork.pid = (int32_t)pd_rd32(body);
		e->u.fork.ppid = (int32_t)pd_rd32(body + 4);
		e->u.fork.tid = (int32_t)pd_rd32(body + 8);
		e->u.fork.ptid = (int32_t)pd_rd32(body + 12);
		e->u.fork.synthesized = !!(h->misc & PD_MISC_FORK_EXEC);
		if (h->type == PERF_RECORD_FORK)
			r->st.fork++;
		else
			r->st.exit++;
		return 0;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		/* pid tid start len pgoff [maj min ino gen | build-id] [prot flags] file */
		size_t fixed = h->type == PERF_RECORD_MMAP ? 32 : 32 + 24 + 8;
		if (n < fixed || (sl = cstr_len(body + fixed, end)) < 0)
			return -1;
		e->type = PD_EV_MMAP;
		e->u.mmap.pid = (int32_t)pd_rd32(body);
		e->u.mmap.tid = (int32_t)pd_rd32(body + 4);
		e->u.mmap.start = pd_rd64(body + 8);
		e->u.mmap.len = pd_rd64(body + 16);
		e->u.mmap.pgoff = pd_rd64(body + 24);
		e->u.mmap.prot = h->type == PERF_RECORD_MMAP2 ? pd_rd32(body + 56) : 0;
		e->u.mmap.file = (const char *)body + fixed;
		e->u.mmap.file_len = (size_t)sl;
		e->u.mmap.kernel = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
				   PERF_RECORD_MISC_KERNEL;
		e->u.mmap.id = (struct pd_file_id){ 0 };
		/* --buildid-mmap: u8 size, 3 reserved, build_id[20] where
		 * maj min ino gen are otherwise */
		if (h->type == PERF_RECORD_MMAP2 && (h->misc & MISC_MMAP_BUILD_ID)) {
			if (body[32] && body[32] <= MMAP_BUILD_ID_MAX) {
				e->u.mmap.id.build_id = body + 36;
				e->u.mmap.id.build_id_len = body[32];
			}
		} else if (h->type == PERF_RECORD_MMAP2) {
			e->u.mmap.id.maj = pd_rd32(body + 32);
			e->u.mmap.id.min = pd_rd32(body + 36);
			e->u.mmap.id.ino = pd_rd64(body + 40);
			e->u.mmap.id.known = e->u.mmap.id.ino != 0;
		}
		r->st.mmap++;
		return 0;
	}
	case PERF_RECORD_LOST:
		if (n < 16)
			return -1;
		e->type = PD_EV_LOST;
		e->u.lost.lost = pd_rd64(body + 8);
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (n < 8)
			return -1;
		e->type = PD_EV_LOST;
		e->u.lost.lost = pd_rd64(body);
		return 0;
	case PERF_RECORD_KSYMBOL:
		if (n < 16 || (sl = cstr_len(body + 16, end)) < 0)
			return -1;
		e->type = PD_EV_KSYMBOL;
		e->u.ksym.addr = pd_rd64(body);
		e->u.ksym.len = pd_rd32(body + 8);
		e->u.ksym.unregister = !!(pd_rd32(body + 12) >> 16 &
					  PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER);
		e->u.ksym.name = (const char *)body + 16;
		e->u.ksym.name_len = (size_t)sl;
		r->st.ksymbol++;
		return 0;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		e->type = PD_EV_SWITCH;
		trailer_task(r, (const uint64_t *)(const void *)body, n / 8, &e->u.sw.pid,
			     &e->u.sw.tid, &e->u.sw.cpu);
		e->u.sw.out = !!(h->misc & PERF_RECORD_MISC_SWITCH_OUT);
		e->u.sw.preempt = !!(h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
		return 0;
	case PERF_RECORD_CGROUP: /* u64 id, char path[] */
		if (n < 8 || (sl = cstr_len(body + 8, end)) < 0)
			return -1;
		e->type = PD_EV_CGROUP;
		e->u.cgroup.id = pd_rd64(body);
		e->u.cgroup.path = (const char *)body + 8;
		e->u.cgroup.path_len = (size_t)sl;
		r->st.cgroup++;
		return 0;
	}
	return 1; /* not an event we deliver */
}

/* The record as 8-byte aligned words: itself when it is aligned (the
 * records of a mapped file are, and the queue's own copies), else its
 * copy in the scratch buffer. */
static const unsigned char *aligned(struct pd_reader *r, const unsigned char *rec, size_t len)
{
	if (((uintptr_t)rec & 7u) == 0)
		return rec;
	memcpy(r->scratch, rec, len);
	return (const unsigned char *)r->scratch;
}

/* Decodes a queued (or immediate) kernel record and delivers it. */
static void deliver(struct pd_reader *r, const unsigned char *rec, size_t len, uint64_t time,
		    uint64_t off)
{
	const unsigned char *a = aligned(r, rec, len);
	const struct perf_event_header *h = (const void *)a;
	const unsigned char *body = a + HDR_SIZE;
	const uint64_t *w = (const uint64_t *)(const void *)body;
	size_t nw = (len - HDR_SIZE) / 8;
	struct pd_event e;

	memset(&e, 0, sizeof e);
	e.time = time;
	if (h->type == PERF_RECORD_SAMPLE) {
		const struct pd_evsel *ev = sample_evsel(r, w, nw);
		if (!ev) {
			r->st.skipped_unknown_id++;
			pd_reader_problem(r, PD_PROB_BAD_RECORD, off,
					  "sample with an unknown event id");
			return;
		}
		if (decode_sample(ev, w, nw, &e.u.sample) < 0) {
			r->st.skipped_short++;
			pd_reader_problem(r, PD_PROB_BAD_RECORD, off,
					  "sample record of %zu bytes is "
					  "shorter than its sample_type needs",
					  len);
			return;
		}
		e.u.sample.misc = h->misc;
		e.type = PD_EV_SAMPLE;
		r->st.samples++;
	} else {
		int rc = decode_side(r, h, body, a + len, &e);
		if (rc < 0) {
			pd_reader_problem(r, PD_PROB_BAD_RECORD, off,
					  "record type %u of %zu bytes "
					  "is too short",
					  h->type, len);
			return;
		}
		if (rc > 0)
			return;
	}
	if (e.type == PD_EV_LOST) {
		r->st.lost_records++;
		r->st.lost_events += e.u.lost.lost;
	}
	r->ops->event(r->ctx, &e);
}

/* ---- the reorder queue --------------------------------------------------- */

static int cmp_queued(const void *a, const void *b)
{
	const struct pd_queued *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int queued_before(const struct pd_queued *x, const struct pd_queued *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

/* The end of the sorted run of q[0..n) that starts at i. */
static size_t run_end(const struct pd_queued *q, size_t i, size_t n)
{
	while (++i < n && !queued_before(&q[i], &q[i - 1]))
		;
	return i;
}

/* One pass of a bottom-up merge: each two neighbouring runs of src into
 * one in dst. Returns how many runs dst has. */
static size_t merge_runs(const struct pd_queued *src, struct pd_queued *dst, size_t n)
{
	size_t runs = 0;

	for (size_t i = 0; i < n; runs++) {
		size_t mid = run_end(src, i, n), end = mid < n ? run_end(src, mid, n) : n;
		size_t a = i, b = mid, o = i;
		while (a < mid && b < end)
			dst[o++] = queued_before(&src[b], &src[a]) ? src[b++] : src[a++];
		while (a < mid)
			dst[o++] = src[a++];
		while (b < end)
			dst[o++] = src[b++];
		i = end;
	}
	return runs;
}

#define QSORT_RUNS_DIV 8 /* more runs than n / this: qsort */

/* Sorts the queue by (time, arrival). What a round brings is a few
 * sorted runs (perf writes each CPU's buffer in turn) after the sorted
 * rest of the last round: merged in a few linear passes. */
static void sort_queue(struct pd_reader *r)
{
	size_t n = r->qn, runs = 0;

	for (size_t i = 0; i < n; runs++)
		i = run_end(r->q, i, n);
	if (runs <= 1)
		return;
	if (runs > n / QSORT_RUNS_DIV) {
		qsort(r->q, n, sizeof r->q[0], cmp_queued);
		return;
	}
	if (r->qtmp_cap < n) {
		r->qtmp_cap = r->qcap;
		r->qtmp = fp_xrealloc(r->qtmp, r->qtmp_cap * sizeof *r->qtmp);
	}
	struct pd_queued *src = r->q, *dst = r->qtmp;
	while (runs > 1) {
		runs = merge_runs(src, dst, n);
		struct pd_queued *t = src;
		src = dst;
		dst = t;
	}
	if (src != r->q)
		memcpy(r->q, src, n * sizeof *src);
}

/* Delivers every queued event with time <= limit, oldest first. */
static void flush_until(struct pd_reader *r, uint64_t limit)
{
	if (!r->qn)
		return;
	sort_queue(r);
	size_t i = 0;
	for (; i < r->qn && r->q[i].time <= limit; i++) {
		struct pd_queued *q = &r->q[i];
		r->delivering = i + 1;
		deliver(r, q->rec, q->len, q->time, 0);
		r->delivering = 0;
		r->last_flushed = q->time;
		r->flushed_any = 1;
		r->qbytes -= q->len;
		if (q->owned)
			free((void *)q->rec);
	}
	memmove(r->q, r->q + i, (r->qn - i) * sizeof r->q[0]);
	r->qn -= i;
}

void pd_reader_peek_samples(struct pd_reader *r, int (*fn)(void *ctx, const struct pd_sample *s),
			    void *ctx)
{
	if (!r->peek)
		r->peek = fp_xmalloc(SCRATCH_WORDS * 8);
	for (size_t i = r->delivering; i < r->qn; i++) {
		const struct pd_queued *q = &r->q[i];
		struct perf_event_header h;
		struct pd_sample smp;

		memcpy(&h, q->rec, HDR_SIZE);
		if (h.type != PERF_RECORD_SAMPLE)
			continue;
		memcpy(r->peek, q->rec, q->len);
		const uint64_t *w = r->peek + HDR_SIZE / 8;
		size_t nw = (q->len - HDR_SIZE) / 8;
		const struct pd_evsel *ev = sample_evsel(r, w, nw);
		if (!ev || decode_sample(ev, w, nw, &smp) < 0)
			continue;
		smp.misc = h.misc;
		if (fn(ctx, &smp))
			break;
	}
}

static void queue_event(struct pd_reader *r, const unsigned char *rec, size_t len, uint64_t time,
			uint64_t off)
{
	if (r->flushed_any && time < r->last_flushed) {
		/* perf does the same: too late to sort, delivered at once */
		r->st.late_events++;
		deliver(r, rec, len, time, off);
		return;
	}
	if (r->qbytes + len > PD_QUEUE_MAX_BYTES && r->qn) {
		/* Bounded window: deliver the older half now. */
		sort_queue(r);
		r->st.forced_flushes++;
		flush_until(r, r->q[r->qn / 2].time);
	}
	if (r->qn == r->qcap) {
		r->qcap = r->qcap ? r->qcap * 2 : QUEUE_MIN;
		r->q = fp_xrealloc(r->q, r->qcap * sizeof r->q[0]);
	}
	struct pd_queued *q = &r->q[r->qn++];
	q->time = time;
	q->seq = r->seq++;
	q->len = (uint32_t)len;
	q->owned = r->pipe_mode || r->in_decomp;
	if (q->owned) {
		unsigned char *copy = fp_xmalloc(len);
		memcpy(copy, rec, len);
		q->rec = copy;
	} else {
		q->rec = rec;
	}
	r->qbytes += len;
	if (time > r->round_max)
		r->round_max = time;
}

static void finished_round(struct pd_reader *r)
{
	r->st.rounds++;
	flush_until(r, r->next_flush);
	r->next_flush = r->round_max;
}

/* ---- records ------------------------------------------------------------- */

/* A kernel record: queued by its time, or delivered now if it has none. */
static void kernel_record(struct pd_reader *r, const unsigned char *rec, size_t len, uint64_t off)
{
	const unsigned char *a = aligned(r, rec, len);
	const struct perf_event_header *h = (const void *)a;
	const uint64_t *w = (const uint64_t *)(const void *)(a + HDR_SIZE);
	size_t nw = (len - HDR_SIZE) / 8;
	uint64_t time = 0;
	int timed;

	if (h->type == PERF_RECORD_SAMPLE) {
		const struct pd_evsel *ev = sample_evsel(r, w, nw);
		uint64_t st = ev ? ev->sample_type : 0;
		size_t pos = !!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
			     !!(st & PERF_SAMPLE_TID);
		timed = (st & PERF_SAMPLE_TIME) && pos < nw;
		if (timed)
			time = w[pos];
	} else {
		timed = trailer_time(r, w, nw, &time);
	}
	if (timed)
		queue_event(r, rec, len, time, off);
	else
		deliver(r, rec, len, 0, off);
}

/* How many bytes a record takes, payload that header.size does not count
 * included; 0 if they are not all there yet. */
static uint64_t record_extent(const unsigned char *p, size_t avail, int pipe_mode)
{
	struct perf_event_header h;

	memcpy(&h, p, HDR_SIZE);
	uint64_t size = h.size;
	if (h.type == PERF_RECORD_AUXTRACE && h.size >= AUXTRACE_SIZE_OFF + 8) {
		if (avail < AUXTRACE_SIZE_OFF + 8)
			return 0;
		size += pd_rd64(p + AUXTRACE_SIZE_OFF);
	} else if (pipe_mode && h.type == PERF_RECORD_HEADER_TRACING_DATA &&
		   h.size >= TRACING_SIZE_OFF + 4) {
		if (avail < TRACING_SIZE_OFF + 4)
			return 0;
		size += PAD8(pd_rd32(p + TRACING_SIZE_OFF));
	}
	return size;
}

static size_t walk_records(struct pd_reader *r, const unsigned char *p, size_t n, uint64_t base);

#define DECOMP_CHUNK (1u << 20) /* decompressed bytes walked at a time */
/* PERF_RECORD_COMPRESSED2 (perf 6.16+): a u64 data size after the header,
 * the data padded to 8 bytes. */
#define COMPRESSED2_DATA_OFF (HDR_SIZE + 8)

/* perf record -z: the records of a COMPRESSED record's share of the zstd
 * stream, decompressed a piece at a time and walked as if they stood
 * here; a record cut at the end waits in dbuf for the next piece. */
static void compressed_record(struct pd_reader *r, const unsigned char *p, size_t len, uint64_t off)
{
	struct perf_event_header h;
	size_t data_off = HDR_SIZE, n;
	const char *why;

	memcpy(&h, p, HDR_SIZE);
	r->st.compressed++;
	if (h.type == PD_REC_COMPRESSED2) {
		if (len < COMPRESSED2_DATA_OFF ||
		    pd_rd64(p + HDR_SIZE) > len - COMPRESSED2_DATA_OFF) {
			r->st.compressed_unread++;
			pd_reader_problem(r, PD_PROB_BAD_RECORD, off,
					  "compressed record of %zu "
					  "bytes claims more data than it holds: skipped",
					  len);
			return;
		}
		data_off = COMPRESSED2_DATA_OFF;
		n = (size_t)pd_rd64(p + HDR_SIZE);
	} else {
		n = len - HDR_SIZE;
	}
	if (r->in_decomp) {
		r->st.compressed_unread++;
		pd_reader_problem(r, PD_PROB_BAD_RECORD, off,
				  "a compressed record inside "
				  "compressed data: skipped");
		return;
	}
	if (!r->zstd)
		r->zstd = pd_zstd_new();
	pd_zstd_input(r->zstd, p + data_off, n);
	r->in_decomp = 1;
	r->decomp_off = off;
	for (;;) {
		if (r->dcap - r->dlen < DECOMP_CHUNK) {
			r->dcap = r->dlen + DECOMP_CHUNK;
			r->dbuf = fp_xrealloc(r->dbuf, r->dcap);
		}
		ssize_t got = pd_zstd_output(r->zstd, r->dbuf + r->dlen, r->dcap - r->dlen, &why);
		if (got < 0) {
			r->st.compressed_unread++;
			pd_reader_problem(
				r, PD_PROB_BAD_RECORD, off,
				"compressed record (perf "
				"record -z) cannot be decompressed (%s): its records are skipped",
				why);
			r->dlen = 0;
			break;
		}
		if (got == 0)
			break;
		r->dlen += (size_t)got;
		size_t used = walk_records(r, r->dbuf, r->dlen, off);
		if (r->failed)
			break;
		/* dbuf grows by a piece while a record is not whole: bounded */
		if (!used && r->dlen >= HDR_SIZE &&
		    record_extent(r->dbuf, r->dlen, r->pipe_mode) > PD_QUEUE_MAX_BYTES) {
			pd_reader_problem(
				r, PD_PROB_FATAL, off,
				"decompressed record of %llu "
				"bytes is too big",
				(unsigned long long)record_extent(r->dbuf, r->dlen, r->pipe_mode));
			break;
		}
		memmove(r->dbuf, r->dbuf + used, r->dlen - used);
		r->dlen -= used;
	}
	r->in_decomp = 0;
}

static void one_record(struct pd_reader *r, const unsigned char *p, size_t len, uint64_t off)
{
	struct perf_event_header h;

	memcpy(&h, p, HDR_SIZE);
	r->st.records++;
	if (h.type == PD_REC_COMPRESSED || h.type == PD_REC_COMPRESSED2) {
		compressed_record(r, p, len, off);
		return;
	}
	if (h.type == PERF_RECORD_SAMPLE ||
	    (h.type >= PERF_RECORD_MMAP && h.type < PERF_RECORD_MAX)) {
		kernel_record(r, p, len, off);
		if (h.type != PERF_RECORD_SAMPLE && h.type != PERF_RECORD_COMM &&
		    h.type != PERF_RECORD_FORK && h.type != PERF_RECORD_EXIT &&
		    h.type != PERF_RECORD_MMAP && h.type != PERF_RECORD_MMAP2 &&
		    h.type != PERF_RECORD_LOST && h.type != PERF_RECORD_LOST_SAMPLES &&
		    h.type != PERF_RECORD_KSYMBOL && h.type != PERF_RECORD_CGROUP)
			r->st.other_records++;
		return;
	}
	switch (pd_user_record(r, p, len, off)) {
	case PD_USER_ROUND:
		finished_round(r);
		break;
	case PD_USER_DONE:
		break;
	case PD_USER_UNKNOWN:
		r->st.unknown_records++;
		pd_reader_problem(r, PD_PROB_UNKNOWN_RECORD, off,
				  "unknown record type %u "
				  "(%u bytes) skipped",
				  h.type, h.size);
		break;
	}
}

/* A mapped file (pd_reader_file_mapped): its pages before upto and before
 * every queued record are dropped from the mapping, so the file's pages
 * do not all stay resident. The mapping is private and never written:
 * a dropped page touched again is read from the file again. */
static void drop_read_pages(struct pd_reader *r, const unsigned char *upto)
{
	const unsigned char *keep = upto;

	for (size_t i = 0; i < r->qn; i++)
		if (!r->q[i].owned && r->q[i].rec < keep) /* the copies are elsewhere */
			keep = r->q[i].rec;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	const unsigned char *to = (const unsigned char *)((uintptr_t)keep & ~(page - 1));
	if (to <= r->map_dropped)
		return;
	(void)madvise((void *)r->map_dropped, (size_t)(to - r->map_dropped), MADV_DONTNEED);
	r->map_dropped = to;
}

/* Walks the records in [p, p + n); returns the bytes used (a record cut
 * at the end is left for later). */
static size_t walk_records(struct pd_reader *r, const unsigned char *p, size_t n, uint64_t base)
{
	size_t pos = 0;

	while (!r->failed && n - pos >= HDR_SIZE) {
		struct perf_event_header h;
		memcpy(&h, p + pos, HDR_SIZE);
		if (h.size < HDR_SIZE) {
			pd_reader_problem(
				r, PD_PROB_FATAL, base + pos,
				"record of %u bytes (type %u) "
				"is shorter than its header: the data is corrupt from here",
				h.size, h.type);
			break;
		}
		uint64_t ext = record_extent(p + pos, n - pos, r->pipe_mode);
		if (!ext || ext > n - pos)
			break;
		one_record(r, p + pos, h.size, r->in_decomp ? r->decomp_off : base + pos);
		pos += (size_t)ext;
		if (r->map && !r->in_decomp && p + pos - r->map_dropped >= PD_DROP_CHUNK)
			drop_read_pages(r, p + pos);
	}
	return pos;
}

/* ---- entry points -------------------------------------------------------- */

/* The end of the input: a record begun in the compressed stream and never
 * finished is a truncation too. */
static void compressed_end(struct pd_reader *r)
{
	if (r->dlen && !r->failed) {
		r->st.truncated = 1;
		pd_reader_problem(r, PD_PROB_BAD_RECORD, r->decomp_off,
				  "truncated: the "
				  "compressed records end inside a record (%zu bytes of it)",
				  r->dlen);
	}
	r->dlen = 0;
}

int pd_is_perf_data(const unsigned char *p, size_t n)
{
	return n >= 8 && pd_rd64(p) == PD_MAGIC;
}

void pd_reader_init(struct pd_reader *r, const struct pd_ops *ops, void *ctx)
{
	memset(r, 0, sizeof *r);
	r->ops = ops;
	r->ctx = ctx;
	r->scratch = fp_xmalloc(SCRATCH_WORDS * 8);
}

void pd_reader_file(struct pd_reader *r, const unsigned char *data, size_t size)
{
	uint64_t data_off, data_size;

	if (pd_file_header(r, data, size, &data_off, &data_size) < 0)
		return;
	if (r->pipe_mode) {    /* a pipe-format stream saved to a file */
		r->map = NULL; /* its records are walked where they lie: kept */
		r->header_done = 0;
		pd_reader_feed(r, data, size);
		pd_reader_end(r);
		return;
	}
	r->st.bytes = size;
	size_t used = walk_records(r, data + data_off, (size_t)data_size, data_off);
	if (!r->failed && used < data_size) {
		r->st.truncated = 1;
		pd_reader_problem(r, PD_PROB_BAD_RECORD, data_off + used,
				  "truncated: the last "
				  "record is cut after %llu of its bytes",
				  (unsigned long long)(data_size - used));
	}
	compressed_end(r);
	flush_until(r, UINT64_MAX);
}

void pd_reader_file_mapped(struct pd_reader *r, const unsigned char *map, size_t size)
{
	r->map = r->map_dropped = map;
	pd_reader_file(r, map, size);
	r->map = r->map_dropped = NULL;
}

void pd_reader_feed(struct pd_reader *r, const unsigned char *data, size_t n)
{
	if (r->failed)
		return;
	r->st.bytes += n;
	if (!r->header_done) {
		/* The 16-byte pipe header may come in pieces too. */
		size_t take = n;
		if (r->buf_len + take > PD_PIPE_HEADER_SIZE)
			take = PD_PIPE_HEADER_SIZE - r->buf_len;
		if (r->buf_cap < REC_MAX * 2) {
			r->buf_cap = REC_MAX * 2;
			r->buf = fp_xrealloc(r->buf, r->buf_cap);
		}
		memcpy(r->buf + r->buf_len, data, take);
		r->buf_len += take;
		data += take;
		n -= take;
		if (r->buf_len < PD_PIPE_HEADER_SIZE)
			return;
		if (pd_pipe_header(r, r->buf, r->buf_len) < 0)
			return;
		r->buf_len = 0;
		r->offset = PD_PIPE_HEADER_SIZE;
	}
	while (n && !r->failed) {
		/* Records straight from the caller's buffer when none is pending. */
		if (r->buf_len == 0) {
			size_t used = walk_records(r, data, n, r->offset);
			r->offset += used;
			data += used;
			n -= used;
			if (!n || r->failed)
				return;
		}
		size_t room = r->buf_cap - r->buf_len, take = n < room ? n : room;
		memcpy(r->buf + r->buf_len, data, take);
		r->buf_len += take;
		data += take;
		n -= take;
		size_t used = walk_records(r, r->buf, r->buf_len, r->offset);
		if (!used && r->buf_len >= HDR_SIZE) {
			uint64_t ext = record_extent(r->buf, r->buf_len, 1);
			if (ext > r->buf_cap) { /* an AUXTRACE payload: grow */
				if (ext > PD_QUEUE_MAX_BYTES) {
					pd_reader_problem(r, PD_PROB_FATAL, r->offset,
							  "record of %llu "
							  "bytes is too big",
							  (unsigned long long)ext);
					return;
				}
				r->buf_cap = (size_t)ext;
				r->buf = fp_xrealloc(r->buf, r->buf_cap);
			}
		}
		memmove(r->buf, r->buf + used, r->buf_len - used);
		r->buf_len -= used;
		r->offset += used;
	}
}

void pd_reader_end(struct pd_reader *r)
{
	if (!r->header_done && !r->failed)
		pd_reader_problem(r, PD_PROB_FATAL, 0,
				  "input ended after %zu bytes, before the "
				  "perf.data header was complete",
				  r->buf_len);
	else if (r->buf_len && !r->failed) {
		r->st.truncated = 1;
		pd_reader_problem(r, PD_PROB_BAD_RECORD, r->offset,
				  "truncated: input ended "
				  "inside a record (%zu bytes of it)",
				  r->buf_len);
	}
	r->buf_len = 0;
	compressed_end(r);
	flush_until(r, UINT64_MAX);
}

void pd_reader_free(struct pd_reader *r)
{
	for (size_t i = 0; i < r->qn; i++)
		if (r->q[i].owned)
			free((void *)r->q[i].rec);
	for (size_t i = 0; i < r->nevsels; i++)
		free(r->evsels[i].name);
	pd_zstd_free(r->zstd);
	FP_FREE_ALL(r->q, r->qtmp, r->evsels, r->ids, r->buf, r->scratch, r->peek, r->hostname,
		    r->dbuf);
	memset(r, 0, sizeof *r);
}
