/* pd_inline.c: inlined frames with libdw (pd_inline.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libiberty/demangle.h>

#include "fp_error.h"
#include "fp_map.h"
#include "fp_record.h"
#include "pd_inline.h"
#include "pd_symbols.h"

#define CACHE_MIN 1024
#define IDS_MIN 4096
#define MAX_INLINE_NEST 256   /* perf's limit of functions per address */
#define UNKNOWN_FUNCTION "??" /* addr2line's name for a function it cannot name */

/* A dso's DWARF: one offline libdwfl session, opened on first use. */
struct in_dso {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias; /* of the main file: ELF vaddr -> module address */
	int tried;
	/* the functions without a linkage name that BFD (addr2line, as perf
	 * runs it: one process per dso) has met as the innermost at an
	 * address, and the name it keeps for them since: DIE offset ->
	 * index in names */
	struct fp_map renamed;
	char **names;
	size_t nnames;
};

/* The frames of one (dso, address), leaf first: ids[off..off+n). */
struct in_frames {
	uint32_t off, n;
};

struct pd_inline {
	struct pd_machine *m;
	struct in_dso *dsos; /* by dso id - 1 */
	size_t ndsos;
	struct in_frames *lists; /* by_addr's values index it */
	size_t nlists, lists_cap;
	struct fp_map by_addr; /* (address, dso id) -> its frames */
	uint32_t *ids;
	size_t nids, ids_cap;
	struct pd_inline_stats st;
};

/* ---- a dso's DWARF ----------------------------------------------------------- */

static struct in_dso *dso_state(struct pd_inline *in, const struct pd_dso *d)
{
	in->dsos = fp_xgrow_zeroed(in->dsos, &in->ndsos, d->id, sizeof *in->dsos);
	struct in_dso *s = &in->dsos[d->id - 1];
	if (s->tried)
		return s->mod ? s : NULL;
	s->tried = 1;
	if (!d->path || !(s->dwfl = pd_dwfl_offline()))
		return NULL;
	Dwfl_Module *mod = dwfl_report_elf(s->dwfl, d->name, d->path, -1, 0, false);
	dwfl_report_end(s->dwfl, NULL, NULL);
	Dwarf_Addr b;
	if (mod && dwfl_module_getelf(mod, &s->bias) && dwfl_module_getdwarf(mod, &b)) {
		s->mod = mod;
		return s;
	}
	in->st.no_debuginfo++;
	dwfl_end(s->dwfl);
	s->dwfl = NULL;
	return NULL;
}

/* ---- names --------------------------------------------------------------------- */

/* addr2line's name of a function DIE: the linkage name, else the name,
 * through abstract origins and specifications. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n)
		n = dwarf_diename(die);
	return n ? n : UNKNOWN_FUNCTION;
}

static int is_function(int tag)
{
	return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram ||
	       tag == DW_TAG_entry_point;
}

/* Assemblers write a subprogram DIE per symbol of a function (__clone3,
 * __GI___clone3, clone3: one range); addr2line names the address by the
 * last of the smallest ranges that hold it, dwarf_getscopes by the
 * first. Top-level subprograms of the CU only. */
static void last_of_equals(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *inner)
{
	Dwarf_Die child, parent;
	Dwarf_Addr lo, hi, best;

	if (!dwarf_diecu(inner, &parent, NULL, NULL) || dwarf_lowpc(inner, &lo) != 0 ||
	    dwarf_highpc(inner, &hi) != 0 || dwarf_child(cu, &child) != 0)
		return;
	best = hi - lo;
	do {
		if (dwarf_tag(&child) != DW_TAG_subprogram || dwarf_haspc(&child, pc) != 1 ||
		    dwarf_lowpc(&child, &lo) != 0 || dwarf_highpc(&child, &hi) != 0 ||
		    hi - lo > best)
			continue;
		best = hi - lo;
		*inner = child;
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* binutils' non_mangled: languages whose DW_AT_name is the linkage name. */
static int lang_not_mangled(Dwarf_Die *cu)
{
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_Ada83:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Pascal83:
	case DW_LANG_C99:
	case DW_LANG_Ada95:
	case DW_LANG_PLI:
	case DW_LANG_UPC:
	case DW_LANG_C11:
	case DW_LANG_Mips_Assembler:
		return 1;
	}
	return 0;
}

static int has_linkage_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	       dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a);
}

