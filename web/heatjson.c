/* heatjson.c: a heatmap's storage helpers and its /heatmap/ JSON
 * (docs/web.md): FlameScope's shape on the axis render's model draws
 * (render/heatmap.h: whole, or cut to the seconds with samples) plus
 * fp-serve's extensions. render's own fp_heatmap_json is not used: its
 * shape differs (integer row offsets, base_sec) and a filtered heatmap is
 * drawn on another heatmap's axis.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fp_error.h"
#include "fp_record.h"
#include "serve.h"

/* Column drawn i-th on an axis. */
#define AXIS_COL(ax, i) ((ax)->col ? (ax)->col[i] : (uint64_t)(i))

/* The axis h is drawn on, into ax (free with fp_heatmap_axis_free): its
 * own (render's policy: whole, or cut to the columns with samples), or
 * the one it was given (a filtered heatmap: the unfiltered one's). */
void heatmap_axis_of(const struct heatmap *h, struct fp_heatmap_axis *ax)
{
	if (!h->has_axis) {
		fp_heatmap_axis(&h->hm, ax);
		return;
	}
	*ax = h->axis;
	if (h->axis.col) {
		ax->col = fp_xmalloc((ax->n ? ax->n : 1) * sizeof *ax->col);
		memcpy(ax->col, h->axis.col, ax->n * sizeof *ax->col);
	}
}

size_t heatmap_bytes(const struct heatmap *h)
{
	return h->hm.cap * sizeof *h->hm.cells + h->hm.nslot * sizeof *h->hm.slot +
	       (h->has_axis && h->axis.col ? h->axis.n * sizeof *h->axis.col : 0);
}

void heatmap_free(struct heatmap *h)
{
	fp_heatmap_free(&h->hm);
	if (h->has_axis)
		fp_heatmap_axis_free(&h->axis);
	free(h->events);
	h->events = NULL;
}

/* FlameScope's shape: rows are the millisecond offsets of each row, top
 * (end of the second) first; values[col] lists that column top to bottom.
 * Extensions: rows_per_second, start_sec, samples, counted, idle. */
/* ,"all_events":B,"events":[{"name":N,"samples":N,"counted":B},...] */
static void events_json(struct fp_sink *s, const struct heatmap *h)
{
	fp_sink_str(s, h->all_events ? ",\"all_events\":true,\"events\":[" :
		    ",\"all_events\":false,\"events\":[");
	const char *p = h->events;
	int first = 1;
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		const char *t1 = strchr(p, '\t');
		if (!eol || !t1 || t1 + 2 >= eol)
			break;
		uint64_t samples = 0;
		if (fp_parse_u64(p, (size_t)(t1 - p), &samples) == 0) {
			fp_sink_str(s, first ? "{\"name\":" : ",{\"name\":");
			fp_json_string(s, t1 + 3, (size_t)(eol - t1 - 3));
			fp_sink_printf(s, ",\"samples\":%" PRIu64 ",\"counted\":%s}", samples,
				       t1[1] == '1' ? "true" : "false");
			first = 0;
		}
		p = eol + 1;
	}
	fp_sink_char(s, ']');
}

void heatmap_json(struct fp_sink *s, const struct heatmap *h)
{
	struct fp_heatmap_axis ax;
	heatmap_axis_of(h, &ax);
	uint64_t maxv = 0;
	fp_sink_str(s, "{\"columns\":[");
	for (size_t i = 0; i < ax.n; i++) {
		if (i)
			fp_sink_char(s, ',');
		fp_sink_u64(s, AXIS_COL(&ax, i));
	}
	fp_sink_str(s, "],\"rows\":[");
	for (unsigned r = h->rows; r-- > 0;) {
		/* 1000 * r / rows ms, printed exactly to 6 decimals */
		fp_sink_fixed(s, (int64_t)((uint64_t)r * 1000000000ull / h->rows), 6);
		if (r)
			fp_sink_char(s, ',');
	}
	fp_sink_str(s, "],\"values\":[");
	for (size_t i = 0; i < ax.n; i++) {
		fp_sink_str(s, i ? ",[" : "[");
		for (unsigned r = h->rows; r-- > 0;) {
			uint64_t v = fp_heatmap_get(&h->hm, AXIS_COL(&ax, i), r);
			if (v > maxv)
				maxv = v;
			fp_sink_u64(s, v);
			if (r)
				fp_sink_char(s, ',');
		}
		fp_sink_char(s, ']');
	}
	fp_sink_str(s, "],\"maxvalue\":");
	fp_sink_u64(s, maxv);
	fp_sink_printf(s, ",\"rows_per_second\":%u,\"start_sec\":%" PRIu64
		       ",\"samples\":%" PRIu64 ",\"counted\":%" PRIu64 ",\"idle\":%" PRIu64
		       ",\"warnings\":%" PRIu64 ",\"filtered\":%s", h->rows, h->base_sec,
		       h->samples, h->counted, h->idle, h->warnings,
		       h->filtered ? "true" : "false");
	if (ax.cut)
		fp_sink_printf(s, ",\"cut\":%" PRIu64, ax.cut);
	fp_heatmap_axis_free(&ax);
	events_json(s, h);
	heatmap_recording_json(s, h);
	fp_sink_char(s, '}');
}

/* "recording":{"retention_dropped":N,"dropped_seconds":S}: what retention
 * dropped (S: from the capture's first sample to the first one kept) */
void heatmap_recording_json(struct fp_sink *s, const struct heatmap *h)
{
	if (!h->recording)
		return;
	uint64_t gap = h->retention_dropped && h->kept_from_ns > h->capture_from_ns ?
		h->kept_from_ns - h->capture_from_ns : 0;
	fp_sink_printf(s, ",\"recording\":{\"retention_dropped\":%" PRIu64 ",\"dropped_seconds\":",
		       h->retention_dropped);
	fp_sink_fixed(s, (int64_t)(gap / 1000000), 3);
	fp_sink_char(s, '}');
}
