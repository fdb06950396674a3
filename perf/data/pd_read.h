/* pd_read.h: read perf.data (file or pipe format) into decoded events.
 *
 * The reader knows perf's on-disk format (tools/perf/Documentation/
 * perf.data-file-format.txt, <linux/perf_event.h>): the file header, the
 * attribute section or HEADER_ATTR records, the feature sections or
 * HEADER_FEATURE records it needs (event names, build-ids, hostname), and
 * every kernel record. It decodes SAMPLE records for every sample_type
 * layout (sample_id_all trailers of side-band records too) and hands the
 * events on in time order: like perf, it queues timed events and sorts
 * them at each FINISHED_ROUND, delivering what is older than the previous
 * round's newest event. The queue is bounded (PD_QUEUE_MAX_BYTES): past
 * it, the older half is delivered early and counted.
 *
 * Calling sequence:
 *
 *	struct pd_reader r;
 *	pd_reader_init(&r, &my_ops, ctx);
 *	file:  pd_reader_file(&r, map, size);    // whole file in memory (mmap)
 *	pipe:  pd_reader_feed(&r, buf, n) ... ;  // any chunking
 *	       pd_reader_end(&r);                // end of input
 *	... r.st has the counters; r.failed says input was unusable ...
 *	pd_reader_free(&r);
 *
 * Events are delivered through ops->event; pointers in them stay valid
 * only during the call.
 */
#ifndef PD_READ_H
#define PD_READ_H

#include <stddef.h>
#include <stdint.h>

#define PD_MAGIC 0x32454c4946524550ull  /* "PERFILE2" */
#define PD_QUEUE_MAX_BYTES (256u << 20) /* reorder window, bytes queued */
#define PD_MAX_EVSELS 256               /* attributes (events) per file */
#define PD_MAX_IDS (1u << 20)           /* sample ids over all events */
#define PD_MAX_STACK_USER (1u << 20)    /* bytes of a dwarf user stack */

/* The file a map was made of, as an MMAP2 record names it: its build-id
 * (perf record --buildid-mmap: read by the kernel at the map), else its
 * device and inode. What tells the mapped file from another of the same
 * path (a container's libc and the host's). */
struct pd_file_id {
	uint32_t maj, min;
	uint64_t ino;
	int known;                     /* maj, min and ino are set */
	const unsigned char *build_id; /* in the record; NULL: none */
	size_t build_id_len;
};

/* Whether id names the file of device maj:min, inode ino (a stat's
 * major(st_dev), minor(st_dev), st_ino, or another id's): the one
 * comparison of a mapped file's identity. */
static inline int pd_file_id_is(const struct pd_file_id *id, uint32_t maj, uint32_t min,
				uint64_t ino)
{
	return id->ino == ino && id->maj == maj && id->min == min;
}

enum pd_event_type {
	PD_EV_SAMPLE,
	PD_EV_COMM,
	PD_EV_FORK,
	PD_EV_EXIT,
	PD_EV_MMAP,
	PD_EV_LOST, /* LOST and LOST_SAMPLES */
	PD_EV_KSYMBOL,
	PD_EV_CGROUP, /* PERF_RECORD_CGROUP: a cgroup id's path */
	PD_EV_SWITCH, /* PERF_RECORD_SWITCH(_CPU_WIDE): --switch-events */
};

struct pd_evsel {
	uint64_t sample_type, read_format, regs_user, branch_type;
	uint64_t regs_intr; /* sample_regs_intr: PERF_SAMPLE_REGS_INTR's size */
	uint32_t type;
	uint64_t config;
	int sample_id_all;
	int precise_ip;
	char *name; /* from EVENT_DESC / EVENT_UPDATE, or made up */
	size_t name_len;
};

struct pd_sample {
	const struct pd_evsel *ev;
	uint16_t misc; /* header.misc: cpumode */
	uint64_t ip, time, period, id;
	int64_t pid, tid, cpu; /* -1 when the sample_type has none */
	int has_time;
	uint64_t nr;           /* callchain entries (with context markers) */
	const uint64_t *chain; /* may be unaligned-safe copies: see pd_read.c */
	uint64_t regs_abi;
	const uint64_t *regs; /* popcount(ev->regs_user) registers */
	size_t nregs;
	const unsigned char *stack; /* user stack bytes (dwarf callchains) */
	uint64_t stack_size;
	const unsigned char *raw; /* PERF_SAMPLE_RAW: a tracepoint's fields */
	uint32_t raw_size;
	uint64_t cgroup; /* PERF_SAMPLE_CGROUP (perf record --all-cgroups) */
	int has_cgroup;
};

struct pd_event {
	enum pd_event_type type;
	uint64_t time; /* 0 if unknown */
	union {
		struct pd_sample sample;
		struct {
			int64_t pid, tid;
			const char *comm;
			size_t len;
			int exec;
		} comm;
		/* also exit; synthesized: perf record made it up for a task
		 * running when it started (PERF_RECORD_MISC_FORK_EXEC) */
		struct {
			int64_t pid, ppid, tid, ptid;
			int synthesized;
		} fork;
		struct {
			int64_t pid, tid;
			uint64_t start, len, pgoff;
			uint32_t prot;
			const char *file;
			size_t file_len;
			int kernel; /* cpumode kernel: a kernel/module map */
			/* MMAP2: the file's build-id or device and inode */
			struct pd_file_id id;
		} mmap;
		struct {
			uint64_t lost;
		} lost;
		struct {
			uint64_t addr;
			uint32_t len;
			int unregister;
			const char *name;
			size_t name_len;
		} ksym;
		struct {
			uint64_t id;
			const char *path;
			size_t path_len;
		} cgroup;
		/* the task (sample_id trailer; -1 without) switched in or out */
		struct {
			int64_t pid, tid, cpu;
			int out, preempt;
		} sw;
	} u;
};

