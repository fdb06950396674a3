/* pd_machine.c: threads, maps, dsos and the frame cache (pd_machine.h).
 * Follows perf's tools/perf/util/machine.c and thread.c in what it keeps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libiberty/demangle.h>

#include "fp_error.h"
#include "fp_hash.h"
#include "fp_perfparse.h"
#include "fp_record.h"
#include "pd_buildid.h"
#include "pd_debuginfod.h"
#include "pd_remote.h"
#include "pd_remote.h"
#include "pd_machine.h"
#include "pd_procroot.h"

#define TABLE_MIN 256
#define CACHE_MIN 4096
#define KERNEL_DSO "[kernel.kallsyms]"
#define KERNEL_TEXT_MAP "[kernel.kallsyms]_text"
#define VDSO_DSO "[vdso]"
#define UNKNOWN_NAME "[unknown]"
#define JIT_MAP_FMT "/tmp/perf-%lld.map"
#define JIT_MAP_CAP 64
#define COMM_UNKNOWN_FMT ":%lld" /* perf's comm of a thread it never saw named */
#define IDLE_COMM "swapper"      /* perf names tid 0 so */

/* ---- small helpers ------------------------------------------------------- */

/* fp-read's name rules: spaces and TABs around the name dropped, ';' -> ':',
 * control bytes -> ' '. Returns the cleaned length. */
static size_t clean_name(char *dst, const char *src, size_t n)
{
	while (n && (*src == ' ' || *src == '\t'))
		src++, n--;
	while (n && (src[n - 1] == ' ' || src[n - 1] == '\t'))
		n--;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];
		dst[i] = c == ';' ? ':' : (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
	}
	return n;
}

static uint32_t add_frame(struct pd_machine *m, const char *name, size_t n, char kind)
{
	if (m->names_len + n + 1 > m->names_cap) {
		while (m->names_len + n + 1 > m->names_cap)
			m->names_cap = m->names_cap ? m->names_cap * 2 : CACHE_MIN * 16;
		m->names = fp_xrealloc(m->names, m->names_cap);
	}
	if (m->nframes == m->frames_cap) {
		m->frames_cap = m->frames_cap ? m->frames_cap * 2 : CACHE_MIN;
		m->frames = fp_xrealloc(m->frames, m->frames_cap * sizeof *m->frames);
	}
	size_t len = clean_name(m->names + m->names_len, name, n);
	if (!len) {
		memcpy(m->names + m->names_len, UNKNOWN_NAME, sizeof UNKNOWN_NAME - 1);
		len = sizeof UNKNOWN_NAME - 1;
	}
	struct pd_frame *f = &m->frames[m->nframes];
	f->off = (uint32_t)m->names_len;
	f->len = (uint32_t)len;
	f->kind = kind;
	m->names[m->names_len + len] = '\0';
	m->names_len += len + 1;
	m->st.unique_frames++;
	return (uint32_t)m->nframes++;
}

/* ---- dsos ---------------------------------------------------------------- */

/* A new dso of a name in mount namespace ns. */
static struct pd_dso *add_dso(struct pd_machine *m, const char *name, size_t n,
			      enum pd_dso_type type, uint64_t ns)
{
	struct pd_dso *d = pd_dso_new(name, n, type);
	d->ns_id = ns;
	d->kind = fp_perf_dso_kind(name, n);
	if (m->ndsos == m->dsos_cap) {
		m->dsos_cap = m->dsos_cap ? m->dsos_cap * 2 : TABLE_MIN;
		m->dsos = fp_xrealloc(m->dsos, m->dsos_cap * sizeof *m->dsos);
	}
	fp_map_add(&m->by_name, fp_hash_bytes(name, n), 0, (uint32_t)m->ndsos);
	m->dsos[m->ndsos++] = d;
	d->id = ++m->last_id;
	m->st.dsos++;
	return d;
}

/* Whether d may be the file id names: the same device and inode, where
 * both are known (an MMAP2 record's; a dso made before any map, from a
 * header's build-id, takes the first file that claims it). */
static int same_file(const struct pd_dso *d, const struct pd_file_id *id)
{
	return !id || !id->known || !d->mapped.known ||
	       pd_file_id_is(&d->mapped, id->maj, id->min, id->ino);
}

