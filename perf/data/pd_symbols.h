/* pd_symbols.h: symbol tables of the files a perf.data names, for
 * fp-perfdata.
 *
 * A dso is one mapped object as perf names it: an ELF file (its path from
 * the MMAP record), the kernel ([kernel.kallsyms], from /proc/kallsyms),
 * a JIT map (/tmp/perf-PID.map), or [vdso]. Its symbols are loaded on the
 * first lookup:
 *  - ELF files with elfutils' libdwfl: .symtab, else .dynsym, plus the
 *    .gnu_debugdata (MiniDebugInfo) table; separate debug files found by
 *    .gnu_debuglink or build-id (dwfl_standard_find_debuginfo, under
 *    /usr/lib/debug); a file that is gone or was rebuilt is taken from
 *    perf's build-id cache (~/.debug/.build-id/xx/yyyy/elf) when the
 *    recording names its build-id.
 *  - The kernel from /proc/kallsyms (module symbols named [module]), or
 *    perf's copy of it when that must hold the same (pd_kcache.h), plus
 *    the BPF programs of KSYMBOL records.
 *  - JIT code from /tmp/perf-PID.map ("START SIZE NAME" lines).
 * The table is then prepared as perf prepares its own (symbols__fixup_end,
 * symbols__fixup_duplicate, choose_best_symbol): zero-sized symbols end at
 * the next one, of several symbols at one address the one perf would show
 * is kept. C++ names are demangled with libiberty's cplus_demangle without
 * parameters, as perf script prints them.
 * The names of an ELF file's own tables stay in the file until a lookup
 * shows them (pd_sym_name; perf/data/pd_symfile.h).
 *
 * Lookups take a dso-relative address: for ELF files the ELF virtual
 * address (pd_dso_vaddr converts a file offset), for the kernel and JIT
 * maps the address itself.
 */
#ifndef PD_SYMBOLS_H
#define PD_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "pd_read.h"

enum pd_dso_type {
	PD_DSO_ELF,
	PD_DSO_KERNEL,
	PD_DSO_JITMAP,
	PD_DSO_VDSO,
};

struct pd_sym {
	uint64_t start, end;
	/* As read (demangled when the frame is made): in the dso's string
	 * arena or its kallsyms text, or (PD_SYM_IN_FILE) at name_off in
	 * the ELF file, read by pd_sym_name. */
	union {
		const char *name;
		uint64_t name_off;
	};
	uint32_t frame;  /* frame id + 1, or 0: not assigned yet */
	uint8_t binding; /* STB_* */
	uint8_t flags;   /* PD_SYM_PLAIN, PD_SYM_PLT, PD_SYM_IN_FILE */
	uint8_t group;   /* PD_SYM_*: of several symbols at one address */
};

enum {
	PD_SYM_PLAIN = 1,     /* the name is final: no demangling */
	PD_SYM_PLT = 2,       /* a PLT entry perf synthesizes */
	PD_SYM_IN_FILE = 4,   /* the name is in the dso's file, at name_off */
	PD_SYM_MODULE = 8,    /* kallsyms: "name\t[module]" (the TAB and what
				 * follows cut off after the fixups) */
	PD_SYM_PLT_NAME = 16, /* a PLT entry whose name is its relocation's
				 * symbol: shown demangled + "@plt" */
};

/* A PLT entry's shown name, perf's: at most this long (with its NUL). */
#define PD_PLT_NAME_MAX 1024

/* A buffer pd_sym_name reads names into: the name at off + 1 (0: none). */
struct pd_namebuf {
	char *p;
	size_t cap;
	uint64_t off1;
};

/* Symbols that share an address are kept side by side, and the one perf
 * keeps of them (its choose_best_symbol) is chosen on the first lookup
 * that meets them (pd_symtab.c): most groups are never looked up, and the
 * choice may demangle names. */
enum {
	PD_SYM_ALONE,    /* no other symbol at its address, or chosen */
	PD_SYM_UNCHOSEN, /* the first of a group, the choice not made yet */
	PD_SYM_OTHER,    /* a later member of the group before it */
};

struct pd_seg {
	uint64_t offset, vaddr, size;
};