/* The symbol of the address looked up: what BFD's _bfd_elf_find_function
 * finds there (the frame's own symbol), its raw name and module address. */
struct fn_symbol {
	const char *raw;
	Dwarf_Addr addr;
};

/* The name addr2line gives a function DIE (binutils' dwarf2.c,
 * _bfd_dwarf2_find_nearest_line). A name that is not a linkage name (C++'s
 * DW_AT_name: spin, _M_invoke) is, the first time the function is the
 * innermost at an address, the name of the symbol there; BFD then marks
 * the function as named for good: by that symbol if it starts where the
 * function does, else by its DW_AT_name. Later lookups of the same
 * addr2line process (perf keeps one per dso, asked in sample order as
 * fp-perfdata asks libdw) show that name, as innermost and as caller. */
static const char *function_name(struct in_dso *s, Dwarf_Die *die, int innermost, int linkage_lang,
				 const struct fn_symbol *sym)
{
	if (linkage_lang || has_linkage_name(die))
		return die_name(die);
	Dwarf_Off off = dwarf_dieoffset(die);
	uint32_t r = fp_map_get(&s->renamed, off, 0);
	if (r != FP_MAP_NONE)
		return s->names[r];
	if (!innermost || !sym->raw)
		return die_name(die);
	Dwarf_Addr lo;
	int renamed = dwarf_lowpc(die, &lo) == 0 && lo == sym->addr;
	s->names = fp_xrealloc(s->names, (s->nnames + 1) * sizeof *s->names);
	s->names[s->nnames] = fp_xstrdup(renamed ? sym->raw : die_name(die));
	fp_map_add(&s->renamed, off, 0, (uint32_t)s->nnames++);
	return sym->raw;
}

/* The function DIEs at addr, innermost first, up to the real function.
 * Calls add(name) for each; returns how many. */
static size_t dwarf_functions(struct in_dso *s, Dwarf_Addr addr, const struct fn_symbol *sym,
			      void (*add)(void *ctx, const char *name), void *ctx)
{
	Dwarf_Addr cb;
	Dwarf_Die *cu = dwfl_module_addrdie(s->mod, addr, &cb), *scopes = NULL, *chain = NULL;
	size_t found = 0;

	if (!cu)
		return 0;
	int ns = dwarf_getscopes(cu, addr - cb, &scopes);
	if (ns <= 0) {
		free(scopes);
		return 0;
	}
	Dwarf_Die inner = scopes[0];
	free(scopes);
	if (dwarf_tag(&inner) == DW_TAG_subprogram)
		last_of_equals(cu, addr - cb, &inner);
	int nc = dwarf_getscopes_die(&inner, &chain), linkage_lang = lang_not_mangled(cu);
	for (int i = 0; i < nc && found < MAX_INLINE_NEST; i++) {
		int tag = dwarf_tag(&chain[i]);
		if (!is_function(tag))
			continue;
		add(ctx, function_name(s, &chain[i], found == 0, linkage_lang, sym));
		found++;
		if (tag != DW_TAG_inlined_subroutine)
			break; /* the real function: the list ends */
	}
	free(chain);
	return found;
}

/* A function without a DIE (assembly): addr2line takes the symbol table's
 * function at the highest address not after vaddr, the last of equals in
 * the table's order (of the file with the DWARF, as perf hands it). */
static const char *symtab_function(struct in_dso *s, Dwarf_Addr vaddr)
{
	Dwarf_Addr b;
	Dwarf *dw = dwfl_module_getdwarf(s->mod, &b);
	Elf *elf = dw ? dwarf_getelf(dw) : NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *best = NULL;
	GElf_Addr best_addr = 0;

	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			break;
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || !sh.sh_entsize)
		return NULL;
	size_t n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		int type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_value > vaddr || (best && sym.st_value < best_addr))
			continue;
		const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (name && *name) {
			best = name;
			best_addr = sym.st_value;
		}
	}
	return best;
}

/* ---- the cache -------------------------------------------------------------------- */

struct build {
	struct pd_inline *in;
	uint32_t frame; /* the symbol's own frame */
	const char *frame_name;
};

static void push_id(struct pd_inline *in, uint32_t id)
{
	if (in->nids == in->ids_cap) {
		in->ids_cap = in->ids_cap ? in->ids_cap * 2 : IDS_MIN;
		in->ids = fp_xrealloc(in->ids, in->ids_cap * sizeof *in->ids);
	}
	in->ids[in->nids++] = id;
}

