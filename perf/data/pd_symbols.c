/* pd_symbols.c: symbol tables with elfutils, /proc/kallsyms and perf JIT
 * maps, prepared the way perf prepares its own (pd_symbols.h).
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libiberty/demangle.h>

#include "fp_error.h"
#include "pd_buildid.h"
#include "pd_debuginfod.h"
#include "pd_procroot.h"
#include "pd_remote.h"
#include "pd_symbols.h"
#include "pd_symfile.h"
#include "pd_symtab.h"
#include "pd_textsyms.h"

#define ARENA_BLOCK (64u << 10)
#define PATH_CAP 4096
#define SYMS_MIN 256

/* ---- names ------------------------------------------------------------ */

static char *arena_copy(struct pd_dso *d, const char *s, size_t n)
{
	/* Blocks of ARENA_BLOCK; a name longer than a block gets its own. */
	size_t need = n + 1;
	char *blk = d->narena ? d->arena[d->narena - 1] : NULL;
	size_t *fill = blk ? (size_t *)(void *)blk : NULL;
	if (!blk || *fill + need > ARENA_BLOCK) {
		size_t size = need + sizeof(size_t) > ARENA_BLOCK ? need + sizeof(size_t)
								  : ARENA_BLOCK;
		d->arena = fp_xrealloc(d->arena, (d->narena + 1) * sizeof *d->arena);
		blk = fp_xmalloc(size);
		d->arena[d->narena++] = blk;
		fill = (size_t *)(void *)blk;
		*fill = sizeof(size_t);
	}
	char *dst = blk + *fill;
	memcpy(dst, s, n);
	dst[n] = '\0';
	*fill += need;
	return dst;
}

/* A symbol whose name (NUL-terminated) is kept by d already. */
struct pd_sym *pd_dso_push_sym(struct pd_dso *d, uint64_t start, uint64_t end, const char *name)
{
	if (d->nsyms == d->syms_cap) {
		d->syms_cap = d->syms_cap ? d->syms_cap * 2 : SYMS_MIN;
		d->syms = fp_xrealloc(d->syms, d->syms_cap * sizeof *d->syms);
	}
	struct pd_sym *s = &d->syms[d->nsyms++];
	s->start = start;
	s->end = end;
	s->name = name;
	s->frame = 0;
	s->binding = STB_GLOBAL;
	s->flags = 0;
	s->group = PD_SYM_ALONE;
	return s;
}

/* Room for more symbols to be added without growing the table again. */
static void reserve_syms(struct pd_dso *d, size_t more)
{
	if (more <= d->syms_cap - d->nsyms)
		return;
	d->syms_cap = d->nsyms + more;
	d->syms = fp_xrealloc(d->syms, d->syms_cap * sizeof *d->syms);
}

void pd_dso_add_sym(struct pd_dso *d, uint64_t start, uint64_t end, const char *name, size_t len)
{
	pd_dso_push_sym(d, start, end, arena_copy(d, name, len));
}

uint64_t pd_dso_vaddr(const struct pd_dso *d, uint64_t offset)
{
	for (size_t i = 0; i < d->nsegs; i++)
		if (offset >= d->segs[i].offset && offset - d->segs[i].offset < d->segs[i].size)
			return offset - d->segs[i].offset + d->segs[i].vaddr;
	return d->nsegs ? offset - d->segs[0].offset + d->segs[0].vaddr : offset;
}

/* ---- ELF files via libdwfl -------------------------------------------- */

/* Separate debug files in pd_buildid.h's order, never asking a server
 * on this thread. */
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = pd_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &pd_debuginfo_path,
};

Dwfl *pd_dwfl_offline(void)
{
	return dwfl_begin(&offline_callbacks);
}

/* What keep_symbol needs of a section, looked up once per section (not
 * once per symbol): SCN_UNKNOWN until then. */
enum { SCN_UNKNOWN, SCN_SKIP, SCN_ALLOC, SCN_ALLOC_TEXT_DATA };

struct scn_cache {
	Elf *elf;         /* the file the section indexes are of */
	unsigned char *v; /* v[shndx]: SCN_* */
	size_t n;
};

