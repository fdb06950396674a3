/* u-pdsymtab.c: fp-perfdata's symbol table as perf prepares its own
 * (perf/data/pd_symtab.c): of several symbols at one address the one perf's
 * choose_best_symbol keeps, zero-size symbols ended at the next, and the
 * PLT entries added after the fixups. */
#include "unit.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_symbols.h"
#include "pd_symtab.h"

static struct pd_dso *table(void)
{
	struct pd_dso *d = pd_dso_new("/t/lib.so", 9, PD_DSO_ELF);

	d->loaded = 1; /* the symbols come from the test */
	return d;
}

static void add(struct pd_dso *d, uint64_t start, uint64_t size, int binding, const char *name)
{
	pd_dso_add_sym(d, start, start + size, name, strlen(name));
	d->syms[d->nsyms - 1].binding = (uint8_t)binding;
}

static const char *name_at(struct pd_dso *d, uint64_t addr)
{
	const struct pd_sym *s = pd_dso_find(d, addr);

	return s ? pd_sym_name(d, s, 0) : NULL;
}

static void a_sized_symbol_wins_over_a_zero_size_one_at_its_address(void **state)
{
	struct pd_dso *d = table();

	add(d, 0x1000, 0, STB_GLOBAL, "label_long_name");
	add(d, 0x1000, 0x40, STB_GLOBAL, "f");
	add(d, 0x2000, 0x10, STB_GLOBAL, "g");
	pd_symtab_fixup(d, 0);
	assert_string_equal(name_at(d, 0x1000), "f");
	assert_string_equal(name_at(d, 0x103f), "f");
	assert_null(name_at(d, 0x1040)); /* f's size ends it */
	assert_string_equal(name_at(d, 0x2000), "g");
	pd_dso_free(d);
}

static void non_weak_then_global_then_fewer_underscores_then_longer_name(void **state)
{
	struct pd_dso *d = table();

	add(d, 0x100, 0x10, STB_WEAK, "weak_one");
	add(d, 0x100, 0x10, STB_LOCAL, "loc");
	add(d, 0x200, 0x10, STB_LOCAL, "loc");
	add(d, 0x200, 0x10, STB_GLOBAL, "glob");
	add(d, 0x300, 0x10, STB_GLOBAL, "__two");
	add(d, 0x300, 0x10, STB_GLOBAL, "_one");
	add(d, 0x400, 0x10, STB_GLOBAL, "short");
	add(d, 0x400, 0x10, STB_GLOBAL, "longer");
	add(d, 0x500, 0x10, STB_GLOBAL, "first");
	add(d, 0x500, 0x10, STB_GLOBAL, "other"); /* a tie: the first read */
	pd_symtab_fixup(d, 0);
	assert_string_equal(name_at(d, 0x105), "loc");
	assert_string_equal(name_at(d, 0x205), "glob");
	assert_string_equal(name_at(d, 0x305), "_one");
	assert_string_equal(name_at(d, 0x405), "longer");
	assert_string_equal(name_at(d, 0x505), "first");
	pd_dso_free(d);
}

static void names_are_compared_demangled(void **state)
{
	struct pd_dso *d = table();

	/* c_spin_function (15) is longer than ns::Box::spin (13), shorter
	 * than its mangled name (17): the demangled names are compared */
	add(d, 0x100, 0x10, STB_GLOBAL, "c_spin_function");
	add(d, 0x100, 0x10, STB_GLOBAL, "_ZN2ns3Box4spinEv");
	/* C1 and C2 constructors show alike: the first is kept */
	add(d, 0x200, 0x10, STB_GLOBAL, "_ZN2ns3BoxC2Ev");
	add(d, 0x200, 0x10, STB_GLOBAL, "_ZN2ns3BoxC1Ev");
	pd_symtab_fixup(d, 0);
	assert_string_equal(name_at(d, 0x100), "c_spin_function");
	assert_string_equal(name_at(d, 0x200), "_ZN2ns3BoxC2Ev");
	pd_dso_free(d);
}

static void each_next_symbol_is_weighed_against_the_one_kept_so_far(void **state)
{
	struct pd_dso *d = table();

	/* perf's pass keeps b over a (global), then c over b (longer) */
	add(d, 0x100, 0x10, STB_LOCAL, "aaaaaaaaaa");
	add(d, 0x100, 0x10, STB_GLOBAL, "b");
	add(d, 0x100, 0x10, STB_GLOBAL, "cc");
	add(d, 0x100, 0x10, STB_GLOBAL, "d");
	pd_symtab_fixup(d, 0);
	assert_string_equal(name_at(d, 0x100), "cc");
	assert_string_equal(name_at(d, 0x10f), "cc"); /* looked up again: the same */
	pd_dso_free(d);
}