/* What went wrong (ops->problem): each with a message. */
enum pd_problem {
	PD_PROB_FATAL,          /* input unusable from here: reading stops */
	PD_PROB_BAD_RECORD,     /* a record that does not parse: skipped */
	PD_PROB_UNKNOWN_RECORD, /* a record type this reader does not know */
	PD_PROB_NOTE,           /* informational (late events, forced flush) */
};

struct pd_ops {
	void (*event)(void *ctx, const struct pd_event *ev);
	void (*problem)(void *ctx, enum pd_problem what, uint64_t offset, const char *msg);
	/* Build-id feature entry: file name and its build-id (optional). */
	void (*build_id)(void *ctx, const char *file, const unsigned char *id, size_t n);
};

struct pd_stats {
	uint64_t records, samples, bad_records, unknown_records;
	uint64_t lost_events, lost_records;
	uint64_t comm, fork, exit, mmap, ksymbol, cgroup, other_records;
	uint64_t rounds, late_events, forced_flushes;
	uint64_t bytes;
	uint64_t truncated;         /* 1 if the input ended inside a record/section */
	uint64_t compressed;        /* PERF_RECORD_COMPRESSED records (perf record -z) */
	uint64_t compressed_unread; /* ... whose records could not be decompressed */
	/* SAMPLE records not delivered, by why */
	uint64_t skipped_unknown_id, skipped_short;
};

struct pd_queued;

#define PD_ID_HINTS 8 /* a power of two */

struct pd_reader {
	const struct pd_ops *ops;
	void *ctx;
	struct pd_stats st;
	int pipe_mode;
	int failed; /* a fatal problem: nothing more is read */
	int header_done;
	struct pd_evsel *evsels;
	size_t nevsels;
	struct pd_idmap {
		uint64_t id;
		uint32_t ev;
	} * ids; /* sorted by id */
	size_t nids, ids_cap;
	int ids_sorted;
	/* index + 1 in ids of ids found lately, or 0: by the id's low bits */
	size_t id_hint[PD_ID_HINTS];
	char *hostname;

	/* pipe mode input assembly */
	unsigned char *buf;
	size_t buf_len, buf_cap;
	uint64_t offset; /* stream offset of buf[0] */

	/* reorder queue */
	struct pd_queued *q, *qtmp; /* qtmp: sort_queue's merge buffer */
	size_t qn, qcap, qbytes, qtmp_cap;
	uint64_t seq, round_max, next_flush, last_flushed;
	int flushed_any;

	/* scratch for aligned copies of records */
	uint64_t *scratch;
	/* pd_reader_peek_samples: its own copies, and where the queue's
	 * delivery is (the index after the record being delivered, or 0) */
	uint64_t *peek;
	size_t delivering;
	/* pd_reader_file_mapped: the mapping, and how far it was dropped */
	const unsigned char *map, *map_dropped;
	/* perf record -z: the zstd stream, and its records decompressed but
	 * not walked yet (the start of one cut by a COMPRESSED record's end) */
	struct pd_zstd *zstd;
	unsigned char *dbuf;
	size_t dlen, dcap;
	int in_decomp;       /* walking dbuf: queued records are copied */
	uint64_t decomp_off; /* the COMPRESSED record's offset, for problems */
};

void pd_reader_init(struct pd_reader *r, const struct pd_ops *ops, void *ctx);
/* A whole perf.data file (file format or pipe format) in memory. */
void pd_reader_file(struct pd_reader *r, const unsigned char *data, size_t size);
/* The same for a file mapped by the caller (mmap, PROT_READ, MAP_PRIVATE,
 * page-aligned): the pages read are dropped as the records are read
 * (MADV_DONTNEED), so the resident memory does not follow the file. */
void pd_reader_file_mapped(struct pd_reader *r, const unsigned char *map, size_t size);
/* Pipe format, fed in pieces; then pd_reader_end. */
void pd_reader_feed(struct pd_reader *r, const unsigned char *data, size_t n);
void pd_reader_end(struct pd_reader *r);
void pd_reader_free(struct pd_reader *r);
/* Calls fn with each sample still queued for delivery (after the event
 * being delivered, in delivery order), decoded but not delivered, until fn
 * returns nonzero: what is coming, for a look ahead (fp-perfdata loads the
 * symbols it will need while it waits for the kernel's). Nothing changes. */
void pd_reader_peek_samples(struct pd_reader *r, int (*fn)(void *ctx, const struct pd_sample *s),
			    void *ctx);
/* Is this the start of a perf.data file (either format)? n >= 8. */
int pd_is_perf_data(const unsigned char *p, size_t n);

#endif
