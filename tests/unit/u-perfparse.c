/* u-perfparse.c: the perf script parser (perf/script/fp_perfparse.c) through its
 * API: time parsing, dso kinds, and records built from fed lines. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_io.h"
#include "fp_perfparse.h"

#define OUT_MAX 4096

/* Collects the records (joined) and the problems seen. */
struct sink {
	char out[OUT_MAX];
	size_t len;
	int records, bad_lines, too_big;
};

static void on_record(void *ctx, const char *rec, size_t len)
{
	struct sink *s = ctx;

	if (s->len + len < OUT_MAX) {
		memcpy(s->out + s->len, rec, len);
		s->len += len;
		s->out[s->len] = '\0';
	}
	s->records++;
}

static void on_problem(void *ctx, enum fp_perf_problem what, const char *line, size_t len)
{
	struct sink *s = ctx;

	(void)line;
	(void)len;
	if (what == FP_PERF_BAD_LINE)
		s->bad_lines++;
	else
		s->too_big++;
}

static const struct fp_perf_ops ops = { on_record, on_problem };

/* The fixture of the record tests: a parser pp writing into the sink s. */
static struct fp_perf_parser pp;
static struct sink s;

static int parser_new(void **state)
{
	memset(&s, 0, sizeof s);
	fp_perf_init(&pp, &ops, &s);
	return 0;
}

static int parser_free(void **state)
{
	fp_perf_free(&pp);
	return 0;
}

/* Feeds text (LF-separated) line by line, then finishes. */
static void feed(struct fp_perf_parser *pp, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		fp_perf_line(pp, p, n);
		p += n + (nl ? 1 : 0);
	}
	fp_perf_finish(pp);
}

static void times_scale_to_integer_nanoseconds(void **state)
{
	assert_parses_ns(fp_perf_parse_time, "82.657918", 82657918000ull);
	assert_parses_ns(fp_perf_parse_time, "1.5", 1500000000ull);
	assert_parses_ns(fp_perf_parse_time, "9999999999.999999999", 9999999999999999999ull);
	assert_parses_ns(fp_perf_parse_time, "0.000000001", 1);
}

static void malformed_times_are_refused(void **state)
{
	uint64_t ns;

	assert_int_equal(fp_perf_parse_time(LINE("82"), &ns), -1);
	assert_int_equal(fp_perf_parse_time(LINE(".5"), &ns), -1);
	assert_int_equal(fp_perf_parse_time(LINE("5."), &ns), -1);
	assert_int_equal(fp_perf_parse_time(LINE("1.0000000001"), &ns), -1);  /* 10 digits */
	assert_int_equal(fp_perf_parse_time(LINE("12345678901.0"), &ns), -1); /* overflow */
	assert_int_equal(fp_perf_parse_time(LINE("1.2.3"), &ns), -1);
	assert_int_equal(fp_perf_parse_time(LINE("1a.5"), &ns), -1);
}

static void dso_kinds_follow_the_documented_rule(void **state)
{
	assert_int_equal(fp_perf_dso_kind(LINE("[kernel.kallsyms]")), 'k');
	assert_int_equal(fp_perf_dso_kind(LINE("[nf_conntrack]")), 'k');
	assert_int_equal(fp_perf_dso_kind(LINE("/lib/modules/6.1/kernel/fs/ext4/ext4.ko")), 'k');
	assert_int_equal(fp_perf_dso_kind(LINE("/lib/modules/6.1/xfs.ko.zst")), 'k');
	assert_int_equal(fp_perf_dso_kind(LINE("/usr/lib/debug/boot/vmlinux-6.1.0")), 'k');
	assert_int_equal(fp_perf_dso_kind(LINE("/tmp/perf-123.map")), 'j');
	assert_int_equal(fp_perf_dso_kind(LINE("/symfs/tmp/perf-123.map")), 'j');
	assert_int_equal(fp_perf_dso_kind(LINE("/root/.debug/jit/x/jitted-123-4.so")), 'j');
	assert_int_equal(fp_perf_dso_kind(LINE("inlined")), 'i');
	assert_int_equal(fp_perf_dso_kind(LINE("[unknown]")), 'x');
	assert_int_equal(fp_perf_dso_kind("", 0), 'x');
	assert_int_equal(fp_perf_dso_kind(LINE("/usr/lib/libc.so.6")), 'u');
	/* Near misses stay user code. */
	assert_int_equal(fp_perf_dso_kind(LINE("/opt/kotlin.kotlin.so")), 'u');
	assert_int_equal(fp_perf_dso_kind(LINE("/tmp/perf-.map")), 'u');
	assert_int_equal(fp_perf_dso_kind(LINE("/tmp/perf-12x.map")), 'u');
	assert_int_equal(fp_perf_dso_kind(LINE("/x/a.ko.d/lib.so")), 'u');
}

