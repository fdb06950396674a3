/* u-render.c: the render library's building blocks (render/): escaping,
 * the folded table, number formatting, heatmap storage, flame graph tree. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "escape.h"
#include "flamegraph.h"
#include "flametree.h"
#include "folded.h"
#include "heatmap.h"
#include "sink.h"

/* Runs fn into a memory sink and compares the result with want. */
#define ASSERT_SINK(want, call)                            \
	do {                                               \
		struct fp_sink s_;                         \
		fp_sink_init_mem(&s_);                     \
		{                                          \
			struct fp_sink *s = &s_;           \
			call;                              \
		}                                          \
		assert_int_equal(s_.len, strlen(want));    \
		assert_memory_equal(s_.buf, want, s_.len); \
		fp_sink_free(&s_);                         \
	} while (0)

static void xml_escape_writes_entities_for_markup_characters(void **state)
{
	ASSERT_SINK("&lt;script&gt;a &amp; &quot;b&quot; &#39;c&#39;",
		    fp_xml_escape(s, LINE("<script>a & \"b\" 'c'")));
	ASSERT_SINK("tab\tnl\ncr\r", fp_xml_escape(s, LINE("tab\tnl\ncr\r")));
}

static void xml_escape_replaces_bad_utf8_and_control_bytes(void **state)
{
	/* control byte, lone continuation, truncated sequence, overlong '/',
	 * a UTF-16 surrogate, U+FFFF: each becomes U+FFFD per byte. */
	ASSERT_SINK("a\xef\xbf\xbd"
		    "b",
		    fp_xml_escape(s, LINE("a\x01"
					  "b")));
	ASSERT_SINK("\xef\xbf\xbd", fp_xml_escape(s, LINE("\x80")));
	ASSERT_SINK("\xef\xbf\xbd", fp_xml_escape(s, LINE("\xc3")));
	ASSERT_SINK("\xef\xbf\xbd\xef\xbf\xbd", fp_xml_escape(s, LINE("\xc0\xaf")));
	ASSERT_SINK("\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", fp_xml_escape(s, LINE("\xed\xa0\x80")));
	ASSERT_SINK("\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", fp_xml_escape(s, LINE("\xef\xbf\xbf")));
	/* valid multibyte characters pass unchanged */
	ASSERT_SINK("na\xc3\xafve \xe2\x82\xac \xf0\x9f\x94\xa5",
		    fp_xml_escape(s, LINE("na\xc3\xafve \xe2\x82\xac \xf0\x9f\x94\xa5")));
}

static void json_escape_makes_strings_safe_inside_html_and_cdata(void **state)
{
	ASSERT_SINK("\"\\u003c/script\\u003e \\u0026 \\\"q\\\" \\\\ \\u000a \\ufffd\"",
		    fp_json_string(s, LINE("</script> & \"q\" \\ \n \xff")));
	ASSERT_SINK("]]\\u003e", fp_json_escape(s, LINE("]]>")));
}

static void sink_formats_numbers_exactly(void **state)
{
	ASSERT_SINK("12.34", fp_sink_fixed(s, 1234, 2));
	ASSERT_SINK("-0.05", fp_sink_fixed(s, -5, 2));
	ASSERT_SINK("7", fp_sink_fixed(s, 7, 0));
	ASSERT_SINK("1,234,567", fp_sink_u64_sep(s, 1234567));
	ASSERT_SINK("999", fp_sink_u64_sep(s, 999));
	ASSERT_SINK("18446744073709551615", fp_sink_u64(s, UINT64_MAX));
	ASSERT_SINK("-9223372036854775808", fp_sink_i64(s, INT64_MIN));
}

/* A block larger than a chunk goes to a file sink's file as it is, after
 * what was buffered: the bytes in order, the buffer never its size. */
