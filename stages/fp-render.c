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
 *           (F records outside a snapshot add to the table: hand-written input);
 *           C begin fold-delta / F ... / C end fold-delta (fp-fold
 *           --delta-snapshots, negotiated by the runner): sets the counts
 *           of the stacks it names (fifo/PROTOCOL.md, "Delta snapshots");
 *           E records instead of F (fp-fold --snapshot-ids, negotiated):
 *           the stack of a D record by its id ("Snapshots by id")
 *  C range  the range the chain selected (drawn on the heatmap, named in the
 *           flame graph's subtitle: fp-range writes the one it starts with,
 *           then every change); C filter likewise
 *  W, I     shown on index.html (warnings, the latest statistics per stage)
 *  D, R     (fp-fold --pass-samples) each folded stack once, then each
 *           folded sample naming it: stored, not folded again, in a
 *           timeline (render/timeline.h): index.html embeds it and its
 *           views answer any range and filter from it, flame.svg colours frames
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
 *	index.html     ui/'s page (the one fp-serve serves) offline on the
 *	               samples' timeline (at most --timeline-max MB), with
 *	               warnings and statistics (render/views.h)
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
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ev.h>

#include "atomic.h"
#include "flamegraph.h"
#include "flameopts.h"
#include "folded.h"
#include "fp_error.h"
#include "fp_io.h"
#include "fp_foldsnap.h"
#include "fp_record.h"
#include "fp_runnermsg.h"
#include "heatmap.h"
#include "notes.h"
#include "renderopts.h"
#include "snapshot.h"
#include "sink.h"
#include "termheat.h"
#include "timeline.h"
#include "views.h"
#include "escape.h"
#include "exports.h"

#define STAGE_NAME "render"
#define MS_PER_SEC 1000.0
#define FP_TERM_FPS 10         /* terminal redraws per second, at most */
#define MAX_STDERR_WARNINGS 20 /* own warnings printed, then counted */
#define CAPTION_MAX 768
#define BYTES_PER_MB (1024u * 1024u)

/* inside which snapshot: fold/fp_foldsnap.h's states (SKIP: a delta
 * before the first full one, which updates a table this process never got) */
enum {
	SNAP_NONE = FP_FSNAP_IN_NONE,
	SNAP_FULL = FP_FSNAP_IN_FULL,
	SNAP_DELTA = FP_FSNAP_IN_DELTA,
	SNAP_SKIP = FP_FSNAP_IN_SKIP,
};

struct render {
	struct fp_render_opts opt;
	struct fp_pump pump;

	struct fp_heatmap hm;
	struct fp_snapshot snap;       /* the latest complete snapshot, the one coming */
	const struct fp_folded *table; /* snap's table (its strings re-pointed when written) */
	struct fp_timeline tl;         /* the D and R records of fp-fold --pass-samples */
	struct fp_exports ex;          /* the same samples for pprof (render/exports.h) */
	uint64_t timeline_bytes;       /* size of the last embedded timeline */
	int speedscope_warned;
	int in_snapshot; /* SNAP_NONE, SNAP_FULL, SNAP_DELTA, SNAP_SKIP */
	int have_full;   /* a full snapshot was completed */
	uint64_t snapshots, deltas, deltas_skipped;

	char range_from[FP_RENDER_BOUND_MAX], range_to[FP_RENDER_BOUND_MAX];
	int have_range;
	char filter[FP_RENDER_FILTER_MAX];

	struct fp_notes notes; /* W and I records, for index.html */
	uint64_t own_warnings, bad_records;
	int views_warned; /* said once that the views could not be embedded */
	int axis_cut_warned;

	int files_dirty;
	uint64_t files_written, write_errors;
	ev_timer files_timer;

	struct fp_term_view term;
	int term_dirty;
	ev_timer term_timer;
	mode_t file_mode;
};

/* ---- warnings and statistics ------------------------------------------- */

/* A problem with our own input: stderr (and a W record downstream with
 * --passthrough), and the warnings list of index.html. */
