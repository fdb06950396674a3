/* pd_unwind.c: dwarf unwinding of sampled user stacks with libdwfl
 * (pd_unwind.h).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <linux/perf_event.h>

#include "fp_error.h"
#include "pd_unwind.h"

#define PAGE_MASK_4K 0xfffull
#define WORD sizeof(Dwarf_Word)
#define MODS_MIN 8
#define PROC_FD_PATH "/proc/self/fd/%d"
#define PROC_FD_PATH_CAP 40

/* x86_64: perf's sample_regs_user bit numbers (arch/x86/include/uapi/
 * asm/perf_regs.h) of the DWARF registers 0..16 (rax rdx rcx rbx rsi rdi
 * rbp rsp r8..r15, then the return address column: rip). */
enum {
	PERF_X86_AX = 0,
	PERF_X86_BX = 1,
	PERF_X86_CX = 2,
	PERF_X86_DX = 3,
	PERF_X86_SI = 4,
	PERF_X86_DI = 5,
	PERF_X86_BP = 6,
	PERF_X86_SP = 7,
	PERF_X86_IP = 8,
	PERF_X86_R8 = 16,
};
#define DWARF_X86_64_REGS 17
static const uint8_t dwarf_to_perf[DWARF_X86_64_REGS] = {
	PERF_X86_AX,     PERF_X86_DX,     PERF_X86_CX,     PERF_X86_BX,     PERF_X86_SI,
	PERF_X86_DI,     PERF_X86_BP,     PERF_X86_SP,     PERF_X86_R8,     PERF_X86_R8 + 1,
	PERF_X86_R8 + 2, PERF_X86_R8 + 3, PERF_X86_R8 + 4, PERF_X86_R8 + 5, PERF_X86_R8 + 6,
	PERF_X86_R8 + 7, PERF_X86_IP,
};

/* A module reported to a session: the address range libdwfl gave it, and
 * the dso and load bias it was reported for (mod NULL: could not be). */
struct uw_mod {
	uint64_t lo, hi, bias;
	const struct pd_dso *dso;
	Dwfl_Module *mod;
};

struct uw_session {
	const struct pd_proc *proc; /* compared, never dereferenced */
	Dwfl *dwfl;
	uint64_t used; /* LRU tick */
	struct uw_mod *mods;
	size_t nmods, cap;
};

/* A dso's file contents, for memory reads outside the stack copy. */
struct uw_image {
	const unsigned char *p;
	size_t size;
	int tried, mapped;
};

struct pd_unwind {
	struct pd_machine *m;
	struct uw_session sess[PD_UNWIND_MAX_SESSIONS];
	size_t nsess;
	uint64_t tick;
	struct pd_unwind_stats st;
	Elf *arch_elf; /* x86_64 ELF header: picks the backend */
	unsigned char arch_image[sizeof(Elf64_Ehdr)];
	struct uw_image *images; /* by dso id - 1 */
	size_t nimages;
	int vdso_fd; /* memfd of this machine's vdso, or -1 */
	/* the sample being unwound */
	struct uw_session *cur;
	const struct pd_sample *s;
	struct pd_thread *t;
	uint64_t sp;
	uint64_t *ips;
	size_t n, max;
	int stale, fresh, ended, full;
	int read_failed; /* the last frame's unwinding read outside */
	int has_cfi;     /* the last frame lies in a reported module */
};

/* ---- registers ------------------------------------------------------------ */

/* The value of perf register bit r in the sample, 0 if not recorded. */
static int sample_reg(const struct pd_sample *s, unsigned r, uint64_t *v)
{
	uint64_t mask = s->ev->regs_user;

	if (!(mask & (1ull << r)))
		return 0;
	size_t i = (size_t)__builtin_popcountll(mask & ((1ull << r) - 1));
	if (i >= s->nregs)
		return 0;
	memcpy(v, &s->regs[i], sizeof *v); /* the record may be unaligned */
	return 1;
}

int pd_unwind_wanted(const struct pd_sample *s)
{
	uint64_t st = s->ev->sample_type;
	return (st & PERF_SAMPLE_REGS_USER) && (st & PERF_SAMPLE_STACK_USER) && s->regs &&
	       s->nregs && s->stack_size;
}

/* ---- file contents ---------------------------------------------------------- */

