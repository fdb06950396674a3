/* fp-render: the last stage: a flamepipe stream -> heatmap and flame graph files.
 *
 * Interface:
 *	fp-render [--outdir DIR] [--format LIST] [--interval MS] [--passthrough]
 *		[--term[=auto|color|plain]] [--term-size COLSxLINES] [--page-title T]
 *		[--from S] [--to S] [--pid L] [--tid L] [--cpu L] [--comm N]
 *		[--event N] [--include RE] [--exclude RE]
 *		[flame graph options: --title --width --minwidth --colors ...] [FILE]
 *
 * Input: a flamepipe stream (fifo/PROTOCOL.md) on stdin or FILE (gzip ok).
 *  G/H      the heatmap (G drops every cell, H sets one to an absolute count)
 *  C begin fold / F ... / C end fold
 *           a folded snapshot: replaces the whole table when complete
 *           (F records outside a snapshot add to the table: hand-written input)
 *  C range  the range the chain selected (drawn on the heatmap, named in the
 *           flame graph's subtitle; --from/--to give it until a C range
 *           arrives: fp-range announces only changes); C filter likewise
 *           (--pid, --comm ... name the filters fp-range was started with)
 *  W, I     shown on index.html (warnings, the latest statistics per stage)
 *  D, R     (fp-fold --pass-samples) each folded stack once, then each
 *           folded sample naming it: stored, not folded again, in a
 *           timeline (render/timeline.h): index.html embeds it and draws a
 *           selected range's flame graph itself, flame.svg colours frames
 *           by their kind, the exports get every sample; C reset forgets
 *           the samples (the stacks stay)
 *  S        (a hand-written stream) given to the exports only
 *  everything else: ignored.
 *
 * Output, into --outdir at end of input (and every --interval ms while the
 * input is live and something changed), each written to a temporary name in
 * DIR and renamed into place only when complete, so a reader never sees a
 * half file, even when the disk fills up:
 *	heatmap.tsv    second TAB row_start_ms TAB count (every cell)
 *	stacks.folded  `stack count` lines (flamegraph.pl, speedscope, inferno)
 *	heatmap.json   FlameScope's /heatmap shape
 *	heatmap.svg    the interactive heatmap
 *	flame.svg      the interactive flame graph
 *	flame.json     nested {name,value,children} (only with --format)
 *	index.html     heatmap + flame graph + warnings + statistics (+ the
 *	               samples timeline, at most --timeline-max MB)
 *	profile.pb.gz  pprof (only with --format ...,pprof; render/pprof.h)
 *	speedscope.json  speedscope's format (--format ...,speedscope; not written
 *	               past --timeline-samples samples: render/speedscope.h)
 *	range.folded   with --range-folded FROM:TO: that range's folded table
 * --term draws the heatmap on the terminal (stdout, or /dev/tty with
 * --passthrough), redrawn in place at most FP_TERM_FPS times a second while
 * cells change; plain characters when that is not a tty or NO_COLOR is set
 * (then drawn once, at end of input).
 * --passthrough copies every input record to stdout unchanged, so fp-render
 * can sit mid-chain; otherwise stdout carries only the terminal picture.
 *
 * Exit codes: 0 ok, 1 bad gzip input, 100 usage or unsupported stream
 * version, 111 system error (a file could not be written: the message names
 * it), 141 the reader went away.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ev.h>

#include "flamegraph.h"
#include "flameopts.h"
#include "folded.h"
#include "fp_error.h"
#include "fp_io.h"
#include "fp_record.h"
#include "heatmap.h"
#include "sink.h"
#include "termheat.h"
#include "timeline.h"
#include "exports.h"

#define USAGE "usage: fp-render [--outdir DIR] [--format LIST] [--interval MS] [--passthrough]\n" \
	"\t[--term[=auto|color|plain]] [--term-size COLSxLINES] [--page-title T]\n" \
	"\t[--from S] [--to S] [--pid L] [--tid L] [--cpu L] [--comm N] [--event N]\n" \
	"\t[--include RE] [--exclude RE] [--timeline-max MB] [--timeline-samples N]\n" \
	"\t[--range-folded FROM:TO]\n" \
	FP_FLAME_USAGE " [FILE]"

#define STAGE_NAME "render"
#define MS_PER_SEC 1000.0
#define FP_TERM_FPS 10			/* terminal redraws per second, at most */
#define MAX_WARNINGS 200		/* kept for index.html; the rest are counted */
#define MAX_STDERR_WARNINGS 20		/* own warnings printed, then counted */
#define MAX_STATS 32			/* stages whose I records are kept */
#define DEFAULT_TERM_COLS 80
#define DEFAULT_TERM_LINES 24
#define RANGE_TEXT_MAX 64
#define FILTER_TEXT_MAX 512
#define CAPTION_MAX 768
#define TIMELINE_MAX_SAMPLES 4000000	/* kept for range graphs: 64 bytes each */
#define TIMELINE_MAX_MB_DEFAULT 32	/* index.html's embedded timeline, at most */
#define BYTES_PER_MB (1024u * 1024u)

enum output {
	OUT_TSV, OUT_FOLDED, OUT_HEAT_JSON, OUT_HEAT_SVG, OUT_FLAME_SVG, OUT_FLAME_JSON,
	OUT_HTML, OUT_PPROF, OUT_SPEEDSCOPE, OUT_RANGE_FOLDED, N_OUT
};

static const struct {
	const char *name;	/* in --format */
	const char *file;
	int by_default;
} outputs[N_OUT] = {
	[OUT_TSV] = { "tsv", "heatmap.tsv", 1 },
	[OUT_FOLDED] = { "folded", "stacks.folded", 1 },
	[OUT_HEAT_JSON] = { "heatmap-json", "heatmap.json", 1 },
	[OUT_HEAT_SVG] = { "heatmap-svg", "heatmap.svg", 1 },
	[OUT_FLAME_SVG] = { "flame-svg", "flame.svg", 1 },
	[OUT_FLAME_JSON] = { "flame-json", "flame.json", 0 },
	[OUT_HTML] = { "html", "index.html", 1 },
	[OUT_PPROF] = { "pprof", "profile.pb.gz", 0 },
	[OUT_SPEEDSCOPE] = { "speedscope", "speedscope.json", 0 },
	[OUT_RANGE_FOLDED] = { "range-folded", "range.folded", 0 },	/* --range-folded */
};