static void own_warning(struct render *r, const char *msg)
{
	char text[256];

	r->own_warnings++;
	snprintf(text, sizeof text, STAGE_NAME ": %s:%llu: %s", r->pump.in_name,
		 (unsigned long long)r->pump.lineno, msg);
	fp_notes_add(&r->notes, text, strlen(text));
	if (r->own_warnings > MAX_STDERR_WARNINGS)
		return;
	if (r->opt.passthrough)
		fp_pump_warn(&r->pump, "%s", msg);
	else
		fp_warn("%s:%llu: %s", r->pump.in_name, (unsigned long long)r->pump.lineno, msg);
	if (r->own_warnings == MAX_STDERR_WARNINGS)
		fp_warn("more warnings are counted, not printed");
}

/* A record that cannot be used: warned about and counted (bad_records). */
static void bad_record(struct render *r, const char *msg)
{
	own_warning(r, msg);
	r->bad_records++;
}

/* ---- the heatmap ------------------------------------------------------ */

static void on_geometry(struct render *r, const char *line, size_t len)
{
	if (fp_heatmap_geometry(&r->hm, line, len) < 0)
		bad_record(r,
			   "malformed G record skipped: expected G TAB rows(1..1000) TAB base_sec");
	else
		r->files_dirty = r->term_dirty = 1;
}

static void on_cell(struct render *r, const char *line, size_t len)
{
	struct fp_cell c;

	if (fp_cell_parse(line, len, &c) < 0)
		bad_record(r,
			   "malformed H record skipped: expected H TAB column TAB row TAB count");
	else if (fp_heatmap_set(&r->hm, c.col, c.row, c.count) < 0)
		bad_record(r, "H record skipped: row not below the G record's rows, "
			      "or column past the heatmap's limit (2^32 - 1)");
	else
		r->files_dirty = r->term_dirty = 1;
}

/* ---- folded snapshots --------------------------------------------------- */

/* A snapshot's entry (an F record: text, or an E record: the timeline's
 * stack): a delta sets its count, a full snapshot (or none: hand-written
 * input) adds it. */
static void snapshot_entry(struct render *r, const struct fp_str *text, uint32_t stack,
			   uint64_t count)
{
	if (r->in_snapshot == SNAP_SKIP)
		return;
	if (r->in_snapshot == SNAP_DELTA) {
		if (text)
			fp_snapshot_set(&r->snap, &r->tl, text->p, text->n, count);
		else
			fp_snapshot_set_stack(&r->snap, &r->tl, stack, count);
	} else if (count) {
		if (text)
			fp_snapshot_add(&r->snap, &r->tl, r->in_snapshot == SNAP_FULL, text->p,
					text->n, count);
		else
			fp_snapshot_add_stack(&r->snap, &r->tl, r->in_snapshot == SNAP_FULL, stack,
					      count);
		r->files_dirty |= !r->in_snapshot;
	}
}

static void on_folded(struct render *r, const char *line, size_t len)
{
	struct fp_folded_rec f;

	if (fp_folded_parse(line, len, &f) < 0)
		bad_record(r, "malformed F record skipped: expected F TAB count TAB stack");
	else
		snapshot_entry(r, &f.stack, 0, f.count);
}

/* An E record (fp-fold --snapshot-ids): an F record of the stack a D
 * record defined, named by its id: no text to look up. */
static void on_folded_id(struct render *r, const char *line, size_t len)
{
	struct fp_folded_id_rec f;
	uint32_t stack;
	enum fp_tl_stack_of k;

	if (fp_folded_id_parse(line, len, &f) < 0)
		bad_record(r, "malformed E record skipped: expected E TAB count TAB id");
	else if ((k = fp_timeline_stack(&r->tl, f.id, &stack)) != FP_TL_STACK)
		bad_record(r, k == FP_TL_UNDEFINED
				      ? "E record of a stack no D record defined skipped"
				      : "E record of a stack not kept (the stacks' text passed its "
					"bound) "
					"skipped: the flame graph lacks it");
	else
		snapshot_entry(r, NULL, stack, f.count);
}

