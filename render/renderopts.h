/* renderopts.h: fp-render's options and the files it writes.
 *
 * fp-render (stages/fp-render.c) parses its command line here, so the
 * stage is its pump and its records; `flamepipe report` passes the same
 * options through. The output table names every file fp-render can write,
 * its --format word, and whether it is written by default.
 *
 * Calling sequence:
 *	struct fp_render_opts o;
 *	fp_render_opts_parse(argc, argv, &o);   // dies with FP_EXIT_USAGE
 *	// optind: the first operand (FILE), at most one
 */
#ifndef FP_RENDEROPTS_H
#define FP_RENDEROPTS_H

#include <stdint.h>

#include "flameopts.h"
#include "termheat.h"

#define FP_RENDER_USAGE                                                                     \
	"usage: fp-render [--outdir DIR] [--format LIST] [--interval MS] [--passthrough]\n" \
	"\t[--term[=auto|color|plain]] [--term-size COLSxLINES] [--page-title T]\n"         \
	"\t[--timeline-max MB] [--timeline-samples N]\n"                                    \
	"\t[--range-folded FROM:TO]\n" FP_FLAME_USAGE " [FILE]"

#define FP_RENDER_FILTER_MAX 512 /* "pid 1,2; comm x" */
#define FP_RENDER_BOUND_MAX 64   /* a C range bound's text */

enum fp_output {
	FP_OUT_TSV,
	FP_OUT_FOLDED,
	FP_OUT_HEAT_JSON,
	FP_OUT_HEAT_SVG,
	FP_OUT_FLAME_SVG,
	FP_OUT_FLAME_JSON,
	FP_OUT_HTML,
	FP_OUT_PPROF,
	FP_OUT_SPEEDSCOPE,
	FP_OUT_RANGE_FOLDED,
	FP_N_OUT
};

struct fp_output_spec {
	const char *name; /* in --format */
	const char *file;
	int by_default;
};

extern const struct fp_output_spec fp_outputs[FP_N_OUT];

/* What the files are made of: the folded table's stacks, the timeline's
 * samples and frames, the heatmap's cells. */
struct fp_output_size {
	uint64_t table_bytes, samples, frames, cells;
};

/* What file `which` should take to make, roughly (tenths of a ns): the
 * order fp-render's two writing threads start them in (render/atomic.h),
 * the costliest first. */
uint64_t fp_output_cost(enum fp_output which, const struct fp_output_size *sz);

struct fp_render_opts {
	const char *outdir;
	int want[FP_N_OUT];
	unsigned interval_ms; /* 0: files only at end of input */
	int passthrough;
	enum fp_term_mode term;
	unsigned term_cols, term_lines; /* 0: ask the terminal */
	const char *page_title;
	int page_title_set;        /* the terminal says "flamepipe heatmap" otherwise */
	unsigned timeline_max_mb;  /* 0: no timeline in index.html */
	uint64_t timeline_samples; /* samples kept, at most */
	const char *range_folded;  /* FROM:TO: write range.folded (tests) */
	struct fp_flame_opts flame;
};

/* Parses argv into o (defaults first); --help prints the usage and exits
 * 0, anything malformed exits FP_EXIT_USAGE with a message. */
void fp_render_opts_parse(int argc, char **argv, struct fp_render_opts *o);

#endif
