/* fp-perfdata: read perf.data directly and write the flamepipe stream, the
 * same as `perf script | fp-read` would.
 *
 * Interface:
 *	fp-perfdata [--name NAME] [--kallsyms FILE] [--symfs DIR]
 *	            [--debuginfod-timeout SECONDS] [--no-debuginfod] [--inline] [--live]
 *	            [--live-buffer BYTES] [--stack-ids]
 *	            [--remote [USER@]HOST [--ssh-arg ARG]... [--remote-control PATH]
 *	             [--remote-cache DIR] [--remote-timeout SECONDS]] [-q] [FILE]
 *
 * Input: a perf.data file (perf record -o FILE), or perf's pipe format
 * (perf record -o - ...) from FILE, a FIFO or stdin. The format is told by
 * the header, not by the kind of input. --kallsyms names the kernel's
 * symbol file (default: the recorded kernel's, by build-id). Files are
 * found by their recorded build-ids (perf/data/pd_buildid.h): the recorded
 * path (under --symfs DIR), perf's build-id cache, debuginfod servers
 * (DEBUGINFOD_URLS; perf/data/pd_debuginfod.h: worker threads, a time limit of
 * --debuginfod-timeout seconds per look-up, default 10; --no-debuginfod).
 * --remote HOST (flamepipe live --ssh): the recording was made on HOST;
 * its files are fetched from there over ssh when needed, by worker threads
 * (perf/data/pd_remote.h: --ssh-arg words for ssh, --remote-control the
 * ControlPath of fp-ssh's connection, --remote-cache DIR, default
 * ~/.cache/flamepipe/buildid, --remote-timeout per fetch, default 30 s),
 * and the kernel's symbols are HOST's /proc/kallsyms. --inline adds the
 * inlined functions of user addresses as perf script --inline shows them
 * (perf/data/pd_inline.h; without it: perf script --no-inline). --live (flamepipe
 * live): perf must never be blocked by a slow chain, so while more than
 * --live-buffer bytes (default 1 MiB) wait for the next stage whole samples
 * are dropped and counted (W, `I STAGE dropped=N`, stderr, at most once a
 * second), and the I record is written about once a second too.
 *
 * Output (fifo/PROTOCOL.md): `%flamepipe 1`, an S record per sample in time
 * order (perf's FINISHED_ROUND ordering), W records for bad input and files
 * that cannot be read, and at the end one
 *	I TAB read TAB records=.. samples=.. frames=.. unique_frames=..
 *	unresolved=.. lost_events=.. lost_records=.. unknown_records=..
 *	bad_records=.. dsos=.. missing_dsos=.. threads=.. rounds=..
 *	late_events=.. forced_flushes=.. dropped_samples=.. corrupt_callchains=..
 *	unwound=.. unwind_incomplete=.. skipped_samples=.. compressed_records=..
 *	compressed_unread=.. truncated=0|1 bytes=.. kallsyms_copy=..
 *	debuginfod_asked=.. debuginfod_found=.. debuginfod_timed_out=..
 *	remote_fetched=.. remote_failed=.. remote_cached=.. remote_bytes=..
 *	cgroups=.. unknown_cgroup_samples=..
 * A capture of perf record --all-cgroups gives each S record its task's
 * cgroup path as an 11th field (perf/data/pd_cgroup.h).
 * --call-graph dwarf user stacks are unwound with libdwfl (perf/data/pd_unwind.h).
 * A file mapped by a process of another mount namespace (a container's) is
 * opened through /proc/PID/root and kept open (perf/data/pd_procroot.h).
 * With --stack-ids (the runner asks for it when every stage reading the
 * samples reads the stack-id stream, fifo/PROTOCOL.md): each distinct tail
 * (event, comm, kinds, stack) once as a K record, each sample as a P record
 * naming it, instead of S records.
 * Frames, names and kinds are those fp-read makes of perf script's text
 * (docs/fp-perfdata.md lists what differs: times in ns, real pids).
 *
 * perf record -z's COMPRESSED records are decompressed (libzstd, pd_zstd.h).
 * Samples not written (unknown event id, too short, too long, in data that
 * cannot be decompressed) are summed up in one W record at the end.
 *
 * Exit codes: 0 ok (also for a truncated file: what is there is read, and
 * W and truncated=1 say so), 1 input that is not perf.data or is corrupt
 * beyond reading, or of which no sample could be used while some were
 * skipped, 100 usage, 111 cannot open/read/map the input, 141 the
 * reader went away. SIGINT/SIGTERM end the input: queued samples and the I
 * record are still written.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "fp_error.h"
#include "fp_io.h"
#include "fp_opts.h"
#include "fp_record.h"
#include "fp_tails.h"
#include "fp_warnings.h"
#include "pd_buildid.h"
#include "pd_remote.h"
#include "pd_cgroup.h"
#include "pd_debuginfod.h"
#include "pd_inline.h"
#include "pd_machine.h"
#include "pd_offcpu.h"
#include "pd_read.h"
#include "pd_unwind.h"

#define USAGE                                                                                     \
	"usage: fp-perfdata [--name NAME] [--kallsyms FILE] [--symfs DIR] "                       \
	"[--debuginfod-timeout SECONDS] [--no-debuginfod] [--no-host-files] [--inline] [--live] " \
	"[--live-buffer BYTES] [--stack-ids] [--off-cpu auto|on|off] [--off-cpu-rows N] "         \
	"[--off-cpu-max-threads N] [--remote [USER@]HOST [--ssh-arg ARG]... "                     \
	"[--remote-control PATH] [--remote-cache DIR] [--remote-timeout SECONDS]] [-q] [FILE]"
#define DEFAULT_STAGE_NAME "read" /* the source stage, as fp-read */
#define READ_CHUNK (256u << 10)
/* perf script resolves at most this many entries of a callchain
 * (PERF_MAX_STACK_DEPTH, the kernel's default perf_event_max_stack). */
#define MAX_STACK 127
/* Frames of one sample: --call-graph dwarf's kernel part (at most
 * MAX_STACK) and unwound user part (at most MAX_STACK too, as perf's
 * unwinder), and with --inline the inlined frames of each address. */
#define MAX_FRAMES 1024
/* Warnings of one kind shown before the rest are only counted. */
#define MSG_MAX 512
#define STACK_CAP_MIN 4096
/* Live mode: seconds between two drop reports and two I records; the
 * --live-buffer range (fp-read --live's). */
#define STATS_INTERVAL 1.0
#define LIVE_BUFFER_MIN 4096
#define LIVE_BUFFER_MAX FP_OUT_HIGH
/* Live: a read of less than this is a trickle; wait this long before the
 * next read (at most that much added to a sample's way to the views,
 * whose freshness promise is 1 s). */