/* The dso of a name in mount namespace ns (0: the host's; a container's
 * /usr/bin/python is not the host's), made if new and make is set, else
 * NULL. With a build-id in id (perf record --buildid-mmap: the kernel
 * read it at the map), the dso of that build: two builds at one path (a
 * container's libc and the host's) are two dsos, as in perf; one of that
 * name not read yet and without a build-id becomes this build's. Without
 * one, the dso of id's device and inode: a binary replaced at its path
 * while the capture ran (a deploy) has its old processes' dso and its new
 * ones', as perf keeps them apart (its dso_id), and only the file at the
 * path now is read for the one it is (at_recorded, pd_buildid.c). id
 * NULL: the first of the name. */
static struct pd_dso *find_dso_ns(struct pd_machine *m, const char *name, size_t n,
				  enum pd_dso_type type, uint64_t ns, const struct pd_file_id *id,
				  int make)
{
	size_t len = !id || !id->build_id_len                         ? 0
		     : id->build_id_len < sizeof m->dsos[0]->build_id ? id->build_id_len
								      : sizeof m->dsos[0]->build_id;
	struct pd_dso *blank = NULL;
	size_t pos = 0;

	/* a multi-map: dsos whose names hash alike are told apart here */
	for (uint32_t i = fp_map_first(&m->by_name, fp_hash_bytes(name, n), 0, &pos);
	     i != FP_MAP_NONE; i = fp_map_next(&m->by_name, &pos)) {
		struct pd_dso *d = m->dsos[i];
		if (d->name_len != n || d->ns_id != ns || memcmp(d->name, name, n) != 0)
			continue;
		if (!len ? same_file(d, id)
			 : d->build_id_len == len && memcmp(d->build_id, id->build_id, len) == 0)
			return d;
		if (len && !blank && !d->build_id_len && !d->loaded && !d->ready && !d->loader &&
		    same_file(d, id))
			blank = d;
	}
	if (!make)
		return NULL;
	struct pd_dso *d = blank ? blank : add_dso(m, name, n, type, ns);
	if (len) {
		memcpy(d->build_id, id->build_id, len);
		d->build_id_len = len;
		d->build_id_mapped = 1;
	}
	return d;
}

static struct pd_dso *find_dso(struct pd_machine *m, const char *name, size_t n,
			       enum pd_dso_type type)
{
	return find_dso_ns(m, name, n, type, 0, NULL, 1);
}

/* A file mapped by process p (id: what the record says of the file, or
 * NULL): in a process of another mount namespace (looked up once, at its
 * first map, while it lives) the dso of that namespace, its file opened
 * there now (pd_procroot.h) with the build-id the recording gives the
 * name, or the map its own. */
static struct pd_dso *mapped_dso(struct pd_machine *m, struct pd_proc *p, const char *name,
				 size_t n, enum pd_dso_type type, const struct pd_file_id *id)
{
	if (!p->ns_checked) {
		p->ns_checked = 1;
		/* another host's pid names nothing here */
		p->mntns = pd_buildid_foreign() ? 0 : pd_procroot_mntns(p->pid);
	}
	if (!p->mntns)
		return find_dso_ns(m, name, n, type, 0, id, 1);
	size_t before = m->ndsos;
	struct pd_dso *d = find_dso_ns(m, name, n, type, p->mntns, id, 1);
	if (m->ndsos != before) {
		const struct pd_dso *host = find_dso_ns(m, name, n, type, 0, NULL, 0);
		/* perf writes one build-id per path: when the file at the
		 * path here is not the mapped one, it may be that file's */
		struct stat st;
		if (host && !(id && id->build_id_len) && !pd_file_id_other(id, name, &st)) {
			memcpy(d->build_id, host->build_id, host->build_id_len);
			d->build_id_len = host->build_id_len;
		}
		pd_procroot_attach(d, p->pid);
	}
	return d;
}

void pd_machine_build_id(struct pd_machine *m, const char *file, const unsigned char *id, size_t n)
{
	size_t fl = strlen(file);
	struct pd_dso *d;
	if (strcmp(file, KERNEL_DSO) == 0) {
		/* the kernel's symbols are chosen by it (pd_buildid.h) */
		if (!m->kernel)
			m->kernel = find_dso(m, KERNEL_DSO, sizeof KERNEL_DSO - 1, PD_DSO_KERNEL);
		d = m->kernel;
	} else if (strcmp(file, VDSO_DSO) == 0) {
		d = find_dso(m, file, fl, PD_DSO_VDSO);
	} else if (fl && file[0] == '[') {
		return; /* guest kernels, modules by name: not looked up */
	} else {
		d = find_dso(m, file, fl, PD_DSO_ELF);
	}
	if (d->loaded || d->ready || d->loader)
		return; /* read already (pipe mode: a late record) */
	if (d->build_id_mapped)
		return; /* the kernel's, at its map: the truth (pipe mode) */
	if (n > sizeof d->build_id)
		n = sizeof d->build_id;
	memcpy(d->build_id, id, n);
	d->build_id_len = n;
}

