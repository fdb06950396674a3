/* u-web.c: fp-serve's pure parts: query checks (web/query.c), name checks
 * (web/safepath.c) and the FlameScope JSON trees (web/tree.c). The web
 * sources are compiled into this test directly (the Makefile links unit
 * tests with libfp only). */
#include "unit.h"

#include <string.h>

#include "../../web/query.c"
#include "../../web/safepath.c"
#include "../../web/tree.c"

static int rows_ok(const char *s)
{
	unsigned r;
	const char *why;
	return query_rows(s, strlen(s), &r, &why);
}

static int secs_ok(const char *s)
{
	uint64_t ns;
	const char *why;
	return query_seconds(s, strlen(s), &ns, &why);
}

static int filter_ok(const char *w, const char *s)
{
	char why[QUERY_WHY_MAX];
	return query_filter_ok(w, s, strlen(s), why, sizeof why);
}

static int name_ok(const char *s)
{
	const char *why;
	return safepath_name_ok(s, strlen(s), &why);
}

static void rows_are_integers_from_1_to_1000(void **state)
{
	assert_true(rows_ok("1") && rows_ok("50") && rows_ok("1000"));
	assert_false(rows_ok("0") || rows_ok("1001") || rows_ok("") || rows_ok("-5") ||
		     rows_ok("+5") || rows_ok(" 5") || rows_ok("5 ") || rows_ok("5.0") ||
		     rows_ok("99999999999999999999"));
}

static void seconds_are_digits_with_at_most_nine_decimals(void **state)
{
	uint64_t ns;
	const char *why;
	assert_true(query_seconds("12.5", 4, &ns, &why) && ns == 12500000000ull);
	assert_true(secs_ok("0") && secs_ok("1.000000001"));
	assert_false(secs_ok("") || secs_ok(".5") || secs_ok("5.") || secs_ok("1..2") ||
		     secs_ok("-1") || secs_ok("1e3") || secs_ok("1.0000000001") || secs_ok("nan") ||
		     secs_ok("99999999999999999999"));
	assert_false(query_seconds("1\0002", 3, &ns, &why));
}

static void filters_use_fp_range_syntax_and_never_carry_a_newline(void **state)
{
	assert_true(filter_ok("pid", "1,2,-1") && filter_ok("cpu", "0"));
	assert_false(filter_ok("pid", "1,,2") || filter_ok("tid", "a"));
	assert_true(filter_ok("comm", "my app,bash") && filter_ok("comm", "-"));
	assert_false(filter_ok("comm", "x\nclear") || filter_ok("event", "a\rb"));
	assert_true(filter_ok("include", "foo.*bar|^java;") && filter_ok("exclude", "a{2,3}"));
	assert_false(filter_ok("include", "(unclosed"));
}

static void regexes_too_large_or_malformed_for_pcre2_are_refused(void **state)
{
	char plus[40] = "a";
	memset(plus + 1, '+', 30);
	char big[FP_REGEX_PATTERN_MAX + 2];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	assert_false(filter_ok("include", plus));                   /* a+++: nothing to repeat */
	assert_false(filter_ok("include", "((a{255}){255}){255}")); /* too large */
	assert_false(filter_ok("include", "(((a{32}){32}){32}){32}"));
	assert_false(filter_ok("include", "a{2}{3}"));
	assert_false(filter_ok("include", "a)(b")); /* cannot close a wrapper */
	assert_false(filter_ok("include", big));
	/* bounded at match time instead of refused (fp_regex.h) */
	assert_true(filter_ok("exclude",
			      "((((((((((((((((((((a)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+"));
	assert_true(filter_ok("include", "(a)\\1"));
	assert_true(filter_ok("include", "(f;)*x"));
	/* ordinary ones pass */
	assert_true(filter_ok("include", "a+b+c+d+e+f+g+h+i+j+k+l+"));
	assert_true(filter_ok("include", "crc.+step|mix_[a-z]+"));
	assert_true(filter_ok("include", "\\{literal\\}"));
}

static void upload_names_are_made_safe(void **state)
{
	char out[UPLOAD_NAME_MAX + 1];
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "x.perf.gz", "x.perf.gz" },
		{ "../../x y.perf", "x_y.perf" },
		{ "C:\\dir\\x.perf", "x.perf" },
		{ "...", "upload" },
		{ "", "upload" },
		{ ".hidden", "hidden" },
		{ "<script>.perf", "_script_.perf" },
		{ "a/", "upload" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = upload_safe_name(cases[i].in, strlen(cases[i].in), out, sizeof out);
		assert_string_equal(out, cases[i].want);
		assert_int_equal(n, strlen(cases[i].want));
	}
	char big[300];
	memset(big, 'a', sizeof big);
	assert_int_equal(upload_safe_name(big, sizeof big, out, sizeof out), UPLOAD_NAME_MAX);
	assert_int_equal(upload_safe_name("a\0b", 3, out, sizeof out), 3);
	assert_string_equal(out, "a_b");
}