#define LIVE_TRICKLE_BYTES FP_TRICKLE_BYTES
#define LIVE_GATHER_NS 40000000L /* 40 ms: docs/live.md, "The chain" */
/* --debuginfod-timeout's range, seconds */
#define DI_LIMIT_MIN 0.1
#define DI_LIMIT_MAX 3600.0
/* at the end, how long the look-ups still under way may take to cancel */
#define DI_STOP_WAIT 1.5

struct perfdata_opts {
	const char *stage;
	int quiet, live;
	size_t live_buffer;
	int preload_kernel;          /* read kallsyms in a thread from the start */
	int stack_ids;               /* --stack-ids: K and P records instead of S */
	int inline_frames;           /* --inline */
	int off_cpu;                 /* --off-cpu: OFFCPU_AUTO, _ON, _OFF */
	unsigned off_cpu_rows;       /* --off-cpu-rows: fp-bucket's --rows */
	size_t off_cpu_max;          /* --off-cpu-max-threads */
	uint32_t off_cpu_max_pieces; /* 0: PD_OFFCPU_MAX_PIECES (the fuzzer's is small) */
};

enum { OFFCPU_AUTO, OFFCPU_ON, OFFCPU_OFF };
#define SCHED_SWITCH "sched:sched_switch"
#define SCHED_WAKEUP "sched:sched_wakeup"
#define SCHED_WAKING "sched:sched_waking"
int perfdata_run(int fd, int out_fd, const char *in_name, const struct perfdata_opts *o);

enum warn_kind { WARN_BAD, WARN_UNKNOWN, WARN_MISSING, WARN_NOTE, WARN_KINDS };

static const char *const warn_kind_name[WARN_KINDS] = {
	[WARN_BAD] = "bad record",
	[WARN_UNKNOWN] = "unknown record",
	[WARN_MISSING] = "unreadable file",
	[WARN_NOTE] = "note",
};

struct perfdata {
	struct fp_out out;
	struct fp_wr wr; /* the record writers' view of out */
	struct pd_reader rd;
	struct pd_machine mach;
	const char *stage, *in_name;
	int quiet, fatal;
	int live; /* --live: drop samples rather than block */
	size_t live_buffer;
	struct fp_drops drops; /* --live: samples dropped */
	double last_stats;
	uint64_t stats_samples;
	struct fp_warnings warnings; /* by warn_kind */
	const char *warn_where;      /* of the warning being said */
	uint64_t dropped_samples;
	uint64_t frames_out;      /* frames in the written samples */
	uint64_t corrupt_chains;  /* callchains discarded as perf does */
	struct pd_unwind *unwind; /* --call-graph dwarf user stacks */
	/* --stack-ids: tails numbered by (event, comm, frame ids) */
	int stack_ids;
	struct fp_tailw tails;
	struct fp_wmem key;
	int events_written;        /* the C events record, before the first sample */
	int preload_kernel;        /* read kallsyms in a thread at the first sample */
	struct pd_inline *inl;     /* --inline: inlined frames */
	struct pd_cgroups cgroups; /* --all-cgroups captures: the S records' cgroup */
	/* off-CPU (pd_offcpu.h): the scheduler events, when converted */
	int off_cpu;
	const struct pd_evsel *ev_switch, *ev_wakeup; /* ev_wakeup: waking when recorded */
	const struct pd_evsel *ev_waking, *ev_wakeup_dropped;
	struct pd_offcpu offcpu;
	uint64_t offcpu_samples, offcpu_bad;
	uint64_t offcpu_sched; /* scheduler samples consumed (not written) */
	int offcpu_overflow_warned;
	/* the S record being built */
	uint32_t frames[MAX_FRAMES];
	uint64_t ips[MAX_STACK];
	char *kinds, *stack;
	size_t stack_cap;
};

static volatile sig_atomic_t stop_requested;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void warn(struct perfdata *pd, enum warn_kind kind, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void say_warning(void *ctx, const char *msg)
{
	struct perfdata *pd = ctx;

	if (!pd->quiet)
		fprintf(stderr, "%s: %s: %s\n", fp_prog(), pd->warn_where, msg);
	fp_write_warning_at(fp_out_wr(&pd->out), pd->stage, pd->warn_where, msg);
}

/* Rate-limited per kind (fifo/fp_warnings.h). */
static void warn(struct perfdata *pd, enum warn_kind kind, const char *where, const char *fmt, ...)
{
	va_list ap;

	pd->warn_where = where;
	va_start(ap, fmt);
	fp_warnings_vsay(&pd->warnings, kind, fmt, ap);
	va_end(ap);
}

/* ---- samples ------------------------------------------------------------- */

/* One frame of the callchain. */
static void push_frame(struct perfdata *pd, size_t *n, struct pd_thread *t, int kernel, uint64_t ip)
{
	if (*n < MAX_FRAMES)
		pd->frames[(*n)++] = pd_machine_frame(&pd->mach, t, kernel, ip);
}

/* One unwound user frame: with --inline, its inlined functions first.
 * perf 6.1 appends inlined frames to unwound frames only (its
 * unwind_entry), never to a frame-pointer callchain's. */
static void push_unwound(struct perfdata *pd, size_t *n, struct pd_thread *t, uint64_t ip)
{
	if (!pd->inl)
		push_frame(pd, n, t, 0, ip);
	else if (*n < MAX_FRAMES)
		*n += pd_inline_frames(pd->inl, t, ip, pd->frames + *n, MAX_FRAMES - *n);
}

static size_t resolve_chain(struct perfdata *pd, const struct pd_sample *s, struct pd_thread *t)
{
	int mode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	int known = mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_USER;
	int kernel = mode == PERF_RECORD_MISC_KERNEL;
	int dwarf = pd_unwind_wanted(s);
	size_t n = 0, entries = 0;

	if (!s->chain && !dwarf) { /* no callchain: the sampled ip alone */
		if (!(s->ev->sample_type & PERF_SAMPLE_IP))
			return 0;
		pd->frames[n++] = known ? pd_machine_frame(&pd->mach, t, kernel, s->ip)
					: pd->mach.unknown_frame;
		return n;
	}
	for (uint64_t i = 0; s->chain && i < s->nr && entries < MAX_STACK; i++) {
		uint64_t ip = s->chain[i];
		if (ip >= PERF_CONTEXT_MAX) {
			if (ip != PERF_CONTEXT_KERNEL && ip != PERF_CONTEXT_USER &&
			    ip != PERF_CONTEXT_HV) {
				/* perf's add_callchain_ip: a corrupt callchain
				 * (or a guest's) is discarded whole */
				pd->corrupt_chains++;
				return 0;
			}
			known = ip == PERF_CONTEXT_KERNEL || ip == PERF_CONTEXT_USER;
			kernel = ip == PERF_CONTEXT_KERNEL;
			continue;
		}
		entries++;
		if (known)
			push_frame(pd, &n, t, kernel, ip);
		else if (n < MAX_FRAMES)
			pd->frames[n++] = pd->mach.unknown_frame;
	}
	if (dwarf) { /* perf's thread__resolve_callchain_unwind */
		if (!pd->unwind)
			pd->unwind = pd_unwind_new(&pd->mach);
		size_t nu = pd_unwind_user(pd->unwind, t, s, pd->ips, MAX_STACK);
		for (size_t i = 0; i < nu; i++)
			push_unwound(pd, &n, t, pd->ips[i]);
	}
	return n;
}

static void report_drops(struct perfdata *pd, int force);

/* The kinds and stack fields of the n frames resolved (len bytes of
 * names and separators), root first, into out. */
static void build_stack(struct perfdata *pd, size_t n, size_t len, struct fp_sample *out)
{
	if (len > pd->stack_cap) {
		pd->stack_cap = len * 2;
		pd->stack = fp_xrealloc(pd->stack, pd->stack_cap);
	}
	/* perf's callchain is leaf first; the record wants the root first */
	char *p = pd->stack;
	for (size_t i = n; i-- > 0;) {
		const struct pd_frame *f = &pd->mach.frames[pd->frames[i]];
		memcpy(p, pd->mach.names + f->off, f->len);
		p += f->len;
		if (i)
			*p++ = ';';
		pd->kinds[n - 1 - i] = f->kind;
	}
	out->kinds = (struct fp_str){ pd->kinds, n };
	out->stack = (struct fp_str){ pd->stack, (size_t)(p - pd->stack) };
}

#define VARINT_MAX 10 /* bytes of a 64-bit LEB128 number */

/* LEB128: 7 bits a byte, low first, the high bit set on all but the last. */
static size_t put_varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		p[n++] = (unsigned char)(v | 0x80);
	p[n++] = (unsigned char)v;
	return n;
}

