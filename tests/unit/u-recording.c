/* u-recording.c: live recording members, index and retention options
 * (recording/fp_recording.c). */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "fp_recording.h"

static const char TEXT1[] = "%flamepipe\t1\nS\t1500000000\t1\t1\t0\t1\tc\tapp\tu\tmain\n";
static const char TEXT2[] = "%flamepipe\t1\nS\t2100000000\t1\t1\t0\t1\tc\tapp\tu\tf\n"
			    "S\t2200000000\t1\t1\t0\t1\tc\tapp\tu\tg\n";

/* A temporary file holding the members of texts (with their time spans). */
static int file_of(const char *const *texts, const uint64_t (*span)[2], size_t n)
{
	char path[] = "/tmp/u-recording.XXXXXX";
	int fd = mkstemp(path);
	uint64_t off = 0;

	assert_true(fd >= 0);
	unlink(path);
	for (size_t i = 0; i < n; i++) {
		struct fp_rec_member m = { .offset = off,
					   .min_ns = span[i][0],
					   .max_ns = span[i][1],
					   .samples = i + 1,
					   .seq = i };
		unsigned char *b = fp_rec_encode(texts[i], strlen(texts[i]), &m, 6);

		assert_int_equal(write(fd, b, m.length), (ssize_t)m.length);
		off += m.length;
		free(b);
	}
	return fd;
}

static const uint64_t SPANS[2][2] = { { 1500000000, 1500000000 }, { 2100000000, 2200000000 } };

/* The fixture of the index tests: a recording of TEXT1 and TEXT2 (spans
 * SPANS) in a temporary file, and an index to scan it into. */
struct recording {
	int fd;
	struct fp_rec_index ix;
};

static int two_members(void **state)
{
	static const char *const texts[] = { TEXT1, TEXT2 };
	struct recording *r = calloc(1, sizeof *r);

	if (!r)
		return -1;
	r->fd = file_of(texts, SPANS, 2);
	*state = r;
	return 0;
}

static int recording_free(void **state)
{
	struct recording *r = *state;

	fp_rec_index_free(&r->ix);
	close(r->fd);
	free(r);
	return 0;
}

static void a_member_is_valid_gzip_that_inflates_to_its_text(void **state)
{
	struct fp_rec_member m = { .min_ns = 1, .max_ns = 2, .samples = 1 };
	unsigned char *b = fp_rec_encode(TEXT1, sizeof TEXT1 - 1, &m, 6);
	char out[256];
	z_stream z;

	memset(&z, 0, sizeof z);
	assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK); /* plain gzip */
	z.next_in = b;
	z.avail_in = (uInt)m.length;
	z.next_out = (Bytef *)out;
	z.avail_out = sizeof out;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	assert_int_equal(z.total_out, sizeof TEXT1 - 1);
	assert_memory_equal(out, TEXT1, sizeof TEXT1 - 1);
	assert_int_equal(z.avail_in, 0); /* its length is the member's */
	inflateEnd(&z);
	free(b);
}

static void the_headers_are_the_time_index(void **state)
{
	struct recording *r = *state;

	assert_true(fp_rec_is_recording(r->fd));
	assert_int_equal(fp_rec_scan(r->fd, &r->ix), 0);
	assert_int_equal(r->ix.n, 2);
	assert_false(r->ix.truncated);
	assert_true(r->ix.m[0].offset == 0 && r->ix.m[1].offset == r->ix.m[0].length);
	assert_true(r->ix.m[1].min_ns == 2100000000 && r->ix.m[1].max_ns == 2200000000);
	assert_true(r->ix.m[1].samples == 2 && r->ix.m[1].seq == 1);
	assert_true(fp_rec_base_sec(&r->ix) == 1);
	assert_int_equal(fp_rec_first_from(&r->ix, 2000000000), 1);
	assert_int_equal(fp_rec_first_from(&r->ix, 9000000000), 2);
}

static void a_member_cut_off_ends_the_index_and_a_rescan_picks_up_new_ones(void **state)
{
	struct recording *r = *state;
	off_t full = lseek(r->fd, 0, SEEK_END);

	assert_int_equal(ftruncate(r->fd, full - 3), 0);
	assert_int_equal(fp_rec_scan(r->fd, &r->ix), 0);
	assert_int_equal(r->ix.n, 1);
	assert_true(r->ix.truncated);
	assert_int_equal(ftruncate(r->fd, full), 0); /* the writer finished it */
	lseek(r->fd, 0, SEEK_END);
	assert_int_equal(fp_rec_scan(r->fd, &r->ix), 0);
	assert_int_equal(r->ix.n, 2);
	assert_false(r->ix.truncated);
}