static size_t vdso_image(const unsigned char **img)
{
	*img = (const void *)getauxval(AT_SYSINFO_EHDR);
	if (!*img)
		return 0;
	Elf64_Ehdr eh;
	memcpy(&eh, *img, sizeof eh); /* 64-bit vdso on a 64-bit host */
	return (size_t)eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
}

static struct uw_image *image_of(struct pd_unwind *u, const struct pd_dso *d)
{
	u->images = fp_xgrow_zeroed(u->images, &u->nimages, d->id, sizeof *u->images);
	struct uw_image *im = &u->images[d->id - 1];
	if (im->tried)
		return im;
	im->tried = 1;
	if (d->type == PD_DSO_VDSO) {
		im->size = vdso_image(&im->p);
		return im;
	}
	struct stat st;
	int fd = d->path ? open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			im->p = p;
			im->size = (size_t)st.st_size;
			im->mapped = 1;
		}
	}
	if (fd >= 0)
		close(fd);
	return im;
}

/* A word of the process's memory outside the stack copy: from the file
 * mapped there (perf's access_dso_mem). */
static bool read_mapped_file(struct pd_unwind *u, uint64_t addr, Dwarf_Word *out)
{
	const struct pd_map *mp = pd_machine_map(u->t->proc, addr);

	if (!mp || !mp->dso || mp->identity ||
	    (mp->dso->type != PD_DSO_ELF && mp->dso->type != PD_DSO_VDSO))
		return false;
	const struct uw_image *im = image_of(u, mp->dso);
	uint64_t off = addr - mp->start + mp->pgoff;
	if (!im->p || off > im->size || im->size - off < WORD)
		return false;
	memcpy(out, im->p + off, WORD);
	return true;
}

/* ---- libdwfl callbacks -------------------------------------------------------- */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl, (void)arg, (void)thread_argp;
	return 0; /* threads are asked for by tid only */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl, (void)tid;
	*thread_argp = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct pd_unwind *u = arg;
	uint64_t size = u->s->stack_size;

	(void)dwfl;
	if (addr + WORD < addr)
		return false;
	/* perf's access_mem: the stack copy's last word counts as outside */
	if (addr >= u->sp && addr - u->sp < size && size - (addr - u->sp) > WORD) {
		memcpy(result, u->s->stack + (addr - u->sp), WORD);
		return true;
	}
	if (read_mapped_file(u, addr, result))
		return true;
	u->read_failed = 1;
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct pd_unwind *u = arg;

	for (unsigned i = 0; i < DWARF_X86_64_REGS; i++) {
		uint64_t v;
		Dwarf_Word w;
		if (!sample_reg(u->s, dwarf_to_perf[i], &v))
			continue;
		w = v;
		if (!dwfl_thread_state_registers(thread, (int)i, 1, &w))
			return false;
	}
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* No separate debug files for unwinding: .eh_frame (and a file's own
 * .debug_frame) describe the frames; where a pc has no FDE, libdwfl would
 * otherwise open and read the whole debug file, once per process session
 * (3/4 of the time of a system-wide capture here), for a .debug_frame that
 * says what .eh_frame does. Without CFI elfutils unwinds by frame pointer. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* ---- sessions ----------------------------------------------------------------- */

static void session_end(struct uw_session *se)
{
	if (se->dwfl)
		dwfl_end(se->dwfl);
	free(se->mods);
	memset(se, 0, sizeof *se);
}

static int session_start(struct pd_unwind *u, struct uw_session *se, const struct pd_proc *p)
{
	session_end(se);
	se->proc = p;
	se->dwfl = dwfl_begin(&offline_callbacks);
	if (!se->dwfl)
		return -1;
	if (!dwfl_attach_state(se->dwfl, u->arch_elf, 1, &thread_callbacks, u)) {
		dwfl_end(se->dwfl);
		se->dwfl = NULL;
		return -1;
	}
	u->st.sessions++;
	return 0;
}

/* The session of process p: found, or started in a free or the least
 * recently used slot. */
static struct uw_session *session_of(struct pd_unwind *u, const struct pd_proc *p)
{
	struct uw_session *se = NULL;

