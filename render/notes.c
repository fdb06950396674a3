/* notes.c: the warnings and statistics a report page lists (notes.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "escape.h"
#include "fp_record.h"
#include "notes.h"

#define WARNING_TEXT_MAX 1024 /* a W record's text on the page, at most */
#define MORE_TEXT_MAX 64

void fp_notes_add(struct fp_notes *n, const char *text, size_t len)
{
	n->warnings_total++;
	if (n->n_warnings < FP_NOTES_WARNINGS)
		n->warnings[n->n_warnings++] = fp_xstrndup(text, len);
}

void fp_notes_warning_record(struct fp_notes *n, const char *line, size_t len)
{
	struct fp_warning w;
	char text[WARNING_TEXT_MAX];
	int m;

	if (fp_warning_parse(line, len, &w) < 0)
		m = snprintf(text, sizeof text, "%.*s", (int)(len > 2 ? len - 2 : 0), line + 2);
	else
		m = snprintf(text, sizeof text, "%.*s: %.*s: %.*s", (int)w.stage.n, w.stage.p,
			     (int)w.where.n, w.where.p, (int)w.message.n, w.message.p);
	if (m < 0)
		return;
	fp_notes_add(n, text, (size_t)m < sizeof text ? (size_t)m : sizeof text - 1);
}

#define BUCKET_EVENT "bucket-event"

/* I bucket-event samples=N counted=0|1 event=NAME (docs/fp-bucket.md). */
static void bucket_event(struct fp_notes *n, const struct fp_info *info)
{
	struct fp_str name;
	uint64_t samples, counted;
	size_t i;

	if (fp_info_get_text(info, "event", &name) < 0 ||
	    fp_info_get(info, "samples", &samples) < 0 ||
	    fp_info_get(info, "counted", &counted) < 0)
		return;
	for (i = 0; i < n->n_events; i++)
		if (strlen(n->events[i].name) == name.n &&
		    !memcmp(n->events[i].name, name.p, name.n))
			break;
	if (i == n->n_events) {
		if (n->n_events == FP_NOTES_EVENTS)
			return;
		n->events[n->n_events++].name = fp_xstrndup(name.p, name.n);
	}
	n->events[i].samples = samples;
	n->events[i].counted = counted != 0;
}

void fp_notes_events_json(const struct fp_notes *n, struct fp_sink *s)
{
	fp_sink_str(s, "\"capture_events\":[");
	for (size_t i = 0; i < n->n_events; i++) {
		fp_sink_str(s, i ? ",{\"name\":" : "{\"name\":");
		fp_json_string(s, n->events[i].name, strlen(n->events[i].name));
		fp_sink_str(s, ",\"samples\":");
		fp_sink_u64(s, n->events[i].samples);
		fp_sink_printf(s, ",\"counted\":%d}", n->events[i].counted);
	}
	fp_sink_char(s, ']');
}

void fp_notes_info_record(struct fp_notes *n, const char *line, size_t len)
{
	struct fp_info info;

	if (fp_info_parse(line, len, &info) < 0)
		return;
	if (info.stage.n == strlen(BUCKET_EVENT) &&
	    !memcmp(info.stage.p, BUCKET_EVENT, info.stage.n))
		bucket_event(n, &info);
	const char *rest = info.stage.p;
	size_t rest_n = len - (size_t)(rest - line);
	size_t stage_n = info.stage.n;
	size_t i;

	for (i = 0; i < n->n_stats; i++)
		if (strlen(n->stats[i].stage) == stage_n &&
		    !memcmp(n->stats[i].stage, rest, stage_n))
			break;
	if (i == n->n_stats) {
		if (n->n_stats == FP_NOTES_STATS)
			return;
		n->stats[n->n_stats++].stage = fp_xstrndup(rest, stage_n);
	}
	free(n->stats[i].text);
	n->stats[i].text = fp_xstrndup(rest, rest_n);
}

void fp_notes_to_page(struct fp_notes *n, struct fp_views_page *o, const char **stats,
		      const char *own_stats)
{
	size_t ns = 0;

	if (n->warnings_total > n->n_warnings) {
		char more[MORE_TEXT_MAX];

		snprintf(more, sizeof more, "... and %llu more warnings",
			 (unsigned long long)(n->warnings_total - n->n_warnings));
		free(n->warnings[FP_NOTES_WARNINGS]);
		n->warnings[FP_NOTES_WARNINGS] = fp_xstrdup(more);
	}
	o->warnings = (const char *const *)n->warnings;
	o->n_warnings = n->n_warnings + (n->warnings_total > n->n_warnings);
	for (size_t i = 0; i < n->n_stats; i++)
		stats[ns++] = n->stats[i].text;
	stats[ns++] = own_stats;
	o->stats = stats;
	o->n_stats = ns;
}

void fp_notes_free(struct fp_notes *n)
{
	for (size_t i = 0; i <= FP_NOTES_WARNINGS; i++)
		free(n->warnings[i]);
	for (size_t i = 0; i < n->n_stats; i++) {
		free(n->stats[i].stage);
		free(n->stats[i].text);
	}
	for (size_t i = 0; i < n->n_events; i++)
		free(n->events[i].name);
	memset(n, 0, sizeof *n);
}