/* ---- threads and processes ---------------------------------------------- */

static struct pd_proc *proc_get(struct pd_machine *m, int64_t pid, int create)
{
	uint32_t i = fp_map_get(&m->by_pid, (uint64_t)pid, 0);

	if (i != FP_MAP_NONE)
		return m->procs[i];
	if (!create)
		return NULL;
	m->procs = fp_xgrow(m->procs, &m->procs_cap, m->nprocs + 1, sizeof *m->procs, TABLE_MIN);
	struct pd_proc *p = fp_xcalloc(1, sizeof *p);
	p->pid = pid;
	fp_map_add(&m->by_pid, (uint64_t)pid, 0, (uint32_t)m->nprocs);
	m->procs[m->nprocs++] = p;
	return p;
}

/* The slot of tid's thread in m->threads: its thread, or NULL where a new
 * one goes (the slot is made then; valid until the next thread_slot). */
static struct pd_thread **thread_slot(struct pd_machine *m, int64_t tid)
{
	uint32_t i = fp_map_put(&m->by_tid, (uint64_t)tid, 0, (uint32_t)m->nthreads);

	if (i == m->nthreads) {
		m->threads = fp_xgrow(m->threads, &m->threads_cap, m->nthreads + 1,
				      sizeof *m->threads, TABLE_MIN);
		m->threads[m->nthreads++] = NULL;
	}
	return &m->threads[i];
}

static void set_comm(struct pd_thread *t, const char *comm, size_t n)
{
	free(t->comm);
	t->comm = fp_xmalloc(n + 2);
	t->comm_len = clean_name(t->comm, comm, n);
	if (!t->comm_len)
		t->comm[t->comm_len++] = '?';
	t->comm[t->comm_len] = '\0';
}

struct pd_thread *pd_machine_thread(struct pd_machine *m, int64_t pid, int64_t tid)
{
	struct pd_thread **slot = thread_slot(m, tid);

	if (*slot) {
		if ((*slot)->pid == -1 && pid != -1) {
			/* first seen without its pid: join the process now */
			(*slot)->pid = pid;
			struct pd_proc *p = proc_get(m, pid, 1);
			if ((*slot)->proc && !--(*slot)->proc->refs) {
				free((*slot)->proc->maps);
				free((*slot)->proc);
			}
			(*slot)->proc = p;
			p->refs++;
		}
		return *slot;
	}
	struct pd_thread *t = fp_xcalloc(1, sizeof *t);
	char buf[32];
	t->pid = pid;
	t->tid = tid;
	if (tid == 0)
		set_comm(t, IDLE_COMM, sizeof IDLE_COMM - 1);
	else
		set_comm(t, buf,
			 (size_t)snprintf(buf, sizeof buf, COMM_UNKNOWN_FMT, (long long)tid));
	if (pid != -1)
		t->proc = proc_get(m, pid, 1);
	else
		t->proc = fp_xcalloc(1, sizeof *t->proc); /* private until its pid is known */
	t->proc->refs++;
	*slot = t;
	m->st.threads++;
	return t;
}

void pd_machine_comm(struct pd_machine *m, int64_t pid, int64_t tid, const char *comm, size_t len)
{
	set_comm(pd_machine_thread(m, pid, tid), comm, len);
}

void pd_machine_exec(struct pd_machine *m, int64_t pid)
{
	struct pd_proc *p = pid != -1 ? proc_get(m, pid, 0) : NULL;

	if (p)
		p->ns_checked = 0;
}

static void copy_maps(struct pd_proc *dst, const struct pd_proc *src)
{
	free(dst->maps);
	dst->maps = fp_xmalloc((src->nmaps ? src->nmaps : 1) * sizeof *dst->maps);
	if (src->nmaps)
		memcpy(dst->maps, src->maps, src->nmaps * sizeof *dst->maps);
	dst->nmaps = dst->cap = src->nmaps;
}

