/* renderopts.c: fp-render's options and output files (renderopts.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_opts.h"
#include "fp_record.h"
#include "renderopts.h"
#include "timeline.h"

#define TIMELINE_MAX_SAMPLES 4000000 /* kept for range graphs: 64 bytes each */
#define TIMELINE_MAX_MB_DEFAULT 32   /* index.html's embedded timeline, at most */
#define BYTES_PER_MB (1024u * 1024u)
#define TERM_SIZE_MAX 10000 /* --term-size, either way */

const struct fp_output_spec fp_outputs[FP_N_OUT] = {
	[FP_OUT_TSV] = { "tsv", "heatmap.tsv", 1 },
	[FP_OUT_FOLDED] = { "folded", "stacks.folded", 1 },
	[FP_OUT_HEAT_JSON] = { "heatmap-json", "heatmap.json", 1 },
	[FP_OUT_HEAT_SVG] = { "heatmap-svg", "heatmap.svg", 1 },
	[FP_OUT_FLAME_SVG] = { "flame-svg", "flame.svg", 1 },
	[FP_OUT_FLAME_JSON] = { "flame-json", "flame.json", 0 },
	[FP_OUT_HTML] = { "html", "index.html", 1 },
	[FP_OUT_PPROF] = { "pprof", "profile.pb.gz", 0 },
	[FP_OUT_SPEEDSCOPE] = { "speedscope", "speedscope.json", 0 },
	[FP_OUT_RANGE_FOLDED] = { "range-folded", "range.folded", 0 }, /* --range-folded */
};

/* fp-render on the bench perf.data's stream (32 k stacks, 10.7 MB of
 * them, 119 k samples, 742 k frames) spent ~0.4 ns a byte of the table's
 * stacks on stacks.folded, ~60 ns a sample and ~4 a frame of the
 * timeline on index.html. flame.svg took ~2.6 ns a byte while its tree
 * made every frame; making only the frames drawn, it takes ~1 ns (the
 * mixed capture's 58 MB of stacks: 0.06 s, as stacks.folded). The
 * exports' and the heatmap files' figures are guesses on the safe side
 * (long, short). */
#define COST_FLAME_PER_BYTE 10
#define COST_FOLDED_PER_BYTE 4
#define COST_HTML_PER_SAMPLE 600
#define COST_HTML_PER_FRAME 40
#define COST_EXPORT_PER_SAMPLE 2000
#define COST_RANGE_PER_SAMPLE 100
#define COST_PER_CELL 1000

uint64_t fp_output_cost(enum fp_output which, const struct fp_output_size *sz)
{
	uint64_t cells = sz->cells * COST_PER_CELL;

	switch (which) {
	case FP_OUT_FLAME_SVG:
	case FP_OUT_FLAME_JSON:
		return sz->table_bytes * COST_FLAME_PER_BYTE;
	case FP_OUT_FOLDED:
		return sz->table_bytes * COST_FOLDED_PER_BYTE;
	case FP_OUT_HTML:
		return sz->samples * COST_HTML_PER_SAMPLE + sz->frames * COST_HTML_PER_FRAME +
		       cells;
	case FP_OUT_PPROF:
	case FP_OUT_SPEEDSCOPE:
		return sz->samples * COST_EXPORT_PER_SAMPLE;
	case FP_OUT_RANGE_FOLDED:
		return sz->samples * COST_RANGE_PER_SAMPLE;
	default:
		return cells;
	}
}

static void parse_formats(struct fp_render_opts *o, const char *list)
{
	const char *p = list;
	int range_folded = o->want[FP_OUT_RANGE_FOLDED]; /* set by --range-folded only */

	memset(o->want, 0, sizeof o->want);
	o->want[FP_OUT_RANGE_FOLDED] = range_folded;
	while (*p) {
		size_t n = strcspn(p, ",");
		int found = 0;

		if (n == 3 && !strncmp(p, "all", 3)) {
			for (int i = 0; i < FP_OUT_RANGE_FOLDED; i++)
				o->want[i] = 1;
			found = 1;
		}
		for (int i = 0; i < FP_OUT_RANGE_FOLDED && !found; i++)
			if (strlen(fp_outputs[i].name) == n && !strncmp(p, fp_outputs[i].name, n))
				o->want[i] = found = 1;
		if (!found)
			fp_die(FP_EXIT_USAGE,
			       "--format: unknown output '%.*s' (expected tsv, folded, "
			       "heatmap-json, heatmap-svg, flame-svg, flame-json, html, pprof, "
			       "speedscope or all)",
			       (int)n, p);
		p += n;
		if (*p == ',')
			p++;
	}
}

static unsigned parse_ms(const char *opt, const char *arg)
{
	uint64_t ms;

	if (fp_parse_u64(arg, strlen(arg), &ms) != 0 || ms > UINT32_MAX)
		fp_die(FP_EXIT_USAGE, "--%s: want milliseconds, got '%s'", opt, arg);
	return (unsigned)ms;
}

static void parse_term_size(struct fp_render_opts *o, const char *arg)
{
	unsigned c, l;
	char x, extra;

	if (sscanf(arg, "%u%c%u%c", &c, &x, &l, &extra) != 3 || x != 'x' || c < 1 || l < 1 ||
	    c > TERM_SIZE_MAX || l > TERM_SIZE_MAX)
		fp_die(FP_EXIT_USAGE, "--term-size: want COLSxLINES (e.g. 80x24), got '%s'", arg);
	o->term_cols = c;
	o->term_lines = l;
}