enum term_mode { TERM_OFF, TERM_AUTO, TERM_COLOR, TERM_PLAIN };

struct options {
	const char *outdir;
	int want[N_OUT];
	unsigned interval_ms;	/* 0: files only at end of input */
	int passthrough;
	enum term_mode term;
	unsigned term_cols, term_lines;	/* 0: ask the terminal */
	const char *page_title;
	int page_title_set;	/* the terminal says "flamepipe heatmap" otherwise */
	const char *from, *to;	/* the range the chain used (until a C range) */
	char filter[FILTER_TEXT_MAX];	/* the filters it used, "pid 1,2; comm x" */
	unsigned timeline_max_mb;	/* 0: no timeline in index.html */
	uint64_t timeline_samples;	/* samples kept, at most */
	const char *range_folded;	/* FROM:TO: write range.folded (tests) */
	struct fp_flame_opts flame;
};

struct stat_entry {
	char *stage;
	char *text;		/* "stage TAB k=v TAB ..." as fp_heatmap_html wants */
};

struct render {
	struct options opt;
	struct fp_pump pump;

	struct fp_heatmap hm;
	struct fp_folded table;		/* the latest complete snapshot */
	struct fp_folded pending;	/* the snapshot being received */
	struct fp_timeline tl;		/* the D and R records of fp-fold --pass-samples */
	struct fp_exports ex;		/* the same samples for pprof (render/exports.h) */
	uint64_t timeline_bytes;	/* size of the last embedded timeline */
	int speedscope_warned;
	int in_snapshot;
	uint64_t snapshots;

	char range_from[RANGE_TEXT_MAX], range_to[RANGE_TEXT_MAX];
	int have_range;
	char filter[FILTER_TEXT_MAX];

	char *warnings[MAX_WARNINGS + 1];	/* + "N more" */
	size_t n_warnings;
	uint64_t warnings_total;
	struct stat_entry stats[MAX_STATS];
	size_t n_stats;
	uint64_t own_warnings, bad_records;
	int axis_cut_warned;

	int files_dirty, seen_idle;
	uint64_t files_written, write_errors;
	ev_timer files_timer;

	int term_fd, term_is_tty, term_dirty, term_drawn;
	enum fp_term_color term_color;
	ev_timer term_timer;
	mode_t file_mode;
};

/* ---- warnings and statistics ------------------------------------------- */

static void keep_warning(struct render *r, const char *text, size_t n)
{
	r->warnings_total++;
	if (r->n_warnings < MAX_WARNINGS)
		r->warnings[r->n_warnings++] = fp_xstrndup(text, n);
}

/* A problem with our own input: stderr (and a W record downstream with
 * --passthrough), and the warnings list of index.html. */
static void own_warning(struct render *r, const char *msg)
{
	char text[256];

	r->own_warnings++;
	snprintf(text, sizeof text, STAGE_NAME ": %s:%llu: %s", r->pump.in_name,
		 (unsigned long long)r->pump.lineno, msg);
	keep_warning(r, text, strlen(text));
	if (r->own_warnings > MAX_STDERR_WARNINGS)
		return;
	if (r->opt.passthrough)
		fp_pump_warn(&r->pump, "%s", msg);
	else
		fp_warn("%s:%llu: %s", r->pump.in_name, (unsigned long long)r->pump.lineno, msg);
	if (r->own_warnings == MAX_STDERR_WARNINGS)
		fp_warn("more warnings are counted, not printed");
}

/* W TAB stage TAB where TAB message -> "stage: where: message". */
static void on_warning_record(struct render *r, const char *line, size_t len)
{
	struct fp_warning w;
	char text[1024];
	int m;

	if (fp_warning_parse(line, len, &w) < 0)
		m = snprintf(text, sizeof text, "%.*s", (int)(len > 2 ? len - 2 : 0), line + 2);
	else
		m = snprintf(text, sizeof text, "%.*s: %.*s: %.*s", (int)w.stage.n, w.stage.p,
			     (int)w.where.n, w.where.p, (int)w.message.n, w.message.p);
	if (m < 0)
		return;
	keep_warning(r, text, (size_t)m < sizeof text ? (size_t)m : sizeof text - 1);
}

/* I TAB stage TAB k=v ...: the latest line per stage is kept. */
static void on_stats_record(struct render *r, const char *line, size_t len)
{
	struct fp_info info;

	if (fp_info_parse(line, len, &info) < 0)
		return;
	const char *rest = info.stage.p;
	size_t rest_n = len - (size_t)(rest - line);
	size_t stage_n = info.stage.n;
	size_t i;

	for (i = 0; i < r->n_stats; i++)
		if (strlen(r->stats[i].stage) == stage_n && !memcmp(r->stats[i].stage, rest, stage_n))
			break;
	if (i == r->n_stats) {
		if (r->n_stats == MAX_STATS)
			return;
		r->stats[r->n_stats++].stage = fp_xstrndup(rest, stage_n);
	}
	free(r->stats[i].text);
	r->stats[i].text = fp_xstrndup(rest, rest_n);
}

/* ---- the heatmap ------------------------------------------------------ */

static void on_geometry(struct render *r, const char *line, size_t len)
{
	struct fp_geometry g;

	if (fp_geometry_parse(line, len, &g) < 0 || g.rows > FP_ROWS_MAX ||
	    g.base_sec > INT64_MAX) {
		own_warning(r, "malformed G record skipped: expected G TAB rows(1..1000) TAB base_sec");
		r->bad_records++;
		return;
	}
	fp_heatmap_reset(&r->hm, (unsigned)g.rows, (int64_t)g.base_sec);
	r->files_dirty = r->term_dirty = 1;
}

