/* flameopts.c: flamegraph.pl's options (see flameopts.h). */
#include "flameopts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"

#define MAX_WHOLE_ARG 100000	/* px, font sizes: sane upper bound */
#define MAX_FONTWIDTH 100.0

enum {
	OPT_TITLE = FP_FLAME_OPT_BASE, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH,
	OPT_FONTTYPE, OPT_FONTSIZE, OPT_FONTWIDTH, OPT_COUNTNAME, OPT_NAMETYPE, OPT_COLORS,
	OPT_BGCOLORS, OPT_HASH, OPT_INVERTED, OPT_REVERSE, OPT_FLAMECHART, OPT_NEGATE,
	OPT_NOTES, OPT_SEARCH_COLOR, OPT_IGNORED,
};

static const struct option flame_options[FP_FLAME_NOPTS] = {
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "height", required_argument, NULL, OPT_HEIGHT },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "fonttype", required_argument, NULL, OPT_FONTTYPE },
	{ "fontsize", required_argument, NULL, OPT_FONTSIZE },
	{ "fontwidth", required_argument, NULL, OPT_FONTWIDTH },
	{ "countname", required_argument, NULL, OPT_COUNTNAME },
	{ "nametype", required_argument, NULL, OPT_NAMETYPE },
	{ "colors", required_argument, NULL, OPT_COLORS },
	{ "bgcolors", required_argument, NULL, OPT_BGCOLORS },
	{ "hash", no_argument, NULL, OPT_HASH },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "notes", required_argument, NULL, OPT_NOTES },
	{ "search-color", required_argument, NULL, OPT_SEARCH_COLOR },
	/* flamegraph.pl options that change nothing here. */
	{ "random", no_argument, NULL, OPT_IGNORED },
	{ "cp", no_argument, NULL, OPT_IGNORED },
	{ "encoding", required_argument, NULL, OPT_IGNORED },
};

size_t fp_flame_long_options(struct option *opts)
{
	memcpy(opts, flame_options, sizeof flame_options);
	return FP_FLAME_NOPTS;
}

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

int fp_flame_option(struct fp_flame_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_TITLE: o->title = arg; break;
	case OPT_SUBTITLE: o->subtitle = arg; break;
	case OPT_WIDTH: o->width = parse_uint("width", arg, 100); break;
	case OPT_HEIGHT: o->frame_height = parse_uint("height", arg, 2); break;
	case OPT_MINWIDTH:
		if (fp_flame_parse_minwidth(o, arg) < 0)
			fp_die(FP_EXIT_USAGE, "bad --minwidth '%s': expected pixels or N%%", arg);
		break;
	case OPT_FONTTYPE: o->fonttype = arg; break;
	case OPT_FONTSIZE: o->fontsize = parse_uint("fontsize", arg, 1); break;
	case OPT_FONTWIDTH: o->fontwidth = parse_double("fontwidth", arg); break;
	case OPT_COUNTNAME: o->countname = arg; break;
	case OPT_NAMETYPE: o->nametype = arg; break;
	case OPT_COLORS:
		if (fp_palette_parse(arg, &o->palette) < 0)
			fp_die(FP_EXIT_USAGE, "bad --colors '%s': expected flamepipe, hot, mem, io, "
			       "java, js, perl, red, green, blue, aqua, yellow, purple or orange", arg);
		break;
	case OPT_BGCOLORS:
		if (fp_flame_check_bgcolors(arg) < 0)
			fp_die(FP_EXIT_USAGE, "bad --bgcolors '%s': expected yellow, blue, green, "
			       "grey or #rrggbb", arg);
		o->bgcolors = arg;
		break;
	case OPT_HASH: o->hash = 1; break;
	case OPT_INVERTED: o->inverted = 1; break;
	case OPT_REVERSE: o->reverse = 1; break;
	case OPT_FLAMECHART: o->flamechart = 1; break;
	case OPT_NEGATE: o->negate = 1; break;
	case OPT_NOTES: o->notes = arg; break;
	case OPT_SEARCH_COLOR: o->search_color = arg; break;
	case OPT_IGNORED: break;
	default: return 0;
	}
	return 1;
}
