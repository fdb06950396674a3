/* pd_buildid.h: where fp-perfdata finds the files of a recording made on
 * another host (or before a rebuild, a reboot, a deletion): by the
 * build-ids the recording names, as perf does.
 *
 * The lookup order of a dso's ELF file, one table (pd_buildid.c):
 *   0. a live process's file of another mount namespace, through its
 *      root (pd_procroot.h; not with --symfs);
 *   1. the recorded path (under --symfs DIR when given, as perf's --symfs;
 *      [vdso]: this process's own vdso when its build-id is the recorded
 *      one, or none is recorded); with no build-id recorded, only if it is
 *      the mapped file (pd_buildid_is_mapped);
 *   2. perf's build-id cache, as perf record and perf archive leave it
 *      ($PERF_BUILDID_DIR, else ~/.debug): [vdso]/ID/vdso for the vdso,
 *      .build-id/xx/yyyy/elf for every file;
 *   3. the recording's host over ssh (fp-perfdata --remote, pd_remote.h):
 *      the recorded path fetched there, kept in a build-id cache; with
 *      --remote, the recorded path of step 1 is taken only when a
 *      recorded build-id proves it the same file;
 *   4. debuginfod, the executable by build-id (pd_debuginfod.h).
 * A file found must have the recorded build-id. A file found without
 * symbols (no .symtab, no separate debug file here) has its debug file
 * asked from debuginfod too. Separate debug files: the build-id paths
 * under /usr/lib/debug (and DIR/usr/lib/debug), .gnu_debuglink, perf's
 * cache (.build-id/xx/yyyy/debug), then debuginfod's answer
 * (pd_find_debuginfo).
 *
 * The kernel (pd_kallsyms_source): --kallsyms FILE is taken as given;
 * with --remote, the remote host's /proc/kallsyms when its kernel's
 * build-id is the recorded one (pd_remote.h); else a recording without a kernel build-id, or of the running kernel's,
 * reads what this machine has (/proc/kallsyms or perf's copy of it,
 * pd_kcache.h); a recording of another kernel reads perf's cache
 * ([kernel.kallsyms]/ID/kallsyms) or nothing: kernel frames stay unnamed
 * and a warning says why, never names from a different kernel. Kernel
 * symbols are moved by where the table puts _text against where the
 * recording saw it (perf's kallsyms__delta): KASLR puts the kernel
 * elsewhere at each boot.
 */
#ifndef PD_BUILDID_H
#define PD_BUILDID_H

#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

struct pd_dso;

/* libdwfl's debuginfo_path for pd_symbols.c's sessions (NULL: its
 * default; with --symfs DIR, DIR/usr/lib/debug first). */
extern char *pd_debuginfo_path;

/* --symfs DIR: the other host's root, where recorded paths are read. */
void pd_buildid_set_symfs(const char *dir);
/* 1 if the recording is another host's (--symfs, --remote): its pids,
 * devices and inodes are not this host's. */
int pd_buildid_foreign(void);
/* perf's buildid_dir: $PERF_BUILDID_DIR, else $HOME/.debug. */
const char *pd_buildid_dir(void);
/* id as lower-case hex into hex (2 n + 1 bytes). */
void pd_buildid_hex(const unsigned char *id, size_t n, char *hex);

enum pd_lookup_result {
	PD_LK_END,     /* no more rows */
	PD_LK_SKIP,    /* the row does not apply to this dso */
	PD_LK_PATH,    /* a path to try, in buf */
	PD_LK_PENDING, /* debuginfod or the remote host has not answered yet */
	PD_LK_REFUSED, /* a file there that is not d's: why, in buf */
};

/* Row i of the lookup order for d (an ELF file or [vdso]): the path to
 * try in buf, and the row's name in *what. The recorded path is refused
 * when no build-id is recorded and the file there is not the mapped one
 * (another device or inode than the MMAP2 records say: a container's file
 * of that path, gone with its process; a file replaced since). */
enum pd_lookup_result pd_lookup(const struct pd_dso *d, size_t i, char *buf, size_t cap,
				const char **what);

/* 1 if id says which file was mapped (device and inode) and the file at
 * path is another one (its stat in *st); 0 if it is that file, or
 * nothing says (no id, no file at path). */
struct stat;
struct pd_file_id;
int pd_file_id_other(const struct pd_file_id *id, const char *path, struct stat *st);

/* 1 if the file at path is the one d's maps were made of (MMAP2's device
 * and inode), or nothing says otherwise (maps of more than one file, none
 * with an inode, another host's recording); else 0, and why in why. */
int pd_buildid_is_mapped(const struct pd_dso *d, const char *path, char *why, size_t cap);

/* debuginfod: 1 to wait for each answer (within its time limit: a
 * finished file), 0 to go on and pick answers up as they come (--live). */
void pd_buildid_set_wait(int wait);
int pd_buildid_wait(void);

enum pd_ksrc {
	PD_KSRC_RUNNING, /* this machine's: /proc/kallsyms or perf's copy */
	PD_KSRC_CACHE,   /* perf's cache of the recorded build-id: path */
	PD_KSRC_NONE,    /* nothing of the recorded kernel: d->missing */
};
/* Where the kernel's symbols come from for d (its build_id the
 * recorded one, if any), without --kallsyms. */
enum pd_ksrc pd_kallsyms_source(struct pd_dso *d, char *path, size_t cap);
/* Notes where the table puts _text (d->text_addr), before the fixups. */
void pd_kernel_note_text(struct pd_dso *d);
/* Moves the kernel's own symbols (not the modules') of a loaded table by
 * the table's _text minus recorded_text (0: unknown, nothing moved).
 * Returns the delta. */
int64_t pd_kernel_relocate(struct pd_dso *d, uint64_t recorded_text);

/* libdwfl's find_debuginfo, in the order above; never asks a server
 * itself (libdwfl's own debuginfod client would, on the sample path). */
int pd_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		      char **debuginfo_file_name);

#endif
