/* flameopts.h: flamegraph.pl's command-line options, shared by every
 * program that draws a flame graph (fp-flamegraph, fp-render).
 *
 * They are entries of the program's lib/fp_opts.h table, so a program
 * that draws a flame graph parses its command line like every other:
 *	struct fp_opt t[MY_NOPTS + FP_FLAME_NOPTS + 1] = { ...own entries... };
 *	size_t k = MY_NOPTS;
 *	k += fp_flame_opts_table(t + k, &flame_opts);
 *	t[k] = (struct fp_opt){ NULL };
 *	int first = fp_opts_parse(argc, argv, t, USAGE, max_operands, ctx);
 * A malformed value ends the program with FP_EXIT_USAGE and a message.
 */
#ifndef FP_FLAMEOPTS_H
#define FP_FLAMEOPTS_H

#include <stddef.h>

#include "flamegraph.h"
#include "fp_opts.h"

#define FP_FLAME_NOPTS 22 /* entries fp_flame_long_options writes */

/* The usage text of the flame options (tab-indented lines). */
#define FP_FLAME_USAGE                                                                  \
	"\t[--title T] [--subtitle T] [--width PX] [--height PX]\n"                     \
	"\t[--minwidth PX|N%] [--fonttype F] [--fontsize N] [--fontwidth F]\n"          \
	"\t[--countname N] [--nametype N] [--colors PALETTE] [--bgcolors C] [--hash]\n" \
	"\t[--inverted] [--reverse] [--flamechart] [--negate] [--notes T]\n"            \
	"\t[--search-color C]"

/* Writes the flame options into t (room for FP_FLAME_NOPTS entries), each
 * storing into o; returns how many it wrote. */
size_t fp_flame_opts_table(struct fp_opt *t, struct fp_flame_opts *o);

#endif
