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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"
#include "flamegraph.h"
#include "flameopts.h"
#include "folded.h"
#include "fp_error.h"
#include "fp_readall.h"
#include "sink.h"

#define USAGE                                                                                      \
	"usage: fp-flamegraph\n" FP_FLAME_USAGE "\n\t[--json] [FILE... | --diff A B | --elided A " \
	"B]"

enum mode { MODE_PLAIN, MODE_DIFF, MODE_ELIDED };

struct input {
	char **bufs; /* file contents, referenced by the tables */
	size_t n;
};

static void load(struct fp_folded *t, struct input *in, const char *path)
{
	size_t len;
	char *buf = fp_read_all(path, path, 0, &len);
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
				"ignored %llu line(s)",
				name, (unsigned long long)first,
				(unsigned long long)(t->ignored - ignored));
		else
			fp_warn("%s: ignored %llu line(s) that were not 'stack count'", name,
				(unsigned long long)(t->ignored - ignored));
	}
}

int main(int argc, char **argv)
{
	fp_set_prog(argv[0]);
	struct fp_flame_opts o;
	fp_flame_opts_init(&o);
	int json = 0, diff = 0, elided = 0;
	struct fp_opt t[3 + FP_FLAME_NOPTS + 1] = {
		{ "json", FP_OPT_FLAG, &json },
		{ "diff", FP_OPT_FLAG, &diff },
		{ "elided", FP_OPT_FLAG, &elided },
	};
	fp_flame_opts_table(t + 3, &o);
	t[3 + FP_FLAME_NOPTS] = (struct fp_opt){ NULL };
	fp_opts_parse(argc, argv, t, USAGE, FP_OPTS_ANY, NULL);
	if (diff && elided)
		fp_die(FP_EXIT_USAGE, "--diff and --elided: give one of them");
	enum mode mode = elided ? MODE_ELIDED : diff ? MODE_DIFF : MODE_PLAIN;
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
