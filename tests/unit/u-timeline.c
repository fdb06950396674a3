/* u-timeline.c: render/timeline.c, the samples kept for range flame graphs
 * (D and R records as fp-fold writes them, range tables, kinds of names,
 * the page's JSON, bounds, each sample with its labels). */
#include "unit.h"

#include <stdlib.h>

#include <string.h>

#include "flamegraph.h"
#include "folded.h"
#include "fp_fold.h"
#include "fp_strtab.h"
#include "heatmap.h"
#include "sink.h"
#include "timeline.h"

#define NS 1000000000ull

/* What fp-fold --pass-samples does with an S record: fold it (with these
 * options), a D record the first time its stack is seen, then the R. */
static struct fp_fold_opts fold_opts = FP_FOLD_OPTS_DEFAULT;
static int weight_period;
static struct fp_strtab ids;

static int as_fp_fold(struct fp_timeline *tl, const char *line)
{
	struct fp_fold_buf f = { 0 }, k = { 0 };
	struct fp_sample s;
	int added, rc = -1;

	if (fp_sample_parse(line, strlen(line), &s) == 0 &&
	    fp_fold_build(&f, &s, &fold_opts, &k) == 0) {
		uint32_t id = fp_strtab_intern(&ids, f.p, f.len, &added);
		struct fp_stack_def d = { id, { k.p, k.len }, { f.p, f.len } };
		struct fp_ref r = { .id = id,
				    .time_ns = s.time_ns,
				    .pid = s.pid,
				    .tid = s.tid,
				    .cpu = s.cpu,
				    .period = s.period,
				    .count = weight_period && s.period ? s.period : 1,
				    .event = s.event,
				    .comm = s.comm };

		rc = added ? fp_timeline_define(tl, &d) : 0;
		if (rc == 0)
			rc = fp_timeline_add(tl, &r);
	}
	fp_fold_buf_free(&f);
	fp_fold_buf_free(&k);
	return rc;
}

static void add(struct fp_timeline *tl, const char *line)
{
	assert_int_equal(as_fp_fold(tl, line), 0);
}

/* The fixture of every test: default fold options, no ids yet, and an
 * empty timeline tl that keeps up to TIMELINE_BOUND samples. */
#define TIMELINE_BOUND 100
static struct fp_timeline tl;

static int fresh_fold(void **state)
{
	fold_opts = (struct fp_fold_opts)FP_FOLD_OPTS_DEFAULT;
	weight_period = 0;
	fp_strtab_free(&ids);
	fp_strtab_init(&ids);
	fp_timeline_init(&tl, TIMELINE_BOUND);
	return 0;
}

static int timeline_free(void **state)
{
	fp_timeline_free(&tl);
	return 0;
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
	return s.buf; /* freed by the caller */
}

static void range_table_counts_the_half_open_range_sorted_bytewise(void **state)
{
	char *t;

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
}

static void names_and_counts_are_fp_folds(void **state)
{
	char *t;

	fold_opts.root_id = FP_FOLD_ROOT_PID;
	fold_opts.annotate_kernel = 1;
	weight_period = 1;
	add(&tl, "S\t1000\t7\t8\t0\t250\tev\tx\tku\tsys;main");
	t = range_text(&tl, 0, 0, UINT64_MAX);
	assert_string_equal(t, "x-7;sys_[k];main 250\n");
	free(t);
	assert_true(tl.weight_period);
}

static void each_sample_comes_back_with_its_labels_and_frames(void **state)
{
	struct fp_sample s;

	fold_opts.root_id = FP_FOLD_ROOT_TID;
	fold_opts.event_root = 1;
	add(&tl, "S\t1000\t7\t8\t3\t250\tcycles\tmy app\tku\tsys;main(int)");
	add(&tl, "S\t2000\t7\t9\t1\t5\tcycles\tmy app\t\t");
	fp_timeline_sample(&tl, 0, &s);
	assert_true(s.time_ns == 1000 && s.pid == 7 && s.tid == 8 && s.cpu == 3 && s.period == 250);
	assert_true(fp_str_eq(s.comm, "my app") && fp_str_eq(s.event, "cycles"));
	assert_true(fp_str_eq(s.stack, "sys;main") && fp_str_eq(s.kinds, "ku"));
	fp_timeline_sample(&tl, 1, &s);
	assert_true(s.tid == 9 && s.stack.n == 0 && s.kinds.n == 0);
	assert_false(tl.weight_period);
}