static unsigned char scn_class(Elf *elf, GElf_Word shndx)
{
	size_t shstrndx;
	GElf_Shdr shdr;
	Elf_Scn *scn = elf_getscn(elf, shndx);

	if (!scn || !gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_ALLOC))
		return SCN_SKIP;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return SCN_ALLOC;
	const char *name = elf_strptr(elf, shstrndx, shdr.sh_name);
	return name && (strstr(name, "text") || strstr(name, "data")) ? SCN_ALLOC_TEXT_DATA
								      : SCN_ALLOC;
}

static unsigned char scn_cached(struct scn_cache *c, Elf *elf, GElf_Word shndx)
{
	if (c->elf != elf) {
		size_t n = 0;
		free(c->v);
		c->v = NULL;
		c->n = 0;
		c->elf = elf;
		if (elf_getshdrnum(elf, &n) == 0 && n)
			c->v = fp_xcalloc(n, 1);
		c->n = c->v ? n : 0;
	}
	if (shndx >= c->n)
		return scn_class(elf, shndx);
	if (c->v[shndx] == SCN_UNKNOWN)
		c->v[shndx] = scn_class(elf, shndx);
	return c->v[shndx];
}

/* perf's dso__load_sym_internal: function and object symbols of any
 * allocated section; labels (STT_NOTYPE, not hidden) only in sections named
 * *text* or *data*. */
static int keep_symbol(struct scn_cache *c, Elf *elf, const GElf_Sym *sym, GElf_Word shndx)
{
	int type = GELF_ST_TYPE(sym->st_info);
	int vis = GELF_ST_VISIBILITY(sym->st_other);
	int label = type == STT_NOTYPE && vis != STV_HIDDEN && vis != STV_INTERNAL;

	if (shndx == SHN_UNDEF || shndx == SHN_ABS || shndx >= SHN_LORESERVE)
		return 0;
	if (!label && type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT)
		return 0;
	unsigned char k = scn_cached(c, elf, shndx);
	return label ? k == SCN_ALLOC_TEXT_DATA : k != SCN_SKIP;
}

static Elf_Scn *section_named(Elf *elf, const char *want, GElf_Shdr *shdr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		if (gelf_getshdr(scn, shdr) && (name = elf_strptr(elf, shstrndx, shdr->sh_name)) &&
		    strcmp(name, want) == 0)
			return scn;
	}
	return NULL;
}

/* perf's dso__synthesize_plt_symbols: entry i of .plt (after its header
 * entry) or of .plt.sec (no header) is "<name of relocation i>@plt". */
static void synthesize_plt(struct pd_dso *d, Elf *elf)
{
	GElf_Shdr plt, rel, dynsym;
	uint64_t header = 0;
	Elf_Scn *rscn;

	if (section_named(elf, ".plt.sec", &plt))
		header = 0;
	else if (section_named(elf, ".plt", &plt))
		header = plt.sh_entsize ? plt.sh_entsize : 16;
	else
		return;
	uint64_t entry = plt.sh_entsize ? plt.sh_entsize : 16;
	if (!(rscn = section_named(elf, ".rela.plt", &rel)) &&
	    !(rscn = section_named(elf, ".rel.plt", &rel)))
		return;
	Elf_Scn *dscn = elf_getscn(elf, rel.sh_link);
	Elf_Data *rdata = elf_getdata(rscn, NULL), *sdata = dscn ? elf_getdata(dscn, NULL) : NULL;
	if (!dscn || !gelf_getshdr(dscn, &dynsym) || !rdata || !sdata || !rel.sh_entsize)
		return;
	size_t n = rel.sh_size / rel.sh_entsize;
	reserve_syms(d, n);
	for (size_t i = 0; i < n; i++) {
		GElf_Rela ra;
		GElf_Rel r;
		uint64_t info;
		if (rel.sh_type == SHT_RELA) {
			if (!gelf_getrela(rdata, (int)i, &ra))
				break;
			info = ra.r_info;
		} else {
			if (!gelf_getrel(rdata, (int)i, &r))
				break;
			info = r.r_info;
		}
		GElf_Sym sym;
		if (!gelf_getsym(sdata, (int)GELF_R_SYM(info), &sym))
			continue;
		const char *name = elf_strptr(elf, dynsym.sh_link, sym.st_name);
		if (!name)
			name = ""; /* IRELATIVE: perf names it "@plt" */
		/* perf demangles the name and appends @plt: when a lookup
		 * shows it (PD_SYM_PLT_NAME), most entries never are */
		uint64_t start = plt.sh_addr + header + i * entry;
		pd_symfile_add_sym(d, start, start + entry, name, STB_GLOBAL);
		d->syms[d->nsyms - 1].flags |= PD_SYM_PLT | PD_SYM_PLT_NAME;
	}
}

