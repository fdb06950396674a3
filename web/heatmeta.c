/* heatmeta.c: what /heatmap/ adds to render's heatmap (docs/fp-serve.md): the
 * chain's counts (samples, idle, warnings), the capture's events, a
 * recording's retention, as JSON keys after render's FlameScope JSON
 * (fp_heatmap_json_keys: columns, rows, values, maxvalue, base_sec, cut;
 * the same bytes as fp-render's heatmap.json, tests/t7303).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fp_error.h"
#include "fp_record.h"
#include "serve.h"

void heatmap_free(struct heatmap *h)
{
	fp_heatmap_free(&h->hm);
	free(h->events);
	h->events = NULL;
}

/* ,"all_events":B,"events":[{"name":N,"samples":N,"counted":B},...] */
static void events_json(struct fp_sink *s, const struct heatmap *h)
{
	fp_sink_str(s, h->all_events ? ",\"all_events\":true,\"events\":["
				     : ",\"all_events\":false,\"events\":[");
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
	fp_heatmap_json_keys(s, &h->hm);
	fp_sink_printf(s,
		       ",\"rows_per_second\":%u,\"start_sec\":%" PRId64 ",\"samples\":%" PRIu64
		       ",\"counted\":%" PRIu64 ",\"idle\":%" PRIu64 ",\"warnings\":%" PRIu64
		       ",\"filtered\":%s",
		       h->hm.rows, h->hm.base_sec, h->samples, h->counted, h->idle, h->warnings,
		       h->filtered ? "true" : "false");
	events_json(s, h);
	heatmap_recording_json(s, h);
	fp_sink_char(s, '}');
}

/* "recording":{"retention_dropped":N,"dropped_seconds":S,"damaged_batches":B,
 * "damaged_samples":D,"damaged_regions":R}: what retention dropped (S: from the
 * capture's first sample to the first one kept) and what was skipped as
 * damaged (docs/recording.md) */
void heatmap_recording_json(struct fp_sink *s, const struct heatmap *h)
{
	if (!h->recording)
		return;
	uint64_t gap = h->retention_dropped && h->kept_from_ns > h->capture_from_ns
			       ? h->kept_from_ns - h->capture_from_ns
			       : 0;
	fp_sink_printf(s, ",\"recording\":{\"retention_dropped\":%" PRIu64 ",\"dropped_seconds\":",
		       h->retention_dropped);
	fp_sink_fixed(s, (int64_t)(gap / 1000000), 3);
	fp_sink_printf(s,
		       ",\"damaged_batches\":%" PRIu64 ",\"damaged_samples\":%" PRIu64
		       ",\"damaged_regions\":%" PRIu64,
		       h->damaged_batches, h->damaged_samples, h->damaged_regions);
	fp_sink_char(s, '}');
}