/* pd->key: the tail's key, its event, comm and the n frame ids, cheaper to
 * hash than its text (which is built for a new tail only). The numbers as
 * LEB128 (a frame id takes 1-2 bytes, not 4): half the bytes to hash,
 * compare and keep. The encoding is prefix-free, so two keys are equal
 * only for the same tail. */
static void tail_key(struct perfdata *pd, const struct pd_evsel *ev, const struct pd_thread *t,
		     size_t n, uint64_t cgroup_key)
{
	size_t need = sizeof ev + VARINT_MAX * (n + 2) + t->comm_len;

	if (pd->key.cap < need) {
		pd->key.cap = need * 2;
		pd->key.p = fp_xrealloc(pd->key.p, pd->key.cap);
	}
	unsigned char *p = (unsigned char *)pd->key.p;
	size_t len = sizeof ev;
	memcpy(p, &ev, sizeof ev);
	len += put_varint(p + len, t->comm_len);
	memcpy(p + len, t->comm, t->comm_len);
	len += t->comm_len;
	len += put_varint(p + len, cgroup_key);
	for (size_t i = 0; i < n; i++)
		len += put_varint(p + len, pd->frames[i]);
	pd->key.len = len;
}

static void write_sample(struct perfdata *pd, const struct pd_sample *s)
{
	if (pd->live) {
		/* the chain is behind: drop the sample, never block perf */
		if (pd->out.len > pd->live_buffer) {
			pd->drops.dropped++;
			return;
		}
		if (pd->drops.dropped != pd->drops.reported)
			report_drops(pd, 0);
	}
	struct pd_thread *t = pd_machine_thread(&pd->mach, s->pid, s->tid);
	size_t n = resolve_chain(pd, s, t), len = 0;
	uint32_t id = FP_DIGTAB_NONE;
	struct fp_digest key = { 0, 0 };
	struct fp_str cgroup = { "", 0 };
	uint32_t cgroup_sid = 0;
	if (s->has_cgroup &&
	    (cgroup.p = pd_cgroups_path(&pd->cgroups, s->cgroup, &cgroup.n, &cgroup_sid)) == NULL)
		cgroup = (struct fp_str){ "", 0 };
	if (pd->stack_ids) {
		tail_key(pd, s->ev, t, n, cgroup.n ? (uint64_t)cgroup_sid + 1 : 0);
		key = fp_digtab_digest(&pd->tails.keys, pd->key.p, pd->key.len);
		id = fp_digtab_find(&pd->tails.keys, key);
	}
	if (id == FP_DIGTAB_NONE) { /* a tail seen before was not too long */
		for (size_t i = 0; i < n; i++)
			len += pd->mach.frames[pd->frames[i]].len + 1;
		if (len + t->comm_len + s->ev->name_len + cgroup.n + 2 * n + 128 > FP_LINE_MAX) {
			pd->dropped_samples++;
			warn(pd, WARN_BAD, pd->in_name,
			     "sample of %s needs a record longer "
			     "than %u bytes: dropped",
			     t->comm, FP_LINE_MAX);
			return;
		}
	}
	struct fp_sample out = {
		.time_ns = s->time,
		.pid = s->pid,
		.tid = s->tid,
		.cpu = s->cpu,
		.period = s->period,
		.event = { s->ev->name, s->ev->name_len },
		.comm = { t->comm, t->comm_len },
		.cgroup = cgroup,
	};
	int added = id == FP_DIGTAB_NONE;
	if (pd->stack_ids && added) /* the slot found is in the cache */
		id = fp_digtab_intern(&pd->tails.keys, key, NULL);
	pd->frames_out += n;
	if (added) {
		build_stack(pd, n, len, &out);
		if (!pd->stack_ids) {
			fp_write_sample(pd->wr, &out);
			return;
		}
		fp_write_tail_def(pd->wr, id, &out);
	}
	fp_tailw_ref(pd->wr, &out, id);
}

/* ---- off-CPU: scheduler events as timed samples (pd_offcpu.h) ------------ */

/* The tail (comm, kinds, stack, cgroup) of s, resolved into pd's buffers
 * (valid until the next sample): 0, or -1 if it would not fit a record. */
static int sample_tail(struct perfdata *pd, const struct pd_sample *s, struct fp_sample *out)
{
	struct pd_thread *t = pd_machine_thread(&pd->mach, s->pid, s->tid);
	size_t n = resolve_chain(pd, s, t), len = 0;
	struct fp_str cgroup = { "", 0 };
	uint32_t cgroup_sid = 0;

	if (s->has_cgroup &&
	    (cgroup.p = pd_cgroups_path(&pd->cgroups, s->cgroup, &cgroup.n, &cgroup_sid)) == NULL)
		cgroup = (struct fp_str){ "", 0 };
	for (size_t i = 0; i < n; i++)
		len += pd->mach.frames[pd->frames[i]].len + 1;
	if (len + t->comm_len + cgroup.n + 2 * n + 128 > FP_LINE_MAX) {
		pd->dropped_samples++;
		warn(pd, WARN_BAD, pd->in_name,
		     "sample of %s needs a record longer "
		     "than %u bytes: dropped",
		     t->comm, FP_LINE_MAX);
		return -1;
	}
	*out = (struct fp_sample){
		.time_ns = s->time,
		.pid = s->pid,
		.tid = s->tid,
		.cpu = s->cpu,
		.comm = { t->comm, t->comm_len },
		.cgroup = cgroup,
	};
	build_stack(pd, n, len, out);
	return 0;
}