static void a_file_sink_writes_a_large_block_without_holding_it(void **state)
{
	size_t big = 4 * FP_SINK_CHUNK + 3;
	char *block = malloc(big), *back = malloc(big + 16);
	char *text = NULL;
	size_t text_len = 0;
	FILE *fp = open_memstream(&text, &text_len);
	struct fp_sink s;

	assert_non_null(block);
	assert_non_null(back);
	assert_non_null(fp);
	for (size_t i = 0; i < big; i++)
		block[i] = (char)('a' + i % 26);
	fp_sink_init_file(&s, fp);
	fp_sink_str(&s, "head;");
	fp_sink_write(&s, block, big);
	fp_sink_str(&s, ";tail");
	assert_true(s.cap <= FP_SINK_CHUNK);
	assert_int_equal(fp_sink_close(&s), 0);
	fclose(fp);
	memcpy(back, "head;", 5);
	memcpy(back + 5, block, big);
	memcpy(back + 5 + big, ";tail", 5);
	assert_int_equal(text_len, big + 10);
	assert_memory_equal(text, back, big + 10);
	free(text);
	free(block);
	free(back);
}

static void a_frame_sorts_before_its_children_and_siblings_by_name(void **state)
{
	assert_true(fp_stack_cmp(LINE("a"), LINE("a;b")) < 0);
	assert_true(fp_stack_cmp(LINE("a;b"), LINE("a!")) < 0); /* ';' first */
	assert_true(fp_stack_cmp(LINE("a;z"), LINE("ab")) < 0);
	assert_true(fp_stack_cmp(LINE("x;longer_common_prefix;b"),
				 LINE("x;longer_common_prefix;a")) > 0);
	assert_int_equal(fp_stack_cmp(LINE("same"), LINE("same")), 0);
}

/* fp_folded_sort merges the runs already in order: the result is the
 * frame-wise order, equal stacks in input order, every entry once. */
static void sort_is_frame_wise_and_stable_across_runs(void **state)
{
	static const char alphabet[] = "ab;!";
	enum { N = 300, MAXLEN = 6 };
	char text[N][MAXLEN];
	struct fp_folded t;
	uint64_t sum = 0, seed = 12345;

	fp_folded_init(&t);
	fp_folded_parse_buffer(&t, LINE("b 1\na 2\nb 3\na 4\na;b 5\na! 6\n"), FP_FOLDED_REF);
	fp_folded_sort(&t);
	const uint64_t want[] = { 2, 4, 5, 6, 1, 3 };
	for (size_t i = 0; i < t.n; i++)
		assert_true(t.e[i].count == want[i]);
	fp_folded_clear(&t);
	for (size_t i = 0; i < N; i++) { /* many short runs, many equal stacks */
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		size_t len = (size_t)(seed >> 60) % MAXLEN;
		for (size_t j = 0; j < len; j++)
			text[i][j] = alphabet[(seed >> (8 * j + 8)) & 3];
		fp_folded_add(&t, text[i], len, i + 1, 0, FP_FOLDED_REF);
	}
	fp_folded_sort(&t);
	assert_int_equal(t.n, N);
	for (size_t i = 0; i < t.n; i++) {
		sum += t.e[i].count;
		if (!i)
			continue;
		int c = fp_stack_cmp(t.e[i - 1].stack, t.e[i - 1].len, t.e[i].stack, t.e[i].len);
		assert_true(c < 0 || (c == 0 && t.e[i - 1].count < t.e[i].count));
	}
	assert_true(sum == (uint64_t)N * (N + 1) / 2);
	fp_folded_free(&t);
}

static void folded_lines_parse_with_one_or_two_counts(void **state)
{
	struct fp_folded t;

	fp_folded_init(&t);
	assert_int_equal(fp_folded_parse_line(&t, LINE("a;b c 12"), FP_FOLDED_COPY), 0);
	assert_int_equal(fp_folded_parse_line(&t, LINE("x;y 3\r"), FP_FOLDED_COPY), 0);
	assert_int_equal(fp_folded_parse_line(&t, LINE(""), FP_FOLDED_COPY), 0);
	assert_int_equal(fp_folded_parse_line(&t, LINE("# comment 5"), FP_FOLDED_COPY), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.e[0].len, 5);
	assert_memory_equal(t.e[0].stack, "a;b c", 5);
	assert_true(t.e[0].count == 12 && t.e[1].count == 3 && t.total == 15);
	assert_false(t.two_counts);
	assert_int_equal(fp_folded_parse_line(&t, LINE("d;e 4 6"), FP_FOLDED_COPY), 0);
	assert_true(t.two_counts && t.e[2].count == 4 && t.e[2].count2 == 6);
	fp_folded_free(&t);
}