static void read_segments(struct pd_dso *d, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) < 0)
		return;
	d->segs = fp_xcalloc(n ? n : 1, sizeof *d->segs);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			d->segs[d->nsegs].offset = ph.p_offset;
			d->segs[d->nsegs].vaddr = ph.p_vaddr;
			/* memsz: perf maps .bss symbols by their file offset too */
			d->segs[d->nsegs].size = ph.p_memsz;
			d->nsegs++;
		}
	}
}

/* Reads the module's symbol table (libdwfl's choice: the file's .symtab,
 * a debug file's, or the .dynsym, plus .gnu_debugdata's); returns 1 if
 * every symbol came from elf itself (then, when elf has no .symtab, the
 * table was its .dynsym). */
static int read_elf_symbols(struct pd_dso *d, Dwfl_Module *m, Elf *elf, GElf_Addr bias)
{
	int n = dwfl_module_getsymtab(m), own = 1;
	struct scn_cache c = { 0 };

	if (n > 1)
		reserve_syms(d, (size_t)n - 1); /* one allocation, not doublings */

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *selfelf;
		Dwarf_Addr sbias;
		const char *name = dwfl_module_getsym_info(m, i, &sym, &addr, &shndx, &selfelf,
							   &sbias);
		if (!name)
			continue;
		own &= selfelf == elf;
		/* perf's test for a name is st_name != 0 (elf_sym__is_function,
		 * _object, _label): the name itself is not read here, so the
		 * string table's pages are not touched while the table is read */
		if (!sym.st_name || !keep_symbol(&c, selfelf, &sym, shndx))
			continue;
		pd_symfile_add_sym(d, addr - bias, addr - bias + sym.st_size, name,
				   GELF_ST_BIND(sym.st_info));
	}
	free(c.v);
	return own && n > 0;
}

static int has_symtab(Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return 1;
	return 0;
}

/* perf (since 6.0) loads .dynsym as well as .symtab: a binary with a tiny
 * .symtab keeps the names of its exported functions. */
static void read_dynsym(struct pd_dso *d, Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
			break;
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	struct scn_cache c = { 0 };
	if (!data || !sh.sh_entsize)
		return;
	size_t n = sh.sh_size / sh.sh_entsize;
	if (n > 1)
		reserve_syms(d, n - 1);
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		const char *name = sym.st_name ? elf_strptr(elf, sh.sh_link, sym.st_name) : NULL;
		if (!name || !keep_symbol(&c, elf, &sym, sym.st_shndx))
			continue; /* as perf: st_name 0 is no name */
		pd_symfile_add_sym(d, sym.st_value, sym.st_value + sym.st_size, name,
				   GELF_ST_BIND(sym.st_info));
	}
	free(c.v);
}

static int same_build_id(const struct pd_dso *d, Dwfl_Module *m)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(m, &bits, &vaddr);

	if (!d->build_id_len || n <= 0)
		return 1; /* nothing to compare */
	return (size_t)n >= d->build_id_len && memcmp(bits, d->build_id, d->build_id_len) == 0;
}

/* Opens path (fd: pd_symfile_map keeps or closes it) as a dwfl module
 * read from its mapping; 0 with *dw set, or -1 (errno or -2: other build). */
