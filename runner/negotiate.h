/* negotiate.h: stream options agreed between a pipeline's stages before
 * they start (negotiate.c, fifo/PROTOCOL.md "Negotiation"). */
#ifndef FP_NEGOTIATE_H
#define FP_NEGOTIATE_H

#include "pipeline.h"

/* Gives the source `--stack-ids` when every stage reading its samples
 * reads the stack-id stream. Returns 1 if it did (or it had it), else 0. */
int fp_negotiate_stack_ids(struct fp_pipeline *pl);
/* Gives each fp-fold `--delta-snapshots` when every stage after it reads
 * delta snapshots or passes them on, up to a last stage that reads them.
 * Returns how many fp-fold stages have it. */
int fp_negotiate_delta_snapshots(struct fp_pipeline *pl);
/* 1 if the stage is an fp-fold the negotiation gave --delta-snapshots: it
 * owes a (re)started reader a full snapshot (runner/spawn.c). */
int fp_negotiate_writes_deltas(const struct fp_stage_spec *st);
/* Gives each fp-fold --pass-samples `--snapshot-ids` when every stage
 * after it reads snapshots by id or passes them on, up to a last stage
 * that reads them, and none of them (nor fp-fold) restarts. Returns how
 * many fp-fold stages have it. */
int fp_negotiate_snapshot_ids(struct fp_pipeline *pl);

#endif
