/* pd_inline.h: inlined frames (fp-perfdata --inline), resolved with libdw
 * and shown as perf script --inline shows them.
 *
 * perf 6.1 asks addr2line (-i -f, on the file it read the symbols from:
 * the debug file if there is one) for the functions at an address: the
 * innermost function first, then each function it was inlined into, up
 * to the real one (tools/perf/util/srcline.c). Each becomes a frame named
 * by the function (demangled as perf's symbols are); a name equal to the
 * address's symbol is the symbol's own frame, any other an inlined frame
 * (kind i, "(inlined)" in perf script). So a static function whose symbol
 * has a suffix (msort_with_tmp.part.0) shows as its DWARF name, inlined.
 * An address without line information has no such list: its frame is
 * the symbol's alone.
 *
 * With libdw: dwfl_module_addrdie, dwarf_getscopes for the innermost
 * scope at the address, dwarf_getscopes_die for the chain of scopes that
 * contain it (inlined_subroutine and subprogram DIEs, names through
 * DW_AT_abstract_origin / specification, linkage name first as
 * addr2line). An address with line information but no function DIE
 * (assembly) is named as addr2line names it: the last symbol of the
 * symbol table at the highest address not after it.
 *
 * One libdwfl session per ELF dso (opened on its first lookup), and the
 * list of every (dso, address) cached: a hot address costs one lookup.
 * Memory follows the dsos and unique addresses, not samples.
 */
#ifndef PD_INLINE_H
#define PD_INLINE_H

#include <stddef.h>
#include <stdint.h>

#include "pd_machine.h"

struct pd_inline_stats {
	uint64_t lookups;      /* distinct (dso, address) pairs resolved */
	uint64_t inlined;      /* inlined frames among them */
	uint64_t no_debuginfo; /* dsos without DWARF (frames left as they are) */
};

struct pd_inline;

struct pd_inline *pd_inline_new(struct pd_machine *m);
void pd_inline_free(struct pd_inline *in);

/* The frames of user address ip of thread t, leaf first: the inlined
 * functions, then the frame itself. Writes at most max (>= 1) frame ids;
 * returns how many. */
size_t pd_inline_frames(struct pd_inline *in, struct pd_thread *t, uint64_t ip, uint32_t *out,
			size_t max);

const struct pd_inline_stats *pd_inline_stats(const struct pd_inline *in);

#endif
