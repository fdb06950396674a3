/* u-proto.c: the protocol module (fifo/fp_record.h): the tag rule, the CR
 * rule, and parse + write of every record type, well-formed and not. */
#include "unit.h"

#include <string.h>

#include "fp_record.h"

/* What a writer wrote, NUL-terminated, for assert_string_equal. */
static struct fp_wmem out;

static const char *written(void)
{
	fp_wmem_add(&out, "", 1);
	out.len--;
	return out.p;
}

static int reset_out(void **state)
{
	out.len = 0;
	return 0;
}

static int free_out(void **state)
{
	fp_wmem_free(&out);
	return 0;
}

/* ---- the tag rule and the CR rule ---------------------------------------- */

static enum fp_rec tag_of(const char *s)
{
	size_t n = strlen(s);

	return fp_record_tag(s, &n);
}

static void each_tag_letter_followed_by_a_tab_names_its_record_type(void **state)
{
	assert_int_equal(tag_of("S\t1"), FP_REC_SAMPLE);
	assert_int_equal(tag_of("G\t1\t2"), FP_REC_GEOMETRY);
	assert_int_equal(tag_of("H\t1\t2\t3"), FP_REC_CELL);
	assert_int_equal(tag_of("F\t1\ta"), FP_REC_FOLDED);
	assert_int_equal(tag_of("E\t1\t0"), FP_REC_FOLDED_ID);
	assert_int_equal(tag_of("C\treset"), FP_REC_CONTROL);
	assert_int_equal(tag_of("W\ta\tb\tc"), FP_REC_WARNING);
	assert_int_equal(tag_of("I\tread"), FP_REC_INFO);
	assert_int_equal(tag_of("%flamepipe\t1"), FP_REC_HEADER);
	assert_int_equal(tag_of("# a comment"), FP_REC_COMMENT);
	assert_int_equal(tag_of(""), FP_REC_EMPTY);
}

static void a_tag_is_the_whole_first_field(void **state)
{
	assert_int_equal(tag_of("S"), FP_REC_SAMPLE); /* a malformed sample */
	assert_int_equal(tag_of("Sx\t1"), FP_REC_OTHER);
	assert_int_equal(tag_of("Creset"), FP_REC_OTHER);
	assert_int_equal(tag_of("X\t1"), FP_REC_OTHER);
	assert_int_equal(tag_of("s\t1"), FP_REC_OTHER);
}

static void a_final_cr_is_not_part_of_the_record(void **state)
{
	char l[] = "C\treset\r";
	size_t n = sizeof l - 1;
	struct fp_control c;

	assert_int_equal(fp_record_tag(l, &n), FP_REC_CONTROL);
	assert_int_equal(n, sizeof l - 2);
	assert_int_equal(fp_control_parse(l, n, &c), 0);
	assert_int_equal(c.kind, FP_CTL_RESET);
	n = 1;
	assert_int_equal(fp_record_tag("\r", &n), FP_REC_EMPTY);
	assert_int_equal(n, 0);
	n = 3;
	assert_int_equal(fp_record_tag("S\r\r", &n), FP_REC_OTHER); /* only one CR goes */
}

/* ---- header -------------------------------------------------------------- */

static void the_header_check_accepts_version_1_only(void **state)
{
	assert_int_equal(fp_header_check(LINE("%flamepipe\t1")), 0);
	assert_int_equal(fp_header_check(LINE("%flamepipe\t1.7")), 0);
	assert_int_equal(fp_header_check(LINE("%flamepipe\t2")), -1);
	assert_int_equal(fp_header_check(LINE("%flamepipe 1")), -1);
	assert_int_equal(fp_header_check(LINE("%flamepipe\t")), -1);
	fp_header_require(LINE("%flamepipe\t1"), "in", 1); /* returns */
	fp_write_header(fp_wmem_wr(&out));
	assert_string_equal(written(), "%flamepipe\t1\n");
}

