/* pd_symtab: perf's preparation of a DSO's symbol table, internal to the
 * pd_symbols reader.
 *
 * Calling sequence (pd_symbols.c): pd_dso_add_sym for every symbol read,
 * then pd_symtab_fixup once (sorts by start, ties in reading order; gives
 * zero-size symbols an end as perf does; keeps perf's choice of symbols
 * that share an address: for kallsyms at once, else on the first lookup
 * of that address, since the choice demangles; indexes the ends for
 * pd_dso_find). Symbols added
 * after the fixups (the PLT entries perf synthesises later): then
 * pd_symtab_index (sort and index only).
 */
#ifndef PD_SYMTAB_H
#define PD_SYMTAB_H

#include "pd_symbols.h"

/* kallsyms: 1 for /proc/kallsyms (no sizes, module names after a TAB,
 * no demangling in the choice between duplicates). */
void pd_symtab_fixup(struct pd_dso *d, int kallsyms);
/* After pd_symtab_fixup, symbols from index from on were added: sorted
 * in (merged when they come sorted, as the PLT entries do). */
void pd_symtab_index(struct pd_dso *d, size_t from);

#endif