static void malformed_folded_lines_are_counted_with_the_first_line_number(void **state)
{
	struct fp_folded t;

	fp_folded_init(&t);
	fp_folded_parse_line(&t, LINE("ok 1"), FP_FOLDED_COPY);
	assert_int_equal(fp_folded_parse_line(&t, LINE("no count here"), FP_FOLDED_COPY), -1);
	assert_int_equal(fp_folded_parse_line(&t, LINE("42"), FP_FOLDED_COPY), -1);
	assert_int_equal(fp_folded_parse_line(&t, LINE("big 99999999999999999999"), FP_FOLDED_COPY),
			 -1);
	assert_true(t.ignored == 3 && t.first_ignored == 2 && t.n == 1);
	fp_folded_free(&t);
}

static void merge_sums_identical_stacks_and_reverse_flips_frames(void **state)
{
	struct fp_folded t;
	struct fp_sink s;

	fp_folded_init(&t);
	fp_folded_parse_buffer(&t, LINE("b;c 1\na;x 2\nb;c 4\n"), FP_FOLDED_REF);
	fp_folded_merge(&t);
	fp_folded_reverse(&t);
	fp_sink_init_mem(&s);
	fp_folded_write(&s, &t);
	assert_int_equal(s.len, strlen("x;a 2\nc;b 5\n"));
	assert_memory_equal(s.buf, "x;a 2\nc;b 5\n", s.len);
	fp_sink_free(&s);
	fp_folded_free(&t);
}

static void diff_is_the_union_and_elided_what_only_a_has(void **state)
{
	struct fp_folded a, b, d, e;
	struct fp_sink s;

	fp_folded_init(&a);
	fp_folded_init(&b);
	fp_folded_parse_buffer(&a, LINE("m;a 5\nm;b 5\n"), FP_FOLDED_REF);
	fp_folded_parse_buffer(&b, LINE("m;c 1\nm;a 7\n"), FP_FOLDED_REF);
	fp_folded_diff(&d, &a, &b);
	fp_sink_init_mem(&s);
	fp_folded_write(&s, &d);
	assert_int_equal(s.len, strlen("m;a 5 7\nm;b 5 0\nm;c 0 1\n"));
	assert_memory_equal(s.buf, "m;a 5 7\nm;b 5 0\nm;c 0 1\n", s.len);
	fp_sink_free(&s);
	fp_folded_elided(&e, &a, &b);
	assert_int_equal(e.n, 1);
	assert_memory_equal(e.e[0].stack, "m;b", 3);
	fp_folded_free(&d);
	fp_folded_free(&e);
	fp_folded_free(&a);
	fp_folded_free(&b);
}

/* The fixture of the heatmap model tests: an empty heatmap hm. */
static struct fp_heatmap hm;

static int heatmap_empty(void **state)
{
	fp_heatmap_init(&hm);
	return 0;
}

static int heatmap_free(void **state)
{
	fp_heatmap_free(&hm);
	return 0;
}

static void heatmap_cells_are_bounded_and_reset_by_geometry(void **state)
{
	fp_heatmap_reset(&hm, 4, 100);
	assert_int_equal(fp_heatmap_set(&hm, 0, 3, 2), 0);
	assert_int_equal(fp_heatmap_set(&hm, 200, 1, 5), 0); /* grows */
	assert_int_equal(fp_heatmap_set(&hm, 1, 4, 1), -1);  /* row >= rows */
	assert_int_equal(fp_heatmap_set(&hm, (uint64_t)FP_HEATMAP_MAX_COL + 1, 0, 1), -1);
	assert_int_equal(hm.ncols, 201);
	assert_true(fp_heatmap_total(&hm) == 7 && fp_heatmap_max(&hm) == 5);
	assert_true(fp_heatmap_get(&hm, 200, 1) == 5 && fp_heatmap_get(&hm, 999, 1) == 0);
	fp_heatmap_reset(&hm, 4, 99);
	assert_true(hm.ncols == 0 && fp_heatmap_total(&hm) == 0 && hm.base_sec == 99);
	fp_heatmap_reset(&hm, 5000, 0); /* clamped */
	assert_int_equal(hm.rows, FP_ROWS_MAX);
}