/* ---- S --------------------------------------------------------------------- */

static void a_sample_is_written_as_it_was_parsed(void **state)
{
	const char l[] = "S\t82657955000\t-1\t1945\t1\t2004008\tcpu-clock:ppp\tapt get\tku\ta;b c";
	struct fp_sample s;

	assert_int_equal(fp_sample_parse(LINE(l), &s), 0);
	fp_write_sample(fp_wmem_wr(&out), &s);
	assert_string_equal(
		written(),
		"S\t82657955000\t-1\t1945\t1\t2004008\tcpu-clock:ppp\tapt get\tku\ta;b c\n");
}

static void a_refused_sample_is_explained(void **state)
{
	assert_string_equal(fp_sample_problem(LINE("S\t1\t2")),
			    "want 10 or 11 TAB-separated fields (S time_ns pid tid cpu period "
			    "event comm kinds stack [cgroup])");
	assert_string_equal(
		fp_sample_problem(LINE("S\tx\t2\t3\t4\t5\tev\tc\tk\ta")),
		"time_ns and period must be unsigned decimal, pid, tid and cpu decimal");
	assert_string_equal(fp_sample_problem(LINE("S\t1\t2\t3\t4\t5\tev\tc\tkk\ta")),
			    "kinds must have one character per frame");
}

/* ---- G, H, F ----------------------------------------------------------------- */

static void geometry_and_cells_round_trip(void **state)
{
	struct fp_geometry g;
	struct fp_cell c;

	assert_int_equal(fp_geometry_parse(LINE("G\t50\t339"), &g), 0);
	assert_true(g.rows == 50 && g.base_sec == 339);
	assert_int_equal(fp_cell_parse(LINE("H\t0\t30\t2"), &c), 0);
	assert_true(c.col == 0 && c.row == 30 && c.count == 2);
	fp_write_geometry(fp_wmem_wr(&out), 50, 339);
	fp_write_cell(fp_wmem_wr(&out), 0, 30, 18446744073709551615ull);
	assert_string_equal(written(), "G\t50\t339\nH\t0\t30\t18446744073709551615\n");
}

static void malformed_geometry_and_cells_are_refused(void **state)
{
	struct fp_geometry g;
	struct fp_cell c;

	assert_int_equal(fp_geometry_parse(LINE("G\t0\t339"), &g), -1); /* no rows */
	assert_int_equal(fp_geometry_parse(LINE("G\t50"), &g), -1);
	assert_int_equal(fp_geometry_parse(LINE("G\t50\t-1"), &g), -1);
	assert_int_equal(fp_geometry_parse(LINE("G\t50\t1\t2"), &g), -1);
	assert_int_equal(fp_geometry_parse(LINE("G\t50\t18446744073709551615"), &g), -1);
	assert_int_equal(fp_geometry_parse(LINE("H\t50\t1"), &g), -1); /* another tag */
	assert_int_equal(fp_cell_parse(LINE("H\t1\t2"), &c), -1);
	assert_int_equal(fp_cell_parse(LINE("H\t1\t2\tx"), &c), -1);
	assert_int_equal(fp_cell_parse(LINE("H\t1\t2\t3\t4"), &c), -1);
}

static void folded_records_round_trip_and_need_a_stack(void **state)
{
	struct fp_folded_rec f;

	assert_int_equal(fp_folded_parse(LINE("F\t3\tcomm;a;b c"), &f), 0);
	assert_true(f.count == 3 && fp_str_eq(f.stack, "comm;a;b c"));
	assert_int_equal(fp_folded_parse(LINE("F\t3\t"), &f), -1);
	assert_int_equal(fp_folded_parse(LINE("F\tx\ta"), &f), -1);
	assert_int_equal(fp_folded_parse(LINE("F\t3"), &f), -1);
	fp_write_folded(fp_wmem_wr(&out), 3, LINE("comm;a"));
	assert_string_equal(written(), "F\t3\tcomm;a\n");
}