/* One piece of a blocked interval (pd_offcpu.h): a timed sample. */
static void write_piece(void *ctx, const struct fp_sample *s)
{
	struct perfdata *pd = ctx;

	if (pd->live && pd->out.len > pd->live_buffer) {
		pd->drops.dropped++; /* never block perf */
		return;
	}
	pd->offcpu_samples++;
	pd->frames_out += s->kinds.n;
	if (pd->stack_ids)
		fp_tailw_write(&pd->tails, pd->wr, s);
	else
		fp_write_sample(pd->wr, s);
}

/* The capture's scheduler events, found before the first sample: with
 * sched:sched_switch (raw fields recorded) its samples become off-CPU
 * time unless --off-cpu off. */
static void offcpu_setup(struct perfdata *pd)
{
	for (size_t i = 0; i < pd->rd.nevsels; i++) {
		const struct pd_evsel *ev = &pd->rd.evsels[i];
		if (ev->type != PERF_TYPE_TRACEPOINT || !(ev->sample_type & PERF_SAMPLE_RAW) ||
		    !(ev->sample_type & PERF_SAMPLE_TIME) || !(ev->sample_type & PERF_SAMPLE_TID) ||
		    !ev->name)
			continue;
		if (strcmp(ev->name, SCHED_SWITCH) == 0 && !pd->ev_switch)
			pd->ev_switch = ev;
		else if (strcmp(ev->name, SCHED_WAKING) == 0 && !pd->ev_waking)
			pd->ev_waking = ev;
		else if (strcmp(ev->name, SCHED_WAKEUP) == 0 && !pd->ev_wakeup)
			pd->ev_wakeup = ev;
	}
	/* sched_waking fires in try_to_wake_up, always in the waker's
	 * context; sched_wakeup may fire later on the wakee's CPU from an
	 * IPI (an idle target takes the wake list), in whatever task runs
	 * there: a per-task capture then misses it (8 of 10 wakeups seen
	 * here with one CPU idle) and -a names the wrong waker. When both
	 * were recorded, waking ends the interval and wakeup is dropped. */
	if (pd->ev_waking) {
		pd->ev_wakeup_dropped = pd->ev_wakeup;
		pd->ev_wakeup = pd->ev_waking;
	}
	if (pd->off_cpu == OFFCPU_OFF || !pd->ev_switch) {
		if (pd->off_cpu == OFFCPU_ON)
			warn(pd, WARN_NOTE, pd->in_name,
			     "--off-cpu: the capture has no " SCHED_SWITCH
			     " samples with their raw fields (perf record -e " SCHED_SWITCH
			     " -g): no off-CPU samples");
		pd->off_cpu = 0;
		pd->ev_switch = pd->ev_wakeup = pd->ev_waking = pd->ev_wakeup_dropped = NULL;
		return;
	}
	pd->off_cpu = 1;
}

/* A sample of the scheduler's events: 1 if consumed (turned into off-CPU
 * time), 0 if it is written as any sample. */
static int offcpu_sample(struct perfdata *pd, const struct pd_sample *s)
{
	struct fp_sample tail;
	int32_t prev, next;
	int64_t state;

	if (s->has_time)
		pd_offcpu_time(&pd->offcpu, s->time);
	if (s->ev == pd->ev_switch || s->ev == pd->ev_wakeup || s->ev == pd->ev_wakeup_dropped)
		pd->offcpu_sched++;
	if (s->ev == pd->ev_wakeup_dropped)
		return 1;
	if (s->ev == pd->ev_switch) {
		if (pd_sched_switch_fields(s->raw, s->raw_size, &prev, &state, &next) < 0 ||
		    (s->tid >= 0 && prev != s->tid)) {
			pd->offcpu_bad++;
			warn(pd, WARN_BAD, pd->in_name,
			     SCHED_SWITCH
			     " sample whose raw "
			     "fields are not the 64-bit layout (prev_pid %d, sample tid %lld): "
			     "skipped",
			     s->raw_size >= 28 ? prev : -1, (long long)s->tid);
			return 1;
		}
		uint64_t unpaired = pd->offcpu.st.unpaired, clipped = pd->offcpu.st.clipped;
		if (next > 0)
			pd_offcpu_run(&pd->offcpu, s->time, next);
		if (prev > 0 && pd_sched_state_blocked(state) && sample_tail(pd, s, &tail) == 0 &&
		    pd_offcpu_block(&pd->offcpu, s->time, &tail) < 0 &&
		    !pd->offcpu_overflow_warned) {
			pd->offcpu_overflow_warned = 1;
			warn(pd, WARN_BAD, pd->in_name,
			     "more than %zu threads blocked at once: "
			     "the blocked time of further ones is not counted "
			     "(see --off-cpu-max-threads)",
			     pd->offcpu.max_open);
		}
		if (!clipped && pd->offcpu.st.clipped)
			warn(pd, WARN_BAD, pd->in_name,
			     "thread %d blocked for more than %u "
			     "heatmap cells: counted for its first %u only (a damaged time?)",
			     next, pd->offcpu.max_pieces, pd->offcpu.max_pieces);
		if (!unpaired && pd->offcpu.st.unpaired)
			warn(pd, WARN_NOTE, pd->in_name,
			     "thread %d blocked again before its "
			     "switch-in was seen: its blocked time is not counted (record "
			     "switch-ins: perf record --switch-events, with -a too; else events "
			     "were lost)",
			     prev);
		return 1;
	}
	if (s->ev == pd->ev_wakeup) {
		int32_t pid;
		if (pd_sched_wakeup_pid(s->raw, s->raw_size, &pid) < 0) {
			pd->offcpu_bad++;
			return 1;
		}
		if (pd_offcpu_waiting(&pd->offcpu, pid) && sample_tail(pd, s, &tail) == 0)
			pd_offcpu_wakeup(&pd->offcpu, s->time, pid, &tail);
		return 1;
	}
	return 0;
}

/* C events NAME...: the events in attribute order, as perf report lists
 * them (the first -e first), so that fp-bucket's default is perf report's
 * first event even when another event has the first sample. perf's dummy
 * event (side-band records only, never a sample) is left out. */