/* t9300's finding: storage is the cells set, whatever their columns. */
static void heatmap_storage_is_sparse_far_columns_cost_one_cell(void **state)
{
	fp_heatmap_reset(&hm, 1000, 0);
	assert_int_equal(fp_heatmap_set(&hm, 99900, 5, 1), 0);
	assert_int_equal(fp_heatmap_set(&hm, 0, 5, 1), 0); /* out of order */
	assert_int_equal(fp_heatmap_set(&hm, FP_HEATMAP_MAX_COL, 999, 3), 0);
	assert_true(hm.n == 3 && hm.cap < 1000 &&
		    fp_map_bytes(&hm.by_key) < 1000 * sizeof(struct fp_map_slot));
	assert_int_equal(hm.ncols, (size_t)FP_HEATMAP_MAX_COL + 1);
	assert_true(fp_heatmap_get(&hm, 99900, 5) == 1 && fp_heatmap_get(&hm, 99900, 6) == 0);
	assert_true(fp_heatmap_get(&hm, FP_HEATMAP_MAX_COL, 999) == 3);
	assert_true(fp_heatmap_total(&hm) == 5 && !hm.sorted);
	fp_heatmap_sort(&hm);
	assert_true(hm.sorted && hm.cells[0].key == 5 && fp_heatmap_get(&hm, 0, 5) == 1);
}

/* The column policy: a whole axis while it is small, else only the
 * columns that hold samples (nothing is ever left out). */
static void heatmap_axis_is_whole_when_small_and_cut_to_the_columns_with_samples(void **state)
{
	struct fp_heatmap_axis ax;

	fp_heatmap_reset(&hm, 50, 0);
	fp_heatmap_set(&hm, 3, 1, 1);
	fp_heatmap_set(&hm, 7, 1, 1);
	fp_heatmap_axis(&hm, &ax);
	assert_true(ax.n == 8 && ax.col == NULL && ax.cut == 0);
	assert_int_equal(fp_heatmap_axis_index(&ax, 5, 0), 5);
	assert_int_equal(fp_heatmap_axis_index(&ax, 9, 0), SIZE_MAX);
	fp_heatmap_axis_free(&ax);
	/* one stray early sample, the bulk 100,001 s later */
	fp_heatmap_set(&hm, 100001, 0, 7);
	fp_heatmap_set(&hm, 100002, 4, 0); /* a zero cell is no sample */
	fp_heatmap_set(&hm, 100003, 2, 9);
	fp_heatmap_axis(&hm, &ax);
	assert_int_equal(ax.n, 4);
	assert_true(ax.col[0] == 3 && ax.col[1] == 7 && ax.col[2] == 100001 && ax.col[3] == 100003);
	assert_int_equal(ax.cut, 100004 - 4);
	assert_int_equal(fp_heatmap_axis_index(&ax, 100003, 0), 3);
	assert_int_equal(fp_heatmap_axis_index(&ax, 100002, 0), SIZE_MAX);
	assert_int_equal(fp_heatmap_axis_index(&ax, 100002, 1), 3);
	fp_heatmap_axis_free(&ax);
	/* too many cells for a whole axis at 1000 rows */
	fp_heatmap_reset(&hm, 1000, 0);
	fp_heatmap_set(&hm, 0, 5, 1);
	fp_heatmap_set(&hm, 99900, 5, 1);
	fp_heatmap_axis(&hm, &ax);
	assert_true(ax.n == 2 && ax.cut == 99899);
	fp_heatmap_axis_free(&ax);
}

/* The unfiltered heatmap of the fp_heatmap_onto tests: 4 rows from second
 * 100, samples in columns 0 and 5 (a whole axis of 6 columns). */
static void unfiltered_heatmap(struct fp_heatmap *on)
{
	fp_heatmap_init(on);
	fp_heatmap_reset(on, 4, 100);
	fp_heatmap_set(on, 0, 0, 1);
	fp_heatmap_set(on, 5, 1, 2);
}

/* A heatmap built against another one's axis (a filtered heatmap on the
 * unfiltered one's): cells moved by the difference of the base seconds,
 * those past the other's last column dropped, the other's axis pinned. */