static void on_cell(struct render *r, const char *line, size_t len)
{
	struct fp_cell c;

	if (fp_cell_parse(line, len, &c) < 0) {
		own_warning(r, "malformed H record skipped: expected H TAB column TAB row TAB count");
		r->bad_records++;
		return;
	}
	if (fp_heatmap_set(&r->hm, c.col, c.row, c.count) < 0) {
		own_warning(r, "H record skipped: row not below the G record's rows, "
			    "or column past the heatmap's limit (2^32 - 1)");
		r->bad_records++;
		return;
	}
	r->files_dirty = r->term_dirty = 1;
}

/* ---- folded snapshots --------------------------------------------------- */

static void on_folded(struct render *r, const char *line, size_t len)
{
	struct fp_folded_rec f;

	if (fp_folded_parse(line, len, &f) < 0) {
		own_warning(r, "malformed F record skipped: expected F TAB count TAB stack");
		r->bad_records++;
		return;
	}
	if (f.count == 0)
		return;
	fp_folded_add(r->in_snapshot ? &r->pending : &r->table, f.stack.p, f.stack.n, f.count, 0,
		      FP_FOLDED_COPY);
	if (!r->in_snapshot)
		r->files_dirty = 1;
}

/* A D record (fp-fold --pass-samples): a folded stack, defined once. */
static void on_stack_def(struct render *r, const char *line, size_t len)
{
	struct fp_stack_def d;

	if (fp_stack_def_parse(line, len, &d) < 0) {
		own_warning(r, "malformed D record skipped: expected D TAB id TAB kinds TAB folded "
			    "(one kind per frame)");
		r->bad_records++;
	} else if (fp_timeline_define(&r->tl, &d) < 0) {
		own_warning(r, "D record skipped: its id skips ahead (ids come 0, 1, 2, ...)");
		r->bad_records++;
	}
}

/* An R record (fp-fold --pass-samples): a folded sample, kept by time for
 * range graphs, and for the exports. */
static void on_ref(struct render *r, const char *line, size_t len)
{
	struct fp_ref ref;
	struct fp_sample s;

	if (fp_ref_parse(line, len, &ref) < 0) {
		own_warning(r, "malformed R record skipped (not kept for range flame graphs): expected "
			    "R TAB id TAB time_ns TAB pid TAB tid TAB cpu TAB period TAB count TAB "
			    "event TAB comm");
		r->bad_records++;
		return;
	}
	if (fp_timeline_ref_sample(&r->tl, &ref, &s) == 0)
		fp_exports_add_sample(&r->ex, &s);
	if (fp_timeline_add(&r->tl, &ref) < 0) {
		own_warning(r, "R record of a stack no D record defined skipped");
		r->bad_records++;
		return;
	}
	r->files_dirty = 1;
}

/* Appends one filter ("pid 1,2") to the list named on the pictures. */
static void add_filter(struct render *r, const char *spec, size_t n)
{
	size_t used = strlen(r->filter);

	if (used)
		used += (size_t)snprintf(r->filter + used, sizeof r->filter - used, "; ");
	if (used < sizeof r->filter)
		snprintf(r->filter + used, sizeof r->filter - used, "%.*s", (int)n, spec);
}

static void on_control(struct render *r, const char *line, size_t len)
{
	struct fp_control c;

	if (fp_control_parse(line, len, &c) < 0)
		return;
	if (fp_control_is(&c, FP_CTL_BEGIN, "fold")) {
		if (r->in_snapshot)
			own_warning(r, "snapshot begins inside another one: the unfinished one is dropped");
		fp_folded_clear(&r->pending);
		r->in_snapshot = 1;
	} else if (fp_control_is(&c, FP_CTL_END, "fold")) {
		if (!r->in_snapshot) {
			own_warning(r, "snapshot end without a begin ignored");
			return;
		}
		struct fp_folded t = r->table;
		r->table = r->pending;
		r->pending = t;
		fp_folded_clear(&r->pending);
		r->in_snapshot = 0;
		r->snapshots++;
		r->files_dirty = 1;
	} else if (c.kind == FP_CTL_RESET) {
		fp_timeline_reset(&r->tl);	/* fp-range re-sends the samples */
		fp_exports_reset(&r->ex);
		r->files_dirty = 1;
	} else if (c.kind == FP_CTL_RANGE && c.nargs == 2) {
		snprintf(r->range_from, sizeof r->range_from, "%.*s", (int)c.arg[0].n, c.arg[0].p);
		snprintf(r->range_to, sizeof r->range_to, "%.*s", (int)c.arg[1].n, c.arg[1].p);
		r->have_range = strcmp(r->range_from, "-") || strcmp(r->range_to, "-");
		r->filter[0] = '\0';
		r->files_dirty = 1;
	} else if (c.kind == FP_CTL_FILTER) {
		/* fp-range sends C range, then one C filter per filter in force
		 * (or C filter clear): the range record starts the list afresh. */
		if (fp_str_eq(c.rest, "clear"))
			r->filter[0] = '\0';
		else
			add_filter(r, c.rest.p, c.rest.n);
		r->files_dirty = 1;
	}
}

/* ---- file outputs ------------------------------------------------------- */

/* A range bound as seconds, or -1 for "-" or something unparsable. */
static double bound_seconds(const char *text)
{
	char *end;
	double v;

	if (strcmp(text, "-") == 0)
		return -1;
	v = strtod(text, &end);
	return end != text && *end == '\0' && v >= 0 ? v : -1;
}

