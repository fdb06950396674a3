/* u-stagefsm.c: the supervisor's per-stage state table (runner/stage_fsm.c).
 * The golden table below is the specification: a change to the runner's
 * behaviour shows up here as a changed line. */
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "../../runner/stage_fsm.c" /* the code under test (as u-pipeline does) */

/* state event -> action, for every pair that does something (the rest is
 * "none"; "bug" marks pairs that cannot happen). */
static const char *const golden[] = {
	"idle start spawn",
	"idle exit-op bug",
	"idle exit-over bug",
	"idle exit-again bug",
	"idle exit-ok bug",
	"idle exit-fail bug",
	"idle exit-give-up bug",
	"idle exit-retry bug",
	"idle exit-bypass bug",
	"idle exit-retry-unit bug",
	"idle exit-unit bug",
	"idle stop finish-ok",
	"idle ctl reject",
	"running start bug",
	"running exit-op run-op",
	"running exit-over finish",
	"running exit-again restart",
	"running exit-ok finish",
	"running exit-fail finish",
	"running exit-give-up give-up",
	"running exit-retry restart-loss",
	"running exit-bypass bypass",
	"running exit-retry-unit restart-unit",
	"running exit-unit unit-down",
	"running ctl term",
	"running term term",
	"running kill kill",
	"waiting-restart start bug",
	"waiting-restart exit-op bug",
	"waiting-restart exit-over bug",
	"waiting-restart exit-again bug",
	"waiting-restart exit-ok bug",
	"waiting-restart exit-fail bug",
	"waiting-restart exit-give-up bug",
	"waiting-restart exit-retry bug",
	"waiting-restart exit-bypass bug",
	"waiting-restart exit-retry-unit bug",
	"waiting-restart exit-unit bug",
	"waiting-restart timer spawn",
	"waiting-restart timer-drained finish",
	"waiting-restart stop finish-fail",
	"waiting-restart ctl run-op",
	"done exit-op bug",
	"done exit-over bug",
	"done exit-again bug",
	"done exit-ok bug",
	"done exit-fail bug",
	"done exit-give-up bug",
	"done exit-retry bug",
	"done exit-bypass bug",
	"done exit-retry-unit bug",
	"done exit-unit bug",
	"done ctl reject",
};

static const char *golden_action(const char *state, const char *event)
{
	char key[96];
	size_t n = (size_t)snprintf(key, sizeof key, "%s %s ", state, event);

	for (size_t i = 0; i < sizeof golden / sizeof *golden; i++)
		if (!strncmp(golden[i], key, n))
			return golden[i] + n;
	return "none";
}

static void every_state_and_event_has_the_golden_action(void **unused)
{
	for (int s = 0; s < FP_ST_COUNT; s++)
		for (int e = 0; e < FP_EV_COUNT; e++) {
			const char *got = fp_stage_action_name(fp_stage_action(s, e));
			const char *want = golden_action(fp_stage_state_name(s),
							 fp_stage_event_name(e));

			if (strcmp(got, want))
				fail_msg("%s %s: %s, expected %s", fp_stage_state_name(s),
					 fp_stage_event_name(e), got, want);
		}
}

static void out_of_range_pairs_are_bugs_not_reads_past_the_table(void **unused)
{
	assert_int_equal(fp_stage_action(FP_ST_COUNT, FP_EV_START), FP_AC_BUG);
	assert_int_equal(fp_stage_action(FP_ST_IDLE, FP_EV_COUNT), FP_AC_BUG);
	assert_int_equal(fp_stage_action((enum fp_stage_state) - 1, FP_EV_START), FP_AC_BUG);
	assert_string_equal(fp_stage_state_name(FP_ST_COUNT), "?");
}

/* A failed process of a restart=on-failure stage with input left. */
static struct fp_exit_facts failed(void)
{
	return (struct fp_exit_facts){ .ok = 0,
				       .input_pending = 1,
				       .restart = FP_RESTART_ON_FAILURE,
				       .fast_failures = 1,
				       .retries = 3 };
}

static void a_failure_with_input_left_is_restarted_until_the_budget_is_spent(void **unused)
{
	struct fp_exit_facts f = failed();

	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_RETRY);
	f.fast_failures = 3;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_RETRY);
	f.fast_failures = 4;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_GIVE_UP);
	f = failed();
	f.restart = FP_RESTART_NEVER;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_FAIL);
}

/* give-up=bypass (a view): the spent budget puts a pass-through in the
 * stage's place instead of stopping the run; a failing pass-through is
 * given up as any stage. */
