/* flamegraph.h: folded stacks -> self-contained interactive SVG flame graph.
 *
 * The output follows flamegraph.pl's look and controls (click to zoom,
 * Reset Zoom, regex search with Ctrl-F/F3 and "Matched: N%", Ctrl-I case
 * toggle, zoom and search kept in the URL) with embedded ECMAScript only,
 * so the file works offline in any browser. Unlike flamegraph.pl the output
 * is byte-identical for identical input, and colours come from an FNV-1a
 * hash of the name, so a function has the same colour in every graph.
 *
 * Each frame is
 *	<g fp:x="X" fp:w="W"><title>NAME (N samples, P%)</title>
 *	<rect x=".." y=".." width=".." height=".." fill="rgb(..)" rx="2" ry="2"/>
 *	<text x=".." y="..">label</text></g>
 * inside <g id="frames">, where X and W are the frame's start and width in
 * samples (exact integers: tests and the zoom code use them).
 *
 * Calling sequence:
 *	struct fp_flame_opts o;
 *	fp_flame_opts_init(&o);
 *	o.title = "CPU";                       // optional changes
 *	struct fp_sink s; fp_sink_init_file(&s, stdout);
 *	int rc = fp_flame_render(&s, &table, &o);   // sorts `table`
 *	fp_sink_close(&s);
 *
 * A differential table (table.two_counts) gives a differential graph:
 * widths from count2, colour from each frame's self count change normalised
 * by the totals (red: more, blue: less, white: unchanged; see diff.h).
 */
#ifndef FP_FLAMEGRAPH_H
#define FP_FLAMEGRAPH_H

#include <stdint.h>

#include "folded.h"
#include "sink.h"

enum fp_palette {
	FP_PAL_FLAMEPIPE, /* by code type: _[k] orange, _[j] green,
				 * _[i] aqua, C++ :: yellow, other red */
	FP_PAL_HOT,
	FP_PAL_MEM,
	FP_PAL_IO,
	FP_PAL_JAVA,
	FP_PAL_JS,
	FP_PAL_PERL,
	FP_PAL_RED,
	FP_PAL_GREEN,
	FP_PAL_BLUE,
	FP_PAL_AQUA,
	FP_PAL_YELLOW,
	FP_PAL_PURPLE,
	FP_PAL_ORANGE,
};

struct fp_flame_opts {
	const char *title;     /* NULL: "Flame Graph", "Icicle Graph" or "Flame Chart" */
	const char *subtitle;  /* NULL: none */
	unsigned width;        /* image width in px (1200) */
	unsigned frame_height; /* px per frame (16) */
	double minwidth;       /* narrower frames are omitted (0.1 px) */
	int minwidth_pct;      /* minwidth is a percentage of the total */
	const char *countname; /* "samples" */
	const char *nametype;  /* "Function:" */
	unsigned fontsize;     /* 12 */
	const char *fonttype;  /* "Verdana" */
	double fontwidth;      /* average glyph width / fontsize (0.59) */
	enum fp_palette palette;
	const char *bgcolors;     /* yellow, blue, green, grey or #rrggbb;
				 * NULL: the palette's default */
	int hash;                 /* accepted for flamegraph.pl compatibility:
				 * colours are always name hashes */
	int inverted;             /* icicle graph: root at the top */
	int reverse;              /* reverse each stack: merge at the leaves */
	int flamechart;           /* keep input order, do not sort */
	int negate;               /* differential: swap red and blue */
	const char *search_color; /* "rgb(230,0,230)" */
	const char *notes;        /* put into an XML comment */
	/* The code type of a frame name ('k' kernel, 'j' JIT, 'i' inlined,
	 * else user/unknown; 0 when not known) for names without a `_[k]`
	 * annotation (fp-render knows it from the samples). NULL: none. */
	char (*kind_of)(void *ctx, const char *name, size_t n);
	void *kind_ctx;
};

void fp_flame_opts_init(struct fp_flame_opts *o);
/* Palette by name ("hot", "flamepipe", ...); returns 0 or -1 if unknown. */
int fp_palette_parse(const char *name, enum fp_palette *out);
/* Parses a --minwidth value: "0.5" (px) or "1%"; 0 or -1 if malformed. */
int fp_flame_parse_minwidth(struct fp_flame_opts *o, const char *arg);
/* Checks --bgcolors; 0 or -1 if it is none of the accepted forms. */
int fp_flame_check_bgcolors(const char *arg);

/* Writes the SVG. Sorts `t` (unless flamechart) and reverses its stacks if
 * o->reverse. Returns 0, or 1 if `t` had no samples (an SVG saying
 * "No samples" is still written). */
int fp_flame_render(struct fp_sink *s, struct fp_folded *t, const struct fp_flame_opts *o);

/* Writes the same tree as nested JSON for d3-flame-graph and speedscope's
 * importer: {"name":"all","value":N,"children":[...]} (values are inclusive
 * counts; a differential table adds "delta" = self count2 - self count1). */
void fp_flame_json(struct fp_sink *s, struct fp_folded *t, const struct fp_flame_opts *o);

/* The colour a frame name gets (for tests and the web server's legend):
 * writes "rgb(r,g,b)" into buf (at least 20 bytes). */
void fp_flame_color(enum fp_palette pal, const char *name, size_t n, char *buf);
/* The same for a frame of a known kind ('k', 'j', 'i'; others: none),
 * used when the name has no `_[k]` style annotation. */
void fp_flame_color_kind(enum fp_palette pal, const char *name, size_t n, char kind, char *buf);

/* FNV-1a, 64 bit. */
uint64_t fp_fnv1a(const char *p, size_t n);

#endif