static int open_elf(struct pd_dso *d, const char *path, int fd, Dwfl **dwp, Dwfl_Module **mp)
{
	if (pd_symfile_map(d, fd) < 0)
		return -1;
	Dwfl *dw = pd_dwfl_offline();
	if (!dw) {
		pd_symfile_drop(d);
		return -1;
	}
	Dwfl_Module *m = dwfl_report_offline_memory(dw, d->name, path, d->image, d->image_size);
	dwfl_report_end(dw, NULL, NULL);
	if (!m || !same_build_id(d, m)) {
		dwfl_end(dw);
		pd_symfile_drop(d);
		return m ? -2 : -1;
	}
	*dwp = dw;
	*mp = m;
	return 0;
}

/* The segments and .symtab/.gnu_debugdata symbols of an opened module;
 * returns its ELF, or NULL; *dynsym_read: the symbols read were its
 * .dynsym. */
static Elf *read_module(struct pd_dso *d, Dwfl_Module *m, int *dynsym_read)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(m, &bias);

	if (elf)
		read_segments(d, elf);
	int own = read_elf_symbols(d, m, elf, bias);
	*dynsym_read = elf && own && !has_symtab(elf);
	return elf;
}

/* pd_textsyms.h */
int pd_open_regular(const char *path, int *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	*err = 0;
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*err = EINVAL;
		close(fd);
		return -1;
	}
	return fd;
}

/* The file of d by pd_buildid.h's lookup order, from row `from` on,
 * opened as a dwfl module: 0, or -1 with d->missing_why (d->pending
 * while debuginfod has not answered). */
static int find_elf(struct pd_dso *d, size_t from, Dwfl **dw, Dwfl_Module **m)
{
	char path[PATH_CAP], why[PATH_CAP + 256] = "";
	const char *what;
	enum pd_lookup_result r;
	int other_build = 0;

	for (size_t i = from; (r = pd_lookup(d, i, path, sizeof path, &what)) != PD_LK_END; i++) {
		if (r == PD_LK_PENDING) {
			d->pending = 1;
			snprintf(why, sizeof why, "%s has not answered yet", what);
			break;
		}
		if (r == PD_LK_REFUSED && !why[0])
			snprintf(why, sizeof why, "%s", path);
		if (r != PD_LK_PATH)
			continue;
		int err = 0, fd = pd_open_regular(path, &err), rc = -1;
		if (fd >= 0 && (rc = open_elf(d, path, fd, dw, m)) == 0) {
			d->path = fp_xstrdup(path);
			/* the recorded path's file, of the recorded build-id, but
			 * not the mapped file: perf record reads a build-id when
			 * it ends, from this path if the process (a container's)
			 * has gone, so the id proves nothing then */
			if (d->build_id_len && strcmp(path, d->name) == 0 &&
			    !pd_buildid_is_mapped(d, path, why, sizeof why))
				d->doubt = fp_xstrdup(why);
			return 0;
		}
		other_build |= rc == -2;
		if (!why[0]) /* the first place's reason: the recorded path's */
			snprintf(why, sizeof why, "%s",
				 fd < 0 && err ? strerror(err)
				 : rc == -2    ? "a different build than the one recorded"
					       : "not an ELF file elfutils can read");
	}
	const char *rwhy = NULL;
	if (!d->pending &&
	    pd_remote_get(d->name, d->build_id, d->build_id_len, 0, NULL, &rwhy) == PD_DI_FAILED &&
	    rwhy) {
		size_t n = strlen(why);
		snprintf(why + n, sizeof why - n, "%sthe remote host: %s", n ? "; " : "", rwhy);
	}
	const char *dwhy = NULL;
	if (!d->pending &&
	    pd_debuginfod_get(d->build_id, d->build_id_len, PD_DI_EXECUTABLE, 0, NULL, &dwhy) ==
		    PD_DI_FAILED &&
	    dwhy) {
		size_t n = strlen(why);
		snprintf(why + n, sizeof why - n, "%sdebuginfod: %s", n ? "; " : "", dwhy);
	}
	if (!why[0])
		snprintf(why, sizeof why, "%s",
			 other_build ? "a different build than the one recorded"
				     : "no file of its build-id");
	d->missing = 1;
	d->missing_why = fp_xstrdup(why);
	return -1;
}

