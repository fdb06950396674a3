/* commands.h: the flamepipe subcommands (runner/flamepipe.c dispatches).
 *
 * Each command is `int cmd_NAME(int argc, char **argv)`: argv[0] is the
 * subcommand name, getopt-ready; it returns the exit code.
 *
 * Adding a command: write runner/NAME.c defining cmd_NAME and a
 * `const char cmd_NAME_usage[]` line. `live` and `serve` already have
 * their table entries (declared weak below): defining cmd_live in
 * runner/live.c is all it takes; until then `flamepipe live` says it is
 * not built in. Use pipeline_run.h to start and supervise stages.
 */
#ifndef FP_COMMANDS_H
#define FP_COMMANDS_H

#define FP_VERSION "0.1.0"

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_ctl(int argc, char **argv);

extern const char cmd_run_usage[];
extern const char cmd_check_usage[];
extern const char cmd_report_usage[];
extern const char cmd_ctl_usage[];

/* Provided by runner/live.c and runner/serve.c when they exist. */
int cmd_live(int argc, char **argv) __attribute__((weak));
int cmd_serve(int argc, char **argv) __attribute__((weak));
extern const char cmd_live_usage[] __attribute__((weak));
extern const char cmd_serve_usage[] __attribute__((weak));

/* Shared by run and report: -D/-A/--input style option helpers. */
struct fp_vars;
/* Parses a duration in seconds ("5", "0.5"); dies 100 on a bad one. */
double fp_parse_timeout(const char *opt, const char *s);
/* Finds the default pipeline: $FLAMEPIPE_PIPELINE, then
 * <bindir>/../examples/default.pipeline, then
 * <bindir>/../share/flamepipe/default.pipeline. Dies 100 if none. */
char *fp_default_pipeline(void);

/* The progress line on stderr (report.c): every PROGRESS_INTERVAL, how
 * far the first stage is in input (a regular file: position of total and
 * percent; anything else: bytes it read, /proc/PID/io rchar, which also
 * counts its few start-up reads) and MB/s. */
#include <limits.h>
#include <sys/types.h>
#include <ev.h>
struct fp_run;
struct fp_progress {
	ev_timer w;
	struct fp_run *run;
	const char *label;
	char input_real[PATH_MAX];
	off_t size;
	ev_tstamp start;
	int shown, active;
};
void fp_progress_start(struct fp_progress *p, struct fp_run *r, const char *input,
		       const char *label);
void fp_progress_stop(struct fp_progress *p);

#endif