	for (size_t i = 0; i < u->nsess; i++)
		if (u->sess[i].proc == p) {
			se = &u->sess[i];
			break;
		}
	if (se && !se->dwfl)
		return NULL; /* could not be started: not unwound */
	if (!se) {
		if (u->nsess < PD_UNWIND_MAX_SESSIONS) {
			se = &u->sess[u->nsess++];
		} else {
			se = &u->sess[0];
			for (size_t i = 1; i < u->nsess; i++)
				if (u->sess[i].used < se->used)
					se = &u->sess[i];
			u->st.evictions++;
		}
		if (session_start(u, se, p) < 0)
			return NULL;
	}
	se->used = ++u->tick;
	return se;
}

static uint64_t map_bias(const struct pd_map *mp)
{
	return mp->start - pd_dso_vaddr(mp->dso, mp->pgoff);
}

static void report(struct pd_unwind *u, struct uw_session *se, const struct pd_map *mp,
		   uint64_t bias)
{
	const struct pd_dso *d = mp->dso;
	char fdpath[PROC_FD_PATH_CAP];
	const char *path = d->path;

	if (d->type == PD_DSO_VDSO) {
		snprintf(fdpath, sizeof fdpath, PROC_FD_PATH, u->vdso_fd);
		path = u->vdso_fd >= 0 ? fdpath : NULL;
	}
	if (se->nmods == se->cap) {
		se->cap = se->cap ? se->cap * 2 : MODS_MIN;
		se->mods = fp_xrealloc(se->mods, se->cap * sizeof *se->mods);
	}
	struct uw_mod *um = &se->mods[se->nmods++];
	*um = (struct uw_mod){ .lo = mp->start, .hi = mp->end, .bias = bias, .dso = d };
	if (!path)
		return;
	/* libdwfl's base for an ELF whose first segment is at vaddr V: the
	 * address V is loaded at, so that its bias is ours */
	uint64_t base = bias + (d->nsegs ? d->segs[0].vaddr & ~PAGE_MASK_4K : 0);
	dwfl_report_begin_add(se->dwfl);
	Dwfl_Module *mod = dwfl_report_elf(se->dwfl, d->name, path, -1, base, false);
	dwfl_report_end(se->dwfl, NULL, NULL);
	Dwarf_Addr lo, hi, b;
	if (!mod || !dwfl_module_getelf(mod, &b) || b != bias)
		return; /* no CFI: elfutils unwinds by frame pointer */
	dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	um->lo = lo < mp->start ? lo : mp->start;
	um->hi = hi > mp->end ? hi : mp->end;
	um->mod = mod;
}

/* Makes sure the module mapped at pc is reported: 1 if there is one (with
 * its CFI), 0 if not (elfutils falls back to the frame pointer), -1 if
 * the session no longer matches the process's maps. */
static int ensure_module(struct pd_unwind *u, uint64_t pc)
{
	struct uw_session *se = u->cur;
	const struct pd_map *mp = pd_machine_map(u->t->proc, pc);

	if (!mp || !mp->dso || mp->identity ||
	    (mp->dso->type != PD_DSO_ELF && mp->dso->type != PD_DSO_VDSO))
		return 0; /* nothing to report: JIT code, anonymous memory */
	pd_dso_load(mp->dso);
	uint64_t bias = map_bias(mp);
	for (size_t i = 0; i < se->nmods; i++) {
		const struct uw_mod *um = &se->mods[i];
		if (pc < um->lo || pc >= um->hi)
			continue;
		if (um->dso == mp->dso && um->bias == bias)
			return um->mod != NULL;
		/* another file is mapped there now: a fresh session, once */
		return u->fresh ? 0 : -1;
	}
	if (!mp->dso->missing || mp->dso->type == PD_DSO_VDSO)
		report(u, se, mp, bias);
	return se->nmods && se->mods[se->nmods - 1].dso == mp->dso &&
	       se->mods[se->nmods - 1].mod != NULL;
}