/* "range [from, to) s" and the filter, or "" for the whole capture. */
static void range_caption(const struct render *r, char *buf, size_t n)
{
	int m = 0;

	buf[0] = '\0';
	if (r->have_range)
		m = snprintf(buf, n, "range [%s, %s) s", strcmp(r->range_from, "-") ? r->range_from : "start",
			     strcmp(r->range_to, "-") ? r->range_to : "end");
	if (r->filter[0] && m >= 0 && (size_t)m < n)
		snprintf(buf + m, n - (size_t)m, "%s%s %s", m ? ", " : "",
			 strchr(r->filter, ';') ? "filters" : "filter", r->filter);
}

static char timeline_kind(void *ctx, const char *name, size_t n)
{
	return fp_timeline_kind(ctx, name, n);
}

/* The flame graph of a copy of the table: rendering sorts (and with
 * --reverse rewrites) the table it is given, and the live table must stay
 * as received so it can be rendered again. */
static void render_flame(struct render *r, struct fp_sink *s, int json)
{
	struct fp_folded t;
	struct fp_flame_opts o = r->opt.flame;
	char caption[CAPTION_MAX];

	range_caption(r, caption, sizeof caption);
	if (!o.subtitle && caption[0])
		o.subtitle = caption;
	if (r->tl.nstacks) {	/* colours by code type without _[k] names */
		o.kind_of = timeline_kind;
		o.kind_ctx = &r->tl;
	}
	fp_folded_init(&t);
	for (size_t i = 0; i < r->table.n; i++)
		fp_folded_add(&t, r->table.e[i].stack, r->table.e[i].len, r->table.e[i].count, 0,
			      FP_FOLDED_REF);
	if (json)
		fp_flame_json(s, &t, &o);
	else
		fp_flame_render(s, &t, &o);
	fp_folded_free(&t);
}

/* The timeline for index.html into tj (a memory sink), or a note in
 * note[] saying why the page cannot draw range graphs itself. Returns 1 if
 * tj holds the JSON. No samples at all (a chain without fp-fold
 * --pass-samples): 0 and no note, the page is as it always was. */
static int timeline_for_page(struct render *r, struct fp_sink *tj, char *note, size_t n)
{
	struct fp_flame_opts o = r->opt.flame;
	uint64_t total = fp_timeline_total(&r->tl);

	note[0] = '\0';
	if (!r->tl.n && !r->tl.overflow)
		return 0;
	if (!r->opt.timeline_max_mb) {
		snprintf(note, n, "The samples' timeline is not embedded (--timeline-max 0).");
		return 0;
	}
	if (r->tl.overflow) {
		snprintf(note, n, "The capture has more than %llu samples (--timeline-samples): the "
			 "page does not hold them all, so it cannot draw a selected range's flame "
			 "graph itself.", (unsigned long long)r->opt.timeline_samples);
		return 0;
	}
	if (total != r->table.total) {
		snprintf(note, n, "The samples' timeline (%llu) does not match the folded table "
			 "(%llu): range flame graphs are not drawn in the page.",
			 (unsigned long long)total, (unsigned long long)r->table.total);
		return 0;
	}
	fp_sink_init_mem(tj);
	fp_timeline_json(&r->tl, tj, &r->hm, &o);
	r->timeline_bytes = tj->len;
	if (tj->len > (uint64_t)r->opt.timeline_max_mb * BYTES_PER_MB) {
		snprintf(note, n, "The samples' timeline would add %.1f MB to this page (more than "
			 "--timeline-max %u MB): range flame graphs are not drawn in the page.",
			 (double)tj->len / BYTES_PER_MB, r->opt.timeline_max_mb);
		fp_sink_free(tj);
		return 0;
	}
	/* fp-range passed only the selected samples: say so, or an empty
	 * selection outside the range would look like a bug. */
	char caption[CAPTION_MAX];
	range_caption(r, caption, sizeof caption);
	if (caption[0])
		snprintf(note, n, "This page holds only the samples of %s: a selection's flame "
			 "graph shows its part of them.", caption);
	return 1;
}

static void render_html(struct render *r, struct fp_sink *s)
{
	struct fp_heatmap_opts o;
	char caption[CAPTION_MAX + 64], range[CAPTION_MAX], footer[128];
	const char *stats[MAX_STATS + 1];
	char own_stats[256], tl_note[CAPTION_MAX + 128];
	size_t ns = 0;
	struct fp_sink tj;
	int have_tl = timeline_for_page(r, &tj, tl_note, sizeof tl_note);

	fp_heatmap_opts_init(&o);
	if (have_tl) {
		o.timeline_json = tj.buf;
		o.timeline_len = tj.len;
	}
	if (tl_note[0])
		o.timeline_note = tl_note;
	o.title = r->opt.page_title;
	if (r->opt.want[OUT_FLAME_SVG]) {
		range_caption(r, range, sizeof range);
		snprintf(caption, sizeof caption, "Flame graph of %s (%llu samples)",
			 range[0] ? range : "the whole capture", (unsigned long long)r->table.total);
		o.flame_src = outputs[OUT_FLAME_SVG].file;
		o.flame_caption = caption;
		/* A static page has one flame graph: the link is there only when
		 * that graph is the whole profile (it clears a selection). */
		if (!range[0])
			o.whole_href = outputs[OUT_FLAME_SVG].file;
	}
	if (r->have_range) {
		o.have_range = 1;
		o.range_from = bound_seconds(r->range_from);
		o.range_to = bound_seconds(r->range_to);
	}
	if (r->warnings_total > r->n_warnings) {
		char more[64];
		snprintf(more, sizeof more, "... and %llu more warnings",
			 (unsigned long long)(r->warnings_total - r->n_warnings));
		free(r->warnings[MAX_WARNINGS]);
		r->warnings[MAX_WARNINGS] = fp_xstrdup(more);
	}
	o.warnings = (const char *const *)r->warnings;
	o.n_warnings = r->n_warnings + (r->warnings_total > r->n_warnings);
	for (size_t i = 0; i < r->n_stats; i++)
		stats[ns++] = r->stats[i].text;
	snprintf(own_stats, sizeof own_stats,
		 STAGE_NAME "\tsnapshots=%llu\tstacks=%zu\ttotal=%llu\theatmap_total=%llu\tbad_records=%llu",
		 (unsigned long long)r->snapshots, r->table.n, (unsigned long long)r->table.total,
		 (unsigned long long)fp_heatmap_total(&r->hm), (unsigned long long)r->bad_records);
	if (ns < MAX_STATS + 1)
		stats[ns++] = own_stats;
	o.stats = stats;
	o.n_stats = ns;
	snprintf(footer, sizeof footer, "Made by flamepipe fp-render: heatmap.svg, flame.svg, "
		 "heatmap.json, heatmap.tsv and stacks.folded are next to this page.");
	o.footer_html_text = footer;
	fp_heatmap_html(s, &r->hm, &o);
	if (have_tl)
		fp_sink_free(&tj);
}

