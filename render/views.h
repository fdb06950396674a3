/* views.h: the static report's index.html: the page of ui/ (the one page,
 * as fp-serve serves it) working offline on the report's own data.
 *
 * The report is ui/index.html with app.css inlined, every ui/ module as
 * text (ui/reportboot.js makes each a module: blob URLs and an import
 * map, since a file:// page cannot load modules from disk) and the
 * report's data as JSON scripts. ui/reportsource.js plugs into
 * ui/api.js and answers the modules' requests from that data, not from a
 * server. So the report has the server page's views (heatmap, event
 * picker, processes and threads, small multiples, left-heavy order,
 * icicle, sandwich, flame chart, differential, keys, dark mode), with no
 * second page of its own.
 *
 * The data (ids of <script type="application/json">):
 *	fp_timeline  the samples' timeline (timeline.h): every view, any
 *	             range and filter (absent when too large, see note)
 *	fp_heatmap   the heatmap (heatmap.json's bytes): always
 *	fp_folded    without a timeline: the whole capture's folded stacks as
 *	             one JSON string, so the page still draws its flame graph
 * and below the views, the warnings, statistics and footer (ids warnings,
 * stats, footer, timeline_note).
 *
 * fp-render links $(BUILD)/ui/ui_files.o (ui/embed.sh) for the files.
 *
 *	struct fp_views_page p = { .title = "Heatmap", .heatmap_json = ..., ... };
 *	fp_views_page(&sink, &p);
 */
#ifndef FP_VIEWS_H
#define FP_VIEWS_H

#include "sink.h"

struct fp_views_page {
	const char *title; /* the page's title and the profile's name */
	const char *timeline_json;
	size_t timeline_len; /* NULL: none */
	const char *heatmap_json;
	size_t heatmap_len;
	const char *folded_json;
	size_t folded_len; /* a JSON string, or NULL */
	const char *note;  /* why there is no timeline, or what it holds */
	const char *const *warnings;
	size_t n_warnings;
	const char *const *stats;
	size_t n_stats;     /* "stage TAB k=v TAB ..." */
	const char *footer; /* plain text line at the bottom */
};

/* The whole index.html. 0, or -1 (nothing useful written) if ui/'s page
 * lacks the places it must replace (its title, style sheet link and entry
 * script) or a module would end its script element. */
int fp_views_page(struct fp_sink *s, const struct fp_views_page *p);

#endif
