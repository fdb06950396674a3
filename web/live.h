/* live.h: state of the live capture shared by fp-serve's threads. */
#ifndef FP_LIVE_H
#define FP_LIVE_H

#include <pthread.h>
#include <stdint.h>

#include "serve.h"
#include "sink.h"

#define SSE_MIN_INTERVAL_MS 200	/* at most 5 pushes per second */
#define SSE_HEARTBEAT_S 15	/* comment line when nothing changed */
#define LIVE_SELECT_WAIT_MS 5000	/* wait for a new selection's snapshot */

struct live_range {
	int has_from, has_to;
	uint64_t from_ns, to_ns;
};

struct live {
	pthread_mutex_t lock;
	pthread_cond_t changed;	/* broadcast on each version bump */
	char *name, *control;
	uint64_t version;	/* bumped on every published change */
	/* heatmap */
	struct heatmap_builder hb;
	uint64_t geometry_version;	/* version of the last G record */
	uint64_t *colver;	/* per column: version of its last change */
	uint32_t ncolver;
	int cells_dirty;	/* changes not yet published */
	/* fold snapshots (plain folded text) */
	int in_fold;
	struct fp_sink building, snapshot;
	uint64_t building_total, snapshot_total, snapshot_seq;
	struct live_range cur, snapshot_range;
	uint64_t resets, snapshot_resets;
	uint64_t warnings, samples_read, dropped;
	uint64_t stats_version;	/* version of the last change of the three */
	int ended;
	/* the last selection written to the control FIFO (its text) and
	 * the reset count before it: the same selection is not re-sent */
	char *sent_sel;
	uint64_t sent_resets_before;
	/* what was sent, to check it against fp-range's own account of the
	 * selection in force (C range / C filter records before C flush):
	 * once fp-range has confirmed it, a different account means someone
	 * else changed it, and fp-range's final report (I ... replays=) or
	 * the runner's "was restarted" W record means the process that held
	 * it is gone. Either way sent_sel is forgotten, so the next request
	 * writes its selection again. */
	struct live_range sent_range;
	unsigned sent_words;	/* bit i: filter_word i is on */
	int sent_confirmed;
	int in_sel_batch;	/* between C range and C flush */
	struct live_range batch_range;
	unsigned batch_words;
	uint64_t forgotten;	/* times sent_sel was forgotten (tests, docs) */
};

struct live_client {
	uint64_t seen_version, seen_snapshot, seen_stats, last_push;
	int sent_end;
	int started;		/* the first (heatmap) event was sent */
	struct fp_sink out;	/* pending bytes */
	size_t out_off;
};

void live_idle(struct live *l);
/* Writes the selection to fp-range's control FIFO; 0 or an HTTP status
 * (with err). *resets_before: for live_wait_snapshot. */
int live_select(struct live *l, const struct selection *sel, uint64_t *resets_before,
		char *err, size_t errsz);
/* Waits until a snapshot of range `want` arrived after the selection was
 * sent; 1 if it did, 0 on timeout or end of capture. */
int live_wait_snapshot(struct live *l, const struct live_range *want, uint64_t resets_before,
		       unsigned timeout_ms);
int live_range_matches(struct live *l, const struct live_range *want);
/* A copy (malloc) of the current snapshot as plain folded text. */
char *live_copy_snapshot(struct live *l, size_t *len, uint64_t *total);
void live_heatmap_json(struct live *l, struct fp_sink *s);
size_t live_sse_next(struct live *l, struct live_client *c);

#endif