/* --range-folded FROM:TO: the folded table of that range from the
 * timeline, as stacks.folded would be for a --from/--to report. */
static void render_range_folded(struct render *r, struct fp_sink *s)
{
	const char *arg = r->opt.range_folded, *colon = strchr(arg, ':');
	uint64_t from = 0, to = UINT64_MAX;
	uint64_t base = r->hm.rows && r->hm.base_sec > 0 ?
		(uint64_t)r->hm.base_sec * FP_NSEC_PER_SEC : 0;
	struct fp_folded t;

	if (colon > arg && !(colon - arg == 1 && *arg == '-'))
		fp_parse_seconds_ns(arg, (size_t)(colon - arg), &from);
	if (colon[1] && strcmp(colon + 1, "-"))
		fp_parse_seconds_ns(colon + 1, strlen(colon + 1), &to);
	fp_folded_init(&t);
	fp_timeline_range(&r->tl, base, from, to, &t);
	fp_folded_write(s, &t);
	fp_folded_free(&t);
}

static void render_output(struct render *r, enum output which, struct fp_sink *s)
{
	struct fp_heatmap_opts ho;

	fp_heatmap_opts_init(&ho);
	ho.title = r->opt.page_title;
	if (r->have_range) {
		ho.have_range = 1;
		ho.range_from = bound_seconds(r->range_from);
		ho.range_to = bound_seconds(r->range_to);
	}
	switch (which) {
	case OUT_TSV: fp_heatmap_tsv(s, &r->hm); break;
	case OUT_FOLDED: fp_folded_write(s, &r->table); break;
	case OUT_HEAT_JSON: fp_heatmap_json(s, &r->hm); break;
	case OUT_HEAT_SVG: fp_heatmap_svg(s, &r->hm, &ho); break;
	case OUT_FLAME_SVG: render_flame(r, s, 0); break;
	case OUT_FLAME_JSON: render_flame(r, s, 1); break;
	case OUT_HTML: render_html(r, s); break;
	case OUT_PPROF: fp_pprof_write(&r->ex.pprof, s); break;
	case OUT_SPEEDSCOPE:
		fp_speedscope_write(&r->ex.speedscope, s, r->opt.page_title, r->tl.weight_period);
		break;
	case OUT_RANGE_FOLDED: render_range_folded(r, s); break;
	case N_OUT: break;
	}
}

/* Writes DIR/.NAME.XXXXXX and renames it to DIR/NAME once complete.
 * Returns 0, or -1 with errno (the temporary file is removed). */
static int write_atomically(struct render *r, enum output which, char *path, size_t path_n)
{
	char tmp[PATH_MAX];
	struct fp_sink s;
	int fd, err = 0;
	FILE *fp;

	snprintf(path, path_n, "%s/%s", r->opt.outdir, outputs[which].file);
	if ((size_t)snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", r->opt.outdir,
			     outputs[which].file) >= sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fchmod(fd, r->file_mode) < 0 || !(fp = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
		unlink(tmp);
		errno = err;
		return -1;
	}
	setvbuf(fp, NULL, _IONBF, 0);	/* the sink buffers already */
	fp_sink_init_file(&s, fp);
	render_output(r, which, &s);
	if (fp_sink_close(&s) < 0)
		err = errno;
	if (fclose(fp) != 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) < 0)
		err = errno;
	if (err) {
		unlink(tmp);
		errno = err;
		return -1;
	}
	return 0;
}

/* speedscope.json keeps every sample: past --timeline-samples it would be
 * partial, so it is not written (an older one is removed) and the page says
 * so (the warning comes before index.html is written). */
static int skip_partial(struct render *r, enum output which)
{
	char path[PATH_MAX];

	if (!r->opt.want[OUT_SPEEDSCOPE] || !r->ex.speedscope.overflow)
		return 0;
	if (!r->speedscope_warned) {
		char msg[160];

		snprintf(msg, sizeof msg, "%s not written: more than %llu samples "
			 "(--timeline-samples)", outputs[OUT_SPEEDSCOPE].file,
			 (unsigned long long)r->opt.timeline_samples);
		own_warning(r, msg);
		r->speedscope_warned = 1;
	}
	if (which != OUT_SPEEDSCOPE)
		return 0;
	snprintf(path, sizeof path, "%s/%s", r->opt.outdir, outputs[which].file);
	unlink(path);
	return 1;
}

/* The heatmap's axis is cut when the samples span too many seconds
 * (render/heatmap.h): say so once, on stderr (a W record with
 * --passthrough) and on index.html. */
static void note_axis(struct render *r)
{
	struct fp_heatmap_axis ax;
	char msg[256];

	if (r->axis_cut_warned)
		return;
	fp_heatmap_axis(&r->hm, &ax);
	if (ax.cut) {
		snprintf(msg, sizeof msg, "the samples span %zu seconds, more than a heatmap axis "
			 "holds (%u columns, %u cells): only the %zu seconds with samples are drawn, "
			 "%llu empty seconds are left out", r->hm.ncols, FP_HEATMAP_AXIS_COLS,
			 FP_HEATMAP_AXIS_CELLS, ax.n, (unsigned long long)ax.cut);
		own_warning(r, msg);
		r->axis_cut_warned = 1;
	}
	fp_heatmap_axis_free(&ax);
}