/* perf's machine__process_fork_event: a reused tid starts afresh; the
 * child gets the parent's comm, and a new process a copy of its maps
 * unless the FORK is one perf synthesized for a task already running
 * (its MMAP records follow: the parent's maps would stay where the child
 * has none). */
void pd_machine_fork(struct pd_machine *m, int64_t pid, int64_t ppid, int64_t tid, int64_t ptid,
		     int synthesized)
{
	struct pd_thread *parent = pd_machine_thread(m, ppid, ptid);
	struct pd_thread **slot = thread_slot(m, tid);

	if (*slot && *slot != parent) {
		struct pd_thread *old = *slot;
		if (!--old->proc->refs) {
			/* the process is gone: forget its maps */
			struct pd_proc *p = proc_get(m, old->proc->pid, 0);
			if (p == old->proc) {
				p->nmaps = 0;
				p->refs = 0;
				p->ns_checked = 0; /* a new process: its own namespace */
			} else {
				free(old->proc->maps);
				free(old->proc);
			}
		}
		old->proc = pid != -1 ? proc_get(m, pid, 1) : fp_xcalloc(1, sizeof *old->proc);
		old->proc->refs++;
		old->pid = pid;
	}
	struct pd_thread *t = pd_machine_thread(m, pid, tid);
	if (t == parent)
		return;
	set_comm(t, parent->comm, parent->comm_len);
	if (!synthesized && pid != ppid && t->proc->nmaps == 0 && parent->proc != t->proc)
		copy_maps(t->proc, parent->proc);
}

/* ---- maps ------------------------------------------------------------------ */

#define MAPS_MIN 16

/* A map that overlaps none (most: a process maps its files once) goes
 * into its place in the sorted array, which grows by doubling: the first
 * map starting at or after it found by a binary search. 0 if nm overlaps
 * a map. */
static int insert_map_between(struct pd_proc *p, const struct pd_map *nm)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->maps[mid].start < nm->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if ((lo > 0 && p->maps[lo - 1].end > nm->start) ||
	    (lo < p->nmaps && p->maps[lo].start < nm->end))
		return 0;
	if (p->nmaps == p->cap) {
		p->cap = p->cap ? p->cap + p->cap / 4 + 1 : MAPS_MIN;
		p->maps = fp_xrealloc(p->maps, p->cap * sizeof *p->maps);
	}
	memmove(&p->maps[lo + 1], &p->maps[lo], (p->nmaps - lo) * sizeof *p->maps);
	p->maps[lo] = *nm;
	p->nmaps++;
	return 1;
}

/* Inserts [start, end) into p, cutting what it overlaps (perf's
 * maps__fixup_overlappings). */
static void insert_map(struct pd_proc *p, const struct pd_map *nm)
{
	if (insert_map_between(p, nm))
		return;
	size_t out = 0, n = p->nmaps;
	struct pd_map *v = fp_xmalloc((n + 2) * sizeof *v);

	for (size_t i = 0; i < n; i++) {
		struct pd_map o = p->maps[i];
		if (o.end <= nm->start || o.start >= nm->end) {
			v[out++] = o;
			continue;
		}
		if (o.start < nm->start) { /* left part survives */
			struct pd_map l = o;
			l.end = nm->start;
			v[out++] = l;
		}
		if (o.end > nm->end) { /* right part survives */
			struct pd_map r = o;
			if (!r.identity)
				r.pgoff += nm->end - o.start;
			r.start = nm->end;
			v[out++] = r;
		}
	}
	v[out++] = *nm;
	for (size_t i = out - 1; i > 0 && v[i].start < v[i - 1].start; i--) {
		struct pd_map t = v[i];
		v[i] = v[i - 1];
		v[i - 1] = t;
	}
	/* the survivors were sorted; one insertion pass puts nm in place */
	free(p->maps);
	p->maps = v;
	p->nmaps = p->cap = out;
}

static int is_anon(const char *f, size_t n)
{
	return (n == 6 && memcmp(f, "//anon", 6) == 0) ||
	       (n >= 9 && memcmp(f, "/dev/zero", 9) == 0) ||
	       (n >= 14 && memcmp(f, "/anon_hugepage", 14) == 0);
}

static int is_no_dso(const char *f, size_t n)
{
	return (n >= 6 && memcmp(f, "[stack", 6) == 0) || (n >= 5 && memcmp(f, "/SYSV", 5) == 0) ||
	       (n == 6 && memcmp(f, "[heap]", 6) == 0);
}