static void a_damaged_member_is_an_error_not_a_crash(void **state)
{
	const char *texts[] = { TEXT2 };
	int fd = file_of(texts, SPANS + 1, 1);
	struct fp_rec_index ix = { 0 };
	char err[256], *buf = NULL;
	size_t cap = 0;

	assert_int_equal(fp_rec_scan(fd, &ix), 0);
	assert_int_equal(pwrite(fd, "XXXX", 4, FP_REC_HEADER_BYTES + 2), 4);
	assert_true(fp_rec_read_member(fd, &ix.m[0], &buf, &cap, err, sizeof err) < 0);
	assert_non_null(strstr(err, "damaged"));
	free(buf);
	fp_rec_index_free(&ix);
	close(fd);
}

static void a_leading_hole_from_retention_is_skipped(void **state)
{
	struct recording *r = *state;
	char zeros[4096] = { 0 };

	assert_int_equal(fp_rec_scan(r->fd, &r->ix), 0);
	uint64_t second = r->ix.m[1].offset;
	fp_rec_index_free(&r->ix);
	/* what PUNCH_HOLE leaves: the first member reads as zeros */
	assert_int_equal(pwrite(r->fd, zeros, second, 0), (ssize_t)second);
	assert_true(fp_rec_is_recording(r->fd));
	assert_int_equal(fp_rec_scan(r->fd, &r->ix), 0);
	assert_int_equal(r->ix.n, 1);
	assert_true(r->ix.start == second && r->ix.m[0].min_ns == 2100000000);
}

static void other_files_are_not_recordings(void **state)
{
	char path[] = "/tmp/u-recording.XXXXXX";
	int fd = mkstemp(path);
	gzFile gz;

	unlink(path);
	assert_false(fp_rec_is_recording(fd)); /* empty */
	gz = gzdopen(dup(fd), "wb");
	gzputs(gz, "perf 1 [000] 1.000000: cpu-clock:\n");
	gzclose(gz);
	assert_false(fp_rec_is_recording(fd)); /* plain gzip */
	close(fd);
}

/* Three members (TEXT1, TEXT2, TEXT1 again) for the damage tests. */
static int three_members(void **state)
{
	static const char *const texts[] = { TEXT1, TEXT2, TEXT1 };
	static const uint64_t spans[3][2] = { { 1500000000, 1500000000 },
					      { 2100000000, 2200000000 },
					      { 3500000000, 3500000000 } };
	struct recording *r = calloc(1, sizeof *r);

	if (!r)
		return -1;
	r->fd = file_of(texts, spans, 3);
	*state = r;
	return 0;
}

/* Offset of member i, from a clean scan. */
static uint64_t member_offset(int fd, size_t i)
{
	struct fp_rec_index ix = { 0 };

	assert_int_equal(fp_rec_scan(fd, &ix), 0);
	uint64_t off = ix.m[i].offset;
	fp_rec_index_free(&ix);
	return off;
}

static void a_bad_header_is_passed_over_and_counted(void **state)
{
	struct recording *r = *state;
	uint64_t off = member_offset(r->fd, 1), next = member_offset(r->fd, 2);

	assert_int_equal(pwrite(r->fd, "XX", 2, (off_t)off), 2);
	assert_int_equal(fp_rec_scan(r->fd, &r->ix), 0);
	assert_int_equal(r->ix.n, 2);
	assert_false(r->ix.truncated);
	assert_true(r->ix.m[1].offset == next && r->ix.m[1].seq == 2);
	assert_true(r->ix.skips.regions == 1 && r->ix.skips.members == 1);
	assert_true(r->ix.skips.bytes == next - off && r->ix.skips.first_at == off);
}

static void a_length_that_lies_is_ended_by_the_next_good_header(void **state)
{
	struct recording *r = *state;
	uint64_t next = member_offset(r->fd, 1);
	unsigned char len[8];

	fp_rec_put_le(len, next + 10, 8); /* member 0 claims 10 bytes of member 1 */
	assert_int_equal(pwrite(r->fd, len, 8, 16 + 8), 8);
	assert_int_equal(fp_rec_scan(r->fd, &r->ix), 0);
	assert_int_equal(r->ix.n, 2);
	assert_true(r->ix.m[0].offset == next && r->ix.m[0].seq == 1);
	assert_true(r->ix.skips.regions == 1 && r->ix.skips.bytes == next);
}

static void times_out_of_order_or_out_of_span_are_refused(void **state)
{
	struct recording *r = *state;
	uint64_t off = member_offset(r->fd, 1);
	unsigned char t[8];

	fp_rec_put_le(t, UINT64_C(1) << 62, 8); /* max_ns: a century after the start */
	assert_int_equal(pwrite(r->fd, t, 8, (off_t)off + 16 + 24), 8);
	assert_int_equal(fp_rec_scan(r->fd, &r->ix), 0);
	assert_int_equal(r->ix.n, 2);
	assert_true(r->ix.m[1].min_ns == 3500000000);
	fp_rec_index_free(&r->ix);
	fp_rec_put_le(t, 2300000000, 8); /* max_ns back, min_ns after it */
	assert_int_equal(pwrite(r->fd, t, 8, (off_t)off + 16 + 16), 8);
	fp_rec_put_le(t, 2200000000, 8);
	assert_int_equal(pwrite(r->fd, t, 8, (off_t)off + 16 + 24), 8);
	assert_int_equal(fp_rec_scan(r->fd, &r->ix), 0);
	assert_int_equal(r->ix.n, 2);
}