static void write_events(struct perfdata *pd)
{
	const char *names[PD_MAX_EVSELS];
	size_t n = 0;

	pd->events_written = 1;
	offcpu_setup(pd);
	for (size_t i = 0; i < pd->rd.nevsels && n < PD_MAX_EVSELS; i++) {
		const struct pd_evsel *ev = &pd->rd.evsels[i];
		if (ev->type == PERF_TYPE_SOFTWARE && ev->config == PERF_COUNT_SW_DUMMY)
			continue;
		if (ev == pd->ev_switch) /* its samples are off-CPU time */
			names[n++] = FP_EVENT_OFFCPU;
		else if (ev == pd->ev_wakeup)
			names[n++] = FP_EVENT_WAKEUP;
		else if (ev == pd->ev_wakeup_dropped)
			continue; /* sched_waking stands for it */
		else if (ev->name && ev->name_len)
			names[n++] = ev->name;
	}
	if (n)
		fp_write_control(pd->wr, FP_EVENTS_VERB, names, n);
}

/* ---- reader callbacks ----------------------------------------------------- */

static void on_event(void *ctx, const struct pd_event *e)
{
	struct perfdata *pd = ctx;

	if (stop_requested)
		pd->rd.failed = 1; /* stop reading; what is queued is written */
	switch (e->type) {
	case PD_EV_SAMPLE:
		if (!pd->events_written) {
			write_events(pd);
			/* after the header's build-ids (the kernel's chooses
			 * its symbols, pd_buildid.h) and the side-band records
			 * ahead of the first sample */
			if (pd->preload_kernel)
				pd_machine_preload_kernel(&pd->mach);
		}
		if (pd->off_cpu && offcpu_sample(pd, &e->u.sample))
			break;
		write_sample(pd, &e->u.sample);
		break;
	case PD_EV_SWITCH: /* perf record --switch-events: a recorded task */
		if (pd->off_cpu && !e->u.sw.out && e->u.sw.tid > 0)
			pd_offcpu_run(&pd->offcpu, e->time, e->u.sw.tid);
		break;
	case PD_EV_COMM:
		pd_machine_comm(&pd->mach, e->u.comm.pid, e->u.comm.tid, e->u.comm.comm,
				e->u.comm.len);
		if (e->u.comm.exec)
			pd_machine_exec(&pd->mach, e->u.comm.pid);
		break;
	case PD_EV_FORK:
		pd_machine_fork(&pd->mach, e->u.fork.pid, e->u.fork.ppid, e->u.fork.tid,
				e->u.fork.ptid, e->u.fork.synthesized);
		break;
	case PD_EV_EXIT:
		break; /* perf keeps an exited thread's comm and maps too */
	case PD_EV_MMAP:
		/* --buildid-mmap (fp-ssh): a file's build-id is part of its
		 * dso (pd_machine_mmap); the kernel and the vdso are one each */
		if (e->u.mmap.id.build_id_len && e->u.mmap.kernel &&
		    strncmp(e->u.mmap.file, "[kernel.kallsyms]", 17) == 0)
			pd_machine_build_id(&pd->mach, "[kernel.kallsyms]", e->u.mmap.id.build_id,
					    e->u.mmap.id.build_id_len);
		else if (e->u.mmap.id.build_id_len && strcmp(e->u.mmap.file, "[vdso]") == 0)
			pd_machine_build_id(&pd->mach, "[vdso]", e->u.mmap.id.build_id,
					    e->u.mmap.id.build_id_len);
		pd_machine_mmap(&pd->mach, e->u.mmap.pid, e->u.mmap.start, e->u.mmap.len,
				e->u.mmap.pgoff, e->u.mmap.prot, e->u.mmap.file, e->u.mmap.file_len,
				e->u.mmap.kernel, &e->u.mmap.id);
		break;
	case PD_EV_LOST: /* counted by the reader; said, as perf report says it */
		warn(pd, WARN_NOTE, pd->in_name,
		     "perf lost %llu events here (its buffer was full; %llu lost so far): "
		     "counts are low around them, and an off-CPU interval whose wakeup or "
		     "switch-in was lost ends at the next one recorded (record with a "
		     "larger -m or a lower -F)",
		     (unsigned long long)e->u.lost.lost, (unsigned long long)pd->rd.st.lost_events);
		break;
	case PD_EV_KSYMBOL:
		if (!e->u.ksym.unregister)
			pd_machine_ksymbol(&pd->mach, e->u.ksym.addr, e->u.ksym.len, e->u.ksym.name,
					   e->u.ksym.name_len);
		break;
	case PD_EV_CGROUP:
		pd_cgroups_add(&pd->cgroups, e->u.cgroup.id, e->u.cgroup.path,
			       e->u.cgroup.path_len);
		break;
	}
}

/* The kernel's symbols are read in a thread from the start, and the
 * first kernel frame waits for them. Meanwhile the symbol tables that the
 * samples queued after it will need are loaded, in the order they need
 * them, until the kernel's are there: only loaded, so frames, counts and
 * warnings come out as they would without it (the machine's map of each
 * user address is today's, so one may be loaded that is never used). */
static int load_ahead(void *ctx, const struct pd_sample *s)
{
	struct perfdata *pd = ctx;
	struct pd_dso *kernel = pd_machine_kernel(&pd->mach);
	int mode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	int user = mode == PERF_RECORD_MISC_USER;

	if (!kernel || pd_dso_ready(kernel))
		return 1; /* done waiting */
	struct pd_thread *t = pd_machine_find_thread(&pd->mach, s->tid);
	for (uint64_t i = 0; t && s->chain && i < s->nr && i < MAX_STACK; i++) {
		uint64_t ip = s->chain[i];
		if (ip >= PERF_CONTEXT_MAX) {
			user = ip == PERF_CONTEXT_USER;
			continue;
		}
		const struct pd_map *mp = user ? pd_machine_map(t->proc, ip) : NULL;
		if (mp && mp->dso && !pd_dso_ready(mp->dso)) {
			pd_dso_load_ahead(mp->dso);
			if (pd_dso_ready(kernel))
				return 1;
		}
	}
	return 0;
}

static void on_kernel_wait(void *ctx)
{
	struct perfdata *pd = ctx;

	pd_reader_peek_samples(&pd->rd, load_ahead, pd);
}

static void on_problem(void *ctx, enum pd_problem what, uint64_t off, const char *msg)
{
	struct perfdata *pd = ctx;
	char where[MSG_MAX];

	snprintf(where, sizeof where, "%s:%llu", pd->in_name, (unsigned long long)off);
	switch (what) {
	case PD_PROB_FATAL:
		pd->fatal = 1;
		warn(pd, WARN_BAD, where, "%s", msg);
		break;
	case PD_PROB_BAD_RECORD:
		warn(pd, WARN_BAD, where, "%s", msg);
		break;
	case PD_PROB_UNKNOWN_RECORD:
		warn(pd, WARN_UNKNOWN, where, "%s", msg);
		break;
	case PD_PROB_NOTE:
		warn(pd, WARN_NOTE, where, "%s", msg);
		break;
	}
}

static void on_build_id(void *ctx, const char *file, const unsigned char *id, size_t n)
{
	struct perfdata *pd = ctx;

	pd_machine_build_id(&pd->mach, file, id, n);
}