/* Writes every wanted file. At end of input a failure is fatal; while live
 * it is a warning and the next interval tries again. */
static void write_files(struct render *r, int final)
{
	char path[PATH_MAX];

	if (!r->opt.outdir)
		return;
	fp_heatmap_sort(&r->hm);	/* once, not in every rendering */
	note_axis(r);
	for (int i = 0; i < N_OUT; i++) {
		if (!r->opt.want[i] || skip_partial(r, (enum output)i))
			continue;
		if (write_atomically(r, (enum output)i, path, sizeof path) < 0) {
			r->write_errors++;
			if (final)
				fp_die_sys(FP_EXIT_SYS, "write %s", path);
			fp_warn_sys("write %s (trying again in %u ms)", path, r->opt.interval_ms);
			return;
		}
	}
	r->files_written++;
	r->files_dirty = 0;
}

static void on_files_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct render *r = w->data;

	/* A batch run (never idle) writes the files once, at the end. */
	if (r->files_dirty && r->seen_idle && !r->in_snapshot)
		write_files(r, 0);
}

/* ---- terminal ------------------------------------------------------------ */

static void term_size(struct render *r, unsigned *cols, unsigned *lines)
{
	struct winsize ws;
	const char *e;

	*cols = r->opt.term_cols;
	*lines = r->opt.term_lines;
	if (*cols && *lines)
		return;
	if (r->term_is_tty && ioctl(r->term_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		*cols = ws.ws_col;
		*lines = ws.ws_row;
		return;
	}
	*cols = (e = getenv("COLUMNS")) && atoi(e) > 0 ? (unsigned)atoi(e) : DEFAULT_TERM_COLS;
	*lines = (e = getenv("LINES")) && atoi(e) > 0 ? (unsigned)atoi(e) : DEFAULT_TERM_LINES;
}

/* final: the last frame (on a tty the cursor, hidden while redrawing, is
 * shown again below the map). */
static void term_draw(struct render *r, int final)
{
	struct fp_term_opts o;
	struct fp_sink s;

	term_size(r, &o.cols, &o.lines);
	o.color = r->term_color;
	o.home = r->term_is_tty;
	o.title = r->opt.page_title_set ? r->opt.page_title : NULL;
	fp_sink_init_mem(&s);
	if (r->term_is_tty && !r->term_drawn)
		fp_sink_str(&s, "\033[2J\033[?25l");	/* clear once, hide the cursor */
	fp_heatmap_term(&s, &r->hm, &o);
	if (r->term_is_tty && final)
		fp_sink_str(&s, "\033[?25h");
	for (size_t off = 0; off < s.len;) {
		ssize_t n = write(r->term_fd, s.buf + off, s.len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (errno == EPIPE)
				exit(FP_EXIT_PIPE);
			fp_die_sys(FP_EXIT_SYS, "write terminal");
		}
		off += (size_t)n;
	}
	fp_sink_free(&s);
	r->term_drawn = 1;
	r->term_dirty = 0;
}

static void on_term_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct render *r = w->data;

	if (r->term_dirty)
		term_draw(r, 0);
}

static void term_open(struct render *r)
{
	r->term_fd = 1;
	if (r->opt.passthrough) {
		/* stdout carries the stream: draw on the controlling terminal. */
		r->term_fd = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (r->term_fd < 0)
			fp_die_sys(FP_EXIT_USAGE, "--term with --passthrough: open /dev/tty");
	}
	r->term_is_tty = isatty(r->term_fd);
	switch (r->opt.term) {
	case TERM_PLAIN: r->term_color = FP_TERM_PLAIN; break;
	case TERM_COLOR:
		r->term_color = fp_term_detect_color(1);
		if (r->term_color == FP_TERM_PLAIN)	/* NO_COLOR, but asked for colour */
			r->term_color = FP_TERM_256;
		break;
	default: r->term_color = fp_term_detect_color(r->term_is_tty); break;
	}
}

/* ---- the pump -------------------------------------------------------------- */

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	struct render *r = p->ctx;

	switch (fp_record_tag(line, &len)) {
	case FP_REC_GEOMETRY: on_geometry(r, line, len); break;
	case FP_REC_CELL: on_cell(r, line, len); break;
	case FP_REC_FOLDED: on_folded(r, line, len); break;
	case FP_REC_SAMPLE: fp_exports_add(&r->ex, line, len); break;	/* hand-written */
	case FP_REC_STACK: on_stack_def(r, line, len); break;
	case FP_REC_REF: on_ref(r, line, len); break;
	case FP_REC_CONTROL: on_control(r, line, len); break;
	case FP_REC_WARNING: on_warning_record(r, line, len); break;
	case FP_REC_INFO: on_stats_record(r, line, len); break;
	case FP_REC_HEADER: fp_header_require(line, len, p->in_name, p->lineno); break;
	default: break;
	}
	if (r->opt.passthrough)
		fp_write_line(fp_out_wr(&p->out), line, len);
}

static void on_eof(struct fp_pump *p)
{
	struct render *r = p->ctx;

	ev_timer_stop(p->loop, &r->files_timer);
	ev_timer_stop(p->loop, &r->term_timer);
	if (r->in_snapshot)
		own_warning(r, "input ended inside a folded snapshot: the last complete one is drawn");
	/* The terminal first: a fatal write error must not leave the cursor hidden. */
	if (r->opt.term != TERM_OFF)
		term_draw(r, 1);
	write_files(r, 1);
	if (r->opt.passthrough) {
		const struct fp_stat stats[] = {
			{ "snapshots", r->snapshots }, { "stacks", r->table.n },
			{ "total", r->table.total }, { "bad_records", r->bad_records },
			{ "too_long", p->lines_too_long },	/* only when some line was */
		};

		fp_write_info(fp_out_wr(&p->out), STAGE_NAME, stats,
			      sizeof stats / sizeof *stats - !p->lines_too_long);
	}
}