/* A D record (fp-fold --pass-samples): a folded stack, defined once. */
static void on_stack_def(struct render *r, const char *line, size_t len)
{
	struct fp_stack_def d;

	if (fp_stack_def_parse(line, len, &d) < 0)
		bad_record(r, "malformed D record skipped: expected D TAB id TAB kinds TAB folded "
			      "(one kind per frame)");
	else if (fp_timeline_define(&r->tl, &d) < 0)
		bad_record(r, "D record skipped: its id skips ahead (ids come 0, 1, 2, ...)");
}

/* An R record (fp-fold --pass-samples): a folded sample, kept by time for
 * range graphs, and for the exports. */
static void on_ref(struct render *r, const char *line, size_t len)
{
	struct fp_ref ref;
	struct fp_sample s;

	if (fp_ref_parse(line, len, &ref) < 0) {
		bad_record(r,
			   "malformed R record skipped (not kept for range flame graphs): expected "
			   "R TAB id TAB time_ns TAB pid TAB tid TAB cpu TAB period TAB count TAB "
			   "event TAB comm");
		return;
	}
	/* the exports get the sample as an S record would give it */
	if ((r->ex.pprof_on || r->ex.speedscope_on) &&
	    fp_timeline_ref_sample(&r->tl, &ref, &s) == 0)
		fp_exports_add_sample(&r->ex, &s);
	if (fp_timeline_add(&r->tl, &ref) < 0)
		bad_record(r, "R record of a stack no D record defined skipped");
	else
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

/* C end fold / fold-delta: the snapshot is the table now. A delta's
 * table must add up to its end record's stacks and total. */
static void end_snapshot(struct render *r, const struct fp_control *c)
{
	int delta = fp_control_is(c, FP_CTL_END, FP_FOLDSNAP_DELTA);
	uint64_t stacks, total;

	if (delta && r->in_snapshot == SNAP_SKIP) {
		r->in_snapshot = SNAP_NONE;
		r->deltas_skipped++;
		return;
	}
	if (r->in_snapshot != (delta ? SNAP_DELTA : SNAP_FULL)) {
		own_warning(r, "snapshot end without a begin ignored");
		return;
	}
	if (!delta) {
		fp_snapshot_end(&r->snap);
		r->have_full = 1;
	} else if (fp_foldsnap_end_fields(c, &stacks, &total) == 0 &&
		   (stacks != fp_snapshot_stacks(&r->snap) || total != r->snap.table.t.total))
		own_warning(r, "a delta snapshot's table does not add up to its end record's "
			       "stacks and total (records were lost on the way)");
	r->in_snapshot = SNAP_NONE;
	r->snapshots++;
	r->deltas += delta;
	r->files_dirty = 1;
}

static void on_control(struct render *r, const char *line, size_t len)
{
	struct fp_control c;

	if (fp_control_parse(line, len, &c) < 0)
		return;
	int full = fp_control_is(&c, FP_CTL_BEGIN, FP_FOLDSNAP_FULL);

	if (full || fp_control_is(&c, FP_CTL_BEGIN, FP_FOLDSNAP_DELTA)) {
		if (r->in_snapshot)
			own_warning(r, "snapshot begins inside another one: the unfinished one is "
				       "dropped");
		if (full)
			fp_snapshot_begin(&r->snap);
		r->in_snapshot = (int)fp_foldsnap_entered(full, r->have_full);
	} else if (fp_control_is(&c, FP_CTL_END, FP_FOLDSNAP_FULL) ||
		   fp_control_is(&c, FP_CTL_END, FP_FOLDSNAP_DELTA)) {
		end_snapshot(r, &c);
	} else if (c.kind == FP_CTL_RESET) {
		fp_timeline_reset(&r->tl); /* fp-range re-sends the samples */
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
		m = snprintf(buf, n, "range [%s, %s) s",
			     strcmp(r->range_from, "-") ? r->range_from : "start",
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
	if (r->tl.nstacks) { /* colours by code type without _[k] names */
		o.kind_of = timeline_kind;
		o.kind_ctx = &r->tl;
	}
	fp_folded_init(&t);
	for (size_t i = 0; i < r->table->n; i++)
		fp_folded_add(&t, r->table->e[i].stack, r->table->e[i].len, r->table->e[i].count, 0,
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
		snprintf(note, n,
			 "The samples' timeline is not embedded (--timeline-max 0): this "
			 "page has the heatmap, but no flame graph of a range or of filters.");
		return 0;
	}
	if (r->tl.overflow) {
		snprintf(note, n,
			 "The capture has more than %llu samples (--timeline-samples): the "
			 "page does not hold them all, so it draws the whole capture's flame graph "
			 "but no flame graph of a range or of filters.",
			 (unsigned long long)r->opt.timeline_samples);
		return 0;
	}
	/* off-CPU samples kept apart from the table (fp-fold --timed-apart)
	 * are in the timeline for the views' event picker only */
	if (total != r->table->total && fp_timeline_total_untimed(&r->tl) != r->table->total) {
		snprintf(note, n,
			 "The samples' timeline (%llu) does not match the folded table "
			 "(%llu): the page draws the whole capture's flame graph, no range's.",
			 (unsigned long long)total, (unsigned long long)r->table->total);
		return 0;
	}
	char caption[CAPTION_MAX];
	range_caption(r, caption, sizeof caption);
	fp_sink_init_mem(tj);
	/* for the views: the capture's events (they name those left out) and
	 * the range and filters the chain selected (they say what they hold) */
	struct fp_sink more;
	fp_sink_init_mem(&more);
	fp_notes_events_json(&r->notes, &more);
	fp_sink_str(&more, ",\n\"selected\":");
	fp_json_string(&more, caption, strlen(caption));
	fp_sink_char(&more, '\0');
	fp_timeline_json(&r->tl, tj, &r->hm, &o, more.buf);
	fp_sink_free(&more);
	r->timeline_bytes = tj->len;
	if (tj->len > (uint64_t)r->opt.timeline_max_mb * BYTES_PER_MB) {
		snprintf(note, n,
			 "The samples' timeline would add %.1f MB to this page (more than "
			 "--timeline-max %u MB): the page draws the whole capture's flame graph, "
			 "no range's.",
			 (double)tj->len / BYTES_PER_MB, r->opt.timeline_max_mb);
		fp_sink_free(tj);
		return 0;
	}
	/* fp-range passed only the selected samples: say so, or an empty
	 * selection outside the range would look like a bug. */
	if (caption[0])
		snprintf(note, n,
			 "This page holds only the samples of %s: a selection's flame "
			 "graph shows its part of them.",
			 caption);
	return 1;
}

/* Without the timeline, the whole capture's folded stacks as one JSON
 * string for the page's flame graph (views.h), within the timeline's size
 * limit (FOLDED_PAGE_MAX_MB with --timeline-max 0, which drops only the
 * timeline); 0 (nothing in fj) if they do not fit. */
#define FOLDED_PAGE_MAX_MB 32
static int folded_for_page(struct render *r, struct fp_sink *fj)
{
	struct fp_sink text;
	uint64_t max_mb = r->opt.timeline_max_mb ? r->opt.timeline_max_mb : FOLDED_PAGE_MAX_MB;

	fp_sink_init_mem(&text);
	fp_folded_write(&text, r->table);
	fp_sink_init_mem(fj);
	fp_json_string(fj, text.buf ? text.buf : "", text.len);
	fp_sink_free(&text);
	if (fj->len > max_mb * BYTES_PER_MB) {
		fp_sink_free(fj);
		return 0;
	}
	return 1;
}

/* index.html: ui/'s page on the report's data (render/views.h). */
static void render_html(struct render *r, struct fp_sink *s)
{
	struct fp_views_page p = { 0 };
	char footer[160];
	const char *stats[FP_NOTES_STATS + 1];
	char own_stats[256], tl_note[CAPTION_MAX + 128];
	struct fp_sink tj, hj, fj;
	int have_tl = timeline_for_page(r, &tj, tl_note, sizeof tl_note);
	int have_folded = !have_tl && folded_for_page(r, &fj);

	fp_sink_init_mem(&hj);
	fp_heatmap_json(&hj, &r->hm);
	p.title = r->opt.page_title;
	p.heatmap_json = hj.buf;
	p.heatmap_len = hj.len;
	if (have_tl) {
		p.timeline_json = tj.buf;
		p.timeline_len = tj.len;
	}
	if (have_folded) {
		p.folded_json = fj.buf;
		p.folded_len = fj.len;
	}
	if (tl_note[0])
		p.note = tl_note;
	snprintf(own_stats, sizeof own_stats,
		 STAGE_NAME "\tsnapshots=%llu\tdelta_snapshots=%llu\tstacks=%zu\ttotal=%llu"
			    "\theatmap_total=%llu\tbad_records=%llu",
		 (unsigned long long)r->snapshots, (unsigned long long)r->deltas, r->table->n,
		 (unsigned long long)r->table->total, (unsigned long long)fp_heatmap_total(&r->hm),
		 (unsigned long long)r->bad_records);
	fp_notes_to_page(&r->notes, &p, stats, own_stats);
	snprintf(footer, sizeof footer,
		 "Made by flamepipe fp-render: heatmap.svg, flame.svg, "
		 "heatmap.json, heatmap.tsv and stacks.folded are next to this page.");
	p.footer = footer;
	if (fp_views_page(s, &p) < 0 && !r->views_warned) {
		r->views_warned = 1;
		own_warning(r,
			    "index.html is empty: ui/index.html lacks the title, the style sheet "
			    "link or the app.js script that render/views.c replaces");
	}
	fp_sink_free(&hj);
	if (have_folded)
		fp_sink_free(&fj);
	if (have_tl)
		fp_sink_free(&tj);
}

static void render_output(struct render *r, enum fp_output which, struct fp_sink *s)
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
	case FP_OUT_TSV:
		fp_heatmap_tsv(s, &r->hm);
		break;
	case FP_OUT_FOLDED:
		fp_folded_write(s, r->table);
		break;
	case FP_OUT_HEAT_JSON:
		fp_heatmap_json(s, &r->hm);
		break;
	case FP_OUT_HEAT_SVG:
		fp_heatmap_svg(s, &r->hm, &ho);
		break;
	case FP_OUT_FLAME_SVG:
		render_flame(r, s, 0);
		break;
	case FP_OUT_FLAME_JSON:
		render_flame(r, s, 1);
		break;
	case FP_OUT_HTML:
		render_html(r, s);
		break;
	case FP_OUT_PPROF:
		fp_pprof_write(&r->ex.pprof, s);
		break;
	case FP_OUT_SPEEDSCOPE:
		fp_speedscope_write(&r->ex.speedscope, s, r->opt.page_title, r->tl.weight_period);
		break;
	case FP_OUT_RANGE_FOLDED:
		fp_timeline_range_folded(&r->tl, &r->hm, r->opt.range_folded, s);
		break;
	case FP_N_OUT:
		break;
	}
}

/* One file being written, and how that went. */
struct one_output {
	struct render *r;
	enum fp_output which;
};

static void fill_output(void *ctx, struct fp_sink *s)
{
	struct one_output *o = ctx;

	render_output(o->r, o->which, s);
}

/* speedscope.json keeps every sample: past --timeline-samples it would be
 * partial, so it is not written (an older one is removed) and the page says
 * so (the warning comes before index.html is written). */
static int skip_partial(struct render *r, enum fp_output which)
{
	char path[PATH_MAX];

	if (!r->opt.want[FP_OUT_SPEEDSCOPE] || !r->ex.speedscope.overflow)
		return 0;
	if (!r->speedscope_warned) {
		char msg[160];

		snprintf(msg, sizeof msg,
			 "%s not written: more than %llu samples "
			 "(--timeline-samples)",
			 fp_outputs[FP_OUT_SPEEDSCOPE].file,
			 (unsigned long long)r->opt.timeline_samples);
		own_warning(r, msg);
		r->speedscope_warned = 1;
	}
	if (which != FP_OUT_SPEEDSCOPE)
		return 0;
	snprintf(path, sizeof path, "%s/%s", r->opt.outdir, fp_outputs[which].file);
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
		snprintf(msg, sizeof msg,
			 "the samples span %zu seconds, more than a heatmap axis "
			 "holds (%u columns, %u cells): only the %zu seconds with samples are "
			 "drawn, "
			 "%llu empty seconds are left out",
			 r->hm.ncols, FP_HEATMAP_AXIS_COLS, FP_HEATMAP_AXIS_CELLS, ax.n,
			 (unsigned long long)ax.cut);
		own_warning(r, msg);
		r->axis_cut_warned = 1;
	}
	fp_heatmap_axis_free(&ax);
}