/* A file found without symbols of its own (its table was its .dynsym: no
 * .symtab, no separate debug file here) whose debug file debuginfod may
 * have: 1 if it has it now (read the file again), 0 if not; d->pending
 * while it has not answered. */
static int debuginfo_arrived(struct pd_dso *d)
{
	if (!d->build_id_len || !pd_debuginfod_on())
		return 0;
	enum pd_di_state s = pd_debuginfod_get(d->build_id, d->build_id_len, PD_DI_DEBUGINFO,
					       pd_buildid_wait(), NULL, NULL);
	d->pending = s == PD_DI_PENDING;
	return s == PD_DI_FOUND;
}

static void forget_symbols(struct pd_dso *d);

static void load_elf_from(struct pd_dso *d, size_t from, int retry)
{
	Dwfl *dw = NULL;
	Dwfl_Module *m = NULL;

	if (find_elf(d, from, &dw, &m) < 0)
		return;
	int dynsym_read;
	Elf *elf = read_module(d, m, &dynsym_read);
	if (!d->build_id_len) {
		/* none recorded (pipe format): the file's own, which its debug
		 * file is asked by */
		const unsigned char *bits;
		GElf_Addr vaddr;
		int n = dwfl_module_build_id(m, &bits, &vaddr);
		if (n > 0 && (size_t)n <= sizeof d->build_id) {
			memcpy(d->build_id, bits, (size_t)n);
			d->build_id_len = (size_t)n;
		}
	}
	if (dynsym_read && retry && debuginfo_arrived(d)) {
		/* pd_find_debuginfo gives libdwfl the debug file now */
		dwfl_end(dw);
		forget_symbols(d);
		load_elf_from(d, from, 0);
		return;
	}
	/* perf reads .dynsym too; when libdwfl's table was the .dynsym (a
	 * file without .symtab nor debug file) its symbols are all there,
	 * and a second copy of each would only be dropped by the fixups */
	if (elf && !dynsym_read)
		read_dynsym(d, elf);
	pd_symtab_fixup(d, 0);
	/* perf adds the PLT entries after its fixups: a zero-size symbol
	 * before .plt (_init) already reaches over them */
	if (elf) {
		size_t before = d->nsyms;
		synthesize_plt(d, elf);
		if (d->nsyms != before)
			pd_symtab_index(d, before);
	}
	dwfl_end(dw);
	pd_symfile_release(d);
}

static void load_elf(struct pd_dso *d)
{
	load_elf_from(d, 0, 1);
}

/* ---- vdso --------------------------------------------------------------- */

/* [vdso]: this process's own vdso when it is the recorded one (its
 * build-id, or none recorded: perf does the same); else by pd_buildid.h's
 * lookup order (perf record's copy in its build-id cache...). */
static void load_vdso(struct pd_dso *d)
{
	const unsigned char *img = (const void *)getauxval(AT_SYSINFO_EHDR);
	Dwfl *dw;
	Dwfl_Module *m;
	int fd = -1, rc = -1;

	if (img) {
		GElf_Ehdr eh;
		memcpy(&eh, img, sizeof eh); /* 64-bit vdso on a 64-bit host */
		size_t size = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
		fd = memfd_create("vdso", MFD_CLOEXEC);
		if (fd >= 0 && write(fd, img, size) != (ssize_t)size) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0)
		rc = open_elf(d, "[vdso]", fd, &dw, &m);
	if (rc < 0 && find_elf(d, 0, &dw, &m) < 0) {
		if (rc == -2 && !d->pending) {
			char why[PATH_CAP + 256];
			snprintf(why, sizeof why,
				 "this process's vdso is another build than the "
				 "recorded one, and %s/[vdso]/ has no copy of that (%s)",
				 pd_buildid_dir(), d->missing_why);
			free(d->missing_why);
			d->missing_why = fp_xstrdup(why);
		}
		return;
	}
	int dynsym_read;
	read_module(d, m, &dynsym_read);
	dwfl_end(dw);
	pd_symfile_release(d);
	pd_symtab_fixup(d, 0);
}

