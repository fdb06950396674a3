/* u-io.c: the line pump (fifo/fp_io.c): framing, limits, gzip, pipes. */
#include "unit.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "fp_error.h"
#include "fp_io.h"

/* Collects delivered lines as "len:text\n" into a buffer. */
struct collect {
	char *text;
	size_t len;
	int eofs, idles, too_long;
	uint64_t too_long_line;
};

static void add(struct collect *c, const char *s, size_t n)
{
	c->text = realloc(c->text, c->len + n + 1);
	memcpy(c->text + c->len, s, n);
	c->len += n;
	c->text[c->len] = '\0';
}

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	struct collect *c = p->ctx;
	char tmp[32];

	assert_int_equal(line[len], '\0');
	snprintf(tmp, sizeof tmp, "%zu:", len);
	add(c, tmp, strlen(tmp));
	add(c, line, len > 16 ? 16 : len);
	add(c, "\n", 1);
	fp_out_write(&p->out, line, len);
	fp_out_char(&p->out, '\n');
}

static void on_eof(struct fp_pump *p)
{
	((struct collect *)p->ctx)->eofs++;
}
static void on_idle(struct fp_pump *p)
{
	((struct collect *)p->ctx)->idles++;
}
static void on_too_long(struct fp_pump *p, uint64_t lineno)
{
	struct collect *c = p->ctx;

	c->too_long++;
	c->too_long_line = lineno;
}

static const struct fp_pump_ops ops = { on_line, on_eof, on_idle, on_too_long };

static int tmpfile_with(const void *data, size_t n)
{
	char path[] = "/tmp/u-io.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	lseek(fd, 0, SEEK_SET);
	return fd;
}

static int devnull(void)
{
	return open("/dev/null", O_WRONLY);
}

static int pump_fd(int in, struct collect *c, int flags)
{
	struct fp_pump p;
	int out = devnull();

	fp_pump_init(&p, EV_DEFAULT, in, out, &ops, c, flags);
	int rc = fp_pump_run(&p);
	close(out);
	close(in);
	return rc;
}

static void lines_are_split_and_a_last_line_without_lf_is_kept(void **state)
{
	struct collect c = { 0 };
	const char in[] = "a\nbb\n\nccc";

	assert_int_equal(pump_fd(tmpfile_with(in, sizeof in - 1), &c, 0), 0);
	assert_string_equal(c.text, "1:a\n2:bb\n0:\n3:ccc\n");
	assert_int_equal(c.eofs, 1);
	free(c.text);
}

static void empty_input_gives_eof_and_no_line(void **state)
{
	struct collect c = { 0 };

	assert_int_equal(pump_fd(tmpfile_with("", 0), &c, 0), 0);
	assert_null(c.text);
	assert_int_equal(c.eofs, 1);
}

static void a_line_exactly_at_the_limit_is_delivered(void **state)
{
	struct collect c = { 0 };
	size_t n = FP_LINE_MAX; /* LF included */
	char *in = malloc(n);

	memset(in, 'x', n - 1);
	in[n - 1] = '\n';
	assert_int_equal(pump_fd(tmpfile_with(in, n), &c, 0), 0);
	assert_int_equal(c.too_long, 0);
	assert_int_equal(atoi(c.text), (int)(n - 1));
	free(in);
	free(c.text);
}

static void a_line_over_the_limit_is_skipped_and_reported_with_its_number(void **state)
{
	struct collect c = { 0 };
	size_t big = FP_LINE_MAX + 10;
	size_t n = 2 + big + 1 + 2;
	char *in = malloc(n);

	memcpy(in, "a\n", 2);
	memset(in + 2, 'y', big);
	in[2 + big] = '\n';
	memcpy(in + 3 + big, "b\n", 2);
	assert_int_equal(pump_fd(tmpfile_with(in, n), &c, 0), 0);
	assert_int_equal(c.too_long, 1);
	assert_int_equal(c.too_long_line, 2);
	assert_string_equal(c.text, "1:a\n1:b\n");
	free(in);
	free(c.text);
}

static void a_huge_last_line_without_lf_is_skipped_not_delivered(void **state)
{
	struct collect c = { 0 };
	size_t n = 3 * FP_LINE_MAX;
	char *in = malloc(n);

	memset(in, 'z', n);
	assert_int_equal(pump_fd(tmpfile_with(in, n), &c, 0), 0);
	assert_int_equal(c.too_long, 1);
	assert_null(c.text);
	free(in);
}

static size_t gzip_into(char *dst, size_t cap, const char *src, size_t n)
{
	z_stream zs = { 0 };

	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)src;
	zs.avail_in = (uInt)n;
	zs.next_out = (Bytef *)dst;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	size_t out = cap - zs.avail_out;
	deflateEnd(&zs);
	return out;
}