#define PROT_EXEC_BIT 4u

/* d's maps are of the file id names (pd_dso's mapped). */
static void note_mapped(struct pd_dso *d, const struct pd_file_id *id)
{
	if (!id || !id->known)
		return;
	if (!d->mapped.known) {
		d->mapped = *id;
		d->mapped.build_id = NULL; /* the record's bytes: gone after it */
	} else if (!pd_file_id_is(&d->mapped, id->maj, id->min, id->ino))
		d->mapped_mixed = 1;
}

void pd_machine_mmap(struct pd_machine *m, int64_t pid, uint64_t start, uint64_t len,
		     uint64_t pgoff, uint32_t prot, const char *file, size_t flen, int kernel,
		     const struct pd_file_id *id)
{
	char jit[JIT_MAP_CAP];
	struct pd_map nm = { .start = start, .end = start + len, .pgoff = pgoff };

	if (kernel || pid == -1) {
		if (flen >= sizeof KERNEL_TEXT_MAP - 1 &&
		    memcmp(file, KERNEL_TEXT_MAP, sizeof KERNEL_TEXT_MAP - 1) == 0) {
			m->kernel_start = start;
			m->kernel_text = pgoff; /* where _text was (perf's ref_reloc_sym) */
		}
		return; /* modules: their symbols come from kallsyms */
	}
	if (len == 0 || nm.end < start)
		return;
	struct pd_proc *p = proc_get(m, pid, 1);
	if ((is_anon(file, flen) || is_no_dso(file, flen)) &&
	    (prot == 0 || (prot & PROT_EXEC_BIT))) {
		flen = (size_t)snprintf(jit, sizeof jit, JIT_MAP_FMT, (long long)pid);
		file = jit;
		nm.identity = 1;
		nm.dso = mapped_dso(m, p, file, flen, PD_DSO_JITMAP, NULL);
	} else if (flen == 6 && memcmp(file, "[vdso]", 6) == 0) {
		nm.pgoff = 0;
		nm.dso = find_dso(m, file, flen, PD_DSO_VDSO);
	} else {
		nm.dso = mapped_dso(m, p, file, flen, PD_DSO_ELF, id);
		note_mapped(nm.dso, id);
		if (!p->mntns && id && id->known) /* replaced at its path since? */
			pd_procroot_attach_map(nm.dso, pid, start, start + len, id);
	}
	insert_map(p, &nm);
}

void pd_machine_ksymbol(struct pd_machine *m, uint64_t addr, uint32_t len, const char *name,
			size_t nlen)
{
	struct pd_dso *d = find_dso(m, name, nlen, PD_DSO_KERNEL);

	if (!d->loaded) {
		d->loaded = 1; /* its only symbol is this one */
		pd_dso_add_sym(d, addr, addr + len, name, nlen);
		pd_dso_fixup(d);
	}
	m->bpf = fp_xrealloc(m->bpf, (m->nbpf + 1) * sizeof *m->bpf);
	m->bpf[m->nbpf].start = addr;
	m->bpf[m->nbpf].end = addr + len;
	m->bpf[m->nbpf].dso = d;
	if (!m->nbpf || addr < m->bpf_lo)
		m->bpf_lo = addr;
	if (!m->nbpf || addr + len > m->bpf_hi)
		m->bpf_hi = addr + len;
	m->nbpf++;
}

/* The index of the map covering ip, or SIZE_MAX. */
static size_t search_map(const struct pd_proc *p, uint64_t ip)
{
	size_t lo = 0, hi = p->nmaps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ip < p->maps[lo - 1].end ? lo - 1 : SIZE_MAX;
}

/* The maps do not overlap: the map found last, if it covers ip, is the
 * one (a callchain's user frames are mostly in a file or two; a search
 * of a process with hundreds of maps is ~10 mispredicted steps). */
static const struct pd_map *find_map(struct pd_proc *p, uint64_t ip)
{
	for (size_t k = 0; k < PD_MAP_HINTS; k++) {
		size_t h = p->hint[k];
		if (h < p->nmaps && ip >= p->maps[h].start && ip < p->maps[h].end) {
			if (k) { /* most recent first */
				p->hint[k] = p->hint[0];
				p->hint[0] = h;
			}
			return &p->maps[h];
		}
	}
	size_t i = search_map(p, ip);
	if (i == SIZE_MAX)
		return NULL;
	memmove(p->hint + 1, p->hint, (PD_MAP_HINTS - 1) * sizeof p->hint[0]);
	p->hint[0] = i;
	return &p->maps[i];
}

