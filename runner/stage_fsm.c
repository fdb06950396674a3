/* stage_fsm.c: the per-stage state table (stage_fsm.h). */
#include "stage_fsm.h"

/* Rows: states; columns: events. Read across a row to see everything a
 * stage in that state can do. */
static const enum fp_stage_action table[FP_ST_COUNT][FP_EV_COUNT] = {
	[FP_ST_IDLE] = {
		[FP_EV_START] = FP_AC_SPAWN,
		[FP_EV_EXIT_OP] = FP_AC_BUG, [FP_EV_EXIT_OVER] = FP_AC_BUG,
		[FP_EV_EXIT_AGAIN] = FP_AC_BUG, [FP_EV_EXIT_OK] = FP_AC_BUG,
		[FP_EV_EXIT_FAIL] = FP_AC_BUG, [FP_EV_EXIT_GIVE_UP] = FP_AC_BUG,
		[FP_EV_EXIT_RETRY] = FP_AC_BUG, [FP_EV_EXIT_BYPASS] = FP_AC_BUG,
		[FP_EV_EXIT_RETRY_UNIT] = FP_AC_BUG, [FP_EV_EXIT_UNIT] = FP_AC_BUG,
		[FP_EV_TIMER] = FP_AC_NONE, [FP_EV_TIMER_DRAINED] = FP_AC_NONE,
		[FP_EV_STOP] = FP_AC_FINISH_OK,		/* never started: nothing failed */
		[FP_EV_CTL] = FP_AC_REJECT,
		[FP_EV_TERM] = FP_AC_NONE, [FP_EV_KILL] = FP_AC_NONE,
	},
	[FP_ST_RUNNING] = {
		[FP_EV_START] = FP_AC_BUG,
		[FP_EV_EXIT_OP] = FP_AC_RUN_OP,
		[FP_EV_EXIT_OVER] = FP_AC_FINISH,
		[FP_EV_EXIT_AGAIN] = FP_AC_RESTART,
		[FP_EV_EXIT_OK] = FP_AC_FINISH,
		[FP_EV_EXIT_FAIL] = FP_AC_FINISH,
		[FP_EV_EXIT_GIVE_UP] = FP_AC_GIVE_UP,
		[FP_EV_EXIT_BYPASS] = FP_AC_BYPASS,
		[FP_EV_EXIT_RETRY] = FP_AC_RESTART_LOSS,
		[FP_EV_EXIT_RETRY_UNIT] = FP_AC_RESTART_UNIT,
		[FP_EV_EXIT_UNIT] = FP_AC_UNIT_DOWN,
		[FP_EV_TIMER] = FP_AC_NONE, [FP_EV_TIMER_DRAINED] = FP_AC_NONE,
		[FP_EV_STOP] = FP_AC_NONE,		/* the stop policy sends TERM */
		[FP_EV_CTL] = FP_AC_TERM,		/* the op runs when it has exited */
		[FP_EV_TERM] = FP_AC_TERM,
		[FP_EV_KILL] = FP_AC_KILL,
	},
	[FP_ST_BACKOFF] = {
		[FP_EV_START] = FP_AC_BUG,
		[FP_EV_EXIT_OP] = FP_AC_BUG, [FP_EV_EXIT_OVER] = FP_AC_BUG,
		[FP_EV_EXIT_AGAIN] = FP_AC_BUG, [FP_EV_EXIT_OK] = FP_AC_BUG,
		[FP_EV_EXIT_FAIL] = FP_AC_BUG, [FP_EV_EXIT_GIVE_UP] = FP_AC_BUG,
		[FP_EV_EXIT_RETRY] = FP_AC_BUG, [FP_EV_EXIT_BYPASS] = FP_AC_BUG,
		[FP_EV_EXIT_RETRY_UNIT] = FP_AC_BUG, [FP_EV_EXIT_UNIT] = FP_AC_BUG,
		[FP_EV_TIMER] = FP_AC_SPAWN,
		[FP_EV_TIMER_DRAINED] = FP_AC_FINISH,	/* as its last process ended */
		[FP_EV_STOP] = FP_AC_FINISH_FAIL,	/* failed and not restarted */
		[FP_EV_CTL] = FP_AC_RUN_OP,		/* no process to wait for */
		[FP_EV_TERM] = FP_AC_NONE, [FP_EV_KILL] = FP_AC_NONE,
	},
	[FP_ST_DONE] = {
		[FP_EV_START] = FP_AC_NONE,		/* failed while others started */
		[FP_EV_EXIT_OP] = FP_AC_BUG, [FP_EV_EXIT_OVER] = FP_AC_BUG,
		[FP_EV_EXIT_AGAIN] = FP_AC_BUG, [FP_EV_EXIT_OK] = FP_AC_BUG,
		[FP_EV_EXIT_FAIL] = FP_AC_BUG, [FP_EV_EXIT_GIVE_UP] = FP_AC_BUG,
		[FP_EV_EXIT_RETRY] = FP_AC_BUG, [FP_EV_EXIT_BYPASS] = FP_AC_BUG,
		[FP_EV_EXIT_RETRY_UNIT] = FP_AC_BUG, [FP_EV_EXIT_UNIT] = FP_AC_BUG,
		[FP_EV_TIMER] = FP_AC_NONE, [FP_EV_TIMER_DRAINED] = FP_AC_NONE,
		[FP_EV_STOP] = FP_AC_NONE,
		[FP_EV_CTL] = FP_AC_REJECT,
		[FP_EV_TERM] = FP_AC_NONE, [FP_EV_KILL] = FP_AC_NONE,
	},
};

