/* summary.h: what the last line of `flamepipe report` and `live` counts
 * in the output directory (runner/summary.c). */
#ifndef FP_RUNNER_SUMMARY_H
#define FP_RUNNER_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#define FP_FOLDED_NAME "stacks.folded"

/* Samples and stacks in DIR/stacks.folded (`stack count` lines): 0, or
 * -1 if there is no such file. */
int fp_folded_totals(const char *dir, uint64_t *samples, uint64_t *stacks);
/* The names in DIR (dotfiles left out), blank-separated, into buf. */
void fp_list_files(const char *dir, char *buf, size_t len);

/* fp-record's --stats file (key=value lines), for live's summary. */
struct fp_record_stats {
	int ok;
	uint64_t read, dropped, lost, idle, recorded, kept_samples, kept_bytes;
	uint64_t kept_from_ns, kept_to_ns, retention_dropped, capture_from_ns, capture_to_ns;
	uint64_t failed;
	uint64_t appended_to, unresolved; /* what the file held before; ids never defined */
};

/* Reads DIR/NAME; rs->ok is 0 if there is none. */
void fp_record_stats_read(const char *dir, const char *name, struct fp_record_stats *rs);
/* "; recording PATH: all of it (...)", or which window it kept. */
void fp_recording_summary(char *buf, size_t n, const struct fp_record_stats *rs, const char *path);

/* "SIGTERM" (or "signal N") into buf; returns buf. */
const char *fp_signal_name(int sig, char *buf, size_t len);
/* A wait status in words: "exited with code N", "killed by signal SIGX". */
void fp_status_text(int status, char *buf, size_t len);

#endif
