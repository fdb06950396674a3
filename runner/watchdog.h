/* watchdog.h: when the runner dies (SIGKILL, a crash), its stages' process
 * groups die with it (runner/watchdog.c).
 *
 * Each stage gets PR_SET_PDEATHSIG, but that reaches the stage alone: the
 * workload perf started (`live -- COMMAND`) and whatever it forked stay
 * behind. The watchdog is a small process forked by the runner before the
 * first stage; it learns each stage's process group through a pipe and,
 * when the pipe ends without the runner having said goodbye (the runner
 * is gone), sends SIGTERM to every group, then SIGKILL after
 * FP_WATCHDOG_GRACE seconds. */
#ifndef FP_RUNNER_WATCHDOG_H
#define FP_RUNNER_WATCHDOG_H

#include <sys/types.h>

#define FP_WATCHDOG_GRACE 2 /* s between SIGTERM and SIGKILL */

/* Forks the watchdog; its pipe's write end (close-on-exec), or -1. */
int fp_watchdog_start(void);
/* Process group pgid is one of the runner's (a stage just started). */
void fp_watchdog_watch(int fd, pid_t pgid);
/* The runner ends normally: the watchdog exits and kills nothing. Closes fd. */
void fp_watchdog_done(int fd);

#endif
