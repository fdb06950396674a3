/* pipeline.h: the pipeline file (docs/flamepipe.md "Pipeline files").
 *
 * One stage per line:
 *
 *	NAME [restart=never|on-failure|always] [retries=N] [give-up=stop|bypass]
 *	     [unit=NAME] [omit-if=TEXT] PROGRAM [ARG]...
 *
 * omit-if= with a non-empty TEXT (after expansion) leaves the stage out of
 * the parsed pipeline: its neighbours are joined.
 *
 * Words are split at blanks; '...' is literal, "..." expands ${VAR} and
 * knows \" \\ \$; a backslash outside quotes escapes the next character and,
 * at the end of a line, continues the stage on the next line. `#` at the
 * start of a word starts a comment. ${NAME} is a scalar variable (never
 * split into words) or a list variable (zero or more words; it must stand
 * alone as a word, or sit inside "..." where its words are joined with one
 * space). ${NAME:-TEXT} uses TEXT when NAME is unset or empty.
 *
 * Calling sequence:
 *	struct fp_vars v; fp_vars_init(&v);
 *	fp_vars_set(&v, "FIFODIR", dir); fp_vars_list(&v, "RANGE_ARGS");
 *	fp_vars_define(&v, "ROWS=100", 0);          // from -D
 *	struct fp_pipeline pl;
 *	char err[FP_PIPELINE_ERR_MAX];
 *	if (fp_pipeline_parse_file(path, &v, &pl, err, sizeof err) < 0 ||
 *	    fp_pipeline_resolve(&pl, bindir, err, sizeof err) < 0)
 *		fp_die(FP_EXIT_USAGE, "%s", err);       // "file:line: ..."
 *	... fp_pipeline_free(&pl); fp_vars_free(&v);
 */
#ifndef FP_PIPELINE_H
#define FP_PIPELINE_H

#include <stddef.h>

#define FP_PIPELINE_ERR_MAX 1024
#define FP_STAGE_NAME_MAX 64
#define FP_RETRIES_DEFAULT 5

enum fp_restart {
	FP_RESTART_NEVER,
	FP_RESTART_ON_FAILURE,
	FP_RESTART_ALWAYS,
};

/* What giving up on a stage (retries fast failures in a row) does. */
enum fp_give_up {
	FP_GIVE_UP_STOP,   /* the pipeline stops (a failed stage) */
	FP_GIVE_UP_BYPASS, /* a pass-through takes its place; the rest runs on */
};

/* A variable: a scalar is one word that is never split; a list is zero or
 * more words. */
struct fp_var {
	char *name;
	int is_list;
	char **words;
	size_t n;
};

struct fp_vars {
	struct fp_var *v;
	size_t n, cap;
};

void fp_vars_init(struct fp_vars *vars);
void fp_vars_free(struct fp_vars *vars);
/* Sets scalar NAME to value (replacing any previous value or list). */
void fp_vars_set(struct fp_vars *vars, const char *name, const char *value);
/* Declares list NAME (empty) unless it already exists. */
void fp_vars_list(struct fp_vars *vars, const char *name);
/* Appends word to list NAME (declaring it; a scalar becomes a list). */
void fp_vars_append(struct fp_vars *vars, const char *name, const char *word);
/* "NAME=VALUE": sets a scalar, or appends a word to a list when append.
 * Returns 0, or -1 if NAME is not [A-Za-z_][A-Za-z0-9_]* or '=' is missing. */
int fp_vars_define(struct fp_vars *vars, const char *assignment, int append);
const struct fp_var *fp_vars_get(const struct fp_vars *vars, const char *name);
int fp_var_name_ok(const char *name, size_t n);

struct fp_stage_spec {
	char *name;
	char *where; /* "file:line" of its line, for messages */
	enum fp_restart restart;
	unsigned retries; /* fast failures in a row before giving up */
	enum fp_give_up give_up;
	char *unit;  /* unit=NAME: adjacent stages restarted together, or NULL */
	char **argv; /* NULL-terminated; argv[0] as written */
	size_t argc;
	char *path; /* argv[0] resolved (fp_pipeline_resolve) */
};

struct fp_pipeline {
	char *file;
	struct fp_stage_spec *stages;
	size_t n;
};

/* Parses a pipeline file, expanding variables. Returns 0, or -1 with a
 * message "file:line: what is wrong (what was expected)" in err. */
int fp_pipeline_parse_file(const char *path, const struct fp_vars *vars, struct fp_pipeline *pl,
			   char *err, size_t errlen);
/* Same, from a string; name is used in messages. */
int fp_pipeline_parse_string(const char *name, const char *text, const struct fp_vars *vars,
			     struct fp_pipeline *pl, char *err, size_t errlen);
/* Finds every stage's program: a name with '/' is used as is; otherwise
 * bindir (the flamepipe binary's directory) first, then $PATH. Returns 0,
 * or -1 with "file:line: stage 'x': program 'p' not found ..." in err. */
int fp_pipeline_resolve(struct fp_pipeline *pl, const char *bindir, char *err, size_t errlen);
/* One program, as above: a malloc'd path, or NULL (errno ENOENT/EACCES). */
char *fp_find_program(const char *prog, const char *bindir);
void fp_pipeline_free(struct fp_pipeline *pl);

const char *fp_restart_name(enum fp_restart r);
const char *fp_give_up_name(enum fp_give_up g);
/* A stage name: [A-Za-z0-9_.-], 1..FP_STAGE_NAME_MAX, not starting with . or -. */
int fp_stage_name_ok(const char *name);
/* Name of a stage by index, or NULL: for stage lookups. */
long fp_pipeline_find(const struct fp_pipeline *pl, const char *name);

#endif