static void names_below_dir_only(void **state)
{
	assert_true(name_ok("x.perf") && name_ok("sub/x.perf") && name_ok("a b/c..d"));
	static const char *const bad[] = {
		"",        "/etc/passwd", "../x",     "a/../x", "..",
		".",       "./x",         "a/./x",    "a//b",   "a/",
		".hidden", "sub/.hidden", "a\\..\\b", "a\nb",   "a\x7f",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_false(name_ok(bad[i]));
	const char *why;
	assert_false(safepath_name_ok("a\0b", 3, &why));
}

static char *tree(void (*f)(struct fp_sink *, const char *, size_t, const char *, size_t, size_t),
		  const char *a, const char *b)
{
	struct fp_sink s;
	fp_sink_init_mem(&s);
	if (f)
		f(&s, a, strlen(a), b, strlen(b), TREE_ROOTS(0));
	else
		tree_json(&s, a, strlen(a), TREE_ROOTS(0));
	fp_sink_char(&s, '\0');
	return s.buf;
}

static void flamescope_tree_has_self_counts_and_libtypes(void **state)
{
	char *t = tree(NULL, "d 3\na;c_[k] 1\na;b 2\n", NULL);
	assert_string_equal(t, "{\"n\":\"root\",\"l\":\"\",\"v\":0,\"c\":["
			       "{\"n\":\"a\",\"l\":\"\",\"v\":0,\"c\":["
			       "{\"n\":\"b\",\"l\":\"user\",\"v\":2,\"c\":[]},"
			       "{\"n\":\"c\",\"l\":\"kernel\",\"v\":1,\"c\":[]}]},"
			       "{\"n\":\"d\",\"l\":\"\",\"v\":3,\"c\":[]}]}");
	free(t);
	t = tree(NULL, "", NULL);
	assert_string_equal(t, "{\"n\":\"root\",\"l\":\"\",\"v\":0,\"c\":[]}");
	free(t);
}

/* With allevents the event is a root above the comm: both have libtype "". */
static void event_and_comm_roots_have_no_libtype(void **state)
{
	struct fp_sink s;
	const char *folded = "cycles;a;b 1\n";

	fp_sink_init_mem(&s);
	tree_json(&s, folded, strlen(folded), TREE_ROOTS(1));
	fp_sink_char(&s, '\0');
	assert_string_equal(s.buf, "{\"n\":\"root\",\"l\":\"\",\"v\":0,\"c\":["
				   "{\"n\":\"cycles\",\"l\":\"\",\"v\":0,\"c\":["
				   "{\"n\":\"a\",\"l\":\"\",\"v\":0,\"c\":["
				   "{\"n\":\"b\",\"l\":\"user\",\"v\":1,\"c\":[]}]}]}]}");
	fp_sink_free(&s);
}

static void tree_names_are_json_escaped(void **state)
{
	char *t = tree(NULL, "<s>;\"q\"\\ 1\n", NULL);
	assert_non_null(strstr(t, "\"n\":\"\\u003cs\\u003e\""));
	assert_non_null(strstr(t, "\"n\":\"\\\"q\\\"\\\\\""));
	assert_null(strchr(t, '<'));
	free(t);
}

static void differential_delta_is_value_minus_scaled_compare(void **state)
{
	/* totals 4 and 8: compare counts are halved */
	char *t = tree(tree_differential_json, "x;y 2\nx 2\n", "x;y 2\nx;z 6\n");
	assert_string_equal(
		t, "{\"name\":\"root\",\"libtype\":\"\",\"value\":0,\"delta\":0,\"children\":["
		   "{\"name\":\"x\",\"libtype\":\"\",\"value\":2,\"delta\":2,\"children\":["
		   "{\"name\":\"y\",\"libtype\":\"user\",\"value\":2,\"delta\":1,\"children\":[]}]}"
		   "]}");
	free(t);
}

static void elided_keeps_compare_only_frames_scaled(void **state)
{
	char *t = tree(tree_elided_json, "x;y 2\nx 2\n", "x;y 2\nx;z 6\n");
	assert_string_equal(
		t, "{\"name\":\"root\",\"libtype\":\"\",\"value\":0,\"children\":["
		   "{\"name\":\"x\",\"libtype\":\"\",\"value\":0,\"children\":["
		   "{\"name\":\"y\",\"libtype\":\"user\",\"value\":0,\"children\":[]},"
		   "{\"name\":\"z\",\"libtype\":\"user\",\"value\":3,\"children\":[]}]}]}");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_are_integers_from_1_to_1000),
		cmocka_unit_test(seconds_are_digits_with_at_most_nine_decimals),
		cmocka_unit_test(filters_use_fp_range_syntax_and_never_carry_a_newline),
		cmocka_unit_test(regexes_too_large_or_malformed_for_pcre2_are_refused),
		cmocka_unit_test(upload_names_are_made_safe),
		cmocka_unit_test(names_below_dir_only),
		cmocka_unit_test(flamescope_tree_has_self_counts_and_libtypes),
		cmocka_unit_test(event_and_comm_roots_have_no_libtype),
		cmocka_unit_test(tree_names_are_json_escaped),
		cmocka_unit_test(differential_delta_is_value_minus_scaled_compare),
		cmocka_unit_test(elided_keeps_compare_only_frames_scaled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