static void on_missing(void *ctx, const struct pd_dso *d)
{
	struct perfdata *pd = ctx;

	/* Counted, not warned about: what perf cannot read either (a deleted
	 * file, a memfd, JIT code without a perf map). */
	if (d->type == PD_DSO_JITMAP || strstr(d->name, " (deleted)") ||
	    strncmp(d->name, "/memfd:", 7) == 0)
		return;
	warn(pd, WARN_MISSING, pd->in_name,
	     "cannot read %s (%s): its frames show as "
	     "perf script shows them without symbols",
	     d->name, d->missing_why ? d->missing_why : "unreadable");
}

static void on_doubtful(void *ctx, const struct pd_dso *d)
{
	struct perfdata *pd = ctx;

	warn(pd, WARN_NOTE, pd->in_name,
	     "%s: named from the file at that path here, whose build-id is the recorded "
	     "one, but %s; perf record reads build-ids when it ends, from this host's path "
	     "if the process has gone: if these names look wrong, record with "
	     "--buildid-mmap (the build-id of each map, read by the kernel)",
	     d->name, d->doubt);
}

/* --live: a file asked for (debuginfod, the remote host) came while the
 * capture ran. Said on stderr, as what is missing is: whoever watches
 * knows from which moment the frames have names. */
static void on_arrived(void *ctx, const struct pd_dso *d)
{
	struct perfdata *pd = ctx;

	if (!pd->quiet)
		fprintf(stderr, "%s: %s: %s: its file came: its frames are named from here on\n",
			fp_prog(), pd->in_name, d->name);
}

static const struct pd_ops reader_ops = {
	.event = on_event,
	.problem = on_problem,
	.build_id = on_build_id,
};

/* ---- end of input ------------------------------------------------------------ */

/* 1 if the kernel's symbols came from perf's copy of kallsyms; read once
 * the thread reading them has ended (before, 0: live's I records). */
static int kallsyms_copied(struct pd_machine *m)
{
	struct pd_dso *k = pd_machine_kernel(m);

	return k && pd_dso_ready(k) && k->kallsyms_copy;
}

static void write_info(struct perfdata *pd)
{
	const struct pd_stats *st = &pd->rd.st;
	const struct pd_machine_stats *ms = &pd->mach.st;
	const struct pd_unwind_stats *uw = pd->unwind ? pd_unwind_stats(pd->unwind) : NULL;
	struct pd_fetch_stats di;
	pd_debuginfod_stats(&di);
	struct pd_remote_stats rs;
	pd_remote_stats(&rs);
	const struct fp_stat stats[] = {
		{ "records", st->records },
		{ "samples", st->samples - pd->dropped_samples - pd->drops.dropped },
		{ "frames", pd->frames_out },
		{ "unique_frames", ms->unique_frames },
		{ "unresolved", ms->unresolved },
		{ "lost_events", st->lost_events },
		{ "lost_records", st->lost_records },
		{ "unknown_records", st->unknown_records },
		{ "bad_records", st->bad_records },
		{ "dsos", ms->dsos },
		{ "missing_dsos", ms->missing_dsos },
		{ "threads", ms->threads },
		{ "rounds", st->rounds },
		{ "late_events", st->late_events },
		{ "forced_flushes", st->forced_flushes },
		{ "dropped_samples", pd->dropped_samples },
		{ "corrupt_callchains", pd->corrupt_chains },
		{ "unwound", uw ? uw->samples : 0 },
		{ "unwind_incomplete", uw ? uw->incomplete : 0 },
		{ "skipped_samples", st->skipped_unknown_id + st->skipped_short },
		{ "compressed_records", st->compressed },
		{ "compressed_unread", st->compressed_unread },
		{ "truncated", st->truncated },
		{ "bytes", st->bytes },
		{ "kallsyms_copy", kallsyms_copied(&pd->mach) },
		{ "debuginfod_asked", di.asked },
		{ "debuginfod_found", di.found },
		{ "debuginfod_timed_out", di.timed_out },
		{ "remote_fetched", rs.fetched },
		{ "remote_failed", rs.failed },
		{ "remote_cached", rs.cached },
		{ "remote_bytes", rs.bytes },
		{ "cgroups", fp_strtab_count(&pd->cgroups.paths) },
		{ "unknown_cgroup_samples", pd->cgroups.unknown },
		{ "dropped", pd->drops.dropped }, /* --live: never blocking perf */
		/* off-CPU captures only */
		{ "offcpu_samples", pd->offcpu_samples },
		{ "offcpu_intervals", pd->offcpu.st.intervals },
		{ "offcpu_ns", pd->offcpu.st.blocked_ns },
		{ "offcpu_woken", pd->offcpu.st.woken },
		{ "offcpu_blocked_now", pd_offcpu_blocked_now(&pd->offcpu) },
		{ "offcpu_at_end", pd->offcpu.st.at_end },
		{ "offcpu_unpaired", pd->offcpu.st.unpaired },
		{ "offcpu_overflow", pd->offcpu.st.overflow },
		{ "offcpu_bad", pd->offcpu_bad },
		{ "offcpu_clipped", pd->offcpu.st.clipped },
		{ "offcpu_sched_samples", pd->offcpu_sched },
	};
	enum { OFFCPU_STATS = 11 };
	struct fp_stat kept[sizeof stats / sizeof stats[0]];
	size_t n = 0;
	for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++) {
		size_t from_end = sizeof stats / sizeof stats[0] - i;
		if (from_end == OFFCPU_STATS + 1 && !pd->live)
			continue;
		if (from_end <= OFFCPU_STATS && !pd->off_cpu)
			continue;
		kept[n++] = stats[i];
	}
	fp_write_info(pd->wr, pd->stage, kept, n);
}

/* Live: W, `I STAGE dropped=N` and a stderr line for the samples dropped
 * since the last report, at most once per FP_DROP_REPORT_INTERVAL (fp-read
 * --live does the same). */
static void report_drops(struct perfdata *pd, int force)
{
	fp_drops_report(&pd->drops, now_s(), force, pd->wr, pd->stage, pd->in_name, pd->quiet);
}

/* Live, between reads: drop reports, and the I record about once per
 * STATS_INTERVAL while samples arrive, so views can show live counts. */
static void live_tick(struct perfdata *pd)
{
	if (pd->out.len > pd->live_buffer)
		return;
	report_drops(pd, 0);
	double now = now_s();
	if (pd->rd.st.samples != pd->stats_samples && now - pd->last_stats >= STATS_INTERVAL) {
		pd->last_stats = now;
		pd->stats_samples = pd->rd.st.samples;
		write_info(pd);
	}
}

/* Samples the input had and the output has not: never silent. One
 * warning that says how many and why (a W record; stderr unless -q). Returns 1 if nothing usable was
 * read: no sample written while samples (or compressed records, which
 * hold them) were skipped. */
