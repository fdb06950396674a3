/* pd_symtab.c: a DSO's symbol table prepared the way perf prepares its
 * own (symbols__fixup_end, symbols__fixup_duplicate, choose_best_symbol),
 * and the address lookup on it (pd_dso_find). Internal to pd_symbols.c,
 * which reads the tables (pd_symtab.h).
 */
#include <stdlib.h>
#include <string.h>

#include <gelf.h>
#include <libiberty/demangle.h>

#include "fp_error.h"
#include "pd_symbols.h"
#include "pd_symtab.h"

#define PAGE 4096u
#define ROUNDUP_PAGE(x) (((x) + PAGE - 1) & ~(uint64_t)(PAGE - 1))

static size_t underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* Only Itanium C++ (_Z) and Rust v0 (_R) names demangle: the others are
 * not handed to the demangler (it would try every scheme on each). */
static int is_mangled(const char *name)
{
	return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

/* perf's choose_best_symbol: 1 if a is kept over b. perf compares the
 * names it shows, demangled: so does this (only for symbols that share an
 * address, which are few). */
static int better(struct pd_dso *d, const struct pd_sym *a, const struct pd_sym *b, int demangle)
{
	uint64_t la = a->end - a->start, lb = b->end - b->start;
	if (lb == 0 && la > 0)
		return 1;
	if (la == 0 && lb > 0)
		return 0;
	int wa = a->binding == STB_WEAK, wb = b->binding == STB_WEAK;
	if (wb && !wa)
		return 1;
	if (wa && !wb)
		return 0;
	int ga = a->binding == STB_GLOBAL, gb = b->binding == STB_GLOBAL;
	if (ga && !gb)
		return 1;
	if (gb && !ga)
		return 0;
	const char *name_a = pd_sym_name(d, a, 0), *name_b = pd_sym_name(d, b, 1);
	if (strcmp(name_a, name_b) == 0) /* .symtab and .dynsym: one name */
		return 1;
	char *da = demangle && !(a->flags & PD_SYM_PLAIN) && is_mangled(name_a)
			   ? cplus_demangle(name_a, DMGL_NO_OPTS)
			   : NULL;
	char *db = demangle && !(b->flags & PD_SYM_PLAIN) && is_mangled(name_b)
			   ? cplus_demangle(name_b, DMGL_NO_OPTS)
			   : NULL;
	const char *sa = da ? da : name_a, *sb = db ? db : name_b;
	size_t ua = underscores(sa), ub = underscores(sb);
	size_t na = strlen(sa), nb = strlen(sb);
	free(da);
	free(db);
	if (ub > ua)
		return 1;
	if (ua > ub)
		return 0;
	if (na > nb)
		return 1;
	if (na < nb)
		return 0;
	return 1;
}

struct sort_key {
	uint64_t start;
	uint64_t index; /* reading order: the tie-break (stable) */
};

#define RADIX_BITS 11 /* a count array of 16 KiB stays in L1 */
#define RADIX_SIZE (1u << RADIX_BITS)
#define RADIX_MASK ((uint64_t)RADIX_SIZE - 1)

/* Stable LSD radix sort of k[0..n) by start (ties stay in reading order):
 * a few linear passes instead of n log n indirect compares (qsort was the
 * largest cost of loading a big table). Only the digits in which the keys
 * differ get a pass: a dso's addresses span a few of them. */
static void radix_sort_keys(struct sort_key *k, size_t n)
{
	struct sort_key *tmp = fp_xmalloc(n * sizeof *tmp);
	size_t count[RADIX_SIZE];
	uint64_t any = 0, all = ~(uint64_t)0;

	for (size_t j = 0; j < n; j++) {
		any |= k[j].start;
		all &= k[j].start;
	}
	uint64_t differ = any ^ all;
	for (unsigned shift = 0; shift < 64; shift += RADIX_BITS) {
		if (!((differ >> shift) & RADIX_MASK))
			continue; /* every key has this digit */
		memset(count, 0, sizeof count);
		for (size_t j = 0; j < n; j++)
			count[(k[j].start >> shift) & RADIX_MASK]++;
		size_t sum = 0;
		for (size_t b = 0; b < RADIX_SIZE; b++) {
			size_t c = count[b];
			count[b] = sum;
			sum += c;
		}
		for (size_t j = 0; j < n; j++)
			tmp[count[(k[j].start >> shift) & RADIX_MASK]++] = k[j];
		memcpy(k, tmp, n * sizeof *k);
	}
	free(tmp);
}

/* Sorts the table by start, ties in reading order. Sorts 16-byte keys,
 * then moves each symbol once, in place (a cycle of the permutation at a
 * time): cheaper than sorting the symbols, and no second table. */
static void sort_table(struct pd_dso *d)
{
	size_t i = 1;

	while (i < d->nsyms && d->syms[i - 1].start <= d->syms[i].start)
		i++;
	if (i >= d->nsyms)
		return; /* kallsyms and most .symtab: sorted already */
	struct sort_key *k = fp_xmalloc(d->nsyms * sizeof *k);
	for (size_t j = 0; j < d->nsyms; j++) {
		k[j].start = d->syms[j].start;
		k[j].index = j;
	}
	radix_sort_keys(k, d->nsyms);
	/* k[j].index: the symbol that goes to j; set to j once it is there */
	for (size_t j = 0; j < d->nsyms; j++) {
		if (k[j].index == j)
			continue;
		struct pd_sym first = d->syms[j];
		for (size_t at = j;;) {
			size_t from = (size_t)k[at].index;
			k[at].index = at;
			if (from == j) {
				d->syms[at] = first;
				break;
			}
			d->syms[at] = d->syms[from];
			at = from;
		}
	}
	free(k);
}

/* max_end[i]: the furthest end of syms[0..i], for pd_dso_find. */
static void index_ends(struct pd_dso *d)
{
	free(d->max_end);
	d->max_end = fp_xmalloc((d->nsyms ? d->nsyms : 1) * sizeof *d->max_end);
	for (size_t i = 0; i < d->nsyms; i++)
		d->max_end[i] = i && d->max_end[i - 1] > d->syms[i].end ? d->max_end[i - 1]
									: d->syms[i].end;
}

/* Merges syms[from..n), if sorted, into the sorted syms[0..from): the
 * stable sort's order (of equal starts the earlier read first) in one
 * pass from the end, in place (only the added run is copied aside: the
 * PLT entries, few). 0 if they are not sorted. */
static int merge_added(struct pd_dso *d, size_t from)
{
	size_t n = d->nsyms;

	for (size_t i = from + 1; i < n; i++)
		if (d->syms[i].start < d->syms[i - 1].start)
			return 0;
	size_t b = n - from, a = from, o = n;
	struct pd_sym *added = fp_xmalloc((b ? b : 1) * sizeof *added);
	memcpy(added, d->syms + from, b * sizeof *added);
	while (b > 0) { /* of equal starts the added one goes after */
		if (a > 0 && d->syms[a - 1].start > added[b - 1].start)
			d->syms[--o] = d->syms[--a];
		else
			d->syms[--o] = added[--b];
	}
	free(added);
	return 1;
}

void pd_symtab_index(struct pd_dso *d, size_t from)
{
	if (from > d->nsyms || !merge_added(d, from))
		sort_table(d);
	index_ends(d);
}

/* symbols__fixup_end, then symbols__fixup_duplicate (for other tables
 * than kallsyms: the groups marked, each chosen by choose() when a lookup
 * first meets it). Kallsyms symbols have no size; module symbols carry
 * their [module] after a TAB. */
void pd_symtab_fixup(struct pd_dso *d, int kallsyms)
{
	if (!d->nsyms)
		return;
	sort_table(d);
	for (size_t i = 0; i + 1 < d->nsyms; i++) {
		struct pd_sym *prev = &d->syms[i], *curr = &d->syms[i + 1];
		if (prev->end != prev->start)
			continue;
		if (kallsyms && ((prev->flags ^ curr->flags) & PD_SYM_MODULE))
			prev->end = ROUNDUP_PAGE(prev->end + PAGE);
		else
			prev->end = curr->start;
	}
	struct pd_sym *last = &d->syms[d->nsyms - 1];
	if (last->end == last->start)
		last->end = ROUNDUP_PAGE(last->start) + PAGE;
	if (kallsyms) {
		/* the choice compares the names with their [module]: now */
		size_t out = 0;
		for (size_t i = 0; i < d->nsyms; i++) {
			if (out && d->syms[out - 1].start == d->syms[i].start) {
				if (!better(d, &d->syms[out - 1], &d->syms[i], 0))
					d->syms[out - 1] = d->syms[i];
				continue;
			}
			d->syms[out++] = d->syms[i];
		}
		d->nsyms = out;
	} else {
		/* the choice demangles: on the first lookup (choose) */
		for (size_t i = 1; i < d->nsyms; i++)
			if (d->syms[i].start == d->syms[i - 1].start) {
				d->syms[i].group = PD_SYM_OTHER;
				if (d->syms[i - 1].group == PD_SYM_ALONE)
					d->syms[i - 1].group = PD_SYM_UNCHOSEN;
			}
	}
	index_ends(d);
}

/* perf's symbols__fixup_duplicate for the group that starts at syms[g]:
 * of the symbols at one address the one perf keeps, found as perf's
 * pass finds it (each next one against the one kept so far), moved to
 * the front of the group. The others stay behind it, never returned. */
static void choose(struct pd_dso *d, size_t g)
{
	size_t best = g;

	for (size_t i = g + 1; i < d->nsyms && d->syms[i].group == PD_SYM_OTHER; i++)
		if (!better(d, &d->syms[best], &d->syms[i], 1))
			best = i;
	struct pd_sym t = d->syms[g];
	d->syms[g] = d->syms[best];
	d->syms[best] = t;
	d->syms[best].group = PD_SYM_OTHER;
	d->syms[g].group = PD_SYM_ALONE;
}

void pd_dso_fixup(struct pd_dso *d)
{
	pd_symtab_fixup(d, 0);
}

const struct pd_sym *pd_dso_find(struct pd_dso *d, uint64_t addr)
{
	if (!d->loaded)
		pd_dso_load(d);
	size_t lo = 0, hi = d->nsyms;
	while (lo < hi) { /* first symbol starting after addr */
		size_t mid = lo + (hi - lo) / 2;
		if (d->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* Of several symbols covering addr (a zero-size label extended over
	 * the rest of its function, _init over the PLT entries added after
	 * perf's fixups), the earliest: perf's red-black tree lookup meets
	 * the earlier, earlier inserted symbol first. max_end bounds the walk. */
	const struct pd_sym *found = NULL;
	for (size_t i = lo; i-- > 0;) {
		if (d->syms[i].group == PD_SYM_OTHER)
			continue; /* its group is met at its first symbol */
		if (d->syms[i].group == PD_SYM_UNCHOSEN)
			choose(d, i);
		const struct pd_sym *s = &d->syms[i];
		if ((addr < s->end || addr == s->start) && !(found && (found->flags & PD_SYM_PLT)))
			found = s; /* a PLT entry wins over _init reaching over it */
		/* max_end counts the unchosen too: it bounds the walk, no more */
		if (!i || d->max_end[i - 1] <= addr)
			break;
	}
	return found;
}