static void stack_ids_come_in_order_and_may_be_redefined(void **state)
{
	struct fp_stack_def d0 = { 0, { "-u", 2 }, { "a;f", 3 } };
	struct fp_stack_def d1 = { 1, { "-u", 2 }, { "a;g", 3 } };
	struct fp_stack_def again = { 0, { "-u", 2 }, { "a;g", 3 } };
	struct fp_stack_def ahead = { 5, { "-u", 2 }, { "a;h", 3 } };
	struct fp_ref r = { .id = 0, .count = 1, .event = { "-", 1 }, .comm = { "a", 1 } };
	char *t;

	assert_int_equal(fp_timeline_add(&tl, &r), -1); /* not defined yet */
	assert_int_equal(tl.bad, 1);
	assert_int_equal(fp_timeline_define(&tl, &d0), 0);
	assert_int_equal(fp_timeline_define(&tl, &d1), 0);
	assert_int_equal(fp_timeline_define(&tl, &ahead), -1);
	assert_int_equal(fp_timeline_add(&tl, &r), 0);
	assert_int_equal(fp_timeline_define(&tl, &again), 0); /* a restarted fp-fold */
	assert_int_equal(fp_timeline_add(&tl, &r), 0);
	t = range_text(&tl, 0, 0, UINT64_MAX);
	assert_string_equal(t, "a;f 1\na;g 1\n");
	free(t);
	assert_int_equal(tl.nstacks, 2);
}

/* A new stack takes the frame ids it shares with the latest stack of its
 * root name (the comm) without looking the names up again: whole frames
 * only ("g" is not "gh"), a stack that is a prefix of that one, one that
 * extends it, another root between them, a root alone. Every stack's
 * frames must still be its own names, each name once in the table. */
static void shared_frames_of_a_comms_stacks_are_its_names(void **state)
{
	static const char *const folded[] = {
		"a;f;g;h", "b;x", "a;f;gh;z", "a;f", "a;f;gh;z;w", "a", "b;x;f",
	};
	static const char *const kinds[] = {
		"-uuu", "-u", "-uuk", "-u", "-uuku", "-", "-uu",
	};
	const size_t n = sizeof folded / sizeof *folded;

	for (size_t i = 0; i < n; i++) {
		struct fp_stack_def d = { (uint32_t)i,
					  { kinds[i], strlen(kinds[i]) },
					  { folded[i], strlen(folded[i]) } };

		assert_int_equal(fp_timeline_define(&tl, &d), 0);
	}
	assert_int_equal(tl.nstacks, n);
	for (size_t i = 0; i < n; i++) {
		char joined[64] = "";

		for (size_t k = tl.frame_off[i]; k < tl.frame_off[i + 1]; k++) {
			if (k > tl.frame_off[i])
				strcat(joined, ";");
			strcat(joined, fp_strtab_str(&tl.names, tl.frames[k], NULL));
		}
		assert_string_equal(joined, folded[i]);
	}
	assert_int_equal(fp_strtab_count(&tl.names), 9); /* a f g h b x gh z w */
	assert_int_equal(fp_timeline_kind(&tl, LINE("z")), 'k');
	assert_int_equal(fp_timeline_kind(&tl, LINE("w")), 'u');
}

static void kinds_come_from_the_samples_first_occurrence_wins(void **state)
{
	add(&tl, "S\t1\t1\t1\t0\t1\tev\tapp\tukj\tmain;sys_read;jitted");
	add(&tl, "S\t2\t1\t1\t0\t1\tev\tapp\tuu\tmain;sys_read");
	assert_int_equal(fp_timeline_kind(&tl, LINE("sys_read")), 'k');
	assert_int_equal(fp_timeline_kind(&tl, LINE("jitted")), 'j');
	assert_int_equal(fp_timeline_kind(&tl, LINE("main")), 'u');
	assert_int_equal(fp_timeline_kind(&tl, LINE("app")), 0); /* a root */
	assert_int_equal(fp_timeline_kind(&tl, LINE("nothere")), 0);
	/* A later stack is indexed as it comes. */
	add(&tl, "S\t3\t1\t1\t0\t1\tev\tapp\ti\tinl");
	assert_int_equal(fp_timeline_kind(&tl, LINE("inl")), 'i');
}

