/* fp-flamegraph: a flamegraph.pl-compatible command: folded files -> SVG.
 *
 * Interface:
 *	fp-flamegraph [options] [FILE...]          one flame graph
 *	fp-flamegraph [options] --diff BEFORE AFTER   differential graph
 *	fp-flamegraph [options] --elided BEFORE AFTER stacks only in BEFORE
 *
 * Input: plain folded files (`stack count` lines, root first, frames joined
 * by ';'), plain or gzip, or stdin when no FILE is given. Lines with two
 * counts (`stack before after`, as difffolded.pl writes) make a
 * differential graph. Lines that are not `stack count` are ignored and
 * reported once on stderr (file, line, what was expected).
 *
 * Output: the SVG (or, with --json, nested JSON {name,value,children} for
 * d3-flame-graph and speedscope) on stdout. Output is byte-identical for
 * identical input.
 *
 * Options (flamegraph.pl's names): --title --subtitle --width --height
 * --minwidth (px or N%) --fonttype --fontsize --fontwidth --countname
 * --nametype --colors --bgcolors --hash --inverted --reverse --flamechart
 * --negate --notes --search-color, and --json, --diff, --elided.
 *
 * Exit codes: 0 ok, 1 no valid input (an SVG saying "no samples" is still
 * written), 100 usage, 111 read or write error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "diff.h"
#include "flamegraph.h"
#include "folded.h"
#include "fp_error.h"
#include "sink.h"

#define USAGE "usage: fp-flamegraph [--title T] [--subtitle T] [--width PX] [--height PX]\n" \
	"\t[--minwidth PX|N%] [--fonttype F] [--fontsize N] [--fontwidth F]\n" \
	"\t[--countname N] [--nametype N] [--colors PALETTE] [--bgcolors C] [--hash]\n" \
	"\t[--inverted] [--reverse] [--flamechart] [--negate] [--notes T]\n" \
	"\t[--search-color C] [--json] [FILE... | --diff A B | --elided A B]"

#define READ_CHUNK (1u << 20)

enum mode { MODE_PLAIN, MODE_DIFF, MODE_ELIDED };

struct input {
	char **bufs;		/* file contents, referenced by the tables */
	size_t n;
};

/* Reads a whole file (plain or gzip) into memory. "-" is stdin. */
static char *read_file(const char *path, size_t *len)
{
	gzFile gz = strcmp(path, "-") == 0 ? gzdopen(0, "rb") : gzopen(path, "rb");
	if (!gz)
		fp_die_sys(FP_EXIT_SYS, "open '%s'", path);
	size_t cap = READ_CHUNK, n = 0;
	char *buf = fp_xmalloc(cap);
	for (;;) {
		if (cap - n < READ_CHUNK) {
			cap *= 2;
			buf = fp_xrealloc(buf, cap);
		}
		int got = gzread(gz, buf + n, READ_CHUNK);
		if (got < 0) {
			int zerr;
			const char *msg = gzerror(gz, &zerr);
			if (zerr == Z_ERRNO)
				fp_die_sys(FP_EXIT_SYS, "read '%s'", path);
			fp_die(FP_EXIT_DATA, "read '%s': %s", path, msg);
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	gzclose(gz);
	*len = n;
	return buf;
}

static void load(struct fp_folded *t, struct input *in, const char *path)
{
	size_t len;
	char *buf = read_file(path, &len);
	in->bufs = fp_xrealloc(in->bufs, (in->n + 1) * sizeof *in->bufs);
	in->bufs[in->n++] = buf;
	uint64_t ignored = t->ignored, lines = t->lines;
	fp_folded_parse_buffer(t, buf, len, FP_FOLDED_REF);
	if (t->ignored > ignored) {
		const char *name = strcmp(path, "-") == 0 ? "stdin" : path;
		/* first_ignored counts lines across files: make it per file. */
		uint64_t first = ignored ? 0 : t->first_ignored - lines;
		if (first)
			fp_warn("%s:%llu: expected 'stack count' or 'stack count1 count2'; "
				"ignored %llu line(s)", name, (unsigned long long)first,
				(unsigned long long)(t->ignored - ignored));
		else
			fp_warn("%s: ignored %llu line(s) that were not 'stack count'", name,
				(unsigned long long)(t->ignored - ignored));
	}
}

static unsigned parse_uint(const char *opt, const char *arg, unsigned min)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > 100000)
		fp_die(FP_EXIT_USAGE, "bad --%s '%s': expected a whole number >= %u", opt, arg, min);
	return (unsigned)v;
}

