/* fp_ctlfifo.h: a control FIFO: lines that writers send when they like,
 * read on a libev loop (fp-range's control FIFO, fifo/fp_rangectl.h).
 *
 * The FIFO is made (mode 0600) if it does not exist; an existing path
 * must be a FIFO. The reader holds a write end of its own (fp_fifo.h), so
 * writers may open and close it at will and the reader never sees EOF.
 * Lines longer than line_max are skipped whole and reported once.
 *
 * Calling sequence:
 *	struct fp_ctlfifo c = { .path = path, .line_max = N, .ctx = me,
 *				.line = on_line, .too_long = on_long, .done = on_done };
 *	fp_ctlfifo_open(&c, loop);     // dies (FP_EXIT_SYS/USAGE) on failure
 *	... the loop runs: on_line(me, line, len) for each line (LF removed;
 *	    c.lineno its number), then on_done(me, changed) after each read,
 *	    changed = whether some on_line returned nonzero ...
 *	fp_ctlfifo_close(&c, loop);    // removes the FIFO if it made it
 */
#ifndef FP_CTLFIFO_H
#define FP_CTLFIFO_H

#include <stddef.h>
#include <stdint.h>

#include <ev.h>

struct fp_ctlfifo {
	const char *path;
	size_t line_max;
	void *ctx;
	int (*line)(void *ctx, const char *line, size_t len);
	void (*too_long)(void *ctx, const char *start, size_t len);
	void (*done)(void *ctx, int changed);
	uint64_t lineno; /* of the line being delivered */

	/* private */
	int fd, keep_fd, created, skipping;
	ev_io w;
	char *buf;
	size_t len;
};

void fp_ctlfifo_open(struct fp_ctlfifo *c, struct ev_loop *loop);
void fp_ctlfifo_close(struct fp_ctlfifo *c, struct ev_loop *loop);

#endif
