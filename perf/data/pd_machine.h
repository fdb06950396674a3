/* pd_machine.h: the recorded machine as perf script sees it: threads and
 * their comm, processes and their memory maps, the dsos, and the frame
 * (name + kind) of every sampled address.
 *
 * Frames are resolved once per (dso, address): an fp_map lookup for a hot
 * address. Frame names and kinds follow fp-read's rules for perf script
 * text (perf/script/fp_perfparse.h): the symbol as perf prints it, without the
 * offset; "[<dso basename>]" when the dso is known but not the symbol;
 * "[unknown]" when no map covers the address. The kind comes from the dso
 * name perf prints, through fp_perf_dso_kind. So memory follows mappings,
 * dsos and unique frames, never samples.
 *
 * Calling sequence: pd_machine_init; feed events (pd_machine_comm, _fork,
 * _exit, _mmap, _ksymbol) in time order; for each sample pd_machine_thread
 * then pd_machine_frame per address; pd_machine_free.
 */
#ifndef PD_MACHINE_H
#define PD_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "fp_map.h"
#include "pd_symbols.h"

struct pd_map {
	uint64_t start, end, pgoff;
	struct pd_dso *dso;
	int identity; /* JIT map: the address is the symbol address */
};

#define PD_MAP_HINTS 2

struct pd_proc {
	int64_t pid;
	struct pd_map *maps; /* sorted by start, not overlapping */
	size_t nmaps, cap;
	unsigned refs;
	size_t hint[PD_MAP_HINTS]; /* maps found last, most recent first (checked
					 * against the address: any value is safe) */
	/* its mount namespace if not fp-perfdata's (pd_procroot.h), looked
	 * up at its first MMAP record: ns_checked */
	uint64_t mntns;
	int ns_checked;
};

struct pd_thread {
	int64_t pid, tid;
	char *comm; /* cleaned for the protocol, never empty */
	size_t comm_len;
	struct pd_proc *proc;
};

struct pd_frame {
	uint32_t off, len; /* name in the names arena */
	char kind;
};

/* The hot cache's entries: (dso-relative address, dso id) -> frame; dso 0
 * (no dso has it) marks an empty one. */
#define PD_HOT_BITS 12
#define PD_HOT_SLOTS ((size_t)1 << PD_HOT_BITS)
struct pd_hot {
	uint64_t rel;
	uint32_t dso, frame;
};

struct pd_machine_stats {
	uint64_t frames, unique_frames, unresolved, missing_dsos, dsos, threads;
};

struct pd_bpf {
	uint64_t start, end;
	struct pd_dso *dso;
};

struct pd_machine {
	struct pd_thread **threads; /* 0 .. nthreads-1, by_tid indexes them */
	size_t threads_cap, nthreads;
	struct fp_map by_tid;
	struct pd_proc **procs; /* 0 .. nprocs-1, by_pid indexes them */
	size_t procs_cap, nprocs;
	struct fp_map by_pid;
	struct pd_dso **dsos; /* by index (id - 1) */
	size_t ndsos, dsos_cap;
	struct fp_map by_name; /* hash of a dso's name -> index */
	struct pd_dso *kernel;
	uint64_t kernel_start; /* from the [kernel.kallsyms]_text map */
	uint64_t kernel_text;  /* its pgoff: the recorded address of _text */
	uint32_t last_id;      /* the dso ids given (pd_dso.id) */
	unsigned answers_seen; /* pd_debuginfod_answers at the last poll */
	struct pd_bpf *bpf;
	size_t nbpf;
	uint64_t bpf_lo, bpf_hi; /* range of all BPF programs */
	struct pd_frame *frames;
	size_t nframes, frames_cap;
	char *names;
	size_t names_len, names_cap;
	struct fp_map frame_of; /* (dso-relative address, dso id) -> frame */
	struct pd_hot *hot;     /* PD_HOT_SLOTS: a direct-mapped cache of frame_of */
	uint32_t unknown_frame; /* "[unknown]", kind x */
	struct pd_machine_stats st;
	/* called once per dso that cannot be read (optional) */
	void (*missing)(void *ctx, const struct pd_dso *d);
	/* called once per dso named from a file that may not be its own
	 * (d->doubt says why; optional) */
	void (*doubtful)(void *ctx, const struct pd_dso *d);
	/* called when a dso waiting for an answer (debuginfod, the remote
	 * host) got its file: its frames are named from here on (optional) */
	void (*arrived)(void *ctx, const struct pd_dso *d);
	/* called when the first kernel address is resolved while the
	 * kernel's symbols are still being read (pd_machine_preload_kernel):
	 * time for other work before waiting for them (optional) */
	void (*waiting)(void *ctx);
	void *ctx;
};