static enum fp_term_mode parse_term(const char *arg)
{
	if (!arg || !strcmp(arg, "auto"))
		return FP_TERM_MODE_AUTO;
	if (!strcmp(arg, "color") || !strcmp(arg, "colour"))
		return FP_TERM_MODE_COLOR;
	if (!strcmp(arg, "plain"))
		return FP_TERM_MODE_PLAIN;
	fp_die(FP_EXIT_USAGE, "--term: want auto, color or plain, got '%s'", arg);
}

/* --range-folded FROM:TO, each side seconds, or - or empty for an open end. */
static const char *parse_range_folded(const char *arg)
{
	const char *colon = strchr(arg, ':');
	uint64_t ns;
	int ok = colon != NULL;

	if (ok && colon > arg && !(colon - arg == 1 && *arg == '-'))
		ok = !fp_parse_seconds_ns(arg, (size_t)(colon - arg), &ns);
	if (ok && colon[1] && strcmp(colon + 1, "-"))
		ok = !fp_parse_seconds_ns(colon + 1, strlen(colon + 1), &ns);
	if (!ok)
		fp_die(FP_EXIT_USAGE,
		       "--range-folded: want FROM:TO in seconds "
		       "(- or empty: open end), got '%s'",
		       arg);
	return arg;
}

/* Each option with a value to check: ctx is the fp_render_opts. */
static void opt_format(void *ctx, const char *opt, const char *arg)
{
	parse_formats(ctx, arg);
}

static void opt_interval(void *ctx, const char *opt, const char *arg)
{
	((struct fp_render_opts *)ctx)->interval_ms = parse_ms(opt, arg);
}

static void opt_term(void *ctx, const char *opt, const char *arg)
{
	((struct fp_render_opts *)ctx)->term = parse_term(arg);
}

static void opt_term_size(void *ctx, const char *opt, const char *arg)
{
	parse_term_size(ctx, arg);
}

static void opt_page_title(void *ctx, const char *opt, const char *arg)
{
	struct fp_render_opts *o = ctx;

	o->page_title = arg;
	o->page_title_set = 1;
}

static void opt_timeline_max(void *ctx, const char *opt, const char *arg)
{
	struct fp_render_opts *o = ctx;

	o->timeline_max_mb = parse_ms(opt, arg);
	if (o->timeline_max_mb > UINT32_MAX / BYTES_PER_MB)
		fp_die(FP_EXIT_USAGE, "--timeline-max: at most %u MB", UINT32_MAX / BYTES_PER_MB);
}

static void opt_timeline_samples(void *ctx, const char *opt, const char *arg)
{
	struct fp_render_opts *o = ctx;

	if (fp_parse_u64(arg, strlen(arg), &o->timeline_samples) ||
	    o->timeline_samples > SIZE_MAX / sizeof(struct fp_tl_sample))
		fp_die(FP_EXIT_USAGE, "--timeline-samples: want a number of samples, got '%s'",
		       arg);
}

static void opt_range_folded(void *ctx, const char *opt, const char *arg)
{
	struct fp_render_opts *o = ctx;

	o->range_folded = parse_range_folded(arg);
	o->want[FP_OUT_RANGE_FOLDED] = 1;
}

#define N_OWN 10 /* fp-render's own entries in the table below */

void fp_render_opts_parse(int argc, char **argv, struct fp_render_opts *o)
{
	struct fp_opt t[N_OWN + FP_FLAME_NOPTS + 1] = {
		{ "outdir", FP_OPT_STR, &o->outdir, .short_name = 'o' },
		{ "format", FP_OPT_FN, .fn = opt_format },
		{ "interval", FP_OPT_FN, .fn = opt_interval },
		{ "passthrough", FP_OPT_FLAG, &o->passthrough },
		{ "term", FP_OPT_FN_OPTIONAL, .fn = opt_term },
		{ "term-size", FP_OPT_FN, .fn = opt_term_size },
		{ "page-title", FP_OPT_FN, .fn = opt_page_title },
		{ "timeline-max", FP_OPT_FN, .fn = opt_timeline_max },
		{ "range-folded", FP_OPT_FN, .fn = opt_range_folded },
		{ "timeline-samples", FP_OPT_FN, .fn = opt_timeline_samples },
	};

	memset(o, 0, sizeof *o);
	fp_flame_opts_init(&o->flame);
	for (int i = 0; i < FP_N_OUT; i++)
		o->want[i] = fp_outputs[i].by_default;
	o->page_title = "flamepipe report";
	o->timeline_max_mb = TIMELINE_MAX_MB_DEFAULT;
	o->timeline_samples = TIMELINE_MAX_SAMPLES;
	fp_flame_opts_table(t + N_OWN, &o->flame);
	t[N_OWN + FP_FLAME_NOPTS] = (struct fp_opt){ NULL };
	fp_opts_parse(argc, argv, t, FP_RENDER_USAGE, 1, o);
	if (!o->outdir && o->term == FP_TERM_MODE_OFF && !o->passthrough)
		fp_die(FP_EXIT_USAGE,
		       "nothing to do: give --outdir DIR, --term or --passthrough\n%s",
		       FP_RENDER_USAGE);
}