static void a_zero_size_symbol_ends_where_the_next_address_begins(void **state)
{
	struct pd_dso *d = table();

	add(d, 0x100, 0, STB_GLOBAL, "lab");
	add(d, 0x100, 0, STB_GLOBAL, "lab2");
	add(d, 0x180, 0x10, STB_GLOBAL, "h");
	pd_symtab_fixup(d, 0);
	/* lab ends where lab2 begins, at its own address: zero size, so
	 * lab2, which reaches 0x180, is kept (perf's order of fixups) */
	assert_string_equal(name_at(d, 0x17f), "lab2");
	assert_string_equal(name_at(d, 0x180), "h");
	assert_null(name_at(d, 0xff));
	pd_dso_free(d);
}

static void a_plt_entry_added_later_wins_over_init_reaching_over_it(void **state)
{
	struct pd_dso *d = table();

	add(d, 0x1000, 0, STB_GLOBAL, "_init");
	add(d, 0x1100, 0x20, STB_GLOBAL, "text_start");
	pd_symtab_fixup(d, 0); /* _init now reaches 0x1100 */
	size_t fixed = d->nsyms;
	pd_dso_add_sym(d, 0x1000, 0x1010, "puts@plt", 8);
	d->syms[d->nsyms - 1].flags = PD_SYM_PLAIN | PD_SYM_PLT;
	pd_dso_add_sym(d, 0x1010, 0x1020, "exit@plt", 8);
	d->syms[d->nsyms - 1].flags = PD_SYM_PLAIN | PD_SYM_PLT;
	pd_symtab_index(d, fixed);
	assert_string_equal(name_at(d, 0x1000), "puts@plt");
	assert_string_equal(name_at(d, 0x1015), "exit@plt");
	assert_string_equal(name_at(d, 0x1020), "_init");
	assert_string_equal(name_at(d, 0x1100), "text_start");
	pd_dso_free(d);
}

#define SHUFFLED 5000 /* symbols: several radix passes, long cycles */

/* The table is sorted in place by moving whole symbols along the cycles
 * of the permutation: every symbol ends up once, at its place, and of
 * equal starts the one read first comes first (perf's rb-tree order). */
static void an_unsorted_table_is_sorted_by_start_ties_in_reading_order(void **state)
{
	struct pd_dso *d = table();
	char name[32];
	uint64_t x = 12345;

	for (int i = 0; i < SHUFFLED; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		/* few distinct starts: many ties; spread over 40 bits */
		uint64_t start = ((x >> 33) % (SHUFFLED / 4)) << 20;
		snprintf(name, sizeof name, "%d", i);
		add(d, start, 0x10, STB_GLOBAL, name);
	}
	pd_symtab_index(d, 0);
	assert_int_equal(d->nsyms, SHUFFLED);
	char *seen = calloc(SHUFFLED, 1);
	for (size_t i = 0; i < d->nsyms; i++) {
		int order = atoi(pd_sym_name(d, &d->syms[i], 0));
		assert_false(seen[order]);
		seen[order] = 1;
		if (i) {
			assert_true(d->syms[i - 1].start <= d->syms[i].start);
			if (d->syms[i - 1].start == d->syms[i].start)
				assert_true(atoi(pd_sym_name(d, &d->syms[i - 1], 0)) < order);
		}
	}
	free(seen);
	pd_dso_free(d);
}

/* Symbols added sorted after the fixups (the PLT entries) are merged in
 * place: of equal starts the one there before comes first. */
static void added_symbols_are_merged_in_after_those_at_the_same_start(void **state)
{
	static const char *const want[] = { "b0", "a0", "a1", "b1", "a2", "b2" };
	struct pd_dso *d = table();

	add(d, 0x10, 0x10, STB_GLOBAL, "a0");
	add(d, 0x20, 0x10, STB_GLOBAL, "a1");
	add(d, 0x30, 0x10, STB_GLOBAL, "a2");
	pd_symtab_fixup(d, 0);
	add(d, 0x05, 0x5, STB_GLOBAL, "b0");
	add(d, 0x20, 0x8, STB_GLOBAL, "b1");
	add(d, 0x40, 0x10, STB_GLOBAL, "b2");
	pd_symtab_index(d, 3);
	assert_int_equal(d->nsyms, 6);
	for (size_t i = 0; i < 6; i++)
		assert_string_equal(pd_sym_name(d, &d->syms[i], 0), want[i]);
	pd_dso_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_sized_symbol_wins_over_a_zero_size_one_at_its_address),
		cmocka_unit_test(non_weak_then_global_then_fewer_underscores_then_longer_name),
		cmocka_unit_test(names_are_compared_demangled),
		cmocka_unit_test(each_next_symbol_is_weighed_against_the_one_kept_so_far),
		cmocka_unit_test(a_zero_size_symbol_ends_where_the_next_address_begins),
		cmocka_unit_test(a_plt_entry_added_later_wins_over_init_reaching_over_it),
		cmocka_unit_test(an_unsorted_table_is_sorted_by_start_ties_in_reading_order),
		cmocka_unit_test(added_symbols_are_merged_in_after_those_at_the_same_start),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