/* Writes every wanted file, two at a time, the costliest first (on the
 * bench perf.data flame.svg on one thread, index.html then the others on
 * the other). The renderers only read what they share (the heatmap is
 * sorted first); index.html alone touches the notes (a warning about its
 * views), the exports only their own tables. At end of input a failure
 * is fatal; while live it is a warning and the next interval tries again. */
static void write_files(struct render *r, int final)
{
	struct one_output out[FP_N_OUT];
	struct fp_atomic_file f[FP_N_OUT];

	if (!r->opt.outdir)
		return;
	fp_heatmap_sort(&r->hm); /* once, not in every rendering */
	r->table = fp_snapshot_table(&r->snap, &r->tl);
	note_axis(r);
	struct fp_output_size size = { .samples = r->tl.n,
				       .frames = r->tl.frames_len,
				       .cells = r->hm.n };
	for (size_t i = 0; i < r->table->n; i++)
		size.table_bytes += r->table->e[i].len;
	for (int i = 0; i < FP_N_OUT; i++) {
		out[i] = (struct one_output){ .r = r, .which = (enum fp_output)i };
		f[i] = (struct fp_atomic_file){ .name = fp_outputs[i].file,
						.ctx = &out[i],
						.cost = fp_output_cost((enum fp_output)i, &size) };
		f[i].wanted = r->opt.want[i] && !skip_partial(r, (enum fp_output)i);
	}
	fp_write_atomic_set(r->opt.outdir, r->file_mode, f, FP_N_OUT, fill_output);
	for (int i = 0; i < FP_N_OUT; i++) {
		if (!f[i].wanted || f[i].rc == 0)
			continue;
		r->write_errors++;
		errno = f[i].err;
		if (final)
			fp_die_sys(FP_EXIT_SYS, "write %s", f[i].path);
		fp_warn_sys("write %s (trying again in %u ms)", f[i].path, r->opt.interval_ms);
		return;
	}
	r->files_written++;
	r->files_dirty = 0;
}