static int say_skipped(struct perfdata *pd)
{
	const struct pd_stats *st = &pd->rd.st;
	uint64_t written = st->samples - pd->dropped_samples - pd->drops.dropped;
	uint64_t skipped = st->skipped_unknown_id + st->skipped_short + pd->dropped_samples;
	char msg[MSG_MAX];

	if (!skipped && !st->compressed_unread &&
	    !(written == 0 && (st->bad_records || st->unknown_records)))
		return 0;
	snprintf(msg, sizeof msg,
		 "%llu samples skipped (%llu with an unknown event id, "
		 "%llu shorter than their sample_type, %llu too long for a record); "
		 "%llu compressed records not decompressed; %llu bad and %llu unknown "
		 "records; %llu samples written",
		 (unsigned long long)skipped, (unsigned long long)st->skipped_unknown_id,
		 (unsigned long long)st->skipped_short, (unsigned long long)pd->dropped_samples,
		 (unsigned long long)st->compressed_unread, (unsigned long long)st->bad_records,
		 (unsigned long long)st->unknown_records, (unsigned long long)written);
	if (!pd->quiet)
		fprintf(stderr, "%s: %s: %s\n", fp_prog(), pd->in_name, msg);
	fp_write_warning_at(fp_out_wr(&pd->out), pd->stage, pd->in_name, msg);
	return written == 0 && (skipped || st->compressed_unread);
}

static int write_stats(struct perfdata *pd)
{
	if (pd->off_cpu) /* still blocked: up to the last time seen */
		pd_offcpu_end(&pd->offcpu);
	if (pd->live)
		report_drops(pd, 1);
	pd->warn_where = pd->in_name;
	fp_warnings_end(&pd->warnings); /* per kind: how many were not shown */
	int nothing = say_skipped(pd);
	/* the kernel's thread is waited for at the end anyway: the last I
	 * record says where its symbols came from even when none was used */
	if (pd_machine_kernel(&pd->mach))
		pd_dso_wait(pd_machine_kernel(&pd->mach));
	write_info(pd);
	return nothing;
}

/* ---- input ------------------------------------------------------------------ */

/* Live, after a read that brought little (perf writing as it samples):
 * wait LIVE_GATHER_NS before reading again, so one wake-up here, one write
 * and one wake-up of every stage downstream carry what perf wrote
 * meanwhile instead of a few samples each. perf is not blocked: the pipe
 * holds FP_PIPE_SIZE, what ~80 k samples/s with stacks (~300 bytes each)
 * bring in LIVE_GATHER_NS; a read that brought LIVE_TRICKLE_BYTES or more
 * is followed by the next one at once. */
static void gather(struct perfdata *pd, size_t got)
{
	struct timespec ts = { 0, LIVE_GATHER_NS };

	if (pd->live && got < LIVE_TRICKLE_BYTES && !stop_requested)
		nanosleep(&ts, NULL); /* a signal ends it early: fine */
}

static void read_stream(struct perfdata *pd, int fd)
{
	unsigned char *buf = fp_xmalloc(READ_CHUNK);

	if (pd->live)
		fp_fd_grow_pipe(fd);
	while (!pd->rd.failed && !stop_requested) {
		ssize_t n = read(fd, buf, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fp_die_sys(FP_EXIT_SYS, "read %s", pd->in_name);
		if (n == 0)
			break;
		/* live: an answer that came while read waited names the
		 * samples just read, not only those of the next read */
		if (pd->live)
			pd_machine_poll_debuginfod(&pd->mach);
		pd_reader_feed(&pd->rd, buf, (size_t)n);
		fp_out_flush(&pd->out); /* live: never hold samples back */
		if (pd->live) {
			pd_machine_poll_debuginfod(&pd->mach);
			live_tick(pd);
		}
		gather(pd, (size_t)n);
	}
	pd_reader_end(&pd->rd);
	free(buf);
}

/* Runs fp-perfdata on fd; returns the exit code. tests/fuzz/fuzz-perfdata.c
 * calls this too. */
int perfdata_run(int fd, int out_fd, const char *in_name, const struct perfdata_opts *o)
{
	static struct perfdata pd;
	struct stat st;

	memset(&pd, 0, sizeof pd);
	fp_warnings_init(&pd.warnings, warn_kind_name, WARN_KINDS, say_warning, &pd);
	pd.stage = o->stage;
	pd.in_name = in_name;
	pd.quiet = o->quiet;
	pd.live = o->live;
	pd.live_buffer = o->live_buffer;
	pd.stack_ids = o->stack_ids;
	pd.off_cpu = o->off_cpu;
	pd_offcpu_init(&pd.offcpu, o->off_cpu_rows, o->off_cpu_max, write_piece, &pd);
	if (o->off_cpu_max_pieces)
		pd.offcpu.max_pieces = o->off_cpu_max_pieces;
	fp_tailw_init(&pd.tails);
	pd_cgroups_init(&pd.cgroups);
	pd.kinds = fp_xmalloc(MAX_FRAMES);
	pd.stack_cap = STACK_CAP_MIN;
	pd.stack = fp_xmalloc(pd.stack_cap);
	fp_out_init(&pd.out, NULL, out_fd);
	pd_machine_init(&pd.mach);
	if (o->inline_frames)
		pd.inl = pd_inline_new(&pd.mach);
	pd.mach.missing = on_missing;
	pd.mach.doubtful = on_doubtful;
	pd.mach.arrived = on_arrived;
	pd.mach.ctx = &pd;
	if (o->preload_kernel) {
		pd.preload_kernel = 1;
		pd.mach.waiting = on_kernel_wait;
	}
	/* a finished input waits for each debuginfod answer (within its
	 * limit); --live never waits: frames are named when it comes */
	pd_buildid_set_wait(!o->live);
	pd_reader_init(&pd.rd, &reader_ops, &pd);
	pd.wr = fp_out_wr(&pd.out);
	fp_write_header(pd.wr);

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED)
			fp_die_sys(FP_EXIT_SYS, "cannot map '%s'", in_name);
		(void)madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
		pd_reader_file_mapped(&pd.rd, map, (size_t)st.st_size);
		munmap(map, (size_t)st.st_size);
	} else {
		read_stream(&pd, fd);
	}
	int nothing = write_stats(&pd);
	fp_out_flush_all(&pd.out);
	if (pd.fatal && !o->quiet)
		fprintf(stderr, "%s: %s: not readable as perf.data (see above)\n", fp_prog(),
			in_name);
	else if (nothing && !o->quiet)
		fprintf(stderr, "%s: %s: no usable sample read (see above)\n", fp_prog(), in_name);
	int rc = pd.fatal || nothing ? FP_EXIT_DATA : FP_EXIT_OK;
	/* what is still asked is of no use now; its partial files go */
	pd_debuginfod_stop(DI_STOP_WAIT);
	pd_remote_stop(DI_STOP_WAIT);
	pd_reader_free(&pd.rd);
	pd_unwind_free(pd.unwind);
	pd_inline_free(pd.inl);
	pd_machine_free(&pd.mach);
	fp_out_free(&pd.out);
	free(pd.kinds);
	free(pd.stack);
	fp_tailw_free(&pd.tails);
	fp_wmem_free(&pd.key);
	pd_cgroups_free(&pd.cgroups);
	pd_offcpu_free(&pd.offcpu);
	return rc;
}