uint32_t pd_machine_add_frame(struct pd_machine *m, const char *name, size_t n, char kind)
{
	return add_frame(m, name, n, kind);
}

const struct pd_map *pd_machine_map(const struct pd_proc *p, uint64_t addr)
{
	size_t i = search_map(p, addr);

	return i == SIZE_MAX ? NULL : &p->maps[i];
}

struct pd_thread *pd_machine_find_thread(struct pd_machine *m, int64_t tid)
{
	uint32_t i = fp_map_get(&m->by_tid, (uint64_t)tid, 0);

	return i == FP_MAP_NONE ? NULL : m->threads[i];
}

/* ---- frames ---------------------------------------------------------------- */

/* The name perf shows for s: an ELF file's demangled, a PLT entry's as
 * perf's dso__synthesize_plt_symbols makes it (demangled, "@plt"
 * appended, cut to its buffer's size) in plt; *dem is to be freed. */
static const char *shown_name(struct pd_dso *d, const struct pd_sym *s, char plt[PD_PLT_NAME_MAX],
			      char **dem)
{
	const char *raw = pd_sym_name(d, s, 0);

	*dem = NULL;
	if (s->flags & PD_SYM_PLT_NAME) {
		char *pdem = cplus_demangle(raw, DMGL_NO_OPTS);
		snprintf(plt, PD_PLT_NAME_MAX, "%s@plt", pdem ? pdem : raw);
		free(pdem);
		return plt;
	}
	if ((d->type == PD_DSO_ELF || d->type == PD_DSO_VDSO) && !(s->flags & PD_SYM_PLAIN))
		*dem = cplus_demangle(raw, DMGL_NO_OPTS);
	return *dem ? *dem : raw;
}

/* The frame of dso-relative address rel (not cached yet). */
static uint32_t resolve(struct pd_machine *m, struct pd_dso *d, uint64_t rel)
{
	if (!d->loaded) {
		if (d == m->kernel && m->waiting && !pd_dso_ready(d))
			m->waiting(m->ctx);
		pd_dso_load(d);
		if (d == m->kernel)
			pd_kernel_relocate(d, m->kernel_text);
		if (d->missing && !d->pending) {
			m->st.missing_dsos++;
			if (m->missing)
				m->missing(m->ctx, d);
		}
		if (d->doubt && m->doubtful)
			m->doubtful(m->ctx, d);
	}
	uint64_t addr = d->type == PD_DSO_ELF || d->type == PD_DSO_VDSO ? pd_dso_vaddr(d, rel)
									: rel;
	struct pd_sym *s = (struct pd_sym *)pd_dso_find(d, addr);

	if (s) {
		if (!s->frame) {
			char plt[PD_PLT_NAME_MAX], *dem = NULL;
			const char *name = shown_name(d, s, plt, &dem);
			s->frame = add_frame(m, name, strlen(name), d->kind) + 1;
			free(dem);
		}
		return s->frame - 1;
	}
	m->st.unresolved++;
	if (!d->unknown_frame) {
		/* fp-read: "[unknown]" in a known dso is "[<basename>]" */
		const char *base = memrchr(d->name, '/', d->name_len);
		base = base ? base + 1 : d->name;
		size_t bn = (size_t)(d->name + d->name_len - base);
		char buf[4096 + 2];
		if (d->kind == FP_KIND_UNKNOWN || bn == 0 || bn > sizeof buf - 2)
			d->unknown_frame =
				add_frame(m, UNKNOWN_NAME, sizeof UNKNOWN_NAME - 1, d->kind) + 1;
		else if (base[0] == '[' && base[bn - 1] == ']')
			d->unknown_frame = add_frame(m, base, bn, d->kind) + 1;
		else {
			buf[0] = '[';
			memcpy(buf + 1, base, bn);
			buf[bn + 1] = ']';
			d->unknown_frame = add_frame(m, buf, bn + 2, d->kind) + 1;
		}
	}
	return d->unknown_frame - 1;
}

/* The frame of (d, rel): from the hot cache (64 KiB, in the CPU's caches:
 * 97 % of the bench perf.data's 3 M lookups), else from frame_of (every
 * address seen, 38 k there: 2 MiB of slots, a cache miss a lookup), else
 * resolved. An address's frame never changes, so neither needs to forget. */