/* 0: names only from the recording itself (KSYMBOL records); no file of
 * this host is read: fp-serve's uploads (docs/fp-serve.md "Privilege") */
static int host_files = 1;

void pd_symbols_set_host_files(int on)
{
	host_files = on;
}

static void load_now(struct pd_dso *d)
{
	if (!host_files) {
		d->ready = 1; /* an empty table: frames are named by their dso */
		return;
	}
	switch (d->type) {
	case PD_DSO_ELF:
		load_elf(d);
		break;
	case PD_DSO_KERNEL:
		pd_load_kallsyms(d);
		break;
	case PD_DSO_JITMAP:
		pd_load_jitmap(d);
		break;
	case PD_DSO_VDSO:
		load_vdso(d);
		break;
	}
}

static void *loader_main(void *arg)
{
	load_now(arg);
	return NULL;
}

void pd_dso_preload(struct pd_dso *d)
{
	pthread_t *t = fp_xmalloc(sizeof *t);

	if (d->loaded || d->loader || pthread_create(t, NULL, loader_main, d) != 0) {
		free(t);
		return;
	}
	d->loader = t;
}

static void join_loader(struct pd_dso *d)
{
	pthread_t *t = d->loader;

	if (!t)
		return;
	pthread_join(*t, NULL);
	free(t);
	d->loader = NULL;
}

int pd_dso_ready(struct pd_dso *d)
{
	if (!d->loader)
		return d->loaded || d->ready;
	if (pthread_tryjoin_np(*(pthread_t *)d->loader, NULL) != 0)
		return 0;
	free(d->loader);
	d->loader = NULL;
	d->ready = 1; /* loaded by the thread */
	return 1;
}

void pd_dso_wait(struct pd_dso *d)
{
	if (!d->loader)
		return;
	join_loader(d);
	d->ready = 1; /* loaded by the thread */
}

void pd_dso_load_ahead(struct pd_dso *d)
{
	if (d->loaded || d->ready || d->loader)
		return;
	load_now(d);
	d->ready = 1;
}

void pd_dso_load(struct pd_dso *d)
{
	if (d->loaded)
		return;
	d->loaded = 1;
	if (d->loader)
		join_loader(d); /* loaded by the thread */
	else if (!d->ready)
		load_now(d);
}

struct pd_dso *pd_dso_new(const char *name, size_t len, enum pd_dso_type type)
{
	struct pd_dso *d = fp_xcalloc(1, sizeof *d);

	d->name = fp_xstrndup(name, len);
	d->name_len = len;
	d->fd = -1;
	d->ns_fd = -1;
	d->type = type;
	return d;
}

/* Forgets d's symbols and what was found of its file; its load state
 * (loaded, ready) stays. */
static void forget_symbols(struct pd_dso *d)
{
	for (size_t i = 0; i < d->narena; i++)
		free(d->arena[i]);
	pd_symfile_drop(d);
	FP_FREE_ALL(d->arena, d->syms, d->max_end, d->segs, d->missing_why, d->path, d->text,
		    d->doubt);
	d->arena = NULL;
	d->syms = NULL;
	d->max_end = NULL;
	d->segs = NULL;
	d->missing_why = d->path = d->text = d->doubt = NULL;
	d->narena = d->nsyms = d->syms_cap = d->nsegs = 0;
	d->missing = d->pending = 0;
	d->unknown_frame = 0;
}

void pd_dso_reset(struct pd_dso *d)
{
	join_loader(d);
	forget_symbols(d);
	d->loaded = d->ready = 0;
}

void pd_dso_free(struct pd_dso *d)
{
	if (!d)
		return;
	join_loader(d);
	for (size_t i = 0; i < d->narena; i++)
		free(d->arena[i]);
	pd_symfile_drop(d);
	pd_procroot_release(d);
	FP_FREE_ALL(d->namebuf[0].p, d->namebuf[1].p, d->arena, d->syms, d->max_end, d->segs,
		    d->name, d->missing_why, d->path, d->text, d->doubt);
	free(d);
}