static void heatmap_onto_moves_cells_onto_the_other_axis_and_pins_it(void **state)
{
	struct fp_heatmap on, dst;
	struct fp_heatmap_axis ax;
	struct fp_sink a, b;

	unfiltered_heatmap(&on);
	fp_heatmap_init(&dst);
	fp_heatmap_reset(&hm, 4, 103); /* hm: the filtered cells */
	fp_heatmap_set(&hm, 0, 1, 3);
	fp_heatmap_set(&hm, 2, 0, 4);
	fp_heatmap_set(&hm, 3, 0, 9); /* column 6: past on's last */
	assert_int_equal(fp_heatmap_onto(&dst, &hm, &on), 0);
	assert_true(dst.rows == 4 && dst.base_sec == 100 && dst.pinned);
	assert_true(fp_heatmap_get(&dst, 3, 1) == 3 && fp_heatmap_get(&dst, 5, 0) == 4);
	assert_true(fp_heatmap_get(&dst, 6, 0) == 0 && fp_heatmap_total(&dst) == 7);
	fp_heatmap_axis(&dst, &ax);
	assert_true(ax.n == 6 && ax.col == NULL && ax.cut == 0);
	fp_heatmap_axis_free(&ax);
	/* the JSON: fp_heatmap_json_keys, then the closing brace */
	fp_sink_init_mem(&a);
	fp_sink_init_mem(&b);
	fp_heatmap_json(&a, &dst);
	fp_heatmap_json_keys(&b, &dst);
	fp_sink_str(&b, "}\n");
	fp_sink_char(&a, '\0');
	fp_sink_char(&b, '\0');
	assert_string_equal(a.buf, b.buf);
	assert_string_equal(
		a.buf, "{\"columns\":[0,1,2,3,4,5],\"rows\":[750,500,250,0],"
		       "\"values\":[[0,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,3,0],[0,0,0,0],[0,0,0,4]],"
		       "\"maxvalue\":4,\"base_sec\":100}\n");
	b.len = 0;
	fp_heatmap_json_column(&b, &dst, 3);
	fp_sink_char(&b, '\0');
	assert_string_equal(b.buf, "[0,0,3,0]");
	/* a filtered heatmap never starts before the other, nor has other rows */
	fp_heatmap_reset(&hm, 4, 99);
	fp_heatmap_set(&hm, 0, 0, 1);
	assert_int_equal(fp_heatmap_onto(&dst, &hm, &on), -1);
	assert_true(dst.n == 0);
	fp_heatmap_reset(&hm, 5, 100);
	fp_heatmap_set(&hm, 0, 0, 1);
	assert_int_equal(fp_heatmap_onto(&dst, &hm, &on), -1);
	fp_heatmap_reset(&hm, 4, 0); /* no cells: nothing to move */
	assert_int_equal(fp_heatmap_onto(&dst, &hm, &on), 0);
	fp_sink_free(&a);
	fp_sink_free(&b);
	fp_heatmap_free(&dst);
	fp_heatmap_free(&on);
}

/* A cut axis is pinned as it is: the filtered cells in its columns; a
 * copy keeps the pin, a new geometry drops it. */
static void heatmap_onto_a_cut_axis_pins_its_columns(void **state)
{
	struct fp_heatmap on, dst, copy;
	struct fp_heatmap_axis ax;
	struct fp_sink a;

	unfiltered_heatmap(&on);
	fp_heatmap_set(&on, 100002, 3, 5); /* the axis is cut */
	fp_heatmap_init(&dst);
	fp_heatmap_init(&copy);
	fp_sink_init_mem(&a);
	fp_heatmap_reset(&hm, 4, 100 + 100002);
	fp_heatmap_set(&hm, 0, 3, 2);
	assert_int_equal(fp_heatmap_onto(&dst, &hm, &on), 0);
	fp_heatmap_copy(&copy, &dst);
	fp_heatmap_axis(&copy, &ax);
	assert_true(ax.n == 3 && ax.col[0] == 0 && ax.col[1] == 5 && ax.col[2] == 100002);
	assert_int_equal(ax.cut, 100003 - 3);
	fp_heatmap_axis_free(&ax);
	fp_heatmap_json(&a, &copy);
	fp_sink_char(&a, '\0');
	assert_string_equal(a.buf, "{\"columns\":[0,5,100002],\"rows\":[750,500,250,0],"
				   "\"values\":[[0,0,0,0],[0,0,0,0],[2,0,0,0]],\"maxvalue\":2,"
				   "\"base_sec\":100,\"cut\":100000}\n");
	assert_true(fp_heatmap_bytes(&copy) >= copy.n * sizeof *copy.cells + 3 * sizeof *ax.col);
	fp_heatmap_reset(&copy, 4, 0); /* a new geometry drops the pin */
	assert_false(copy.pinned);
	fp_sink_free(&a);
	fp_heatmap_free(&copy);
	fp_heatmap_free(&dst);
	fp_heatmap_free(&on);
}

