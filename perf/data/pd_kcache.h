/* pd_kcache.h: the kernel's symbols from perf's build-id cache, when that
 * copy must hold what /proc/kallsyms holds now.
 *
 * perf record copies /proc/kallsyms to
 * ~/.debug/[kernel.kallsyms]/BUILD-ID/kallsyms the first time it records a
 * kernel of that build-id. Reading /proc/kallsyms costs ~40 ms of kernel
 * CPU (the kernel formats its 120 k lines as they are read, a page per
 * read); the copy, a regular file, a few ms. fp-perfdata reads the copy
 * instead (pd_symbols.c) only when:
 *  - it is the running kernel's (the build-id of /sys/kernel/notes names
 *    the directory) and was written since this boot (mtime >= btime of
 *    /proc/stat), so the core kernel's addresses are those of now (KASLR
 *    picks them per boot);
 *  - every module of /proc/modules has its text symbols in the copy, inside
 *    the module's range now, and the copy names no other module
 *    (pd_kcache_modules_agree): a module loaded, unloaded or moved since
 *    the copy was made sends fp-perfdata back to /proc/kallsyms.
 * Symbols of code the kernel makes and frees as it runs (BPF programs,
 * ftrace and kprobe trampolines: "[bpf]", "[__builtin__*]") cannot be
 * checked and are left out of the copy's table (pd_kcache_dynamic); BPF
 * programs come from the recording's KSYMBOL records anyway.
 * --kallsyms FILE (also /proc/kallsyms) reads that file and never the copy.
 */
#ifndef PD_KCACHE_H
#define PD_KCACHE_H

#include <stddef.h>

struct pd_dso;

/* Where the copy of the running kernel's kallsyms would be, in buf (cap
 * bytes): PERF_BUILDID_DIR, else $HOME/.debug, as perf looks. 1 if that
 * file is there, regular, and written since this boot; else 0. */
int pd_kcache_find(char *buf, size_t cap);

/* 1 if a kallsyms name ("name\t[module]") is of code the kernel makes and
 * frees as it runs, which a copy cannot vouch for. */
int pd_kcache_dynamic(const char *name, size_t len);

/* 1 if the module symbols of d (names still "name\t[module]", as read from
 * the copy) agree with the modules in text (/proc/modules' contents, len
 * bytes; NULL when the kernel has no /proc/modules): see above. */
int pd_kcache_modules_agree(const struct pd_dso *d, const char *text, size_t len);

/* The running kernel's build-id from an ELF note section (the contents of
 * /sys/kernel/notes, len bytes) as lower-case hex in hex (cap bytes, at
 * least 41). 1 if found, else 0. */
int pd_kcache_build_id(const unsigned char *notes, size_t len, char *hex, size_t cap);

#endif
