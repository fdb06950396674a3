/* u-pdoffcpu.c: blocked intervals as timed samples (perf/data/pd_offcpu.c):
 * pieces split at the heatmap's rows, ended by a wakeup or a switch-in,
 * the bound on threads blocked at once, the raw tracepoint fields. */
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "pd_offcpu.h"

#define MS 1000000ull
#define SEC 1000000000ull
#define PIECES_MAX 64

struct piece {
	uint64_t time, period;
	int64_t tid;
	char event[16], stack[64];
};
static struct piece got[PIECES_MAX];
static size_t ngot;

static void on_piece(void *ctx, const struct fp_sample *s)
{
	(void)ctx;
	assert_true(ngot < PIECES_MAX);
	struct piece *p = &got[ngot++];
	p->time = s->time_ns;
	p->period = s->period;
	p->tid = s->tid;
	snprintf(p->event, sizeof p->event, "%.*s", (int)s->event.n, s->event.p);
	snprintf(p->stack, sizeof p->stack, "%.*s", (int)s->stack.n, s->stack.p);
}

static struct fp_sample task(int64_t tid, const char *stack)
{
	size_t n = strlen(stack), frames = n ? 1 : 0;
	for (size_t i = 0; i < n; i++)
		frames += stack[i] == ';';
	static const char kinds[] = "uuuuuuuu";
	return (struct fp_sample){
		.pid = tid,
		.tid = tid,
		.cpu = 0,
		.comm = { "app", 3 },
		.kinds = { kinds, frames },
		.stack = { stack, n },
	};
}

static void setup(struct pd_offcpu *o, unsigned rows, size_t max)
{
	ngot = 0;
	pd_offcpu_init(o, rows, max, on_piece, NULL);
}

static uint64_t sum(const char *event)
{
	uint64_t t = 0;
	for (size_t i = 0; i < ngot; i++)
		if (strcmp(got[i].event, event) == 0)
			t += got[i].period;
	return t;
}

static void an_interval_within_one_cell_is_one_piece_of_its_length(void **state)
{
	struct pd_offcpu o;
	struct fp_sample t = task(7, "main;wait");

	setup(&o, 50, 0);
	pd_offcpu_block(&o, 100 * SEC + 1 * MS, &t);
	pd_offcpu_run(&o, 100 * SEC + 6 * MS, 7);
	assert_int_equal(ngot, 1);
	assert_true(got[0].time == 100 * SEC + 1 * MS && got[0].period == 5 * MS);
	assert_string_equal(got[0].event, "offcpu");
	assert_string_equal(got[0].stack, "main;wait");
	assert_true(o.st.intervals == 1 && o.st.blocked_ns == 5 * MS);
	pd_offcpu_free(&o);
}

static void an_interval_is_split_at_each_row_boundary(void **state)
{
	struct pd_offcpu o;
	struct fp_sample t = task(7, "main;wait");

	setup(&o, 50, 0); /* rows of 20 ms */
	pd_offcpu_block(&o, 5 * SEC + 15 * MS, &t);
	pd_offcpu_run(&o, 5 * SEC + 65 * MS, 7);
	assert_int_equal(ngot, 4); /* 15-20, 20-40, 40-60, 60-65 */
	assert_true(got[0].time == 5 * SEC + 15 * MS && got[0].period == 5 * MS);
	assert_true(got[1].time == 5 * SEC + 20 * MS && got[1].period == 20 * MS);
	assert_true(got[2].time == 5 * SEC + 40 * MS && got[2].period == 20 * MS);
	assert_true(got[3].time == 5 * SEC + 60 * MS && got[3].period == 5 * MS);
	assert_true(sum("offcpu") == 50 * MS);
	pd_offcpu_free(&o);
}

static void rows_that_do_not_divide_a_second_split_where_fp_bucket_counts(void **state)
{
	struct pd_offcpu o;
	struct fp_sample t = task(7, "w");

	setup(&o, 3, 0); /* rows start at 0, 333333334, 666666667 ns */
	pd_offcpu_block(&o, 9 * SEC, &t);
	pd_offcpu_run(&o, 10 * SEC + 1, 7);
	assert_int_equal(ngot, 4);
	for (size_t i = 0; i < ngot; i++) {
		uint64_t first = (got[i].time % SEC) * 3 / SEC;
		uint64_t last = ((got[i].time + got[i].period - 1) % SEC) * 3 / SEC;
		assert_true(first == last); /* each piece in one of fp-bucket's rows */
	}
	assert_true(got[1].time == 9 * SEC + 333333334);
	assert_true(sum("offcpu") == SEC + 1);
	pd_offcpu_free(&o);
}