/* The page's JSON of the timeline (a heatmap of 50 rows from second 10,
 * the default flame options) in a memory sink, NUL-terminated. */
static void page_json(struct fp_sink *s)
{
	struct fp_heatmap hm;
	struct fp_flame_opts o;

	fp_heatmap_init(&hm);
	fp_heatmap_reset(&hm, 50, 10);
	fp_flame_opts_init(&o);
	fp_sink_init_mem(s);
	fp_timeline_json(&tl, s, &hm, &o, NULL);
	fp_sink_char(s, '\0');
	fp_heatmap_free(&hm);
}

static void json_escapes_names_and_lists_cells_with_pairs(void **state)
{
	struct fp_sink s;

	add(&tl, "S\t10010000000\t1\t1\t0\t1\tev\tc\tu\t</script>");
	add(&tl, "S\t10015000000\t1\t1\t0\t1\tev\tc\tu\t</script>");
	add(&tl, "S\t11999000000\t1\t1\t0\t1\tev\tc\tu\tz");
	page_json(&s);
	assert_non_null(strstr(s.buf, "\"names\":[\"c\",\"\\u003c/script\\u003e\",\"z\"]"));
	assert_null(strchr(s.buf, '<'));
	/* cell (0,0): stack 0 twice; cell (1,49): stack 1 once; one owner
	 * (pid 1, tid 1, cpu 0, comm c, event ev) */
	assert_non_null(strstr(s.buf, "\"cells\":[0,0,1,0,0,2,\n1,49,1,1,0,1]}"));
	assert_non_null(strstr(s.buf, "\"owners\":[1,1,0,0,1]"));
	assert_non_null(strstr(s.buf, "\"labels\":[\"c\",\"ev\"]"));
	assert_non_null(strstr(s.buf, "\"stacks\":[[0,1],[0,2]]"));
	fp_sink_free(&s);
}

/* A name seen with another kind than its first (kernel and user strlen, a
 * comm named like a function) is a name of its own in the page, with that
 * kind, also where a stack shares the frame with its comm's stack before;
 * flame.svg's colour of the name stays its first occurrence's. */
static void the_page_names_a_frame_of_another_kind_apart(void **state)
{
	struct fp_sink s;

	add(&tl, "S\t10010000000\t1\t1\t0\t1\tev\tapp\tu\tstrlen");
	add(&tl, "S\t10020000000\t1\t1\t0\t1\tev\tapp\tkk\tstrlen;irq");
	add(&tl, "S\t10030000000\t2\t2\t0\t1\tev\tstrlen\tu\tmain");
	add(&tl, "S\t10040000000\t1\t1\t0\t1\tev\tapp\tku\tstrlen;main");
	page_json(&s);
	assert_non_null(strstr(
		s.buf, "\"names\":[\"app\",\"strlen\",\"irq\",\"main\",\"strlen\",\"strlen\"]"));
	assert_non_null(strstr(s.buf, "\"kinds\":\"-ukuk-\""));
	assert_non_null(strstr(s.buf, "\"stacks\":[[0,1],[0,4,2],[5,3],[0,4,3]]"));
	assert_int_equal(fp_timeline_kind(&tl, LINE("strlen")), 'u');
	fp_sink_free(&s);
}

/* In a cell the entries come by their earliest sample, whatever order the
 * samples arrived in; owners are numbered as samples on the axis first
 * name them (one before the axis names none); labels as samples first
 * name them. */