/* R: ten fields, the numbers whole decimal fields in range (leading zeros
 * allowed, as everywhere), event and comm as they are, no TAB in the comm */
static void ref_records_round_trip_and_check_every_number(void **state)
{
	struct fp_ref r;
	const struct fp_ref w = { .id = 7,
				  .time_ns = 82657918000,
				  .pid = -1,
				  .tid = 1945,
				  .cpu = 3,
				  .period = 250,
				  .count = 1,
				  .event = { "cycles", 6 },
				  .comm = { "my app", 6 } };

	fp_write_ref(fp_wmem_wr(&out), &w);
	assert_string_equal(written(), "R\t7\t82657918000\t-1\t1945\t3\t250\t1\tcycles\tmy app\n");
	assert_int_equal(
		fp_ref_parse(LINE("R\t7\t82657918000\t-1\t1945\t3\t250\t1\tcycles\tmy app"), &r),
		0);
	assert_true(r.id == 7 && r.time_ns == 82657918000ull && r.pid == -1 && r.tid == 1945 &&
		    r.cpu == 3 && r.period == 250 && r.count == 1);
	assert_true(fp_str_eq(r.event, "cycles") && fp_str_eq(r.comm, "my app"));
	assert_int_equal(
		fp_ref_parse(LINE("R\t4294967293\t18446744073709551615\t-9223372036854775808\t"
				  "9223372036854775807\t007\t0\t18446744073709551615\t\t"),
			     &r),
		0);
	assert_true(r.id == 4294967293u && r.time_ns == UINT64_MAX && r.pid == INT64_MIN &&
		    r.tid == INT64_MAX && r.cpu == 7 && r.count == UINT64_MAX);
	assert_true(r.event.n == 0 && r.comm.n == 0 && r.cgroup.n == 0);
	/* the cgroup, an 11th field, round trips too */
	struct fp_ref wc = w;
	wc.cgroup = (struct fp_str){ "/docker/x", 9 };
	out.len = 0;
	fp_write_ref(fp_wmem_wr(&out), &wc);
	assert_string_equal(written(),
			    "R\t7\t82657918000\t-1\t1945\t3\t250\t1\tcycles\tmy app\t/docker/x\n");
	assert_int_equal(
		fp_ref_parse(
			LINE("R\t7\t82657918000\t-1\t1945\t3\t250\t1\tcycles\tmy app\t/docker/x"),
			&r),
		0);
	assert_true(fp_str_eq(r.comm, "my app") && fp_str_eq(r.cgroup, "/docker/x"));
	static const char *const bad[] = {
		"R\t4294967294\t1\t1\t1\t1\t1\t1\te\tc", /* id FP_STACK_ID_MAX */
		"R\t1\t18446744073709551616\t1\t1\t1\t1\t1\te\tc",
		"R\t1\t1\t-9223372036854775809\t1\t1\t1\t1\te\tc",
		"R\t1\t1\t9223372036854775808\t1\t1\t1\t1\te\tc",
		"R\t1\t1\t1\t1\t1\t1\t-1\te\tc",      /* a negative count */
		"R\t1\t\t1\t1\t1\t1\t1\te\tc",        /* an empty number */
		"R\t1\t1\t1\t1\t1\t1\t1\te",          /* nine fields */
		"R\t1\t1\t1\t1\t1\t1\t1\te\tc\td\tx", /* a TAB in the cgroup */
		"R\t1\t1\t1\t1\t1\t1x\t1\te\tc",
		"R\t1\t1\t-\t1\t1\t1\t1\te\tc",
		"R\t1\t1\t1\t1\t1\t1\t123456789012345678901\te\tc",
		"R",
		"R\t",
		"D\t1\t1\t1\t1\t1\t1\t1\te\tc",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_int_equal(fp_ref_parse(bad[i], strlen(bad[i]), &r), -1);
}

/* fp-fold's R writer (the head of time, pid, tid, cpu and period as it
 * came) spells the record as fp_write_ref does, with or without a
 * cgroup, and when the line is too long for its one-write buffer. */
static void ref_records_from_a_head_are_spelled_as_whole_ones(void **state)
{
	static char longcg[2000];
	const char *head = "82657918000\t-1\t1945\t3\t250";
	struct fp_ref w = { .id = 4294967293u,
			    .time_ns = 82657918000,
			    .pid = -1,
			    .tid = 1945,
			    .cpu = 3,
			    .period = 250,
			    .count = UINT64_MAX,
			    .event = { "cycles", 6 },
			    .comm = { "my app", 6 } };

	memset(longcg, 'x', sizeof longcg - 1);
	longcg[0] = '/';
	for (int i = 0; i < 3; i++) {
		struct fp_wmem a = { 0 };

		if (i == 1)
			w.cgroup = (struct fp_str){ "/docker/x", 9 };
		if (i == 2)
			w.cgroup = (struct fp_str){ longcg, sizeof longcg - 1 };
		fp_write_ref(fp_wmem_wr(&a), &w);
		out.len = 0;
		fp_write_ref_head(fp_wmem_wr(&out), &w, head, strlen(head));
		assert_int_equal(out.len, a.len);
		assert_memory_equal(out.p, a.p, a.len);
		fp_wmem_free(&a);
	}
}

/* The P writer from a head as it came spells what fp_write_tail_ref
 * spells from the numbers, and a head too long for its one-write buffer
 * still comes out whole. */
static void tail_refs_from_a_head_are_spelled_as_whole_ones(void **state)
{
	static char longhead[1000];
	const char *head = "82657918000\t-1\t1945\t3\t250";
	const struct fp_tail_ref r = { .time_ns = 82657918000,
				       .pid = -1,
				       .tid = 1945,
				       .cpu = 3,
				       .period = 250,
				       .id = 4294967293u };
	struct fp_wmem a = { 0 };

	fp_write_tail_ref(fp_wmem_wr(&a), &r);
	out.len = 0;
	fp_write_tail_ref_head(fp_wmem_wr(&out), head, strlen(head), r.id);
	assert_int_equal(out.len, a.len);
	assert_memory_equal(out.p, a.p, a.len);
	fp_wmem_free(&a);
	memset(longhead, '7', sizeof longhead);
	out.len = 0;
	fp_write_tail_ref_head(fp_wmem_wr(&out), longhead, sizeof longhead, 12);
	assert_int_equal(out.len, 2 + sizeof longhead + 4);
	assert_memory_equal(out.p + 2, longhead, sizeof longhead);
	assert_memory_equal(out.p + 2 + sizeof longhead, "\t12\n", 4);
}

/* E: count and a D record's id, both whole decimal fields, nothing after */
static void folded_id_records_round_trip_and_need_count_and_id(void **state)
{
	struct fp_folded_id_rec f;

	assert_int_equal(fp_folded_id_parse(LINE("E\t3\t17"), &f), 0);
	assert_true(f.count == 3 && f.id == 17);
	assert_int_equal(fp_folded_id_parse(LINE("E\t18446744073709551615\t4294967293"), &f), 0);
	assert_true(f.count == UINT64_MAX && f.id == 4294967293u);
	assert_int_equal(fp_folded_id_parse(LINE("E\t3\t4294967294"), &f),
			 -1); /* FP_STACK_ID_MAX */
	assert_int_equal(fp_folded_id_parse(LINE("E\t3\t-1"), &f), -1);
	assert_int_equal(fp_folded_id_parse(LINE("E\t3\t"), &f), -1);
	assert_int_equal(fp_folded_id_parse(LINE("E\tx\t1"), &f), -1);
	assert_int_equal(fp_folded_id_parse(LINE("E\t3"), &f), -1);
	assert_int_equal(fp_folded_id_parse(LINE("E\t3\t1\t2"), &f), -1);
	assert_int_equal(fp_folded_id_parse(LINE("F\t3\t1"), &f), -1); /* another tag */
	fp_write_folded_id(fp_wmem_wr(&out), 3, 17);
	assert_string_equal(written(), "E\t3\t17\n");
}

/* ---- C ------------------------------------------------------------------------- */

/* The verb's kind, or -1 if the record was refused. */
static int kind_of(const char *s)
{
	struct fp_control c;

	if (fp_control_parse(s, strlen(s), &c) < 0)
		return -1;
	return (int)c.kind;
}

static void each_control_verb_is_matched_exactly(void **state)
{
	assert_int_equal(kind_of("C\treset"), FP_CTL_RESET);
	assert_int_equal(kind_of("C\tresetX"), FP_CTL_OTHER);
	assert_int_equal(kind_of("C\treset\tlater-field"), FP_CTL_RESET);
	assert_int_equal(kind_of("C\tflush"), FP_CTL_FLUSH);
	assert_int_equal(kind_of("C\tflus"), FP_CTL_OTHER);
	assert_int_equal(kind_of("C\trange\t1\t2"), FP_CTL_RANGE);
	assert_int_equal(kind_of("C\tfilter\tpid 1"), FP_CTL_FILTER);
	assert_int_equal(kind_of("C\tbegin\tfold"), FP_CTL_BEGIN);
	assert_int_equal(kind_of("C\tend\tfold\t2\t3"), FP_CTL_END);
	assert_int_equal(kind_of("C\trestarted\trange"), FP_CTL_RESTARTED);
	assert_int_equal(kind_of("C\tsomething-new\tx"), FP_CTL_OTHER);
}

static void a_known_verb_without_its_fields_is_refused(void **state)
{
	assert_int_equal(kind_of("C\trange\t1"), -1);
	assert_int_equal(kind_of("C\tfilter"), -1);
	assert_int_equal(kind_of("C\tbegin"), -1);
	assert_int_equal(kind_of("C\trestarted"), -1);
	assert_int_equal(kind_of("C"), -1);
	assert_int_equal(kind_of("F\treset"), -1);
}

static void control_fields_and_the_rest_are_given(void **state)
{
	struct fp_control c;

	assert_int_equal(fp_control_parse(LINE("C\tfilter\tinclude a\tb"), &c), 0);
	assert_true(fp_str_eq(c.rest, "include a\tb"));
	assert_int_equal(c.nargs, 2);
	assert_int_equal(fp_control_parse(LINE("C\trange\t-\t2.5"), &c), 0);
	assert_true(fp_str_eq(c.arg[0], "-") && fp_str_eq(c.arg[1], "2.5"));
	assert_true(fp_control_is(
		&(struct fp_control){ .kind = FP_CTL_BEGIN, .nargs = 1, .arg = { { "fold", 4 } } },
		FP_CTL_BEGIN, "fold"));
	assert_int_equal(fp_control_parse(LINE("C\tbegin\tfolds"), &c), 0);
	assert_false(fp_control_is(&c, FP_CTL_BEGIN, "fold"));
}

static void every_control_record_is_written_once_here(void **state)
{
	struct fp_wr w = fp_wmem_wr(&out);
	const uint64_t end[] = { 2, 7 };

	fp_write_reset(w);
	fp_write_flush(w);
	fp_write_range(w, "1.5", "-");
	fp_write_filter(w, LINE("pid 1,2"));
	fp_write_begin(w, "fold");
	fp_write_end(w, "fold", end, 2);
	fp_write_restarted(w, "range");
	assert_string_equal(written(), "C\treset\nC\tflush\nC\trange\t1.5\t-\nC\tfilter\tpid 1,2\n"
				       "C\tbegin\tfold\nC\tend\tfold\t2\t7\nC\trestarted\trange\n");
}

/* ---- W, I --------------------------------------------------------------------- */

static void warnings_round_trip_and_their_text_stays_one_record(void **state)
{
	struct fp_warning w;

	fp_write_warning(fp_wmem_wr(&out), "read", "in.perf", 12, "bad\tline\r\nhere");
	fp_write_warning(fp_wmem_wr(&out), "read", NULL, 0, "no place");
	fp_write_warning_at(fp_wmem_wr(&out), "flamepipe", "x.pipeline:4", "died");
	assert_string_equal(written(), "W\tread\tin.perf:12\tbad line  here\nW\tread\t-\tno place\n"
				       "W\tflamepipe\tx.pipeline:4\tdied\n");
	assert_int_equal(fp_warning_parse(LINE("W\tread\tin.perf:12\tbad line"), &w), 0);
	assert_true(fp_str_eq(w.stage, "read") && fp_str_eq(w.where, "in.perf:12") &&
		    fp_str_eq(w.message, "bad line"));
	assert_int_equal(fp_warning_parse(LINE("W\tread\tin.perf:12"), &w), -1);
}

static void statistics_round_trip_and_keys_are_matched_whole(void **state)
{
	const struct fp_stat kv[] = { { "samples", 5 }, { "samples_x", 7 } };
	struct fp_info i;
	uint64_t v;

	fp_write_info(fp_wmem_wr(&out), "read", kv, 2);
	assert_string_equal(written(), "I\tread\tsamples=5\tsamples_x=7\n");
	assert_int_equal(fp_info_parse(out.p, out.len - 1, &i), 0);
	assert_true(fp_str_eq(i.stage, "read"));
	assert_int_equal(fp_info_get(&i, "samples_x", &v), 0);
	assert_true(v == 7);
	assert_int_equal(fp_info_get(&i, "sample", &v), -1);
	assert_int_equal(fp_info_parse(LINE("I\tbucket\tidle=x"), &i), 0);
	assert_int_equal(fp_info_get(&i, "idle", &v), -1);
	assert_int_equal(fp_info_parse(LINE("I\tbucket"), &i), 0);
	assert_int_equal(fp_info_get(&i, "idle", &v), -1);
	assert_int_equal(fp_info_parse(LINE("I"), &i), -1);
}

static void a_record_passed_on_is_unchanged(void **state)
{
	fp_write_line(fp_wmem_wr(&out), LINE("Z\tsomething\tnew"));
	assert_string_equal(written(), "Z\tsomething\tnew\n");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, reset_out)
	const struct CMUnitTest tests[] = {
		T(each_tag_letter_followed_by_a_tab_names_its_record_type),
		T(a_tag_is_the_whole_first_field),
		T(a_final_cr_is_not_part_of_the_record),
		T(the_header_check_accepts_version_1_only),
		T(a_sample_is_written_as_it_was_parsed),
		T(a_refused_sample_is_explained),
		T(geometry_and_cells_round_trip),
		T(malformed_geometry_and_cells_are_refused),
		T(folded_records_round_trip_and_need_a_stack),
		T(folded_id_records_round_trip_and_need_count_and_id),
		T(ref_records_round_trip_and_check_every_number),
		T(ref_records_from_a_head_are_spelled_as_whole_ones),
		T(tail_refs_from_a_head_are_spelled_as_whole_ones),
		T(each_control_verb_is_matched_exactly),
		T(a_known_verb_without_its_fields_is_refused),
		T(control_fields_and_the_rest_are_given),
		T(every_control_record_is_written_once_here),
		T(warnings_round_trip_and_their_text_stays_one_record),
		T(statistics_round_trip_and_keys_are_matched_whole),
		T(a_record_passed_on_is_unchanged),
	};

	return cmocka_run_group_tests(tests, NULL, free_out);
}
