/* pd_symfile: the symbol names of an ELF file left in the file, internal
 * to the pd_symbols reader.
 *
 * While its tables are read a file is mapped (pd_symfile_map), and libelf
 * reads it in place. A name of the file's own tables (.symtab, .dynsym) is
 * not copied: pd_symfile_add_sym keeps its offset, and pd_sym_name reads
 * it from the file (pread) when a lookup first shows it; most names never
 * are, so neither the names nor the pages of the file stay in memory. A
 * name elsewhere (a debug file, .gnu_debugdata) is copied. The file stays
 * open for that, while at most half of RLIMIT_NOFILE is kept so (past
 * that budget names are copied, as they are read).
 *
 * Calling sequence: pd_symfile_map; pd_symfile_add_sym per symbol read;
 * pd_symfile_release once the tables are read (unmaps; closes the file if
 * no name is left in it), or pd_symfile_drop if the file is not used.
 */
#ifndef PD_SYMFILE_H
#define PD_SYMFILE_H

#include "pd_symbols.h"

/* Maps the file of fd (d->image); keeps fd as d->fd if the budget allows,
 * else closes it. -1 if it cannot be mapped (fd closed). */
int pd_symfile_map(struct pd_dso *d, int fd);
/* A symbol of d's tables whose name is name (NUL-terminated), with its
 * binding. */
void pd_symfile_add_sym(struct pd_dso *d, uint64_t start, uint64_t end, const char *name,
			int binding);
void pd_symfile_release(struct pd_dso *d);
/* Unmaps and closes d's file. */
void pd_symfile_drop(struct pd_dso *d);

/* pd_symbols.c: a symbol named name, which d keeps already. */
struct pd_sym *pd_dso_push_sym(struct pd_dso *d, uint64_t start, uint64_t end, const char *name);

#endif