static void on_files_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct render *r = w->data;

	/* A batch run (never idle) writes the files once, at the end. */
	if (r->files_dirty && r->pump.seen_idle && !r->in_snapshot)
		write_files(r, 0);
}

/* ---- terminal ------------------------------------------------------------ */

/* final: the last frame (on a tty the cursor, hidden while redrawing, is
 * shown again below the map). */
static void term_draw(struct render *r, int final)
{
	if (fp_term_view_draw(&r->term, &r->hm, final) < 0) {
		if (errno == EPIPE)
			exit(FP_EXIT_PIPE);
		fp_die_sys(FP_EXIT_SYS, "write terminal");
	}
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
	/* With --passthrough stdout carries the stream: draw on the
	 * controlling terminal. */
	if (fp_term_view_open(&r->term, r->opt.passthrough ? "/dev/tty" : NULL, r->opt.term) < 0)
		fp_die_sys(FP_EXIT_USAGE, "--term with --passthrough: open /dev/tty");
	r->term.cols = r->opt.term_cols;
	r->term.lines = r->opt.term_lines;
	r->term.title = r->opt.page_title_set ? r->opt.page_title : NULL;
}

/* ---- the pump -------------------------------------------------------------- */

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	struct render *r = p->ctx;

	switch (fp_record_tag(line, &len)) {
	case FP_REC_GEOMETRY:
		on_geometry(r, line, len);
		break;
	case FP_REC_CELL:
		on_cell(r, line, len);
		break;
	case FP_REC_FOLDED:
		on_folded(r, line, len);
		break;
	case FP_REC_FOLDED_ID:
		on_folded_id(r, line, len);
		break;
	case FP_REC_SAMPLE:
		fp_exports_add(&r->ex, line, len);
		break; /* hand-written */
	case FP_REC_STACK:
		on_stack_def(r, line, len);
		break;
	case FP_REC_REF:
		on_ref(r, line, len);
		break;
	case FP_REC_CONTROL:
		on_control(r, line, len);
		break;
	case FP_REC_WARNING:
		fp_notes_warning_record(&r->notes, line, len);
		break;
	case FP_REC_INFO:
		fp_notes_info_record(&r->notes, line, len);
		break;
	case FP_REC_HEADER:
		fp_header_require(line, len, p->in_name, p->lineno);
		break;
	default:
		break;
	}
	if (r->opt.passthrough)
		fp_write_line(fp_out_wr(&p->out), line, len);
}