static void heatmap_colour_is_white_to_red_and_rounds_like_the_script(void **state)
{
	char c[20];

	fp_heatmap_color(0, 10, c);
	assert_string_equal(c, "rgb(255,255,255)");
	fp_heatmap_color(10, 10, c);
	assert_string_equal(c, "rgb(255,0,0)");
	fp_heatmap_color(1, 2, c); /* 255 - (255 + 1) / 2 */
	assert_string_equal(c, "rgb(255,127,127)");
}

static void flame_colours_are_name_hashes_by_code_type(void **state)
{
	char a[20], b[20];
	enum fp_palette p;

	fp_flame_color(FP_PAL_FLAMEPIPE, LINE("do_syscall_64_[k]"), a);
	fp_flame_color(FP_PAL_ORANGE, LINE("do_syscall_64"), b);
	assert_string_equal(a, b); /* annotation: hue only, same shade */
	fp_flame_color(FP_PAL_FLAMEPIPE, LINE("main"), a);
	fp_flame_color(FP_PAL_FLAMEPIPE, LINE("main"), b);
	assert_string_equal(a, b);
	assert_int_equal(fp_palette_parse("hot", &p), 0);
	assert_int_equal(p, FP_PAL_HOT);
	assert_int_equal(fp_palette_parse("nosuch", &p), -1);
	assert_true(fp_fnv1a("", 0) == 0xcbf29ce484222325ull);
	assert_true(fp_fnv1a("a", 1) == 0xaf63dc4c8601ec8cull);
}

/* A stack keeps only the frames it shares with the one before: "a;bc"
 * does not share a;b, "a;" is a's own samples (no empty frame). */
static void frames_merge_only_where_whole_frames_are_shared(void **state)
{
	struct fp_folded t;
	struct fp_flame_opts o;
	struct fp_sink s;

	fp_folded_init(&t);
	fp_folded_parse_buffer(&t, LINE("ab 32\na;bc 4\na;b;c 2\na 8\na; 16\na;b 1\n"),
			       FP_FOLDED_REF);
	fp_flame_opts_init(&o);
	fp_sink_init_mem(&s);
	assert_int_equal(fp_flame_render(&s, &t, &o), 0);
	fp_sink_char(&s, '\0');
	assert_non_null(strstr(s.buf, "<title>all (63 samples"));
	assert_non_null(strstr(s.buf, "<title>a (31 samples"));
	assert_non_null(strstr(s.buf, "<title>b (3 samples"));
	assert_non_null(strstr(s.buf, "<title>c (2 samples"));
	assert_non_null(strstr(s.buf, "<title>bc (4 samples"));
	assert_non_null(strstr(s.buf, "<title>ab (32 samples"));
	assert_null(strstr(s.buf, "<title> (")); /* no empty frame */
	fp_sink_free(&s);
	fp_folded_free(&t);
}

static int wider_than_5(void *ctx, uint64_t w, uint64_t total)
{
	(void)ctx;
	return w * 100 > 5 * total;
}

/* Checks that the kept tree of the sorted table t is the whole tree's
 * nodes keep() takes, in the same order with the same places and counts.
 * Returns how many nodes it left out. */
static size_t assert_kept_is_whole_without_refused(const struct fp_folded *t,
						   int (*keep)(void *, uint64_t, uint64_t),
						   void *ctx)
{
	struct fp_flame_tree all, kept;

	fp_flame_tree_build(&all, t);
	fp_flame_tree_build_kept(&kept, t, keep, ctx);
	size_t k = 0;
	for (size_t i = 0; i < all.len; i++) {
		const struct fp_flame_node *n = &all.n[i];
		if (i && !keep(ctx, n->w, all.total))
			continue; /* a child is never wider than its parent */
		assert_true(k < kept.len);
		const struct fp_flame_node *m = &kept.n[k++];
		assert_int_equal(m->name_len, n->name_len);
		assert_memory_equal(m->name, n->name, n->name_len);
		assert_int_equal(m->depth, n->depth);
		assert_int_equal(m->x, n->x);
		assert_int_equal(m->w, n->w);
		assert_int_equal(m->self, n->self);
	}
	assert_int_equal(k, kept.len);
	assert_int_equal(kept.total, all.total);
	size_t dropped = all.len - kept.len;
	fp_flame_tree_free(&all);
	fp_flame_tree_free(&kept);
	return dropped;
}