static void a_sample_becomes_one_root_first_record(void **state)
{
	feed(&pp, "app 12/13 [001] 1.5: 1000 cpu-clock:\n"
		  "\t1 leaf+0x1 (/x/app)\n"
		  "\t2 operator+=+0x12 (/x/app)\n"
		  "\tffffffff81000000 entry+0x2 ([kernel.kallsyms])\n\n");
	assert_string_equal(s.out, "S\t1500000000\t12\t13\t1\t1000\tcpu-clock\tapp\tkuu\t"
				   "entry;operator+=;leaf\n");
	assert_true(pp.st.samples == 1 && pp.st.frames == 3 && pp.st.lines == 5);
}

/* A frame name's ';' becomes ':' and a control byte (here DEL and a byte
 * 0x01) a space wherever it stands: in names shorter than a
 * word, of one to two words, and longer, at the start, inside and in the
 * last bytes (the test runs 16 bytes a step with an overlapping last
 * step); bytes >= 0x80 (UTF-8) stay as they are. */
static void protocol_bytes_in_names_are_replaced_wherever_they_stand(void **state)
{
	feed(&pp, "app 12/13 [001] 1.5: 1000 cpu-clock:\n"
		  "\t1 a;b+0x1 (/x/app)\n"
		  "\t2 ns::f;g\x7fh+0x1 (/x/app)\n"
		  "\t3 a_very_long_name_with\x01"
		  "ctl_in_the_middle+0x1 (/x/app)\n"
		  "\t4 seventeen_bytes_;+0x1 (/x/app)\n"
		  "\t5 \xc3\xa9t\xc3\xa9_caf\xc3\xa9_unicode_name_ok+0x1 (/x/app)\n"
		  "\t6 ;thirty_two_bytes_long_name_x_y+0x1 (/x/app)\n\n");
	assert_string_equal(s.out, "S\t1500000000\t12\t13\t1\t1000\tcpu-clock\tapp\tuuuuuu\t"
				   ":thirty_two_bytes_long_name_x_y;"
				   "\xc3\xa9t\xc3\xa9_caf\xc3\xa9_unicode_name_ok;"
				   "seventeen_bytes_:;"
				   "a_very_long_name_with ctl_in_the_middle;"
				   "ns::f:g h;a:b\n");
}

/* One line to the parser from a buffer of exactly its bytes (ASan sees a
 * read past the line). */
static void feed_exact(struct fp_perf_parser *pp, const char *line, size_t n)
{
	char *copy = malloc(n ? n : 1);

	memcpy(copy, line, n);
	fp_perf_line(pp, copy, n);
	free(copy);
}

/* Every name of 1 to 40 bytes, with a `;`, DEL or control byte at each
 * place or none, in a frame line with its offset and dso after it (the
 * 16-byte fast path) and alone at the line's end (the bytes after it may
 * not be read): the name comes out cleaned, the same either way. */
static void names_of_every_length_come_out_cleaned_with_or_without_a_dso(void **state)
{
	static const char bad[] = { ';', 0x7f, 0x01, 0x1f };
	char name[41], want[41], line[128], rec[256];

	for (size_t n = 1; n <= 40; n++)
		for (size_t at = 0; at <= n; at++) /* at == n: no bad byte */
			for (size_t b = 0; b < (at < n ? sizeof bad : 1); b++)
				for (int with_dso = 0; with_dso < 2; with_dso++) {
					for (size_t i = 0; i < n; i++)
						name[i] = want[i] = (char)('a' + (i * 7 + n) % 26);
					if (at < n) {
						name[at] = bad[b];
						want[at] = bad[b] == ';' ? ':' : ' ';
					}
					int len = snprintf(
						line, sizeof line, "\tffffffff81000000 %.*s%s",
						(int)n, name,
						with_dso ? "+0x1f ([kernel.kallsyms])" : "");

					memset(&s, 0, sizeof s);
					fp_perf_free(&pp);
					fp_perf_init(&pp, &ops, &s);
					feed_exact(&pp,
						   LINE("app 12/13 [001] 1.5: 1000 cpu-clock:"));
					feed_exact(&pp, line, (size_t)len);
					feed_exact(&pp, "", 0);
					snprintf(rec, sizeof rec,
						 "S\t1500000000\t12\t13\t1\t1000\tcpu-"
						 "clock\tapp\tk\t"
						 "%.*s\n",
						 (int)n, want);
					assert_string_equal(s.out, rec);
				}
}