static void a_wakeup_ends_the_interval_and_gives_the_wakers_stack(void **state)
{
	struct pd_offcpu o;
	struct fp_sample t = task(7, "main;wait"), w = task(8, "main;wake_peer");

	setup(&o, 10, 0);
	pd_offcpu_block(&o, 1 * SEC, &t);
	assert_int_equal(pd_offcpu_waiting(&o, 7), 1);
	assert_int_equal(pd_offcpu_wakeup(&o, 1 * SEC + 30 * MS, 7, &w), 1);
	assert_int_equal(pd_offcpu_waiting(&o, 7), 0);
	pd_offcpu_wakeup(&o, 1 * SEC + 31 * MS, 7, &t); /* a second wakeup: the first counts */
	pd_offcpu_run(&o, 1 * SEC + 45 * MS, 7);        /* waiting for a CPU is not blocking */
	assert_true(sum("offcpu") == 30 * MS && sum("wakeup") == 30 * MS);
	assert_int_equal(ngot, 2);
	assert_string_equal(got[1].event, "wakeup");
	assert_string_equal(got[1].stack, "main;wake_peer");
	assert_true(got[1].tid == 8);
	assert_true(o.st.woken == 1);
	pd_offcpu_free(&o);
}

static void a_wakeup_of_a_thread_not_blocked_is_ignored(void **state)
{
	struct pd_offcpu o;
	struct fp_sample w = task(8, "x");

	setup(&o, 50, 0);
	assert_int_equal(pd_offcpu_wakeup(&o, SEC, 7, &w), 0);
	pd_offcpu_run(&o, 2 * SEC, 7);
	assert_int_equal(ngot, 0);
	pd_offcpu_free(&o);
}

static void blocking_again_before_a_switch_in_drops_the_first_and_counts_it(void **state)
{
	struct pd_offcpu o;
	struct fp_sample a = task(7, "first"), b = task(7, "second");

	setup(&o, 50, 0);
	pd_offcpu_block(&o, SEC, &a);
	pd_offcpu_block(&o, 2 * SEC, &b);
	pd_offcpu_run(&o, 2 * SEC + 10 * MS, 7);
	assert_true(o.st.unpaired == 1);
	assert_int_equal(ngot, 1);
	assert_string_equal(got[0].stack, "second");
	pd_offcpu_free(&o);
}

static void past_max_threads_blocked_further_ones_are_counted_not_kept(void **state)
{
	struct pd_offcpu o;
	struct fp_sample t1 = task(1, "a"), t2 = task(2, "b"), t3 = task(3, "c");

	setup(&o, 50, 2);
	assert_int_equal(pd_offcpu_block(&o, SEC, &t1), 0);
	assert_int_equal(pd_offcpu_block(&o, SEC, &t2), 0);
	assert_int_equal(pd_offcpu_block(&o, SEC, &t3), -1);
	assert_true(o.st.overflow == 1 && pd_offcpu_blocked_now(&o) == 2);
	pd_offcpu_run(&o, SEC + MS, 1); /* the table moves its last entry: 2 still found */
	pd_offcpu_run(&o, SEC + 2 * MS, 2);
	pd_offcpu_run(&o, SEC + 3 * MS, 3);
	assert_true(sum("offcpu") == 3 * MS);
	assert_true(pd_offcpu_blocked_now(&o) == 0);
	pd_offcpu_free(&o);
}

static void threads_still_blocked_at_the_end_count_up_to_the_last_time_seen(void **state)
{
	struct pd_offcpu o;
	struct fp_sample t = task(7, "w");

	setup(&o, 1, 0);
	pd_offcpu_block(&o, SEC, &t);
	pd_offcpu_time(&o, 3 * SEC);
	pd_offcpu_end(&o);
	assert_true(sum("offcpu") == 2 * SEC && o.st.at_end == 1);
	assert_int_equal(ngot, 2); /* one piece a second at one row */
	pd_offcpu_free(&o);
}