static void on_idle(struct fp_pump *p)
{
	struct render *r = p->ctx;

	r->seen_idle = 1;
}

static void on_too_long(struct fp_pump *p, uint64_t lineno)
{
	struct render *r = p->ctx;
	char msg[96];

	snprintf(msg, sizeof msg, "line longer than %u bytes skipped", FP_LINE_MAX);
	own_warning(r, msg);
}

static const struct fp_pump_ops render_ops = {
	.line = on_line,
	.eof = on_eof,
	.idle = on_idle,
	.too_long = on_too_long,
};

/* ---- options ------------------------------------------------------------------ */

static _Noreturn void usage(void)
{
	fp_die(FP_EXIT_USAGE, "%s", USAGE);
}

static void parse_formats(struct options *o, const char *list)
{
	const char *p = list;
	int range_folded = o->want[OUT_RANGE_FOLDED];	/* set by --range-folded only */

	memset(o->want, 0, sizeof o->want);
	o->want[OUT_RANGE_FOLDED] = range_folded;
	while (*p) {
		size_t n = strcspn(p, ",");
		int found = 0;

		if (n == 3 && !strncmp(p, "all", 3)) {
			for (int i = 0; i < OUT_RANGE_FOLDED; i++)
				o->want[i] = 1;
			found = 1;
		}
		for (int i = 0; i < OUT_RANGE_FOLDED && !found; i++)
			if (strlen(outputs[i].name) == n && !strncmp(p, outputs[i].name, n))
				o->want[i] = found = 1;
		if (!found)
			fp_die(FP_EXIT_USAGE, "--format: unknown output '%.*s' (expected tsv, folded, "
			       "heatmap-json, heatmap-svg, flame-svg, flame-json, html, pprof, speedscope or all)", (int)n, p);
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

/* --from/--to: seconds on the heatmap axis, as fp-range takes them. */
static const char *parse_bound(const char *opt, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= 0) || strlen(arg) >= RANGE_TEXT_MAX)
		fp_die(FP_EXIT_USAGE, "--%s: want seconds (e.g. 12.5), got '%s'", opt, arg);
	return arg;
}

static void parse_term_size(struct options *o, const char *arg)
{
	unsigned c, l;
	char x, extra;

	if (sscanf(arg, "%u%c%u%c", &c, &x, &l, &extra) != 3 || x != 'x' || c < 1 || l < 1 ||
	    c > 10000 || l > 10000)
		fp_die(FP_EXIT_USAGE, "--term-size: want COLSxLINES (e.g. 80x24), got '%s'", arg);
	o->term_cols = c;
	o->term_lines = l;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_OUTDIR = 256, OPT_FORMAT, OPT_INTERVAL, OPT_PASSTHROUGH, OPT_TERM,
	       OPT_TERM_SIZE, OPT_PAGE_TITLE, OPT_FROM, OPT_TO, OPT_FILTER, OPT_TIMELINE_MAX,
	       OPT_RANGE_FOLDED, OPT_TIMELINE_SAMPLES, OPT_HELP };
	static const struct option own[] = {
		{ "outdir", required_argument, NULL, OPT_OUTDIR },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "passthrough", no_argument, NULL, OPT_PASSTHROUGH },
		{ "term", optional_argument, NULL, OPT_TERM },
		{ "term-size", required_argument, NULL, OPT_TERM_SIZE },
		{ "page-title", required_argument, NULL, OPT_PAGE_TITLE },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		/* fp-range's filters, to name them (flamepipe report passes them) */
		{ "pid", required_argument, NULL, OPT_FILTER },
		{ "tid", required_argument, NULL, OPT_FILTER },
		{ "cpu", required_argument, NULL, OPT_FILTER },
		{ "comm", required_argument, NULL, OPT_FILTER },
		{ "event", required_argument, NULL, OPT_FILTER },
		{ "include", required_argument, NULL, OPT_FILTER },
		{ "exclude", required_argument, NULL, OPT_FILTER },
		{ "timeline-max", required_argument, NULL, OPT_TIMELINE_MAX },
		{ "range-folded", required_argument, NULL, OPT_RANGE_FOLDED },
		{ "timeline-samples", required_argument, NULL, OPT_TIMELINE_SAMPLES },
		{ "help", no_argument, NULL, OPT_HELP },
	};
	enum { N_OWN = sizeof own / sizeof *own };
	struct option all[FP_FLAME_NOPTS + N_OWN + 1];
	size_t k = fp_flame_long_options(all);
	int c;

	memcpy(all + k, own, sizeof own);
	all[k + N_OWN] = (struct option){ NULL, 0, NULL, 0 };
	memset(o, 0, sizeof *o);
	fp_flame_opts_init(&o->flame);
	for (int i = 0; i < N_OUT; i++)
		o->want[i] = outputs[i].by_default;
	o->page_title = "flamepipe report";
	o->timeline_max_mb = TIMELINE_MAX_MB_DEFAULT;
	o->timeline_samples = TIMELINE_MAX_SAMPLES;
	int idx;
	while ((c = getopt_long(argc, argv, "o:h", all, &idx)) != -1) {
		if (fp_flame_option(&o->flame, c, optarg))
			continue;
		switch (c) {
		case 'o': case OPT_OUTDIR: o->outdir = optarg; break;
		case OPT_FORMAT: parse_formats(o, optarg); break;
		case OPT_INTERVAL: o->interval_ms = parse_ms("interval", optarg); break;
		case OPT_PASSTHROUGH: o->passthrough = 1; break;
		case OPT_TERM:
			if (!optarg || !strcmp(optarg, "auto"))
				o->term = TERM_AUTO;
			else if (!strcmp(optarg, "color") || !strcmp(optarg, "colour"))
				o->term = TERM_COLOR;
			else if (!strcmp(optarg, "plain"))
				o->term = TERM_PLAIN;
			else
				fp_die(FP_EXIT_USAGE, "--term: want auto, color or plain, got '%s'", optarg);
			break;
		case OPT_TERM_SIZE: parse_term_size(o, optarg); break;
		case OPT_PAGE_TITLE: o->page_title = optarg; o->page_title_set = 1; break;
		case OPT_FROM: o->from = parse_bound("from", optarg); break;
		case OPT_TO: o->to = parse_bound("to", optarg); break;
		case OPT_TIMELINE_MAX: {
			unsigned mb = parse_ms("timeline-max", optarg);
			if (mb > UINT32_MAX / BYTES_PER_MB)
				fp_die(FP_EXIT_USAGE, "--timeline-max: at most %u MB", UINT32_MAX / BYTES_PER_MB);
			o->timeline_max_mb = mb;
			break;
		}
		case OPT_TIMELINE_SAMPLES:
			if (fp_parse_u64(optarg, strlen(optarg), &o->timeline_samples) ||
			    o->timeline_samples > SIZE_MAX / sizeof(struct fp_tl_sample))
				fp_die(FP_EXIT_USAGE, "--timeline-samples: want a number of samples, got '%s'",
				       optarg);
			break;
		case OPT_RANGE_FOLDED: {
			const char *colon = strchr(optarg, ':');
			uint64_t ns;
			int ok = colon != NULL;
			if (ok && colon > optarg && !(colon - optarg == 1 && *optarg == '-'))
				ok = !fp_parse_seconds_ns(optarg, (size_t)(colon - optarg), &ns);
			if (ok && colon[1] && strcmp(colon + 1, "-"))
				ok = !fp_parse_seconds_ns(colon + 1, strlen(colon + 1), &ns);
			if (!ok)
				fp_die(FP_EXIT_USAGE, "--range-folded: want FROM:TO in seconds "
				       "(- or empty: open end), got '%s'", optarg);
			o->range_folded = optarg;
			o->want[OUT_RANGE_FOLDED] = 1;
			break;
		}
		case OPT_FILTER: {
			size_t used = strlen(o->filter);
			snprintf(o->filter + used, sizeof o->filter - used, "%s%s %s",
				 used ? "; " : "", all[idx].name, optarg);
			break;
		}
		case 'h': case OPT_HELP:
			puts(USAGE);
			exit(FP_EXIT_OK);
		default: usage();
		}
	}
	if (argc - optind > 1)
		usage();
	if (!o->outdir && o->term == TERM_OFF && !o->passthrough)
		fp_die(FP_EXIT_USAGE, "nothing to do: give --outdir DIR, --term or --passthrough\n%s", USAGE);
}