static void lost_lines_count_events_not_samples(void **state)
{
	feed(&pp, "perf 1 [000] 1.0: PERF_RECORD_LOST lost 7\n"
		  "PERF_RECORD_LOST lost 3\n"
		  "PERF_RECORD_LOST_SAMPLES\n"
		  "perf 1 [000] 1.0: PERF_RECORD_COMM exec: x:1/1\n");
	assert_int_equal(s.records, 0);
	assert_true(pp.st.lost_events == 11 && pp.st.lost_records == 3);
	assert_true(pp.st.other_records == 1 && pp.st.bad_lines == 0);
}

static void a_too_long_line_drops_its_sample_and_the_rest_of_its_frames(void **state)
{
	fp_perf_line(&pp, LINE("app 1 1.0: "));
	fp_perf_line(&pp, LINE("\t1 a (/x)"));
	fp_perf_line_too_long(&pp);
	fp_perf_line(&pp, LINE("\t2 b (/x)")); /* discarded, not glued */
	fp_perf_line(&pp, LINE(""));
	fp_perf_line(&pp, LINE("app 1 2.0: "));
	fp_perf_line(&pp, LINE("\t3 c (/x)"));
	fp_perf_finish(&pp);
	assert_string_equal(s.out, "S\t2000000000\t1\t1\t-1\t1\t-\tapp\tu\tc\n");
	assert_true(pp.st.dropped_samples == 1 && pp.st.too_long_lines == 1);
	assert_true(pp.st.skipped_lines == 1);
}

static void a_bad_line_ends_the_sample_and_its_frames_are_not_glued_on(void **state)
{
	feed(&pp, "app 1 1.0: \n\t1 a (/x)\ngarbage\n\t2 b (/x)\n\napp 1 2.0: \n\t3 c (/x)\n");
	assert_string_equal(s.out, "S\t1000000000\t1\t1\t-1\t1\t-\tapp\tu\ta\n"
				   "S\t2000000000\t1\t1\t-1\t1\t-\tapp\tu\tc\n");
	assert_int_equal(s.bad_lines, 1);
	assert_true(pp.st.first_bad_line == 3);
}

static void a_record_over_the_line_limit_is_dropped_and_reported(void **state)
{
	/* 2 bytes per frame ("a;"): this many frames cannot fit. */
	size_t frames = FP_LINE_MAX / 2 + 1;

	fp_perf_line(&pp, LINE("app 1 1.0: "));
	for (size_t i = 0; i < frames; i++)
		fp_perf_line(&pp, LINE("\t1 a (/x)"));
	fp_perf_line(&pp, LINE(""));
	fp_perf_line(&pp, LINE("app 1 2.0: "));
	fp_perf_line(&pp, LINE("\t3 c (/x)"));
	fp_perf_finish(&pp);
	assert_int_equal(s.too_big, 1);
	assert_true(pp.st.dropped_samples == 1 && pp.st.samples == 1);
	assert_string_equal(s.out, "S\t2000000000\t1\t1\t-1\t1\t-\tapp\tu\tc\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define P(f) cmocka_unit_test_setup_teardown(f, parser_new, parser_free)
		cmocka_unit_test(times_scale_to_integer_nanoseconds),
		cmocka_unit_test(malformed_times_are_refused),
		cmocka_unit_test(dso_kinds_follow_the_documented_rule),
		P(a_sample_becomes_one_root_first_record),
		P(protocol_bytes_in_names_are_replaced_wherever_they_stand),
		P(names_of_every_length_come_out_cleaned_with_or_without_a_dso),
		P(lost_lines_count_events_not_samples),
		P(a_too_long_line_drops_its_sample_and_the_rest_of_its_frames),
		P(a_bad_line_ends_the_sample_and_its_frames_are_not_glued_on),
		P(a_record_over_the_line_limit_is_dropped_and_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