/* The totals of the stacks.folded just written, to flamepipe
 * (fifo/fp_runnermsg.h): its summary line then need not read the file
 * again (58 MB on the bench's mixed capture, the last 12 ms of a report).
 * samples is the sum of each line's last count, as in the file. */
static void tell_runner_totals(struct render *r)
{
	int fd = fp_runnermsg_fd();
	const struct fp_folded *t = r->table;

	if (fd && r->opt.outdir && r->opt.want[FP_OUT_FOLDED])
		(void)fp_runnermsg_send_folded(fd, t->two_counts ? t->total2 : t->total, t->n,
					       r->opt.outdir);
}

static void on_eof(struct fp_pump *p)
{
	struct render *r = p->ctx;

	ev_timer_stop(p->loop, &r->files_timer);
	ev_timer_stop(p->loop, &r->term_timer);
	if (r->in_snapshot)
		own_warning(r,
			    "input ended inside a folded snapshot: the last complete one is drawn "
			    "(a delta as far as it came)");
	/* The terminal first: a fatal write error must not leave the cursor hidden. */
	if (r->opt.term != FP_TERM_MODE_OFF)
		term_draw(r, 1);
	write_files(r, 1);
	tell_runner_totals(r);
	if (r->opt.passthrough) {
		const struct fp_stat stats[] = {
			{ "snapshots", r->snapshots },
			{ "delta_snapshots", r->deltas },
			{ "deltas_skipped", r->deltas_skipped },
			{ "stacks", r->table->n },
			{ "total", r->table->total },
			{ "bad_records", r->bad_records },
			{ "too_long", p->lines_too_long }, /* only when some line was */
		};

		fp_write_info(fp_out_wr(&p->out), STAGE_NAME, stats,
			      sizeof stats / sizeof *stats - !p->lines_too_long);
	}
}