/* perf's new_inline_sym: the symbol's own frame for its own name, else an
 * inlined frame (demangled as perf's symbols). */
static void add_name(void *ctx, const char *name)
{
	struct build *b = ctx;
	char *dem = name[0] == '_' && (name[1] == 'Z' || name[1] == 'R')
			    ? cplus_demangle(name, DMGL_NO_OPTS)
			    : NULL;
	const char *shown = dem ? dem : name;

	if (strcmp(shown, b->frame_name) == 0) {
		push_id(b->in, b->frame);
	} else {
		push_id(b->in,
			pd_machine_add_frame(b->in->m, shown, strlen(shown), FP_KIND_INLINED));
		b->in->st.inlined++;
	}
	free(dem);
}

/* The frames of (d, vaddr) whose own frame is f, of symbol sym: looked up
 * once. */
static const struct in_frames *frames_of(struct pd_inline *in, struct pd_dso *d, uint64_t vaddr,
					 uint32_t f, const struct pd_sym *sym)
{
	uint32_t i = fp_map_put(&in->by_addr, vaddr, d->id, (uint32_t)in->nlists);

	if (i < in->nlists)
		return &in->lists[i];
	in->lists = fp_xgrow(in->lists, &in->lists_cap, in->nlists + 1, sizeof *in->lists,
			     CACHE_MIN);
	struct build b = { in, f, pd_frame_name(in->m, f) };
	struct in_dso *ds = dso_state(in, d);
	size_t off = in->nids, n = 0;

	in->st.lookups++;
	if (ds) {
		Dwarf_Addr addr = vaddr + ds->bias;
		/* no line information: addr2line has no record, perf no list */
		if (dwfl_module_getsrc(ds->mod, addr)) {
			char *raw = fp_xstrdup(pd_sym_name(d, sym, 0));
			struct fn_symbol fs = { raw, sym->start + ds->bias };
			n = dwarf_functions(ds, addr, &fs, add_name, &b);
			free(raw);
			const char *name = n ? NULL : symtab_function(ds, vaddr);
			if (name) {
				add_name(&b, name);
				n = 1;
			}
		}
	}
	if (!n)
		push_id(in, f);
	struct in_frames *l = &in->lists[in->nlists++];
	l->off = (uint32_t)off;
	l->n = (uint32_t)(in->nids - off);
	return l;
}

/* ---- the interface ------------------------------------------------------------------ */

size_t pd_inline_frames(struct pd_inline *in, struct pd_thread *t, uint64_t ip, uint32_t *out,
			size_t max)
{
	uint32_t f = pd_machine_frame(in->m, t, 0, ip);
	const struct pd_map *mp = pd_machine_map(t->proc, ip);

	/* perf's append_inlines: a symbol in a file (not the kernel, a JIT
	 * map or [vdso]) */
	if (!mp || !mp->dso || mp->identity || mp->dso->type != PD_DSO_ELF || mp->dso->missing) {
		out[0] = f;
		return 1;
	}
	struct pd_dso *d = mp->dso;
	uint64_t vaddr = pd_dso_vaddr(d, ip - mp->start + mp->pgoff);
	const struct pd_sym *sym = pd_dso_find(d, vaddr);
	if (!sym) {
		out[0] = f;
		return 1;
	}
	const struct in_frames *s = frames_of(in, d, vaddr, f, sym);
	size_t n = s->n < max ? s->n : max;
	memcpy(out, in->ids + s->off, n * sizeof *out);
	return n;
}

const struct pd_inline_stats *pd_inline_stats(const struct pd_inline *in)
{
	return &in->st;
}

struct pd_inline *pd_inline_new(struct pd_machine *m)
{
	struct pd_inline *in = fp_xcalloc(1, sizeof *in);

	in->m = m;
	return in;
}

void pd_inline_free(struct pd_inline *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->ndsos; i++) {
		struct in_dso *s = &in->dsos[i];
		if (s->dwfl)
			dwfl_end(s->dwfl);
		for (size_t k = 0; k < s->nnames; k++)
			free(s->names[k]);
		free(s->names);
		fp_map_free(&s->renamed);
	}
	FP_FREE_ALL(in->dsos, in->lists, in->ids);
	fp_map_free(&in->by_addr);
	free(in);
}