static void a_bypass_stage_is_bypassed_not_given_up_once_the_budget_is_spent(void **unused)
{
	struct fp_exit_facts f = failed();

	f.bypass = 1;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_RETRY);
	f.fast_failures = 4;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_BYPASS);
	assert_int_equal(fp_stage_action(FP_ST_RUNNING, FP_EV_EXIT_BYPASS), FP_AC_BYPASS);
	assert_int_equal(fp_stage_action(FP_ST_BACKOFF, FP_EV_EXIT_BYPASS), FP_AC_BUG);
	f.bypass = 0;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_GIVE_UP);
}

/* unit= (the source's perf and its reader): a failure restarts the whole
 * unit, and every other member's exit meanwhile is part of that restart,
 * however it ended, unless the run is stopping. */
static void a_failure_in_a_unit_restarts_the_unit_and_the_others_go_down_with_it(void **unused)
{
	struct fp_exit_facts f = failed();

	f.in_unit = 1;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_RETRY_UNIT);
	f.fast_failures = 4;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_GIVE_UP);
	f = failed();
	f.in_unit = f.unit_restarting = 1;
	f.ok = 1;
	f.input_pending = 0;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_UNIT);
	f.stopping = 1;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_OVER);
}

static void the_end_of_the_run_or_of_the_input_wins_over_the_restart_policy(void **unused)
{
	struct fp_exit_facts f = failed();

	f.stopping = 1;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_OVER);
	f = failed();
	f.input_pending = 0; /* its writer finished and the FIFO is drained */
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_OVER);
	f = failed();
	f.reader_done = 1; /* nobody would read what it writes */
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_OVER);
	f = failed();
	f.ok = 1;
	f.restart = FP_RESTART_ALWAYS;
	f.stopping = 1;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_OVER);
}

static void a_pending_ctl_operation_wins_unless_the_run_is_stopping(void **unused)
{
	struct fp_exit_facts f = failed();

	f.op_pending = 1;
	f.fast_failures = 99; /* the user asked: no budget, no backoff */
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_OP);
	f.input_pending = 0;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_OP);
	f.stopping = 1;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_OVER);
}

static void a_success_is_restarted_only_with_restart_always(void **unused)
{
	struct fp_exit_facts f = failed();

	f.ok = 1;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_OK);
	f.restart = FP_RESTART_NEVER;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_OK);
	f.restart = FP_RESTART_ALWAYS;
	assert_int_equal(fp_stage_exit_event(&f), FP_EV_EXIT_AGAIN);
}

/* A walk through the table as a crashing stage lives it. */
static void a_crash_walk_idle_running_backoff_running_done(void **unused)
{
	struct fp_exit_facts f = failed();
	enum fp_stage_state s = FP_ST_IDLE;

	assert_int_equal(fp_stage_action(s, FP_EV_START), FP_AC_SPAWN);
	s = FP_ST_RUNNING;
	assert_int_equal(fp_stage_action(s, fp_stage_exit_event(&f)), FP_AC_RESTART_LOSS);
	s = FP_ST_BACKOFF;
	assert_int_equal(fp_stage_action(s, FP_EV_TIMER), FP_AC_SPAWN);
	s = FP_ST_RUNNING;
	f.ok = 1;
	f.input_pending = 0;
	assert_int_equal(fp_stage_action(s, fp_stage_exit_event(&f)), FP_AC_FINISH);
	s = FP_ST_DONE;
	assert_int_equal(fp_stage_action(s, FP_EV_CTL), FP_AC_REJECT);
	assert_int_equal(fp_stage_action(s, FP_EV_TERM), FP_AC_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_state_and_event_has_the_golden_action),
		cmocka_unit_test(out_of_range_pairs_are_bugs_not_reads_past_the_table),
		cmocka_unit_test(a_failure_with_input_left_is_restarted_until_the_budget_is_spent),
		cmocka_unit_test(a_bypass_stage_is_bypassed_not_given_up_once_the_budget_is_spent),
		cmocka_unit_test(
			a_failure_in_a_unit_restarts_the_unit_and_the_others_go_down_with_it),
		cmocka_unit_test(the_end_of_the_run_or_of_the_input_wins_over_the_restart_policy),
		cmocka_unit_test(a_pending_ctl_operation_wins_unless_the_run_is_stopping),
		cmocka_unit_test(a_success_is_restarted_only_with_restart_always),
		cmocka_unit_test(a_crash_walk_idle_running_backoff_running_done),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