static void on_too_long(struct fp_pump *p, uint64_t lineno)
{
	own_warning(p->ctx, fp_too_long_text());
}

static const struct fp_pump_ops render_ops = {
	.line = on_line,
	.eof = on_eof,
	.too_long = on_too_long,
};

int main(int argc, char **argv)
{
	static struct render r; /* static: lives as long as the process */
	const char *in_name;
	int in_fd;
	mode_t mask;

	fp_set_prog(argv[0]);
	fp_render_opts_parse(argc, argv, &r.opt);
	in_fd = fp_open_input(optind < argc ? argv[optind] : NULL, &in_name);
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
	fp_heatmap_init(&r.hm);
	fp_snapshot_init(&r.snap);
	r.table = &r.snap.table.t;
	fp_timeline_init(&r.tl, (size_t)r.opt.timeline_samples);
	fp_exports_init(&r.ex, r.opt.want[FP_OUT_PPROF], r.opt.want[FP_OUT_SPEEDSCOPE],
			(size_t)r.opt.timeline_samples);
	if (r.opt.term != FP_TERM_MODE_OFF)
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
	if (r.opt.term != FP_TERM_MODE_OFF && r.term.is_tty) {
		ev_timer_init(&r.term_timer, on_term_timer, 1.0 / FP_TERM_FPS, 1.0 / FP_TERM_FPS);
		r.term_timer.data = &r;
		ev_timer_start(r.pump.loop, &r.term_timer);
	}
	int rc = fp_pump_run(&r.pump);

	fp_heatmap_free(&r.hm);
	fp_snapshot_free(&r.snap);
	fp_timeline_free(&r.tl);
	fp_exports_free(&r.ex);
	fp_notes_free(&r.notes);
	return rc;
}
