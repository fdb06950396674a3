/* stage_fsm.h: the supervisor's per-stage state machine as a table, as
 * s6-supervise's actions[state][event]: what the runner does for each
 * (state, event) pair is one entry of fp_stage_table (stage_fsm.c), not a
 * decision spread over callbacks. runner/supervise.c feeds the events and
 * carries out the actions; tests/unit/u-stagefsm.c checks the table.
 *
 *	IDLE --start--> RUNNING --exit--> BACKOFF --timer--> RUNNING ... --> DONE
 *
 * A process exit is first named by fp_stage_exit_event() from the facts
 * the runner knows then (how it ended, whether the run is stopping, a
 * pending control operation, whether input is left, the restart policy).
 * Pure code: no libev, no processes.
 */
#ifndef FP_STAGE_FSM_H
#define FP_STAGE_FSM_H

#include "pipeline.h"

enum fp_stage_state {
	FP_ST_IDLE,    /* not started yet */
	FP_ST_RUNNING, /* a process is up */
	FP_ST_BACKOFF, /* its process ended; a restart is scheduled */
	FP_ST_DONE,    /* finished for good */
	FP_ST_COUNT
};

enum fp_stage_event {
	FP_EV_START,           /* the runner starts the pipeline */
	FP_EV_EXIT_OP,         /* exited with a ctl restart/replace/insert pending */
	FP_EV_EXIT_OVER,       /* exited; nothing to restart for (stopping, input
				 * ended and drained, its reader finished) */
	FP_EV_EXIT_AGAIN,      /* exited successfully, restart=always */
	FP_EV_EXIT_OK,         /* exited successfully */
	FP_EV_EXIT_FAIL,       /* failed, restart=never */
	FP_EV_EXIT_GIVE_UP,    /* failed, more fast failures in a row than retries */
	FP_EV_EXIT_BYPASS,     /* ... and give-up=bypass (not bypassed yet) */
	FP_EV_EXIT_RETRY,      /* failed, to be restarted */
	FP_EV_EXIT_RETRY_UNIT, /* failed, to be restarted with its unit (unit=) */
	FP_EV_EXIT_UNIT,       /* exited while its unit is being restarted */
	FP_EV_TIMER,           /* the restart timer fired, input is pending */
	FP_EV_TIMER_DRAINED,   /* the restart timer fired, its input has ended */
	FP_EV_STOP,            /* the pipeline is stopping (signal, failure, ctl stop) */
	FP_EV_CTL,             /* ctl restart/replace/insert asked for this stage */
	FP_EV_TERM,            /* asked to end: the source on stop, drain deadline */
	FP_EV_KILL,            /* the kill deadline, SIGQUIT, a third signal */
	FP_EV_COUNT
};

enum fp_stage_action {
	FP_AC_NONE,         /* nothing to do in this state */
	FP_AC_SPAWN,        /* start a process (-> RUNNING) */
	FP_AC_FINISH,       /* done, as its last process ended (-> DONE) */
	FP_AC_FINISH_OK,    /* done, successfully: it never ran (-> DONE) */
	FP_AC_FINISH_FAIL,  /* done, failed: not restarted (-> DONE) */
	FP_AC_GIVE_UP,      /* done, failed, and say it gave up (-> DONE) */
	FP_AC_BYPASS,       /* say it gave up, start a pass-through in its
				 * place: the chain runs on (-> RUNNING) */
	FP_AC_RESTART,      /* restart after the spawn interval (-> BACKOFF) */
	FP_AC_RESTART_LOSS, /* report the loss, restart after backoff (-> BACKOFF) */
	FP_AC_RESTART_UNIT, /* stop the rest of its unit, restart them all once
				 * every one has ended (-> BACKOFF) */
	FP_AC_UNIT_DOWN,    /* one more of a restarting unit has ended (-> BACKOFF) */
	FP_AC_RUN_OP,       /* carry out the pending ctl operation now */
	FP_AC_TERM,         /* SIGTERM its process group (the op runs on exit) */
	FP_AC_KILL,         /* SIGKILL its process group */
	FP_AC_REJECT,       /* refuse the ctl operation (not running) */
	FP_AC_BUG,          /* cannot happen: the runner logs it and does nothing */
	FP_AC_COUNT
};

/* What the runner knows when a stage's process has ended. */
struct fp_exit_facts {
	int ok;            /* success (see exit_is_success in supervise.c) */
	int stopping;      /* the pipeline is stopping */
	int op_pending;    /* a ctl operation waits for this exit */
	int input_pending; /* a new process would have something to read */
	int reader_done;   /* not the last stage, and the next one has finished */
	enum fp_restart restart;
	unsigned fast_failures; /* in a row, this one included */
	unsigned retries;       /* allowed fast failures */
	int bypass;             /* give-up=bypass and not bypassed yet */
	int in_unit;            /* one of a unit= of more than one stage */
	int unit_restarting;    /* ... which is being restarted */
};

enum fp_stage_event fp_stage_exit_event(const struct fp_exit_facts *f);
enum fp_stage_action fp_stage_action(enum fp_stage_state s, enum fp_stage_event e);
const char *fp_stage_state_name(enum fp_stage_state s); /* "running", ... (ctl status) */
const char *fp_stage_event_name(enum fp_stage_event e);
const char *fp_stage_action_name(enum fp_stage_action a);

#endif
