/* fp_opts.h: a program's long options as one table: name, kind, where the
 * value goes.
 *
 * Every stage used to spell the same loop: a getopt_long table, a switch
 * that stores each value, its own integer-range check, --name's "no TAB or
 * LF" rule, --help, "unknown option: usage" and "too many operands". Here
 * the table says it once and fp_opts_parse runs the loop.
 *
 * Calling sequence:
 *	uint64_t rows = ROWS_DEFAULT;
 *	int keep_idle = 0;
 *	const char *name = "bucket";
 *	const struct fp_opt opts[] = {
 *		{ "rows", FP_OPT_U64, &rows, .min = 1, .max = FP_ROWS_MAX },
 *		{ "keep-idle", FP_OPT_FLAG, &keep_idle },
 *		{ "name", FP_OPT_NAME, &name },
 *		{ "event", FP_OPT_FN, .fn = opt_event },   // fn(ctx, opt, arg)
 *		{ "output", FP_OPT_STR, &path, .short_name = 'o' },
 *		{ "format", FP_OPT_CHOICE, &format, .choices = formats },  // enum order
 *		{ NULL },
 *	};
 *	int first = fp_opts_parse(argc, argv, opts, USAGE, 1, &state);
 *	// argv[first .. argc-1]: the operands, at most 1 here
 *
 * --help (and -h) prints USAGE on stdout and exits FP_EXIT_OK; an unknown
 * option, a missing argument or more operands than max_operands print
 * USAGE and exit FP_EXIT_USAGE. Values are checked as they come, so a bad
 * one ends the program with `prog: --opt: expected ..., got "arg"`
 * (FP_EXIT_USAGE). A FP_OPT_FN callback checks its own value and dies
 * with its own message.
 */
#ifndef FP_OPTS_H
#define FP_OPTS_H

#include <limits.h>
#include <stdint.h>

enum fp_opt_kind {
	FP_OPT_FLAG,        /* no argument: *(int *)dest = 1 */
	FP_OPT_STR,         /* *(const char **)dest = the argument */
	FP_OPT_NAME,        /* a stage name for W/I records: not empty, no TAB or LF */
	FP_OPT_U64,         /* *(uint64_t *)dest = an integer from min to max */
	FP_OPT_UINT,        /* *(unsigned *)dest = an integer from min to max */
	FP_OPT_CHOICE,      /* *(int *)dest = the index of the argument in choices */
	FP_OPT_FN,          /* fn(ctx, opt, arg) (arg NULL for FP_OPT_FN_FLAG) */
	FP_OPT_FN_FLAG,     /* no argument: fn(ctx, opt, NULL) */
	FP_OPT_FN_OPTIONAL, /* --opt or --opt=ARG: fn(ctx, opt, ARG or NULL) */
};

struct fp_opt {
	const char *name; /* the long name, without "--"; NULL ends the table */
	enum fp_opt_kind kind;
	void *dest;                                              /* FLAG, STR, NAME, U64, UINT */
	uint64_t min, max;                                       /* U64, UINT */
	void (*fn)(void *ctx, const char *opt, const char *arg); /* FN kinds */
	const char *const *choices; /* CHOICE: the words, NULL-terminated */
	char short_name;            /* 0: none */
	char short_only;            /* 1: -short_name only, no --name (perf's -g) */
	void *fn_ctx;               /* FN kinds: the callback's ctx, or NULL for
				 * fp_opts_parse's (a table shared by programs,
				 * as render/flameopts.h's, brings its own) */
};

/* max_operands FP_OPTS_REST: options end at the first operand, and any
 * number of operands follow (a command line for something else: fp-ssh's
 * HOST and perf's arguments). */
#define FP_OPTS_REST (-1)
/* max_operands FP_OPTS_ANY: any number of operands, options anywhere. */
#define FP_OPTS_ANY INT_MAX

/* Parses argv against opts (see above); returns the index of the first
 * operand. Leaves getopt's optind there too. */
int fp_opts_parse(int argc, char **argv, const struct fp_opt *opts, const char *usage,
		  int max_operands, void *ctx);

/* The integer rule of FP_OPT_U64 for callbacks: dies unless arg is an
 * integer from min to max. */
uint64_t fp_opt_u64(const char *opt, const char *arg, uint64_t min, uint64_t max);

#endif