static int frame_callback(Dwfl_Frame *state, void *arg)
{
	struct pd_unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;

	u->read_failed = 0;
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	if (pc == 0) {
		/* A zero return address ends the stack. perf's libunwind steps
		 * to it and shows it as the address before it: [unknown]. */
		u->ended = 1;
		u->ips[u->n++] = pc - 1;
		return DWARF_CB_ABORT;
	}
	int here = ensure_module(u, pc), before = pc > 1 ? ensure_module(u, pc - 1) : here;
	if (here < 0 || before < 0) {
		u->stale = 1;
		return DWARF_CB_ABORT;
	}
	u->has_cfi = here > 0 || before > 0;
	/* asking whether this is an activation unwinds the frame */
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	u->ips[u->n++] = activation ? pc : pc - 1;
	if (u->n == u->max) {
		u->full = 1;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/* ---- the interface --------------------------------------------------------------- */

static int run(struct pd_unwind *u, struct uw_session *se)
{
	u->cur = se;
	u->n = 0;
	u->stale = u->ended = u->full = u->read_failed = u->has_cfi = 0;
	pid_t tid = u->s->tid > 0 ? (pid_t)u->s->tid : 1;
	return dwfl_getthread_frames(se->dwfl, tid, frame_callback, u);
}

size_t pd_unwind_user(struct pd_unwind *u, struct pd_thread *t, const struct pd_sample *s,
		      uint64_t *ips, size_t max)
{
	uint64_t ip;

	if (!max)
		return 0;
	u->st.samples++;
	if (s->regs_abi != PERF_SAMPLE_REGS_ABI_64 || !sample_reg(s, PERF_X86_IP, &ip) ||
	    !sample_reg(s, PERF_X86_SP, &u->sp)) {
		u->st.bad_regs++;
		u->st.incomplete++;
		if (!sample_reg(s, PERF_X86_IP, &ip))
			return 0;
		ips[0] = ip; /* perf shows the sampled ip at least */
		return 1;
	}
	u->s = s;
	u->t = t;
	u->ips = ips;
	u->max = max;
	u->fresh = 0;
	struct uw_session *se = session_of(u, t->proc);
	int rc = se ? run(u, se) : -1;
	if (se && u->stale) {
		u->fresh = 1; /* exec or new maps: start this process afresh */
		rc = session_start(u, se, t->proc) < 0 ? -1 : run(u, se);
	}
	/* elfutils ends a stack quietly where a read failed (the register
	 * is then undefined): read_failed tells that from the outermost frame */
	if ((rc != 0 || u->read_failed) && !u->ended && !u->full) {
		u->st.incomplete++;
		/* The CFI puts the caller's return address outside the stack
		 * copy (and the files): perf's libunwind reads it as 0 and
		 * shows one more frame there, the address before 0: [unknown].
		 * Where there is no CFI (libunwind gives up) it shows none. */
		if (u->read_failed && u->has_cfi && u->n && u->n < max)
			ips[u->n++] = (uint64_t)0 - 1;
	}
	if (!u->n) {
		ips[0] = ip;
		u->n = 1;
	}
	return u->n;
}

const struct pd_unwind_stats *pd_unwind_stats(const struct pd_unwind *u)
{
	return &u->st;
}

static int vdso_memfd(void)
{
	const unsigned char *img;
	size_t size = vdso_image(&img);
	int fd = size ? memfd_create("vdso", MFD_CLOEXEC) : -1;

	if (fd >= 0 && write(fd, img, size) != (ssize_t)size) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Each session keeps its modules' files open: up to the hard limit of
 * open files, as perf does (rlimit__increase_nofile), not the soft one. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

struct pd_unwind *pd_unwind_new(struct pd_machine *m)
{
	struct pd_unwind *u = fp_xcalloc(1, sizeof *u);
	Elf64_Ehdr eh;

	u->m = m;
	raise_nofile();
	elf_version(EV_CURRENT);
	memset(&eh, 0, sizeof eh);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof eh;
	memcpy(u->arch_image, &eh, sizeof eh);
	u->arch_elf = elf_memory((char *)u->arch_image, sizeof u->arch_image);
	u->vdso_fd = vdso_memfd();
	return u;
}

void pd_unwind_free(struct pd_unwind *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nsess; i++)
		session_end(&u->sess[i]);
	for (size_t i = 0; i < u->nimages; i++)
		if (u->images[i].mapped)
			munmap((void *)u->images[i].p, u->images[i].size);
	free(u->images);
	if (u->arch_elf)
		elf_end(u->arch_elf);
	if (u->vdso_fd >= 0)
		close(u->vdso_fd);
	free(u);
}
