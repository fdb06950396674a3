/* fp_opts.c: a program's long options as one table (fp_opts.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_num.h"
#include "fp_opts.h"

#define HELP_CODE 'h' /* getopt's code for --help and -h */

uint64_t fp_opt_u64(const char *opt, const char *arg, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (fp_parse_u64(arg, strlen(arg), &v) < 0 || v < min || v > max)
		fp_die(FP_EXIT_USAGE, "--%s: expected an integer from %llu to %llu, got \"%s\"",
		       opt, (unsigned long long)min, (unsigned long long)max, arg);
	return v;
}

#define CHOICES_TEXT_MAX 256

/* The index of arg in o->choices, or the program ends with
 * "--OPT: expected a, b or c, got "arg"". */
static int choice(const struct fp_opt *o, const char *arg)
{
	char list[CHOICES_TEXT_MAX];
	size_t used = 0, n = 0;

	for (; o->choices[n]; n++)
		if (!strcmp(o->choices[n], arg))
			return (int)n;
	list[0] = '\0';
	for (size_t i = 0; i < n && used < sizeof list; i++)
		used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
					 i == 0       ? ""
					 : i + 1 == n ? " or "
						      : ", ",
					 o->choices[i]);
	fp_die(FP_EXIT_USAGE, "--%s: expected %s, got \"%s\"", o->name, list, arg);
}

static void apply(const struct fp_opt *o, const char *arg, void *ctx)
{
	switch (o->kind) {
	case FP_OPT_FLAG:
		*(int *)o->dest = 1;
		break;
	case FP_OPT_STR:
		*(const char **)o->dest = arg;
		break;
	case FP_OPT_NAME:
		if (!*arg || strpbrk(arg, "\t\n"))
			fp_die(FP_EXIT_USAGE, "--%s: want a name without TAB or LF", o->name);
		*(const char **)o->dest = arg;
		break;
	case FP_OPT_U64:
		*(uint64_t *)o->dest = fp_opt_u64(o->name, arg, o->min, o->max);
		break;
	case FP_OPT_UINT:
		*(unsigned *)o->dest = (unsigned)fp_opt_u64(o->name, arg, o->min, o->max);
		break;
	case FP_OPT_CHOICE:
		*(int *)o->dest = choice(o, arg);
		break;
	case FP_OPT_FN:
	case FP_OPT_FN_FLAG:
	case FP_OPT_FN_OPTIONAL:
		o->fn(o->fn_ctx ? o->fn_ctx : ctx, o->name, arg);
		break;
	}
}

static int has_arg(enum fp_opt_kind k)
{
	if (k == FP_OPT_FLAG || k == FP_OPT_FN_FLAG)
		return no_argument;
	return k == FP_OPT_FN_OPTIONAL ? optional_argument : required_argument;
}

int fp_opts_parse(int argc, char **argv, const struct fp_opt *opts, const char *usage,
		  int max_operands, void *ctx)
{
	size_t n = 0, ns = 0, nl = 0;
	int c, idx;

	/* Static: a value checked in apply() may end the program, and what
	 * exit() leaves must still be reachable (no leak under LSan). */
	static struct option *lo;
	static size_t *lo_opt; /* lo[i] is opts[lo_opt[i]] */
	static char *shorts;

	while (opts[n].name)
		n++;
	lo = fp_xrealloc(lo, (n + 2) * sizeof *lo);
	lo_opt = fp_xrealloc(lo_opt, (n + 2) * sizeof *lo_opt);
	shorts = fp_xrealloc(shorts, 2 * n + 3);

	if (max_operands == FP_OPTS_REST)
		shorts[ns++] = '+'; /* stop at the first operand */
	shorts[ns++] = HELP_CODE;
	for (n = 0; opts[n].name; n++) {
		if (!opts[n].short_only) {
			lo_opt[nl] = n;
			lo[nl++] = (struct option){ opts[n].name, has_arg(opts[n].kind), NULL, 0 };
		}
		if (opts[n].short_name) {
			shorts[ns++] = opts[n].short_name;
			if (has_arg(opts[n].kind) == required_argument)
				shorts[ns++] = ':';
		}
	}
	shorts[ns] = '\0';
	lo[nl++] = (struct option){ "help", no_argument, NULL, HELP_CODE };
	lo[nl] = (struct option){ NULL, 0, NULL, 0 };
	while ((c = getopt_long(argc, argv, shorts, lo, &idx)) != -1) {
		const struct fp_opt *o = NULL;

		if (c == 0)
			o = &opts[lo_opt[idx]];
		for (size_t i = 0; c && c != HELP_CODE && opts[i].name && !o; i++)
			if (opts[i].short_name == c)
				o = &opts[i];
		if (c == HELP_CODE) {
			puts(usage);
			exit(FP_EXIT_OK);
		}
		if (!o)
			fp_die(FP_EXIT_USAGE, "%s", usage);
		apply(o, optarg, ctx);
	}
	free(lo);
	free(lo_opt);
	free(shorts);
	lo = NULL;
	lo_opt = NULL;
	shorts = NULL;
	if (max_operands != FP_OPTS_REST && max_operands != FP_OPTS_ANY &&
	    argc - optind > max_operands)
		fp_die(FP_EXIT_USAGE, "%s", usage);
	return optind;
}