struct pd_dso {
	char *name; /* as perf prints it: path, [kernel.kallsyms]... */
	size_t name_len;
	enum pd_dso_type type;
	uint32_t id; /* index + 1 in its machine: the cache key */
	char kind;   /* frame kind of its frames (FP_KIND_*) */
	int loaded, missing;
	int pending;            /* debuginfod asked for its file or debug file and
				 * has not answered: read again when it does
				 * (pd_machine_poll_debuginfod) */
	int ready;              /* loaded ahead, by pd_dso_load_ahead or a finished
				 * preload thread: pd_dso_load only sets loaded */
	uint32_t unknown_frame; /* frame id + 1 of "[basename]", or 0 */
	unsigned char build_id[20];
	size_t build_id_len;
	int build_id_mapped; /* from an MMAP2 record (--buildid-mmap): the
			      * kernel's id of the mapped file */
	struct pd_sym *syms;
	size_t nsyms, syms_cap;
	uint64_t *max_end;   /* max_end[i]: the furthest end of syms[0..i] */
	struct pd_seg *segs; /* ELF: PT_LOAD segments, file offset -> vaddr */
	size_t nsegs;
	char **arena; /* name blocks */
	size_t narena;
	char *text;         /* kallsyms: its text, which the names point into */
	int kallsyms_copy;  /* kernel: read from perf's copy (pd_kcache.h) */
	uint64_t text_addr; /* kernel: _text in its table (pd_kernel_relocate) */
	char *image;        /* ELF, while its tables are read: the file mapped
				 * privately, a zero page after it */
	size_t image_size, image_span;
	int fd;                       /* ELF: the file, which PD_SYM_IN_FILE names are
				 * read from (pread), or -1 */
	struct pd_namebuf namebuf[2]; /* pd_sym_name's, by slot */
	char *missing_why;            /* why the file could not be read, or NULL */
	char *path;                   /* ELF: the file its symbols were read from (the
				 * recorded path or the build-id cache), or NULL */
	void *loader;                 /* pd_dso_preload's thread, until joined */
	/* a file of another mount namespace (pd_procroot.h): its namespace
	 * (0: the host's, part of the dso's identity), the process it was
	 * opened through, and the file kept open (or -1) */
	uint64_t ns_id;
	int64_t ns_pid;
	int ns_fd;
	int map_checked; /* pd_procroot_attach_map looked at its first map */
	/* ELF: the file its maps were made of (pd_buildid.c checks the
	 * recorded path's file against it when no build-id is recorded);
	 * mixed: maps of two files, none to check against */
	struct pd_file_id mapped;
	int mapped_mixed;
	char *doubt; /* ELF: why its names may not be its own file's, or NULL */
};

/* Creates a dso named name (not loaded yet); type from the name. */
struct pd_dso *pd_dso_new(const char *name, size_t len, enum pd_dso_type type);
void pd_dso_free(struct pd_dso *d);
/* Forgets d's symbols and what was found of its file (waiting for a
 * pd_dso_preload thread first): its next pd_dso_load reads it again. */
void pd_dso_reset(struct pd_dso *d);
/* Loads the symbols on first use (never fails: a missing file gives an
 * empty table and d->missing). */
void pd_dso_load(struct pd_dso *d);
/* Starts loading the symbols in a thread of their own (the kernel's:
 * reading /proc/kallsyms is mostly the kernel's time), so the first lookup
 * waits less or not at all; pd_dso_load joins it. Touches nothing but d.
 * Falls back to loading on first use if no thread can be started. */
void pd_dso_preload(struct pd_dso *d);
/* 1 if the symbols are there or a pd_dso_preload thread has ended
 * (pd_dso_load will not wait), without waiting. */
int pd_dso_ready(struct pd_dso *d);
/* Waits for a pd_dso_preload thread, if there is one (then pd_dso_ready
 * is 1). */
void pd_dso_wait(struct pd_dso *d);
/* Loads the symbols now, as pd_dso_load would, but leaves d as a dso
 * not used yet (d->loaded stays 0, so its first use is still told apart:
 * the machine reports a missing file then). */
void pd_dso_load_ahead(struct pd_dso *d);
/* The symbol covering addr (dso-relative), or NULL. */
const struct pd_sym *pd_dso_find(struct pd_dso *d, uint64_t addr);
/* The name of s, a symbol of d: s->name, or for a name kept in the file
 * (PD_SYM_IN_FILE) the name read from it into d's buffer slot (0 or 1;
 * valid until the next read into that slot). */
const char *pd_sym_name(struct pd_dso *d, const struct pd_sym *s, int slot);
/* ELF: file offset -> virtual address through the PT_LOAD segments. */
uint64_t pd_dso_vaddr(const struct pd_dso *d, uint64_t offset);
/* A libdwfl session for ELF files reported by path (dwfl_report_elf), their
 * debug files found the standard way (build-id, .gnu_debuglink, under
 * /usr/lib/debug); NULL if libdwfl fails. End it with dwfl_end. */
struct Dwfl *pd_dwfl_offline(void);
/* Adds a symbol (kernel BPF programs from KSYMBOL). */
void pd_dso_add_sym(struct pd_dso *d, uint64_t start, uint64_t end, const char *name, size_t len);
/* Where the kernel's symbols are read from (default /proc/kallsyms, whose
 * size stat reports as 0: it is read as it is). */
void pd_symbols_set_kallsyms(const char *path);
/* 0: read no file of this host for symbols (no kallsyms, no binaries, no
 * build-id cache, no vdso image): every frame is named from the recording
 * alone ([unknown] or its dso). Default 1. */
void pd_symbols_set_host_files(int on);
/* Sorts and fixes up the table after pd_dso_add_sym calls. */
void pd_dso_fixup(struct pd_dso *d);

#endif