/* The kept tree is the whole tree's nodes the rule keeps, in the same
 * order with the same places and counts; a narrow subtree before, between
 * and after wide siblings goes whole. */
static void a_kept_tree_is_the_whole_tree_without_the_narrow_frames(void **state)
{
	struct fp_folded t;

	fp_folded_init(&t);
	fp_folded_parse_buffer(&t,
			       LINE("a;n1;x;y 1\na;w;p;q 40\na;w;r 2\na 10\na;w 5\nb;n2;z 3\n"
				    "b;v 30\nc 1\nd;e;f;g 8\n"),
			       FP_FOLDED_REF);
	fp_folded_sort(&t);
	assert_true(assert_kept_is_whole_without_refused(&t, wider_than_5, NULL) > 0);
	fp_folded_free(&t);
}

static int at_least(void *ctx, uint64_t w, uint64_t total)
{
	(void)total;
	return w >= *(const uint64_t *)ctx;
}

/* The same on random tables: frames that are byte prefixes of others
 * ("a", "ab", "a-b": a shared byte run is not a shared frame), stacks
 * that are prefixes of others, zero counts, every threshold from keeping
 * all to keeping only the root. The builder skips the frames of a stack
 * that the next one does not share when its width alone is refused. */
static void a_kept_tree_drops_exactly_the_refused_frames_of_random_tables(void **state)
{
	static const char *const names[] = { "a", "ab", "a-b", "b", "ba", "c" };
	unsigned seed = 12345;
	size_t dropped = 0; /* nodes left out, over every table: the rule did cut */

	for (int round = 0; round < 300; round++) {
		struct fp_sink text;
		struct fp_folded t;
		int lines = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 40;

		fp_sink_init_mem(&text);
		for (int l = 0; l < lines; l++) {
			int depth = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 7;
			for (int d = 0; d < depth; d++) {
				seed = seed * 1103515245u + 12345u;
				if (d)
					fp_sink_char(&text, ';');
				fp_sink_str(&text, names[(seed >> 16) % 6]);
			}
			seed = seed * 1103515245u + 12345u;
			fp_sink_printf(&text, " %u\n", (seed >> 16) % 9);
		}
		fp_folded_init(&t);
		fp_folded_parse_buffer(&t, text.buf, text.len, FP_FOLDED_COPY);
		fp_folded_sort(&t);
		for (uint64_t min = 0; min <= t.total + 1; min += 1 + t.total / 7)
			dropped += assert_kept_is_whole_without_refused(&t, at_least, &min);
		fp_folded_free(&t);
		fp_sink_free(&text);
	}
	assert_true(dropped > 0);
}

static void an_empty_table_draws_no_samples_and_returns_1(void **state)
{
	struct fp_folded t;
	struct fp_flame_opts o;
	struct fp_sink s;

	fp_folded_init(&t);
	fp_flame_opts_init(&o);
	fp_sink_init_mem(&s);
	assert_int_equal(fp_flame_render(&s, &t, &o), 1);
	fp_sink_char(&s, '\0');
	assert_non_null(strstr(s.buf, "no samples"));
	fp_sink_free(&s);
	fp_folded_free(&t);
}

static void the_root_frame_is_the_total_and_minwidth_parses(void **state)
{
	struct fp_folded t;
	struct fp_flame_opts o;
	struct fp_sink s;

	fp_folded_init(&t);
	fp_folded_parse_buffer(&t, LINE("a;b 3\na;c 4\nd 1000\n"), FP_FOLDED_REF);
	fp_flame_opts_init(&o);
	fp_sink_init_mem(&s);
	assert_int_equal(fp_flame_render(&s, &t, &o), 0);
	fp_sink_char(&s, '\0');
	assert_non_null(strstr(
		s.buf, "<g fp:x=\"0\" fp:w=\"1007\"><title>all (1,007 samples, 100%)</title>"));
	assert_non_null(
		strstr(s.buf, "<g fp:x=\"0\" fp:w=\"7\"><title>a (7 samples, 0.70%)</title>"));
	fp_sink_free(&s);
	fp_folded_free(&t);
	assert_int_equal(fp_flame_parse_minwidth(&o, "2.5%"), 0);
	assert_true(o.minwidth_pct && o.minwidth == 2.5);
	assert_int_equal(fp_flame_parse_minwidth(&o, "3"), 0);
	assert_false(o.minwidth_pct);
	assert_int_equal(fp_flame_parse_minwidth(&o, "x"), -1);
	assert_int_equal(fp_flame_parse_minwidth(&o, "-1"), -1);
	assert_int_equal(fp_flame_check_bgcolors("#a0B1c2"), 0);
	assert_int_equal(fp_flame_check_bgcolors("#a0B1c"), -1);
	assert_int_equal(fp_flame_check_bgcolors("red"), -1);
}