enum fp_stage_action fp_stage_action(enum fp_stage_state s, enum fp_stage_event e)
{
	if ((unsigned)s >= FP_ST_COUNT || (unsigned)e >= FP_EV_COUNT)
		return FP_AC_BUG;
	return table[s][e];
}

/* The order of the questions is the policy: a pending operation wins
 * (the user asked), then the end of the run or of the input, then the
 * restart policy and the fast-failure budget. */
enum fp_stage_event fp_stage_exit_event(const struct fp_exit_facts *f)
{
	if (f->op_pending && !f->stopping)
		return FP_EV_EXIT_OP;
	if (f->unit_restarting && !f->stopping)
		return FP_EV_EXIT_UNIT; /* its unit restarts: however it ended */
	if (f->stopping || !f->input_pending || f->reader_done)
		return FP_EV_EXIT_OVER;
	if (f->ok)
		return f->restart == FP_RESTART_ALWAYS ? FP_EV_EXIT_AGAIN : FP_EV_EXIT_OK;
	if (f->restart == FP_RESTART_NEVER)
		return FP_EV_EXIT_FAIL;
	if (f->fast_failures > f->retries)
		return f->bypass ? FP_EV_EXIT_BYPASS : FP_EV_EXIT_GIVE_UP;
	return f->in_unit ? FP_EV_EXIT_RETRY_UNIT : FP_EV_EXIT_RETRY;
}

const char *fp_stage_state_name(enum fp_stage_state s)
{
	static const char *const names[FP_ST_COUNT] = {
		[FP_ST_IDLE] = "idle",
		[FP_ST_RUNNING] = "running",
		[FP_ST_BACKOFF] = "waiting-restart",
		[FP_ST_DONE] = "done",
	};

	return (unsigned)s < FP_ST_COUNT ? names[s] : "?";
}

const char *fp_stage_event_name(enum fp_stage_event e)
{
	static const char *const names[FP_EV_COUNT] = {
		[FP_EV_START] = "start",
		[FP_EV_EXIT_OP] = "exit-op",
		[FP_EV_EXIT_OVER] = "exit-over",
		[FP_EV_EXIT_AGAIN] = "exit-again",
		[FP_EV_EXIT_OK] = "exit-ok",
		[FP_EV_EXIT_FAIL] = "exit-fail",
		[FP_EV_EXIT_GIVE_UP] = "exit-give-up",
		[FP_EV_EXIT_RETRY] = "exit-retry",
		[FP_EV_EXIT_BYPASS] = "exit-bypass",
		[FP_EV_EXIT_RETRY_UNIT] = "exit-retry-unit",
		[FP_EV_EXIT_UNIT] = "exit-unit",
		[FP_EV_TIMER] = "timer",
		[FP_EV_TIMER_DRAINED] = "timer-drained",
		[FP_EV_STOP] = "stop",
		[FP_EV_CTL] = "ctl",
		[FP_EV_TERM] = "term",
		[FP_EV_KILL] = "kill",
	};

	return (unsigned)e < FP_EV_COUNT ? names[e] : "?";
}

const char *fp_stage_action_name(enum fp_stage_action a)
{
	static const char *const names[FP_AC_COUNT] = {
		[FP_AC_NONE] = "none",
		[FP_AC_SPAWN] = "spawn",
		[FP_AC_FINISH] = "finish",
		[FP_AC_FINISH_OK] = "finish-ok",
		[FP_AC_FINISH_FAIL] = "finish-fail",
		[FP_AC_GIVE_UP] = "give-up",
		[FP_AC_BYPASS] = "bypass",
		[FP_AC_RESTART] = "restart",
		[FP_AC_RESTART_LOSS] = "restart-loss",
		[FP_AC_RESTART_UNIT] = "restart-unit",
		[FP_AC_UNIT_DOWN] = "unit-down",
		[FP_AC_RUN_OP] = "run-op",
		[FP_AC_TERM] = "term",
		[FP_AC_KILL] = "kill",
		[FP_AC_REJECT] = "reject",
		[FP_AC_BUG] = "bug",
	};

	return (unsigned)a < FP_AC_COUNT ? names[a] : "?";
}
