/* flameopts.h: flamegraph.pl's command-line options, shared by every
 * program that draws a flame graph (fp-flamegraph, fp-render).
 *
 * Calling sequence:
 *	struct option opts[FP_FLAME_NOPTS + MY_NOPTS + 1];
 *	size_t k = fp_flame_long_options(opts);   // copies the flame options
 *	opts[k++] = (struct option){ "outdir", ... };   // own values < FP_FLAME_OPT_BASE
 *	opts[k] = (struct option){ 0 };
 *	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
 *		if (!fp_flame_option(&flame_opts, c, optarg))
 *			... own options ...
 * A malformed value ends the program with FP_EXIT_USAGE and a message.
 */
#ifndef FP_FLAMEOPTS_H
#define FP_FLAMEOPTS_H

#include <getopt.h>
#include <stddef.h>

#include "flamegraph.h"

#define FP_FLAME_OPT_BASE 0x1000	/* option values of the flame options */
#define FP_FLAME_NOPTS 22		/* entries fp_flame_long_options writes */

/* The usage text of the flame options (tab-indented lines). */
#define FP_FLAME_USAGE "\t[--title T] [--subtitle T] [--width PX] [--height PX]\n" \
	"\t[--minwidth PX|N%] [--fonttype F] [--fontsize N] [--fontwidth F]\n" \
	"\t[--countname N] [--nametype N] [--colors PALETTE] [--bgcolors C] [--hash]\n" \
	"\t[--inverted] [--reverse] [--flamechart] [--negate] [--notes T]\n" \
	"\t[--search-color C]"

/* Writes the flame options into opts (room for FP_FLAME_NOPTS); returns
 * how many it wrote. */
size_t fp_flame_long_options(struct option *opts);
/* Applies option value c with argument arg; returns 0 if c is not a flame
 * option. */
int fp_flame_option(struct fp_flame_opts *o, int c, const char *arg);

#endif