static double parse_double(const char *opt, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || !(v > 0) || v > 100)
		fp_die(FP_EXIT_USAGE, "bad --%s '%s': expected a number", opt, arg);
	return v;
}

enum {
	OPT_TITLE = 256, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH, OPT_FONTTYPE,
	OPT_FONTSIZE, OPT_FONTWIDTH, OPT_COUNTNAME, OPT_NAMETYPE, OPT_COLORS, OPT_BGCOLORS,
	OPT_HASH, OPT_INVERTED, OPT_REVERSE, OPT_FLAMECHART, OPT_NEGATE, OPT_NOTES,
	OPT_SEARCH_COLOR, OPT_JSON, OPT_DIFF, OPT_ELIDED, OPT_HELP, OPT_IGNORED,
};

static const struct option long_options[] = {
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
	{ "json", no_argument, NULL, OPT_JSON },
	{ "diff", no_argument, NULL, OPT_DIFF },
	{ "elided", no_argument, NULL, OPT_ELIDED },
	{ "help", no_argument, NULL, OPT_HELP },
	/* flamegraph.pl options that change nothing here. */
	{ "random", no_argument, NULL, OPT_IGNORED },
	{ "cp", no_argument, NULL, OPT_IGNORED },
	{ "encoding", required_argument, NULL, OPT_IGNORED },
	{ NULL, 0, NULL, 0 },
};

/* Applies one flame graph option; returns 0 if `c` was not one. */
static int flame_option(struct fp_flame_opts *o, int c, const char *arg)
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

int main(int argc, char **argv)
{
	fp_set_prog(argv[0]);
	struct fp_flame_opts o;
	fp_flame_opts_init(&o);
	enum mode mode = MODE_PLAIN;
	int json = 0, c;
	while ((c = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		if (flame_option(&o, c, optarg))
			continue;
		switch (c) {
		case OPT_JSON: json = 1; break;
		case OPT_DIFF: mode = MODE_DIFF; break;
		case OPT_ELIDED: mode = MODE_ELIDED; break;
		case 'h': case OPT_HELP:
			puts(USAGE);
			return FP_EXIT_OK;
		default:
			fprintf(stderr, "%s\n", USAGE);
			return FP_EXIT_USAGE;
		}
	}
	if (mode != MODE_PLAIN && argc - optind != 2)
		fp_die(FP_EXIT_USAGE, "--%s needs two folded files: BEFORE AFTER",
		       mode == MODE_DIFF ? "diff" : "elided");

	struct input in = { 0 };
	struct fp_folded table, a, b;
	fp_folded_init(&table);
	fp_folded_init(&a);
	fp_folded_init(&b);
	if (mode == MODE_PLAIN) {
		if (optind == argc)
			load(&table, &in, "-");
		for (int i = optind; i < argc; i++)
			load(&table, &in, argv[i]);
	} else {
		load(&a, &in, argv[optind]);
		load(&b, &in, argv[optind + 1]);
		if (mode == MODE_DIFF) {
			fp_folded_diff(&table, &a, &b);
		} else {
			fp_folded_elided(&table, &a, &b);
			if (!o.title)
				o.title = "Elided Frames";
		}
	}

	struct fp_sink out;
	fp_sink_init_file(&out, stdout);
	int rc = FP_EXIT_OK;
	if (json)
		fp_flame_json(&out, &table, &o);
	else if (fp_flame_render(&out, &table, &o) != 0)
		rc = FP_EXIT_DATA;
	if (fp_sink_close(&out) < 0)
		fp_die_sys(FP_EXIT_SYS, "write 'stdout'");
	if (rc == FP_EXIT_DATA)
		fp_warn("no valid input: no line with a stack and a count above 0");

	fp_folded_free(&table);
	fp_folded_free(&a);
	fp_folded_free(&b);
	for (size_t i = 0; i < in.n; i++)
		free(in.bufs[i]);
	free(in.bufs);
	return rc;
}