static uint32_t cached_frame(struct pd_machine *m, struct pd_dso *d, uint64_t rel)
{
	struct pd_hot *h = &m->hot[pd_hot_slot(rel, d->id)];

	if (h->rel == rel && h->dso == d->id)
		return h->frame;
	uint32_t f = fp_map_get(&m->frame_of, rel, d->id);
	if (f == FP_MAP_NONE) {
		f = resolve(m, d, rel);
		fp_map_add(&m->frame_of, rel, d->id, f);
	}
	*h = (struct pd_hot){ .rel = rel, .dso = d->id, .frame = f };
	return f;
}

void pd_machine_poll_debuginfod(struct pd_machine *m)
{
	unsigned answers = pd_debuginfod_answers() + pd_remote_answers();

	if (answers == m->answers_seen)
		return;
	m->answers_seen = answers;
	for (size_t i = 0; i < m->ndsos; i++) {
		struct pd_dso *d = m->dsos[i];
		/* ready: read ahead of its first sample (on_kernel_wait's
		 * look-ahead), maybe before the answers seen last */
		if (!d->pending || !(d->loaded || d->ready))
			continue;
		/* read again: its answer is there now, or it is still pending */
		pd_dso_reset(d);
		pd_dso_load(d);
		/* a new id: the frames cached under the old one are not found */
		d->id = ++m->last_id;
		if (d->missing && !d->pending) {
			m->st.missing_dsos++;
			if (m->missing)
				m->missing(m->ctx, d);
		} else if (!d->missing && !d->pending && m->arrived) {
			m->arrived(m->ctx, d);
		}
	}
}

void pd_machine_preload_kernel(struct pd_machine *m)
{
	if (!m->kernel)
		m->kernel = find_dso(m, KERNEL_DSO, sizeof KERNEL_DSO - 1, PD_DSO_KERNEL);
	pd_dso_preload(m->kernel);
}

uint32_t pd_machine_frame_slow(struct pd_machine *m, struct pd_thread *t, int kernel, uint64_t ip)
{
	m->st.frames++;
	if (kernel) {
		if (m->nbpf && ip >= m->bpf_lo && ip < m->bpf_hi)
			for (size_t i = 0; i < m->nbpf; i++)
				if (ip >= m->bpf[i].start && ip < m->bpf[i].end)
					return cached_frame(m, m->bpf[i].dso, ip);
		if (m->kernel_start && ip < m->kernel_start)
			return m->unknown_frame;
		if (!m->kernel)
			m->kernel = find_dso(m, KERNEL_DSO, sizeof KERNEL_DSO - 1, PD_DSO_KERNEL);
		return cached_frame(m, m->kernel, ip);
	}
	const struct pd_map *mp = find_map(t->proc, ip);
	if (!mp)
		return m->unknown_frame;
	return cached_frame(m, mp->dso, mp->identity ? ip : ip - mp->start + mp->pgoff);
}

void pd_machine_init(struct pd_machine *m)
{
	memset(m, 0, sizeof *m);
	m->hot = fp_xcalloc(PD_HOT_SLOTS, sizeof *m->hot); /* dso 0: no entry */
	m->unknown_frame = add_frame(m, UNKNOWN_NAME, sizeof UNKNOWN_NAME - 1, FP_KIND_UNKNOWN);
}

void pd_machine_free(struct pd_machine *m)
{
	for (size_t i = 0; i < m->nthreads; i++) {
		struct pd_thread *t = m->threads[i];
		if (!t)
			continue;
		if (!--t->proc->refs && proc_get(m, t->proc->pid, 0) != t->proc) {
			free(t->proc->maps);
			free(t->proc);
		}
		free(t->comm);
		free(t);
	}
	for (size_t i = 0; i < m->nprocs; i++) {
		free(m->procs[i]->maps);
		free(m->procs[i]);
	}
	for (size_t i = 0; i < m->ndsos; i++)
		pd_dso_free(m->dsos[i]);
	FP_FREE_ALL(m->threads, m->procs, m->dsos, m->bpf, m->frames, m->names, m->hot);
	fp_map_free(&m->by_tid);
	fp_map_free(&m->by_pid);
	fp_map_free(&m->by_name);
	fp_map_free(&m->frame_of);
	memset(m, 0, sizeof *m);
}