static void cell_entries_come_by_earliest_sample_and_owners_by_first_use(void **state)
{
	struct fp_sink s;

	add(&tl,
	    "S	9500000000	9	9	0	1	ev	early	u	x"); /* before column 0 */
	add(&tl,
	    "S	10030000000	2	2	0	1	ev	b	u	g"); /* cell (0,1) */
	add(&tl,
	    "S	10020000000	1	1	0	1	ev	a	u	f"); /* (0,1), earlier */
	add(&tl,
	    "S	10025000000	2	2	0	1	ev	b	u	g"); /* (0,1), b's earliest */
	add(&tl,
	    "S	10001000000	2	2	1	1	ev	b	u	g"); /* (0,0), another cpu */
	page_json(&s);
	assert_non_null(strstr(s.buf, "\"labels\":[\"early\",\"ev\",\"b\",\"a\"]"));
	assert_non_null(strstr(s.buf, "\"owners\":[2,2,0,2,1,1,1,0,3,1,2,2,1,2,1]"));
	/* stacks: early;x 0, b;g 1, a;f 2 */
	assert_non_null(strstr(s.buf, "\"cells\":[0,0,1,1,2,1,\n0,1,2,2,1,1,1,0,2]}"));
	fp_sink_free(&s);
}

/* A sample's owner is its pid, tid, cpu, comm and event: on one cpu a
 * sample that differs from the one before in any of them has another
 * owner, one like an earlier sample has that sample's (cpus 0 and 256
 * share a place in the per-cpu memory of the latest owner). */
static void owners_differ_in_any_label_on_one_cpu(void **state)
{
	static const char *const lines[] = {
		"S	1	1	1	0	1	ev	a	u	f", /* owner 0 */
		"S	2	1	1	0	1	ev	a	u	g", /* 0: another stack only */
		"S	3	2	1	0	1	ev	a	u	f", /* 1: pid */
		"S	4	2	3	0	1	ev	a	u	f", /* 2: tid */
		"S	5	2	3	0	1	ev	b	u	f", /* 3: comm */
		"S	6	2	3	0	1	ev2	b	u	f", /* 4: event */
		"S	7	2	3	256	1	ev2	b	u	f", /* 5: cpu (same place) */
		"S	8	2	3	0	1	ev2	b	u	f", /* 4 again */
		"S	9	1	1	0	1	ev	a	u	f", /* 0 again */
		"S	10	1	1	0	1	ev	ab	u	f", /* 6: a longer comm */
	};
	static const uint32_t owner[] = { 0, 0, 1, 2, 3, 4, 5, 4, 0, 6 };

	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
		add(&tl, lines[i]);
	for (size_t i = 0; i < sizeof owner / sizeof *owner; i++)
		assert_int_equal(tl.s[i].owner, owner[i]);
	assert_int_equal(fp_strtab_count(&tl.owner_keys), 7);
}

static void samples_past_the_bound_are_counted_not_kept(void **state)
{
	fp_timeline_free(&tl);
	fp_timeline_init(&tl, 2); /* a bound of 2 samples */
	add(&tl, "S\t1\t1\t1\t0\t1\tev\tc\tu\ta");
	add(&tl, "S\t2\t1\t1\t0\t1\tev\tc\tu\ta");
	add(&tl, "S\t3\t1\t1\t0\t1\tev\tc\tu\ta");
	assert_int_equal(tl.n, 2);
	assert_int_equal(tl.overflow, 1);
	assert_int_equal(fp_timeline_add(&tl, &(struct fp_ref){ .id = 7 }), -1);
	assert_int_equal(tl.bad, 1);
	fp_timeline_reset(&tl);
	assert_int_equal(tl.n, 0);
	assert_int_equal(tl.overflow, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, fresh_fold, timeline_free)
		T(range_table_counts_the_half_open_range_sorted_bytewise),
		T(names_and_counts_are_fp_folds),
		T(each_sample_comes_back_with_its_labels_and_frames),
		T(stack_ids_come_in_order_and_may_be_redefined),
		T(shared_frames_of_a_comms_stacks_are_its_names),
		T(kinds_come_from_the_samples_first_occurrence_wins),
		T(json_escapes_names_and_lists_cells_with_pairs),
		T(the_page_names_a_frame_of_another_kind_apart),
		T(cell_entries_come_by_earliest_sample_and_owners_by_first_use),
		T(owners_differ_in_any_label_on_one_cpu),
		T(samples_past_the_bound_are_counted_not_kept),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	fp_strtab_free(&ids);
	return rc;
}