int main(int argc, char **argv)
{
	static struct render r;	/* static: lives as long as the process */
	int in_fd = 0;
	const char *in_name = "stdin";
	mode_t mask;

	fp_set_prog(argv[0]);
	parse_options(argc, argv, &r.opt);
	if (optind < argc && strcmp(argv[optind], "-") != 0) {
		in_name = argv[optind];
		in_fd = open(in_name, O_RDONLY | O_CLOEXEC);
		if (in_fd < 0)
			fp_die_sys(FP_EXIT_SYS, "open %s", in_name);
	}
	if (r.opt.outdir) {
		struct stat st;
		if (mkdir(r.opt.outdir, 0777) < 0 && errno != EEXIST)
			fp_die_sys(FP_EXIT_SYS, "make output dir %s", r.opt.outdir);
		if (stat(r.opt.outdir, &st) < 0 || !S_ISDIR(st.st_mode))
			fp_die(FP_EXIT_SYS, "output dir %s: not a directory", r.opt.outdir);
	}
	mask = umask(0);
	umask(mask);
	r.file_mode = 0666 & ~mask;
	if (r.opt.from || r.opt.to) {
		snprintf(r.range_from, sizeof r.range_from, "%s", r.opt.from ? r.opt.from : "-");
		snprintf(r.range_to, sizeof r.range_to, "%s", r.opt.to ? r.opt.to : "-");
		r.have_range = 1;
	}
	snprintf(r.filter, sizeof r.filter, "%s", r.opt.filter);
	fp_heatmap_init(&r.hm);
	fp_folded_init(&r.table);
	fp_folded_init(&r.pending);
	fp_timeline_init(&r.tl, (size_t)r.opt.timeline_samples);
	fp_exports_init(&r.ex, r.opt.want[OUT_PPROF], r.opt.want[OUT_SPEEDSCOPE],
			(size_t)r.opt.timeline_samples);
	if (r.opt.term != TERM_OFF)
		term_open(&r);

	fp_pump_init(&r.pump, EV_DEFAULT, in_fd, 1, &render_ops, &r, FP_PUMP_GZIP);
	r.pump.in_name = in_name;
	r.pump.stage = STAGE_NAME;
	if (r.opt.interval_ms > 0 && r.opt.outdir) {
		double every = r.opt.interval_ms / MS_PER_SEC;
		ev_timer_init(&r.files_timer, on_files_timer, every, every);
		r.files_timer.data = &r;
		ev_timer_start(r.pump.loop, &r.files_timer);
	}
	if (r.opt.term != TERM_OFF && r.term_is_tty) {
		ev_timer_init(&r.term_timer, on_term_timer, 1.0 / FP_TERM_FPS, 1.0 / FP_TERM_FPS);
		r.term_timer.data = &r;
		ev_timer_start(r.pump.loop, &r.term_timer);
	}
	int rc = fp_pump_run(&r.pump);

	fp_heatmap_free(&r.hm);
	fp_folded_free(&r.table);
	fp_folded_free(&r.pending);
	fp_timeline_free(&r.tl);
	fp_exports_free(&r.ex);
	for (size_t i = 0; i <= MAX_WARNINGS; i++)
		free(r.warnings[i]);
	for (size_t i = 0; i < r.n_stats; i++) {
		free(r.stats[i].stage);
		free(r.stats[i].text);
	}
	return rc;
}
