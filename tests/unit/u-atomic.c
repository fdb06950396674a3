/* u-atomic.c: render/atomic.c, a set of files written whole, two at a
 * time (the order, costliest first, is a matter of speed: not seen here);
 * and fp-render's cost of each file (render/renderopts.c), which orders
 * them. */
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "renderopts.h"

#define WAIT_S 10 /* a fill waits this long at most for another to run */

static char dir[] = "/tmp/u-atomic.XXXXXX";

static int fresh_dir(void **state)
{
	assert_non_null(mkdtemp(strcpy(dir, "/tmp/u-atomic.XXXXXX")));
	return 0;
}

static int remove_dir(void **state)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[600];

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))) {
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
	return 0;
}

/* ---- fills --------------------------------------------------------------- */

static void fill_name(void *ctx, struct fp_sink *s)
{
	fp_sink_str(s, ctx);
	fp_sink_char(s, '\n');
}

/* The costliest file's fill waits until the cheap one's has run: it ends
 * (and the set with it) only if another thread wrote that one meanwhile. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int small_done, big_saw_small;

static void fill_waiting(void *ctx, struct fp_sink *s)
{
	struct timespec until;

	fill_name(ctx, s);
	pthread_mutex_lock(&lock);
	if (strcmp(ctx, "small") == 0) {
		small_done = 1;
		pthread_cond_broadcast(&cond);
	} else if (strcmp(ctx, "big") == 0) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += WAIT_S;
		while (!small_done && pthread_cond_timedwait(&cond, &lock, &until) == 0)
			;
		big_saw_small = small_done;
	}
	pthread_mutex_unlock(&lock);
}

static char *read_file(const char *name)
{
	char path[600], *buf = calloc(1, 256);
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "r"))) {
		free(buf);
		return NULL;
	}
	size_t n = fread(buf, 1, 255, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* ---- tests --------------------------------------------------------------- */

static void every_wanted_file_is_written_whole_and_no_other(void **state)
{
	struct fp_atomic_file f[] = {
		{ .name = "a.txt", .wanted = 1, .ctx = "a", .cost = 1 },
		{ .name = "b.txt", .wanted = 0, .ctx = "b", .cost = 100 },
		{ .name = "c.txt", .wanted = 1, .ctx = "c", .cost = 50 },
		{ .name = "d.txt", .wanted = 1, .ctx = "d", .cost = 50 },
	};
	char *s;

	fp_write_atomic_set(dir, 0644, f, 4, fill_name);
	for (int i = 0; i < 4; i++) {
		s = read_file(f[i].name);
		if (!f[i].wanted) {
			assert_null(s);
			continue;
		}
		assert_int_equal(f[i].rc, 0);
		assert_non_null(s);
		assert_int_equal(s[0], ((const char *)f[i].ctx)[0]);
		free(s);
	}
	DIR *d = opendir(dir); /* no temporary file is left */
	struct dirent *e;
	int files = 0;
	while ((e = readdir(d)))
		files += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(files, 3);
}

static void two_files_are_written_at_once(void **state)
{
	struct fp_atomic_file f[] = {
		{ .name = "small", .wanted = 1, .ctx = "small", .cost = 1 },
		{ .name = "big", .wanted = 1, .ctx = "big", .cost = 1000 },
	};

	small_done = big_saw_small = 0;
	fp_write_atomic_set(dir, 0644, f, 2, fill_waiting);
	assert_true(big_saw_small);
	assert_int_equal(f[0].rc, 0);
	assert_int_equal(f[1].rc, 0);
}

static void a_failed_write_is_each_files_own_error(void **state)
{
	struct fp_atomic_file f[] = {
		{ .name = "x", .wanted = 1, .ctx = "x", .cost = 1 },
		{ .name = "y", .wanted = 1, .ctx = "y", .cost = 2 },
		{ .name = "z", .wanted = 0, .ctx = "z", .cost = 3 },
	};

	fp_write_atomic_set("/nonexistent/dir", 0644, f, 3, fill_name);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(f[i].rc, -1);
		assert_int_equal(f[i].err, ENOENT);
		assert_non_null(strstr(f[i].path, "/nonexistent/dir/"));
	}
	assert_int_equal(f[2].rc, 0); /* not attempted */
}

static int count_entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* A re-render: the old file is replaced whole (names exchanged where the
 * file system can), its inode goes, no temporary name is left. */
static void a_file_written_again_replaces_the_old_one_and_leaves_nothing_else(void **state)
{
	char path[600], *s;
	struct stat before, after;

	for (int round = 0; round < 3; round++) {
		const char *text = round % 2 ? "second" : "first";

		assert_int_equal(fp_write_atomic(dir, "f.txt", 0644, fill_name, (void *)text, path,
						 sizeof path),
				 0);
		s = read_file("f.txt");
		assert_non_null(s);
		assert_string_equal(s, round % 2 ? "second\n" : "first\n");
		free(s);
		assert_int_equal(count_entries(), 1);
		assert_int_equal(stat(path, &after), 0);
		if (round)
			assert_true(after.st_ino != before.st_ino);
		before = after;
	}
	assert_int_equal(after.st_mode & 07777, 0644);
}

/* Something other than a regular file at the name is never swapped away:
 * the write fails as rename() fails, and the directory stays. */
static void a_directory_at_the_name_is_left_alone(void **state)
{
	char path[600], sub[600];
	struct stat st;

	snprintf(sub, sizeof sub, "%s/f.txt", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(fp_write_atomic(dir, "f.txt", 0644, fill_name, "x", path, sizeof path),
			 -1);
	assert_int_equal(errno, EISDIR);
	assert_int_equal(stat(sub, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(count_entries(), 1); /* the temporary file went */
	rmdir(sub);
}

/* On the bench perf.data's sizes flame.svg is the costliest, then
 * index.html, then stacks.folded, then the heatmap files. */
static void fp_renders_costs_put_the_flame_graph_first_on_a_big_capture(void **state)
{
	const struct fp_output_size bench = {
		.table_bytes = 10671710, .samples = 119215, .frames = 742743, .cells = 818
	};
	const struct fp_output_size few_stacks = {
		.table_bytes = 2000, .samples = 1000000, .frames = 300, .cells = 30000
	};

	assert_true(fp_output_cost(FP_OUT_FLAME_SVG, &bench) > fp_output_cost(FP_OUT_HTML, &bench));
	assert_true(fp_output_cost(FP_OUT_HTML, &bench) > fp_output_cost(FP_OUT_FOLDED, &bench));
	assert_true(fp_output_cost(FP_OUT_FOLDED, &bench) > fp_output_cost(FP_OUT_TSV, &bench));
	/* a long capture of few stacks: its timeline is what takes long */
	assert_true(fp_output_cost(FP_OUT_HTML, &few_stacks) >
		    fp_output_cost(FP_OUT_FLAME_SVG, &few_stacks));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, fresh_dir, remove_dir)
		T(every_wanted_file_is_written_whole_and_no_other),
		T(two_files_are_written_at_once),
		T(a_failed_write_is_each_files_own_error),
		T(a_file_written_again_replaces_the_old_one_and_leaves_nothing_else),
		T(a_directory_at_the_name_is_left_alone),
		cmocka_unit_test(fp_renders_costs_put_the_flame_graph_first_on_a_big_capture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