void pd_machine_init(struct pd_machine *m);
void pd_machine_free(struct pd_machine *m);

void pd_machine_comm(struct pd_machine *m, int64_t pid, int64_t tid, const char *comm, size_t len);
/* Process pid exec'd (COMM with PERF_RECORD_MISC_COMM_EXEC): its mount
 * namespace is looked at again at its next map (a container's first
 * process enters the container's namespaces, then execs its entrypoint:
 * the same pid, first in the host's namespace, then in the container's). */
void pd_machine_exec(struct pd_machine *m, int64_t pid);
/* synthesized: perf's FORK of a task running when the recording started,
 * whose own maps follow (the parent's are not copied, as in perf). */
void pd_machine_fork(struct pd_machine *m, int64_t pid, int64_t ppid, int64_t tid, int64_t ptid,
		     int synthesized);
void pd_machine_mmap(struct pd_machine *m, int64_t pid, uint64_t start, uint64_t len,
		     uint64_t pgoff, uint32_t prot, const char *file, size_t flen, int kernel,
		     const struct pd_file_id *id);
void pd_machine_ksymbol(struct pd_machine *m, uint64_t addr, uint32_t len, const char *name,
			size_t nlen);
/* A build-id from the recording, for the dso of that file. */
void pd_machine_build_id(struct pd_machine *m, const char *file, const unsigned char *id, size_t n);

/* --live: reads again the dsos whose debuginfod look-ups (or remote
 * fetches, pd_remote.h) were pending and
 * have been answered since the last call; their frames from then on are
 * named by what came (cheap when nothing came: one counter compared). */
void pd_machine_poll_debuginfod(struct pd_machine *m);
/* Starts reading the kernel's symbols now, in a thread (pd_dso_preload):
 * a system-wide recording needs them for its first kernel frame. */
void pd_machine_preload_kernel(struct pd_machine *m);
/* The thread of (pid, tid), created as perf creates it if unknown. */
struct pd_thread *pd_machine_thread(struct pd_machine *m, int64_t pid, int64_t tid);
/* The thread of tid if it is known, else NULL: nothing is created. */
struct pd_thread *pd_machine_find_thread(struct pd_machine *m, int64_t tid);
/* The kernel's dso, or NULL before pd_machine_preload_kernel. */
static inline struct pd_dso *pd_machine_kernel(const struct pd_machine *m)
{
	return m->kernel;
}
/* The slot of (rel, dso id) in the hot cache: a multiply and the top bits. */
static inline size_t pd_hot_slot(uint64_t rel, uint32_t dso)
{
	uint64_t h = (rel ^ (uint64_t)dso << 47) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> (64 - PD_HOT_BITS));
}

/* pd_machine_frame's every case. */
uint32_t pd_machine_frame_slow(struct pd_machine *m, struct pd_thread *t, int kernel, uint64_t ip);

/* The frame of a sampled address in kernel or user context. Inline when
 * the hot cache has it and the address is the kernel's text (no BPF
 * programs known) or in the map of the thread's process found last: what
 * pd_machine_frame_slow would find there; else that. */
static inline uint32_t pd_machine_frame(struct pd_machine *m, struct pd_thread *t, int kernel,
					uint64_t ip)
{
	const struct pd_dso *d = NULL;
	uint64_t rel = ip;

	if (kernel) {
		if (!m->nbpf && m->kernel && ip >= m->kernel_start)
			d = m->kernel;
	} else {
		const struct pd_proc *p = t->proc;
		size_t h = p->hint[0];
		if (h < p->nmaps && ip >= p->maps[h].start && ip < p->maps[h].end) {
			const struct pd_map *mp = &p->maps[h];
			d = mp->dso;
			rel = mp->identity ? ip : ip - mp->start + mp->pgoff;
		}
	}
	if (d) {
		const struct pd_hot *e = &m->hot[pd_hot_slot(rel, d->id)];
		if (e->rel == rel && e->dso == d->id) {
			m->st.frames++;
			return e->frame;
		}
	}
	return pd_machine_frame_slow(m, t, kernel, ip);
}

/* A frame named name (cleaned as every frame name) of kind kind: for
 * frames that are no symbol's (pd_inline's inlined functions). */
uint32_t pd_machine_add_frame(struct pd_machine *m, const char *name, size_t n, char kind);
/* The map of process p covering addr, or NULL. */
const struct pd_map *pd_machine_map(const struct pd_proc *p, uint64_t addr);

static inline const char *pd_frame_name(const struct pd_machine *m, uint32_t f)
{
	return m->names + m->frames[f].off;
}

#endif
