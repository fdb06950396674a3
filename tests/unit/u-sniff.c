/* u-sniff.c: capture kind by content (fifo/fp_sniff.c): what report and
 * fp-serve use to pick fp-read or fp-chrome. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "fp_sniff.h"

/* A temporary file holding n bytes of p (gzip'd if gz); its fd. */
static int file_with(const char *p, size_t n, int gz)
{
	char path[] = "/tmp/u-sniff.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	if (gz) {
		gzFile g = gzdopen(dup(fd), "wb");

		assert_non_null(g);
		assert_int_equal(gzwrite(g, p, (unsigned)n), (int)n);
		gzclose(g);
	} else {
		assert_int_equal(write(fd, p, n), (ssize_t)n);
	}
	return fd;
}

static enum fp_capture_kind kind_of(const char *text, int gz)
{
	int fd = file_with(text, strlen(text), gz);
	enum fp_capture_kind k = fp_sniff_fd(fd);

	close(fd);
	return k;
}

static void perf_script_text_is_perf(void **state)
{
	assert_int_equal(kind_of("clockloop  4330 [001]   156.084908:   20408163 cpu-clock:ppp: \n"
				 "\t    7f3a main (/usr/bin/clockloop)\n",
				 0),
			 FP_CAPTURE_PERF);
	assert_int_equal(kind_of("# ========\n# captured on: x\n", 0), FP_CAPTURE_PERF);
}

static void a_cpuprofile_and_trace_events_are_chrome(void **state)
{
	assert_int_equal(kind_of("{\"nodes\":[{\"id\":1}],\"samples\":[]}", 0), FP_CAPTURE_CHROME);
	assert_int_equal(kind_of("  \n\t{ \"traceEvents\": [] }", 0), FP_CAPTURE_CHROME);
	assert_int_equal(kind_of("[{\"name\":\"Profile\"}]", 0), FP_CAPTURE_CHROME);
	assert_int_equal(kind_of("[ ]", 0), FP_CAPTURE_CHROME);
	assert_int_equal(kind_of("\xef\xbb\xbf{\"nodes\":[]}", 0), FP_CAPTURE_CHROME); /* BOM */
}

static void gzip_is_looked_through(void **state)
{
	assert_int_equal(kind_of("{\"nodes\":[],\"samples\":[]}", 1), FP_CAPTURE_CHROME);
	assert_int_equal(kind_of("sleep 1 [000] 1.0: 1 cpu-clock: \n", 1), FP_CAPTURE_PERF);
}

static void text_that_only_starts_like_json_is_perf(void **state)
{
	/* a comm in brackets or braces is not JSON */
	assert_int_equal(kind_of("[kworker/0:1] 12 [000] 1.0: 1 cpu-clock: \n", 0),
			 FP_CAPTURE_PERF);
	assert_int_equal(kind_of("{weird} 12 [000] 1.0: 1 cpu-clock: \n", 0), FP_CAPTURE_PERF);
}

static void empty_and_unreadable_files_are_perf(void **state)
{
	assert_int_equal(kind_of("", 0), FP_CAPTURE_PERF);
	assert_int_equal(fp_sniff_fd(-1), FP_CAPTURE_PERF);
	assert_int_equal(fp_sniff_path("/nonexistent/x"), FP_CAPTURE_PERF);
	assert_string_equal(fp_sniff_reader(FP_CAPTURE_CHROME), "fp-chrome");
	assert_string_equal(fp_sniff_reader(FP_CAPTURE_PERF), "fp-read");
}

static enum fp_capture_kind listed_as(const char *text, int gz)
{
	int fd = file_with(text, strlen(text), gz);
	struct fp_sniffed k = fp_sniff_profile(fd);

	close(fd);
	return k.kind;
}

/* The profile list: a Chrome profile by its structure, not any JSON. */
static void the_listing_knows_chrome_json_by_its_structure(void **state)
{
	assert_int_equal(listed_as("{\"nodes\":[{\"id\":1,\"callFrame\":{}}],\"samples\":[1]}", 0),
			 FP_CAPTURE_CHROME);
	assert_int_equal(listed_as("{\"nodes\": [], \"timeDeltas\": []}", 1), FP_CAPTURE_CHROME);
	assert_int_equal(listed_as("\xef\xbb\xbf { \"traceEvents\" : [] }", 0), FP_CAPTURE_CHROME);
	assert_int_equal(listed_as("[{\"name\":\"Profile\",\"ph\":\"P\",\"ts\":1}]", 0),
			 FP_CAPTURE_CHROME);
	/* a report's heatmap.json and other JSON are not profiles */
	assert_int_equal(listed_as("{\"columns\":[0,1],\"rows\":50,\"values\":[[1]],"
				   "\"maxvalue\":1,\"dropped\":0}",
				   0),
			 FP_CAPTURE_NONE);
	assert_int_equal(listed_as("{\"name\":\"nodes\",\"samples\":\"traceEvents\"}", 0),
			 FP_CAPTURE_NONE); /* the words as values, not keys */
	assert_int_equal(listed_as("{\"nodes\":[]}", 0), FP_CAPTURE_NONE);
	assert_int_equal(listed_as("[{\"name\":\"x\"}]", 0), FP_CAPTURE_NONE);
	assert_int_equal(listed_as("[ ]", 0), FP_CAPTURE_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(perf_script_text_is_perf),
		cmocka_unit_test(a_cpuprofile_and_trace_events_are_chrome),
		cmocka_unit_test(gzip_is_looked_through),
		cmocka_unit_test(text_that_only_starts_like_json_is_perf),
		cmocka_unit_test(empty_and_unreadable_files_are_perf),
		cmocka_unit_test(the_listing_knows_chrome_json_by_its_structure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
