/* u-timeline.c: render/timeline.c, the samples kept for range flame graphs
 * (folding options, range tables, kinds of names, the page's JSON, bounds). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <string.h>

#include "flamegraph.h"
#include "folded.h"
#include "heatmap.h"
#include "sink.h"
#include "timeline.h"

#define LINE(s) s, sizeof(s) - 1
#define NS 1000000000ull

static void add(struct fp_timeline *tl, const char *line)
{
	assert_int_equal(fp_timeline_add(tl, line, strlen(line)), 0);
}

/* The range table as `stack count` lines. */
static char *range_text(struct fp_timeline *tl, uint64_t base, uint64_t from, uint64_t to)
{
	struct fp_folded t;
	struct fp_sink s;

	fp_folded_init(&t);
	fp_timeline_range(tl, base, from, to, &t);
	fp_sink_init_mem(&s);
	fp_folded_write(&s, &t);
	fp_sink_char(&s, '\0');
	fp_folded_free(&t);
	return s.buf;	/* freed by the caller */
}

static void range_table_counts_the_half_open_range_sorted_bytewise(void **state)
{
	struct fp_timeline tl;
	char *t;

	fp_timeline_init(&tl, 100);
	add(&tl, "S\t10000000000\t1\t1\t0\t1\tev\tb b\tuu\tmain;f");
	add(&tl, "S\t10500000000\t1\t1\t0\t1\tev\ta\tu\tmain");
	add(&tl, "S\t11000000000\t1\t1\t0\t1\tev\tb b\tuu\tmain;f");
	t = range_text(&tl, 10 * NS, 0, NS);
	assert_string_equal(t, "a;main 1\nb_b;main;f 1\n");
	free(t);
	t = range_text(&tl, 10 * NS, NS, UINT64_MAX);
	assert_string_equal(t, "b_b;main;f 1\n");
	free(t);
	assert_int_equal(fp_timeline_total(&tl), 3);
	fp_timeline_free(&tl);
}

static void fold_options_change_names_and_weights(void **state)
{
	struct fp_timeline tl;
	char *t;

	fp_timeline_init(&tl, 100);
	assert_int_equal(fp_timeline_options(&tl, LINE("C\tfold-options\troot=pid\tkernel=1\t"
						       "jit=0\tevent-root=0\tweight=period")), 0);
	add(&tl, "S\t1000\t7\t8\t0\t250\tev\tx\tku\tsys;main");
	t = range_text(&tl, 0, 0, UINT64_MAX);
	assert_string_equal(t, "x-7;sys_[k];main 250\n");
	free(t);
	assert_int_equal(fp_timeline_options(&tl, LINE("C\tfold-options\troot=moon")), -1);
	fp_timeline_free(&tl);
}

static void kinds_come_from_the_samples_first_occurrence_wins(void **state)
{
	struct fp_timeline tl;

	fp_timeline_init(&tl, 100);
	add(&tl, "S\t1\t1\t1\t0\t1\tev\tapp\tukj\tmain;sys_read;jitted");
	add(&tl, "S\t2\t1\t1\t0\t1\tev\tapp\tuu\tmain;sys_read");
	assert_int_equal(fp_timeline_kind(&tl, LINE("sys_read")), 'k');
	assert_int_equal(fp_timeline_kind(&tl, LINE("jitted")), 'j');
	assert_int_equal(fp_timeline_kind(&tl, LINE("main")), 'u');
	assert_int_equal(fp_timeline_kind(&tl, LINE("app")), 0);	/* a root */
	assert_int_equal(fp_timeline_kind(&tl, LINE("nothere")), 0);
	/* A later stack rebuilds the index. */
	add(&tl, "S\t3\t1\t1\t0\t1\tev\tapp\ti\tinl");
	assert_int_equal(fp_timeline_kind(&tl, LINE("inl")), 'i');
	fp_timeline_free(&tl);
}

static void json_escapes_names_and_lists_cells_with_pairs(void **state)
{
	struct fp_timeline tl;
	struct fp_heatmap hm;
	struct fp_flame_opts o;
	struct fp_sink s;

	fp_timeline_init(&tl, 100);
	fp_heatmap_init(&hm);
	fp_heatmap_reset(&hm, 50, 10);
	fp_flame_opts_init(&o);
	add(&tl, "S\t10010000000\t1\t1\t0\t1\tev\tc\tu\t</script>");
	add(&tl, "S\t10015000000\t1\t1\t0\t1\tev\tc\tu\t</script>");
	add(&tl, "S\t11999000000\t1\t1\t0\t1\tev\tc\tu\tz");
	fp_sink_init_mem(&s);
	fp_timeline_json(&tl, &s, &hm, &o);
	fp_sink_char(&s, '\0');
	assert_non_null(strstr(s.buf, "\"names\":[\"c\",\"\\u003c/script\\u003e\",\"z\"]"));
	assert_null(strchr(s.buf, '<'));
	/* cell (0,0): stack 0 twice; cell (1,49): stack 1 once */
	assert_non_null(strstr(s.buf, "\"cells\":[0,0,1,0,2,\n1,49,1,1,1]}"));
	assert_non_null(strstr(s.buf, "\"stacks\":[[0,1],[0,2]]"));
	fp_sink_free(&s);
	fp_heatmap_free(&hm);
	fp_timeline_free(&tl);
}

static void samples_past_the_bound_are_counted_not_kept(void **state)
{
	struct fp_timeline tl;

	fp_timeline_init(&tl, 2);
	add(&tl, "S\t1\t1\t1\t0\t1\tev\tc\tu\ta");
	add(&tl, "S\t2\t1\t1\t0\t1\tev\tc\tu\ta");
	add(&tl, "S\t3\t1\t1\t0\t1\tev\tc\tu\ta");
	assert_int_equal(tl.n, 2);
	assert_int_equal(tl.overflow, 1);
	assert_int_equal(fp_timeline_add(&tl, LINE("S\tbad")), -1);
	assert_int_equal(fp_timeline_add(&tl, LINE("S\t1\t1\t1\t0\t1\tev\tc\tuu\ta")), -1);
	assert_int_equal(tl.bad, 2);
	fp_timeline_reset(&tl);
	assert_int_equal(tl.n, 0);
	assert_int_equal(tl.overflow, 0);
	fp_timeline_free(&tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(range_table_counts_the_half_open_range_sorted_bytewise),
		cmocka_unit_test(fold_options_change_names_and_weights),
		cmocka_unit_test(kinds_come_from_the_samples_first_occurrence_wins),
		cmocka_unit_test(json_escapes_names_and_lists_cells_with_pairs),
		cmocka_unit_test(samples_past_the_bound_are_counted_not_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
