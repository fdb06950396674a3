/* tuiview.h: fp-tui as the runner's terminal view (`flamepipe live` on a
 * terminal, `flamepipe report FILE --tui`; docs/fp-tui.md).
 *
 * The view is the stage named "tui" (fp-tui ${TUI_ARGS}) near the end of
 * the chain. It owns the screen, so while it runs the runner and the
 * other stages must not write on it: their stderr goes to a log in the
 * FIFO directory, shown once the view is gone. When the user quits the
 * view, the whole run stops (a report's chain may still be reading, a
 * live capture still recording).
 *
 *	char *file = fp_tui_pipeline(fp_run_dir(r), pipeline, keep_render);
 *	fp_vars_list(&v, "TUI_ARGS"); fp_tui_vars(r, &v);
 *	fp_tui_stderr_begin(fp_run_dir(r));     // before fp_run_start
 *	fp_run_load(r, file, &v); fp_run_start(r);
 *	struct fp_tui_watch tw; fp_tui_watch_start(&tw, r);
 *	fp_run_wait(r);
 *	fp_tui_watch_stop(&tw);
 *	fp_tui_stderr_end();                    // the log, then the summary
 */
#ifndef FP_RUNNER_TUIVIEW_H
#define FP_RUNNER_TUIVIEW_H

#include <stddef.h>
#include <ev.h>

#include "pipeline_run.h"

#define FP_TUI_STAGE "tui"

struct fp_tui_watch {
	ev_timer w;
	struct fp_run *run;
	size_t index; /* the stage named tui */
	int found;
	int termed;  /* SIGTERM sent to it */
	int stopped; /* fp_run_stop called */
};

/* DIR/tui.pipeline: FILE's stages, without the one named render unless
 * keep_render, then `tui fp-tui ${TUI_ARGS}`. Its path (free it). */
char *fp_tui_pipeline(const char *dir, const char *file, int keep_render);
/* Appends to the list TUI_ARGS what the runner tells fp-tui: --messages
 * (the log fp_tui_stderr_begin writes, when stderr is a terminal: the M
 * key shows it) and --quit-file (fp-tui makes it when the user quits,
 * then reads its input to the end; the watch then stops the run). */
void fp_tui_vars(struct fp_run *r, struct fp_vars *v);
/* Once the user quit the view (its quit file is there) or the tui stage
 * has ended, fp_run_stop; on a stop by a signal, SIGTERM to the tui stage
 * at once (it would wait for the user; then it leaves the screen and
 * reads its input to the end). */
void fp_tui_watch_start(struct fp_tui_watch *tw, struct fp_run *r);
void fp_tui_watch_stop(struct fp_tui_watch *tw);
/* While stderr is a terminal: stderr (and stdout, if a terminal: the
 * last stage's, fp-serve's "listening on" line) of this process and the
 * stages into DIR/stderr.log until fp_tui_stderr_end, which puts them
 * back and copies the log's last 64 KiB to stderr (also at exit). */
void fp_tui_stderr_begin(const char *dir);
void fp_tui_stderr_end(void);

#endif