/* fp_common_prefix (16, 8, then 1 byte a step) against a byte loop: a
 * difference at every position of strings of every length up to 40, and
 * the shorter of two equal prefixes. */
static void common_prefix_finds_the_first_difference_at_any_position(void **state)
{
	char a[48], b[48];

	for (size_t n = 0; n <= 40; n++) {
		memset(a, 'x', sizeof a);
		memset(b, 'x', sizeof b);
		assert_int_equal(fp_common_prefix(a, n, b, n), n);
		assert_int_equal(fp_common_prefix(a, n, b, n + 3), n);
		for (size_t at = 0; at < n; at++) {
			b[at] = 'y';
			assert_int_equal(fp_common_prefix(a, n, b, n), at);
			assert_int_equal(fp_common_prefix(b, n, a, 40), at);
			b[at] = 'x';
		}
	}
	assert_true(fp_stack_cmp(LINE("a;b"), LINE("a!")) < 0); /* ';' before every byte */
	assert_true(fp_stack_cmp(LINE("a;b;c"), LINE("a;b")) > 0);
	assert_int_equal(
		fp_stack_cmp(LINE("x;yyyyyyyyyyyyyyyyyyyyy"), LINE("x;yyyyyyyyyyyyyyyyyyyyy")), 0);
	assert_true(fp_stack_cmp(LINE("x;yyyyyyyyyyyyyyyyyyyyyz"),
				 LINE("x;yyyyyyyyyyyyyyyyyyyyy;")) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define HM(f) cmocka_unit_test_setup_teardown(f, heatmap_empty, heatmap_free)
		HM(heatmap_storage_is_sparse_far_columns_cost_one_cell),
		HM(heatmap_axis_is_whole_when_small_and_cut_to_the_columns_with_samples),
		HM(heatmap_onto_moves_cells_onto_the_other_axis_and_pins_it),
		HM(heatmap_onto_a_cut_axis_pins_its_columns),
		cmocka_unit_test(xml_escape_writes_entities_for_markup_characters),
		cmocka_unit_test(xml_escape_replaces_bad_utf8_and_control_bytes),
		cmocka_unit_test(json_escape_makes_strings_safe_inside_html_and_cdata),
		cmocka_unit_test(sink_formats_numbers_exactly),
		cmocka_unit_test(a_file_sink_writes_a_large_block_without_holding_it),
		cmocka_unit_test(a_frame_sorts_before_its_children_and_siblings_by_name),
		cmocka_unit_test(sort_is_frame_wise_and_stable_across_runs),
		cmocka_unit_test(folded_lines_parse_with_one_or_two_counts),
		cmocka_unit_test(malformed_folded_lines_are_counted_with_the_first_line_number),
		cmocka_unit_test(merge_sums_identical_stacks_and_reverse_flips_frames),
		cmocka_unit_test(diff_is_the_union_and_elided_what_only_a_has),
		HM(heatmap_cells_are_bounded_and_reset_by_geometry),
		cmocka_unit_test(heatmap_colour_is_white_to_red_and_rounds_like_the_script),
		cmocka_unit_test(flame_colours_are_name_hashes_by_code_type),
		cmocka_unit_test(an_empty_table_draws_no_samples_and_returns_1),
		cmocka_unit_test(frames_merge_only_where_whole_frames_are_shared),
		cmocka_unit_test(a_kept_tree_is_the_whole_tree_without_the_narrow_frames),
		cmocka_unit_test(a_kept_tree_drops_exactly_the_refused_frames_of_random_tables),
		cmocka_unit_test(the_root_frame_is_the_total_and_minwidth_parses),
		cmocka_unit_test(common_prefix_finds_the_first_difference_at_any_position),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
