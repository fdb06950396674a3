/* notes.h: the warnings and statistics a report page lists.
 *
 * fp-render keeps every W record it reads (and its own warnings) and the
 * latest I record of each stage, to list them on index.html
 * (views.h's warnings and stats). Bounded: FP_NOTES_WARNINGS
 * warnings are kept and the rest counted ("... and N more warnings"),
 * FP_NOTES_STATS stages.
 *
 * Calling sequence:
 *	struct fp_notes n = { 0 };
 *	fp_notes_warning_record(&n, line, len);   // each W record
 *	fp_notes_info_record(&n, line, len);      // each I record
 *	fp_notes_add(&n, text, strlen(text));     // a warning of one's own
 *	fp_notes_to_page(&n, &views_page, stats, own_stats);
 *	fp_notes_free(&n);
 */
#ifndef FP_NOTES_H
#define FP_NOTES_H

#include <stddef.h>
#include <stdint.h>

#include "sink.h"
#include "views.h"

#define FP_NOTES_WARNINGS 200 /* kept for the page; the rest are counted */
#define FP_NOTES_STATS 32     /* stages whose I records are kept */
#define FP_NOTES_EVENTS 64    /* fp-bucket's events (it lists 64 at most) */

struct fp_notes {
	char *warnings[FP_NOTES_WARNINGS + 1]; /* + "N more" */
	size_t n_warnings;
	uint64_t warnings_total;
	struct {
		char *stage;
		char *text; /* "stage TAB k=v TAB ..." as the page wants */
	} stats[FP_NOTES_STATS];
	size_t n_stats;
	/* the capture's events, from fp-bucket's `I bucket-event` records:
	 * whether it kept (counted) each, so the page can name those left out */
	struct {
		char *name;
		uint64_t samples;
		int counted;
	} events[FP_NOTES_EVENTS];
	size_t n_events;
};

/* A warning's text (copied). */
void fp_notes_add(struct fp_notes *n, const char *text, size_t len);
/* W TAB stage TAB where TAB message -> "stage: where: message". */
void fp_notes_warning_record(struct fp_notes *n, const char *line, size_t len);
/* I TAB stage TAB k=v ...: the latest line per stage is kept; a
 * bucket-event one also sets its event in n->events. */
void fp_notes_info_record(struct fp_notes *n, const char *line, size_t len);
/* Points p->warnings and p->stats at the kept notes; stats[] (room for
 * FP_NOTES_STATS + 1) gets the stages' lines and then own_stats. */
void fp_notes_to_page(struct fp_notes *n, struct fp_views_page *p, const char **stats,
		      const char *own_stats);
/* "capture_events":[{"name":N,"samples":S,"counted":0|1},...] (a JSON
 * member, names escaped for a <script>). */
void fp_notes_events_json(const struct fp_notes *n, struct fp_sink *s);
void fp_notes_free(struct fp_notes *n);

#endif
