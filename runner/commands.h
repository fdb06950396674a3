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
int cmd_push(int argc, char **argv);

extern const char cmd_run_usage[];
extern const char cmd_check_usage[];
extern const char cmd_report_usage[];
extern const char cmd_ctl_usage[];
extern const char cmd_push_usage[];

/* Provided by runner/live.c and runner/serve.c when they exist. */
int cmd_live(int argc, char **argv) __attribute__((weak));
int cmd_serve(int argc, char **argv) __attribute__((weak));
extern const char cmd_live_usage[] __attribute__((weak));
extern const char cmd_serve_usage[] __attribute__((weak));

/* The options they share: options.h; the progress line: progress.h. */

#endif