static void an_interval_past_max_pieces_is_cut_there_and_counted(void **state)
{
	struct pd_offcpu o;
	struct fp_sample t = task(7, "w");

	setup(&o, 1, 0);
	o.max_pieces = 3;
	pd_offcpu_block(&o, SEC, &t);
	pd_offcpu_run(&o, UINT64_MAX / 2, 7); /* a damaged time: years later */
	assert_int_equal(ngot, 3);
	assert_true(o.st.clipped == 1 && o.st.blocked_ns == 3 * SEC && sum("offcpu") == 3 * SEC);
	pd_offcpu_free(&o);
}

static void at_the_end_all_open_intervals_share_four_intervals_worth(void **state)
{
	struct pd_offcpu o;
	struct fp_sample t[6] = { task(1, "a"), task(2, "b"), task(3, "c"),
				  task(4, "d"), task(5, "e"), task(6, "f") };

	setup(&o, 1, 0);
	o.max_pieces = 2;
	for (int i = 0; i < 6; i++)
		pd_offcpu_block(&o, SEC, &t[i]);
	pd_offcpu_time(&o, UINT64_MAX / 2); /* a damaged last time */
	pd_offcpu_end(&o);
	assert_int_equal(ngot, 8);
	assert_true(o.st.clipped == 6 && o.st.at_end == 6 && pd_offcpu_blocked_now(&o) == 0);
	pd_offcpu_free(&o);
}

static void raw_fields_are_read_at_the_format_files_offsets(void **state)
{
	unsigned char raw[64] = { 0 };
	int32_t prev = 1234, next = 99, p, n, wp;
	int64_t st = 1, s;

	memcpy(raw + 24, &prev, 4);
	memcpy(raw + 32, &st, 8);
	memcpy(raw + 56, &next, 4);
	assert_int_equal(pd_sched_switch_fields(raw, 64, &p, &s, &n), 0);
	assert_true(p == 1234 && s == 1 && n == 99);
	assert_int_equal(pd_sched_switch_fields(raw, 63, &p, &s, &n), -1);
	assert_int_equal(pd_sched_wakeup_pid(raw, 28, &wp), 0);
	assert_true(wp == 1234);
	assert_int_equal(pd_sched_wakeup_pid(raw, 27, &wp), -1);
}

static void only_a_switch_out_that_blocks_opens_an_interval(void **state)
{
	assert_int_equal(pd_sched_state_blocked(0), 0);     /* R: preempted */
	assert_int_equal(pd_sched_state_blocked(0x100), 0); /* R+ */
	assert_int_equal(pd_sched_state_blocked(1), 1);     /* S */
	assert_int_equal(pd_sched_state_blocked(2), 1);     /* D */
	assert_int_equal(pd_sched_state_blocked(0x80), 1);  /* I */
	assert_int_equal(pd_sched_state_blocked(0x10), 0);  /* X: dead */
	assert_int_equal(pd_sched_state_blocked(0x20), 0);  /* Z */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_interval_within_one_cell_is_one_piece_of_its_length),
		cmocka_unit_test(an_interval_is_split_at_each_row_boundary),
		cmocka_unit_test(rows_that_do_not_divide_a_second_split_where_fp_bucket_counts),
		cmocka_unit_test(a_wakeup_ends_the_interval_and_gives_the_wakers_stack),
		cmocka_unit_test(a_wakeup_of_a_thread_not_blocked_is_ignored),
		cmocka_unit_test(blocking_again_before_a_switch_in_drops_the_first_and_counts_it),
		cmocka_unit_test(past_max_threads_blocked_further_ones_are_counted_not_kept),
		cmocka_unit_test(threads_still_blocked_at_the_end_count_up_to_the_last_time_seen),
		cmocka_unit_test(an_interval_past_max_pieces_is_cut_there_and_counted),
		cmocka_unit_test(at_the_end_all_open_intervals_share_four_intervals_worth),
		cmocka_unit_test(raw_fields_are_read_at_the_format_files_offsets),
		cmocka_unit_test(only_a_switch_out_that_blocks_opens_an_interval),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