/* The recorder (stages/fp-record.c) and the readers share this rule. */
static void the_span_is_a_year_of_sample_time_its_bound_included(void **state)
{
	const uint64_t t0 = 1000;

	assert_true(fp_rec_within_span(t0, t0));
	assert_true(fp_rec_within_span(t0, t0 + FP_REC_SPAN_MAX));
	assert_false(fp_rec_within_span(t0, t0 + FP_REC_SPAN_MAX + 1));
	assert_false(fp_rec_within_span(0, UINT64_MAX));
	/* before the first: not this rule's matter */
	assert_true(fp_rec_within_span(t0, t0 - 1));
}

static void count_lines(void *ctx, char *line, size_t len)
{
	(void)line;
	(void)len;
	(*(int *)ctx)++;
}

static void an_unreadable_member_is_skipped_and_the_rest_read(void **state)
{
	struct recording *r = *state;
	uint64_t next = member_offset(r->fd, 1);
	struct fp_rec_skips bad = { 0 };
	char err[256];
	int lines = 0;

	/* member 0's CRC */
	assert_int_equal(pwrite(r->fd, "\1\2\3\4", 4, (off_t)next - 8), 4);
	assert_int_equal(fp_rec_scan(r->fd, &r->ix), 0);
	assert_int_equal(r->ix.n, 3);
	assert_int_equal(fp_rec_each_line(r->fd, &r->ix, 0, UINT64_MAX, count_lines, &lines, &bad,
					  err, sizeof err),
			 1);
	assert_int_equal(lines, 3 + 2); /* TEXT2 and TEXT1: header and samples */
	assert_true(bad.members == 1 && bad.samples == 1 && bad.first_at == 0);
	assert_non_null(strstr(err, "damaged"));
}

static void sizes_and_durations_parse_with_their_suffixes(void **state)
{
	uint64_t v;

	assert_int_equal(fp_rec_parse_size("64k", &v), 0);
	assert_true(v == 65536);
	assert_int_equal(fp_rec_parse_size("2G", &v), 0);
	assert_true(v == 2ull << 30);
	assert_int_equal(fp_rec_parse_size("100", &v), 0);
	assert_true(v == 100);
	assert_int_equal(fp_rec_parse_size("0", &v), -1);
	assert_int_equal(fp_rec_parse_size("10Q", &v), -1);
	assert_int_equal(fp_rec_parse_size("-5", &v), -1);
	assert_int_equal(fp_rec_parse_duration("90", &v), 0);
	assert_true(v == 90000000000ull);
	assert_int_equal(fp_rec_parse_duration("10m", &v), 0);
	assert_true(v == 600000000000ull);
	assert_int_equal(fp_rec_parse_duration("2h", &v), 0);
	assert_true(v == 7200000000000ull);
	assert_int_equal(fp_rec_parse_duration("1d", &v), 0);
	assert_int_equal(fp_rec_parse_duration("0s", &v), -1);
	assert_int_equal(fp_rec_parse_duration("5x", &v), -1);
	assert_int_equal(fp_rec_parse_duration("", &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_member_is_valid_gzip_that_inflates_to_its_text),
		cmocka_unit_test_setup_teardown(the_headers_are_the_time_index, two_members,
						recording_free),
		cmocka_unit_test_setup_teardown(
			a_member_cut_off_ends_the_index_and_a_rescan_picks_up_new_ones, two_members,
			recording_free),
		cmocka_unit_test(a_damaged_member_is_an_error_not_a_crash),
		cmocka_unit_test_setup_teardown(a_leading_hole_from_retention_is_skipped,
						two_members, recording_free),
		cmocka_unit_test(other_files_are_not_recordings),
		cmocka_unit_test_setup_teardown(a_bad_header_is_passed_over_and_counted,
						three_members, recording_free),
		cmocka_unit_test_setup_teardown(a_length_that_lies_is_ended_by_the_next_good_header,
						three_members, recording_free),
		cmocka_unit_test_setup_teardown(times_out_of_order_or_out_of_span_are_refused,
						three_members, recording_free),
		cmocka_unit_test(the_span_is_a_year_of_sample_time_its_bound_included),
		cmocka_unit_test_setup_teardown(an_unreadable_member_is_skipped_and_the_rest_read,
						three_members, recording_free),
		cmocka_unit_test(sizes_and_durations_parse_with_their_suffixes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