#ifndef FP_PERFDATA_NO_MAIN
static void opt_kallsyms(void *ctx, const char *opt, const char *arg)
{
	pd_symbols_set_kallsyms(arg);
}

/* --off-cpu's words, in the order of OFFCPU_AUTO, _ON, _OFF */
static const char *const off_cpu_words[] = { "auto", "on", "off", NULL };

static double di_limit = PD_DI_LIMIT_DEFAULT;

/* --debuginfod-timeout SECONDS: a decimal number of seconds in range. */
static void opt_di_limit(void *ctx, const char *opt, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= DI_LIMIT_MIN && v <= DI_LIMIT_MAX))
		fp_die(FP_EXIT_USAGE, "--%s %s: expected seconds from %g to %g", opt, arg,
		       DI_LIMIT_MIN, DI_LIMIT_MAX);
	di_limit = v;
}

static void opt_symfs(void *ctx, const char *opt, const char *arg)
{
	struct stat st;

	if (stat(arg, &st) < 0)
		fp_die(FP_EXIT_USAGE, "--symfs %s: %s", arg, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		fp_die(FP_EXIT_USAGE, "--symfs %s: not a directory", arg);
	pd_buildid_set_symfs(arg);
}

/* An upload to fp-serve: no file of this host and no debuginfod look-up
 * (it would announce the upload's build-ids to this host's servers). */
static void opt_no_host_files(void *ctx, const char *opt, const char *arg)
{
	pd_symbols_set_host_files(0);
	*(int *)ctx = 1;
}

/* --remote HOST and its ssh options (pd_remote.h). */
#define REMOTE_ARGS_MAX 256
static const char *remote_args[REMOTE_ARGS_MAX];
static struct pd_remote_opts remote = { .ssh_args = remote_args, .limit = PD_REMOTE_LIMIT_DEFAULT };

static void opt_ssh_arg(void *ctx, const char *opt, const char *arg)
{
	if (remote.nssh_args >= REMOTE_ARGS_MAX)
		fp_die(FP_EXIT_USAGE, "--ssh-arg: at most %d", REMOTE_ARGS_MAX);
	remote_args[remote.nssh_args++] = arg;
}

static void opt_remote(void *ctx, const char *opt, const char *arg)
{
	if (!strcmp(opt, "remote")) {
		if (!*arg || arg[0] == '-')
			fp_die(FP_EXIT_USAGE, "--remote: want [USER@]HOST, got '%s'", arg);
		remote.host = arg;
	} else if (!strcmp(opt, "remote-control")) {
		remote.control = arg;
	} else if (!strcmp(opt, "remote-cache")) {
		remote.cache = arg;
	} else {
		char *end;
		double v = strtod(arg, &end);
		if (end == arg || *end || !(v >= DI_LIMIT_MIN && v <= DI_LIMIT_MAX))
			fp_die(FP_EXIT_USAGE, "--%s %s: expected seconds from %g to %g", opt, arg,
			       DI_LIMIT_MIN, DI_LIMIT_MAX);
		remote.limit = v;
	}
}

int main(int argc, char **argv)
{
	/* kallsyms is read alongside the recording's first records */
	struct perfdata_opts o = {
		DEFAULT_STAGE_NAME,        0, 0, LIVE_BUFFER_MAX, 1, 0, 0, OFFCPU_AUTO, 50,
		PD_OFFCPU_MAX_OPEN_DEFAULT
	};
	uint64_t live_buffer = LIVE_BUFFER_MAX, off_rows = 50, off_max = PD_OFFCPU_MAX_OPEN_DEFAULT;
	int no_debuginfod = 0;
	const struct fp_opt options[] = {
		{ "name", FP_OPT_NAME, &o.stage },
		{ "quiet", FP_OPT_FLAG, &o.quiet, .short_name = 'q' },
		{ "kallsyms", FP_OPT_FN, .fn = opt_kallsyms },
		{ "no-host-files", FP_OPT_FN_FLAG, .fn = opt_no_host_files },
		{ "live", FP_OPT_FLAG, &o.live },
		{ "live-buffer", FP_OPT_U64, &live_buffer, LIVE_BUFFER_MIN, LIVE_BUFFER_MAX },
		{ "stack-ids", FP_OPT_FLAG, &o.stack_ids },
		{ "inline", FP_OPT_FLAG, &o.inline_frames },
		{ "symfs", FP_OPT_FN, .fn = opt_symfs },
		{ "debuginfod-timeout", FP_OPT_FN, .fn = opt_di_limit },
		{ "no-debuginfod", FP_OPT_FLAG, &no_debuginfod },
		{ "off-cpu", FP_OPT_CHOICE, &o.off_cpu, .choices = off_cpu_words },
		{ "off-cpu-rows", FP_OPT_U64, &off_rows, 1, 1000 },
		{ "off-cpu-max-threads", FP_OPT_U64, &off_max, 1, 1u << 24 },
		{ "remote", FP_OPT_FN, .fn = opt_remote },
		{ "remote-control", FP_OPT_FN, .fn = opt_remote },
		{ "remote-cache", FP_OPT_FN, .fn = opt_remote },
		{ "remote-timeout", FP_OPT_FN, .fn = opt_remote },
		{ "ssh-arg", FP_OPT_FN, .fn = opt_ssh_arg },
		{ NULL },
	};

	fp_set_prog(argv[0]);
	int first = fp_opts_parse(argc, argv, options, USAGE, 1, &no_debuginfod);
	o.live_buffer = (size_t)live_buffer;
	o.off_cpu_rows = (unsigned)off_rows;
	o.off_cpu_max = (size_t)off_max;
	if (!no_debuginfod)
		pd_debuginfod_start(di_limit);
	if (!remote.host && (remote.nssh_args || remote.control || remote.cache))
		fp_die(FP_EXIT_USAGE, "--ssh-arg, --remote-control and --remote-cache go with "
				      "--remote HOST");
	const char *why;
	if (remote.host && pd_remote_start(&remote, &why) < 0)
		fp_die(FP_EXIT_SYS, "--remote %s: %s", remote.host, why);
	const char *path = first < argc ? argv[first] : "-";
	int fd = 0;
	if (strcmp(path, "-") != 0) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fp_die_sys(FP_EXIT_SYS, "cannot open '%s'", path);
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal; /* no SA_RESTART: read() returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return perfdata_run(fd, 1, fd ? path : "stdin", &o);
}
#endif