static void gzip_input_with_two_members_reads_like_plain_text(void **state)
{
	struct collect c = { 0 };
	char gz[512];
	size_t n = gzip_into(gz, sizeof gz, "one\ntwo\n", 8);

	n += gzip_into(gz + n, sizeof gz - n, "three\n", 6);
	assert_int_equal(pump_fd(tmpfile_with(gz, n), &c, FP_PUMP_GZIP), 0);
	assert_string_equal(c.text, "3:one\n3:two\n5:three\n");
	free(c.text);
}

static void truncated_gzip_keeps_lines_before_and_returns_data_error(void **state)
{
	struct collect c = { 0 };
	char gz[4096], text[2000];

	for (size_t i = 0; i < sizeof text; i++)
		text[i] = (i % 50 == 49) ? '\n' : (char)('a' + i % 26);
	size_t n = gzip_into(gz, sizeof gz, text, sizeof text);
	assert_int_equal(pump_fd(tmpfile_with(gz, n - 12), &c, FP_PUMP_GZIP), FP_EXIT_DATA);
	assert_int_equal(c.eofs, 1);
	free(c.text);
}

static void gzip_magic_is_ignored_without_the_flag(void **state)
{
	struct collect c = { 0 };
	const char in[] = "\x1f\x8b\n";

	assert_int_equal(pump_fd(tmpfile_with(in, 3), &c, 0), 0);
	assert_string_equal(c.text, "2:\x1f\x8b\n");
	free(c.text);
}

static void pipe_input_in_small_pieces_is_reassembled_and_goes_idle(void **state)
{
	struct collect c = { 0 };
	int fds[2];

	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		const char *parts[] = { "par", "tial\nli", "ne2\n", "end" };
		for (int i = 0; i < 4; i++) {
			if (write(fds[1], parts[i], strlen(parts[i])) < 0)
				_exit(1);
			usleep(20000);
		}
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(pump_fd(fds[0], &c, FP_PUMP_GZIP), 0);
	waitpid(pid, NULL, 0);
	assert_string_equal(c.text, "7:partial\n5:line2\n3:end\n");
	assert_true(c.idles >= 1);
	free(c.text);
}

static void nul_bytes_inside_a_line_are_delivered_with_the_line(void **state)
{
	struct collect c = { 0 };
	const char in[] = "a\0b\n";

	assert_int_equal(pump_fd(tmpfile_with(in, 4), &c, 0), 0);
	assert_int_equal(c.len, 6); /* "3:a\0b\n" */
	free(c.text);
}

/* Records written into a small pipe that a slow reader drains: partial
 * writes, retries after a full pipe, moving the rest to the front and the
 * blocking wait past FP_OUT_HARD all keep every byte, in order. */
static void output_into_a_full_pipe_keeps_every_byte_in_order(void **state)
{
	enum { RECORDS = 200000 }; /* ~12 MB: past FP_OUT_HARD */
	int fds[2], status;
	char line[128];

	assert_int_equal(pipe(fds), 0);
	(void)fcntl(fds[0], F_SETPIPE_SZ, 4096);
	pid_t pid = fork();
	if (pid == 0) { /* the reader: small reads, each line checked */
		close(fds[1]);
		FILE *f = fdopen(fds[0], "r");
		unsigned long want = 0, got, pad;
		char tail[128];

		setvbuf(f, NULL, _IOFBF, 512);
		while (fscanf(f, "%lu %lu %127s\n", &got, &pad, tail) == 3) {
			if (got != want || strlen(tail) != pad)
				_exit(1);
			want++;
		}
		_exit(want == RECORDS ? 0 : 2);
	}
	close(fds[0]);
	struct fp_out o;

	fp_out_init(&o, NULL, fds[1]);
	for (unsigned long i = 0; i < RECORDS; i++) {
		size_t pad = 1 + i % 97;
		int n = snprintf(line, sizeof line, "%lu %zu ", i, pad);

		memset(line + n, 'x', pad);
		line[n + pad] = '\n';
		fp_out_write(&o, line, (size_t)n + pad + 1);
	}
	fp_out_flush_all(&o);
	assert_int_equal(o.len, 0);
	fp_out_free(&o);
	close(fds[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_are_split_and_a_last_line_without_lf_is_kept),
		cmocka_unit_test(empty_input_gives_eof_and_no_line),
		cmocka_unit_test(a_line_exactly_at_the_limit_is_delivered),
		cmocka_unit_test(a_line_over_the_limit_is_skipped_and_reported_with_its_number),
		cmocka_unit_test(a_huge_last_line_without_lf_is_skipped_not_delivered),
		cmocka_unit_test(gzip_input_with_two_members_reads_like_plain_text),
		cmocka_unit_test(truncated_gzip_keeps_lines_before_and_returns_data_error),
		cmocka_unit_test(gzip_magic_is_ignored_without_the_flag),
		cmocka_unit_test(pipe_input_in_small_pieces_is_reassembled_and_goes_idle),
		cmocka_unit_test(nul_bytes_inside_a_line_are_delivered_with_the_line),
		cmocka_unit_test(output_into_a_full_pipe_keeps_every_byte_in_order),
	};

	fp_set_prog("u-io");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
