/* u-record.c: protocol record parsing and formatting (fifo/fp_record.c). */
#include "unit.h"

#include <string.h>

#include "fp_record.h"

static void a_well_formed_sample_parses_into_its_fields(void **state)
{
	struct fp_sample s;
	const char l[] =
		"S\t82657955000\t1944\t1945\t1\t2004008\tcpu-clock:ppp\tapt get\tku\ta;b c";

	assert_int_equal(fp_sample_parse(LINE(l), &s), 0);
	assert_true(s.time_ns == 82657955000ull);
	assert_int_equal(s.pid, 1944);
	assert_int_equal(s.tid, 1945);
	assert_int_equal(s.cpu, 1);
	assert_true(s.period == 2004008);
	assert_true(fp_str_eq(s.event, "cpu-clock:ppp"));
	assert_true(fp_str_eq(s.comm, "apt get"));
	assert_true(fp_str_eq(s.kinds, "ku"));
	assert_true(fp_str_eq(s.stack, "a;b c"));
}

static void a_sample_without_frames_has_empty_kinds_and_stack(void **state)
{
	struct fp_sample s;

	assert_int_equal(fp_sample_parse(LINE("S\t1\t-1\t-1\t-1\t1\t-\t:-1\t\t"), &s), 0);
	assert_int_equal(s.pid, -1);
	assert_int_equal(s.stack.n, 0);
}

static void the_eleventh_field_is_the_cgroup(void **state)
{
	struct fp_sample s;

	assert_int_equal(fp_sample_parse(LINE("S\t1\t2\t3\t4\t5\tev\tc\tk\ta\t/docker/x"), &s), 0);
	assert_int_equal(s.stack.n, 1);
	assert_int_equal(s.cgroup.n, 9);
	assert_memory_equal(s.cgroup.p, "/docker/x", 9);
	assert_int_equal(fp_sample_parse(LINE("S\t1\t2\t3\t4\t5\tev\tc\tk\ta"), &s), 0);
	assert_int_equal(s.cgroup.n, 0);
}

static void malformed_samples_are_rejected(void **state)
{
	struct fp_sample s;

	assert_int_equal(fp_sample_parse(LINE("S\t1\t2\t3\t4\t5\tev\tc\tk"), &s), -1); /* too few */
	assert_int_equal(fp_sample_parse(LINE("S\t1\t2\t3\t4\t5\tev\tc\tk\ta\tb\tx"), &s),
			 -1); /* too many */
	assert_int_equal(fp_sample_parse(LINE("S\tx\t2\t3\t4\t5\tev\tc\tk\ta"), &s), -1); /* time */
	assert_int_equal(fp_sample_parse(LINE("S\t1\t2\t3\t4\t5\tev\tc\tkk\ta"), &s),
			 -1); /* kinds */
	assert_int_equal(
		fp_sample_parse(LINE("S\t99999999999999999999\t2\t3\t4\t5\tev\tc\tk\ta"), &s), -1);
	assert_int_equal(fp_sample_parse(LINE("X\t1\t2\t3\t4\t5\tev\tc\tk\ta"), &s), -1);
}

static void seconds_parse_to_integer_nanoseconds_without_rounding(void **state)
{
	uint64_t ns;

	assert_parses_ns(fp_parse_seconds_ns, "82.657918", 82657918000ull);
	assert_parses_ns(fp_parse_seconds_ns, "0.200000", 200000000ull);
	assert_parses_ns(fp_parse_seconds_ns, "5.123456789", 5123456789ull);
	assert_parses_ns(fp_parse_seconds_ns, "7", 7000000000ull);
	assert_int_equal(fp_parse_seconds_ns(LINE("1.1234567890"), &ns), -1);
	assert_int_equal(fp_parse_seconds_ns(LINE("1."), &ns), -1);
	assert_int_equal(fp_parse_seconds_ns(LINE("-1"), &ns), -1);
	assert_int_equal(fp_parse_seconds_ns(LINE(""), &ns), -1);
}

static void header_version_is_read_and_garbage_rejected(void **state)
{
	assert_int_equal(fp_header_version(LINE("%flamepipe\t1")), 1);
	assert_int_equal(fp_header_version(LINE("%flamepipe\t2.3")), 2);
	assert_int_equal(fp_header_version(LINE("%flamepipe 1")), -1);
	assert_int_equal(fp_header_version(LINE("%flamepipe\tx")), -1);
}

static void stack_depth_counts_frames(void **state)
{
	struct fp_str e = { "", 0 }, one = { "a", 1 }, three = { "a;b;c", 5 };

	assert_int_equal(fp_stack_depth(e), 0);
	assert_int_equal(fp_stack_depth(one), 1);
	assert_int_equal(fp_stack_depth(three), 3);
}

static void fields_split_at_tabs_and_the_last_takes_the_rest(void **state)
{
	struct fp_str f[3];

	assert_int_equal(fp_split_fields(LINE("a\tb\tc\td"), f, 3), 3);
	assert_true(fp_str_eq(f[2], "c\td"));
	assert_int_equal(fp_split_fields(LINE("solo"), f, 3), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_well_formed_sample_parses_into_its_fields),
		cmocka_unit_test(a_sample_without_frames_has_empty_kinds_and_stack),
		cmocka_unit_test(the_eleventh_field_is_the_cgroup),
		cmocka_unit_test(malformed_samples_are_rejected),
		cmocka_unit_test(seconds_parse_to_integer_nanoseconds_without_rounding),
		cmocka_unit_test(header_version_is_read_and_garbage_rejected),
		cmocka_unit_test(stack_depth_counts_frames),
		cmocka_unit_test(fields_split_at_tabs_and_the_last_takes_the_rest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
