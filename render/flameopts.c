/* flameopts.c: flamegraph.pl's options (see flameopts.h). */
#include "flameopts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"

#define MAX_WHOLE_ARG 100000 /* px, font sizes: sane upper bound */
#define MAX_FONTWIDTH 100.0

static unsigned parse_uint(const char *opt, const char *arg, unsigned min)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' || v < min || v > MAX_WHOLE_ARG)
		fp_die(FP_EXIT_USAGE, "bad --%s '%s': expected a whole number %u..%u", opt, arg,
		       min, MAX_WHOLE_ARG);
	return (unsigned)v;
}

static double parse_double(const char *opt, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || !(v > 0) || v > MAX_FONTWIDTH)
		fp_die(FP_EXIT_USAGE, "bad --%s '%s': expected a number above 0", opt, arg);
	return v;
}

/* The options whose values need a check of their own: the callback gets
 * the fp_flame_opts (the entry's fn_ctx) and the option's name. */
static void opt_value(void *ctx, const char *opt, const char *arg)
{
	struct fp_flame_opts *o = ctx;

	if (!strcmp(opt, "width")) {
		o->width = parse_uint(opt, arg, 100);
	} else if (!strcmp(opt, "height")) {
		o->frame_height = parse_uint(opt, arg, 2);
	} else if (!strcmp(opt, "fontsize")) {
		o->fontsize = parse_uint(opt, arg, 1);
	} else if (!strcmp(opt, "fontwidth")) {
		o->fontwidth = parse_double(opt, arg);
	} else if (!strcmp(opt, "minwidth")) {
		if (fp_flame_parse_minwidth(o, arg) < 0)
			fp_die(FP_EXIT_USAGE, "bad --minwidth '%s': expected pixels or N%%", arg);
	} else if (!strcmp(opt, "colors")) {
		if (fp_palette_parse(arg, &o->palette) < 0)
			fp_die(FP_EXIT_USAGE,
			       "bad --colors '%s': expected flamepipe, hot, mem, io, "
			       "java, js, perl, red, green, blue, aqua, yellow, purple or orange",
			       arg);
	} else if (!strcmp(opt, "bgcolors")) {
		if (fp_flame_check_bgcolors(arg) < 0)
			fp_die(FP_EXIT_USAGE,
			       "bad --bgcolors '%s': expected yellow, blue, green, "
			       "grey or #rrggbb",
			       arg);
		o->bgcolors = arg;
	}
}

/* flamegraph.pl options that change nothing here. */
static void opt_ignored(void *ctx, const char *opt, const char *arg)
{
}

size_t fp_flame_opts_table(struct fp_opt *t, struct fp_flame_opts *o)
{
	const struct fp_opt table[FP_FLAME_NOPTS] = {
		{ "title", FP_OPT_STR, &o->title },
		{ "subtitle", FP_OPT_STR, &o->subtitle },
		{ "width", FP_OPT_FN, .fn = opt_value, .fn_ctx = o },
		{ "height", FP_OPT_FN, .fn = opt_value, .fn_ctx = o },
		{ "minwidth", FP_OPT_FN, .fn = opt_value, .fn_ctx = o },
		{ "fonttype", FP_OPT_STR, &o->fonttype },
		{ "fontsize", FP_OPT_FN, .fn = opt_value, .fn_ctx = o },
		{ "fontwidth", FP_OPT_FN, .fn = opt_value, .fn_ctx = o },
		{ "countname", FP_OPT_STR, &o->countname },
		{ "nametype", FP_OPT_STR, &o->nametype },
		{ "colors", FP_OPT_FN, .fn = opt_value, .fn_ctx = o },
		{ "bgcolors", FP_OPT_FN, .fn = opt_value, .fn_ctx = o },
		{ "hash", FP_OPT_FLAG, &o->hash },
		{ "inverted", FP_OPT_FLAG, &o->inverted },
		{ "reverse", FP_OPT_FLAG, &o->reverse },
		{ "flamechart", FP_OPT_FLAG, &o->flamechart },
		{ "negate", FP_OPT_FLAG, &o->negate },
		{ "notes", FP_OPT_STR, &o->notes },
		{ "search-color", FP_OPT_STR, &o->search_color },
		{ "random", FP_OPT_FN_FLAG, .fn = opt_ignored },
		{ "cp", FP_OPT_FN_FLAG, .fn = opt_ignored },
		{ "encoding", FP_OPT_FN, .fn = opt_ignored },
	};

	memcpy(t, table, sizeof table);
	return FP_FLAME_NOPTS;
}
