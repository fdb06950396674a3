/* live.h: state of the live capture shared by fp-serve's threads. */
#ifndef FP_LIVE_H
#define FP_LIVE_H

#include <pthread.h>
#include <stdint.h>

#include "fp_foldsnap.h"
#include "http.h"
#include "serve.h"
#include "sink.h"

#define SSE_MIN_INTERVAL_MS 200 /* at most 5 pushes per second */
#define SSE_HEARTBEAT_S 15      /* comment line when nothing changed */
/* A requested time range on the heatmap axis (ns since start_sec). */
struct live_range {
	int has_from, has_to;
	uint64_t from_ns, to_ns;
};

struct live {
	pthread_mutex_t lock;
	pthread_cond_t changed; /* broadcast on each version bump */
	char *name;
	char *recording;  /* the chain's recording (fp-record), or NULL */
	uint64_t version; /* bumped on every published change */
	/* heatmap */
	struct heatmap_builder hb;
	uint64_t geometry_version; /* version of the last G record */
	uint64_t *colver;          /* per column: version of its last change */
	uint32_t ncolver;
	int cells_dirty; /* changes not yet published */
	/* fold snapshots of the whole capture, full and delta (the table
	 * in snap.cur); its plain folded text made when asked for */
	struct fp_foldsnap snap;
	struct fp_sink snapshot; /* snap.cur as text, if !snapshot_stale */
	int snapshot_stale;
	uint64_t snapshot_total, snapshot_seq;
	/* fp-read --live's counts: samples written, dropped (so as not to
	 * block perf), perf's own lost events; fp-bucket's idle at the end */
	uint64_t warnings, samples_read, dropped, lost, idle;
	uint64_t stats_version; /* version of the last change of those */
	int ended;
	/* the capture's events in perf report's order (the source's C events
	 * record, TAB-separated), or NULL: the page's event picker while live */
	char *event_names;
	/* /live/flamegraph's answer for snapshot flame_seq (and `ended`
	 * flame_ended), made once for every viewer at flame_built_ms
	 * (CLOCK_MONOTONIC) in flame_cost_ms of CPU (live_flame_body) */
	pthread_mutex_t flame_lock;
	struct http_shared *flame;
	uint64_t flame_seq, flame_built_ms, flame_cost_ms;
	int flame_ended;
};

struct live_client {
	uint64_t seen_version, seen_snapshot, seen_stats, last_push;
	int sent_end;
	int started;        /* the first (heatmap) event was sent */
	struct fp_sink out; /* pending bytes */
	size_t out_off;
};

void live_idle(struct live *l);
/* The heatmap's base second (its column 0); 0 if no sample arrived yet. */
int live_base_sec(struct live *l, uint64_t *base);
int live_ended(struct live *l);
/* Waits, at most max_ms, until the recording open on fd holds every
 * sample the chain's heatmap has counted before `end` (decimal seconds on
 * the heatmap's axis; NULL: the newest column). 0 once it does, -1 if it
 * still does not (the answer will lack the newest samples). */
int live_wait_recorded(struct live *l, int fd, const char *end, unsigned max_ms);
/* A copy (malloc) of the current snapshot as plain folded text. */
char *live_copy_snapshot(struct live *l, size_t *len, uint64_t *total);
/* {"seq":N,"total":N,"ended":B: the open JSON object every live answer
 * starts with (the current snapshot's number and samples). */
void live_state_json(struct fp_sink *s, struct live *l);
/* /live/flamegraph's answer: the state and the whole capture's tree
 * ({"seq","total","ended","tree"}), made once per snapshot however many
 * viewers ask; a reference the caller drops (http_shared_unref). */
struct http_shared *live_flame_body(struct live *l);
void live_heatmap_json(struct live *l, struct fp_sink *s);
size_t live_sse_next(struct live *l, struct live_client *c);

#endif
