/* u-kcache.c: when perf's copy of kallsyms may stand for /proc/kallsyms
 * (perf/data/pd_kcache.c): its modules against /proc/modules, the symbols of
 * code the kernel makes as it runs, the running kernel's build-id note. */
#include "unit.h"

#include <string.h>

#include "pd_kcache.h"
#include "pd_symbols.h"

/* A kernel table with symbols named as kallsyms names them. */
static struct pd_dso *kernel(void)
{
	struct pd_dso *d = pd_dso_new("[kernel.kallsyms]", 17, PD_DSO_KERNEL);

	d->loaded = 1;
	return d;
}

static void sym(struct pd_dso *d, uint64_t addr, const char *name)
{
	pd_dso_add_sym(d, addr, addr, name, strlen(name));
}

#define MODULES                                   \
	"ext4 4096 1 - Live 0xffffffffc0100000\n" \
	"nfs 2000 0 - Live 0xffffffffc0200000 (E)\n"

static struct pd_dso *with_modules(void)
{
	struct pd_dso *d = kernel();

	sym(d, 0xffffffff81000000, "_text");
	sym(d, 0xffffffffc0100010, "ext4_fill_super\t[ext4]");
	sym(d, 0xffffffffc0100800, "ext4_iget\t[ext4]");
	sym(d, 0xffffffffc0200000, "nfs_init\t[nfs]");
	return d;
}

static void a_copy_agrees_when_each_module_is_where_proc_modules_says(void **state)
{
	struct pd_dso *d = with_modules();

	assert_int_equal(pd_kcache_modules_agree(d, MODULES, strlen(MODULES)), 1);
	pd_dso_free(d);
}

static void a_module_symbol_outside_its_module_now_disagrees(void **state)
{
	struct pd_dso *d = with_modules();

	sym(d, 0xffffffffc0200000 + 2000, "nfs_past_end\t[nfs]");
	assert_int_equal(pd_kcache_modules_agree(d, MODULES, strlen(MODULES)), 0);
	pd_dso_free(d);
}

static void a_module_loaded_since_the_copy_disagrees(void **state)
{
	struct pd_dso *d = kernel();
	static const char mods[] = MODULES "xfs 500 0 - Live 0xffffffffc0300000\n";

	sym(d, 0xffffffffc0100010, "ext4_fill_super\t[ext4]");
	sym(d, 0xffffffffc0200000, "nfs_init\t[nfs]");
	assert_int_equal(pd_kcache_modules_agree(d, mods, strlen(mods)), 0);
	pd_dso_free(d);
}

static void a_module_unloaded_since_the_copy_disagrees(void **state)
{
	struct pd_dso *d = with_modules();
	static const char one[] = "ext4 4096 1 - Live 0xffffffffc0100000\n";

	assert_int_equal(pd_kcache_modules_agree(d, one, strlen(one)), 0);
	pd_dso_free(d);
}

static void hidden_module_addresses_disagree(void **state)
{
	struct pd_dso *d = with_modules();
	static const char hidden[] = "ext4 1000 1 - Live 0x0000000000000000\n"
				     "nfs 2000 0 - Live 0x0000000000000000\n";

	assert_int_equal(pd_kcache_modules_agree(d, hidden, strlen(hidden)), 0);
	pd_dso_free(d);
}

static void without_proc_modules_only_a_copy_without_modules_agrees(void **state)
{
	struct pd_dso *d = kernel(), *m = with_modules();

	sym(d, 0xffffffff81000000, "_text");
	assert_int_equal(pd_kcache_modules_agree(d, NULL, 0), 1);
	assert_int_equal(pd_kcache_modules_agree(m, NULL, 0), 0);
	pd_dso_free(d);
	pd_dso_free(m);
}

static void bpf_and_builtin_trampolines_are_dynamic_modules_are_not(void **state)
{
	static const char *const dynamic[] = {
		"bpf_prog_6deef7357e7b4530\t[bpf]",
		"ftrace_trampoline\t[__builtin__ftrace]",
		"kprobe_insn_page\t[__builtin__kprobes]",
	};
	for (size_t i = 0; i < sizeof dynamic / sizeof *dynamic; i++)
		assert_int_equal(pd_kcache_dynamic(dynamic[i], strlen(dynamic[i])), 1);
	assert_int_equal(pd_kcache_dynamic("ext4_iget\t[ext4]", 16), 0);
	assert_int_equal(pd_kcache_dynamic("_text", 5), 0);
	assert_int_equal(pd_kcache_dynamic("bpf_prog_x", 10), 0);
}

static void the_build_id_is_read_from_the_gnu_note_after_others(void **state)
{
	/* a "Linux" note first, then GNU's build-id (type 3), 20 bytes */
	unsigned char notes[] = {
		6,    0,    0,    0,    4,    0,    0,    0,    1,    1,    0,    0,
		'L',  'i',  'n',  'u',  'x',  0,    0,    0,    9,    9,    9,    9,
		4,    0,    0,    0,    20,   0,    0,    0,    3,    0,    0,    0,
		'G',  'N',  'U',  0,    0x4a, 0x5a, 0x9b, 0x0a, 0xff, 0xb6, 0x6c, 0x43,
		0x7a, 0xbc, 0xd4, 0x55, 0xd2, 0x73, 0x8a, 0xf8, 0x79, 0x98, 0x5f, 0xa9,
	};
	char hex[64];

	assert_int_equal(pd_kcache_build_id(notes, sizeof notes, hex, sizeof hex), 1);
	assert_string_equal(hex, "4a5a9b0affb66c437abcd455d2738af879985fa9");
	/* cut inside the descriptor: no build-id, no read past the end */
	assert_int_equal(pd_kcache_build_id(notes, sizeof notes - 1, hex, sizeof hex), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_copy_agrees_when_each_module_is_where_proc_modules_says),
		cmocka_unit_test(a_module_symbol_outside_its_module_now_disagrees),
		cmocka_unit_test(a_module_loaded_since_the_copy_disagrees),
		cmocka_unit_test(a_module_unloaded_since_the_copy_disagrees),
		cmocka_unit_test(hidden_module_addresses_disagree),
		cmocka_unit_test(without_proc_modules_only_a_copy_without_modules_agrees),
		cmocka_unit_test(bpf_and_builtin_trampolines_are_dynamic_modules_are_not),
		cmocka_unit_test(the_build_id_is_read_from_the_gnu_note_after_others),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
