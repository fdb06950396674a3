/* fp_io.h: bounded, buffered line I/O on (non-blocking) fds, driven by libev.
 *
 * A stage is a filter: lines come in on one fd, records go out on another.
 * struct fp_pump owns both ends and implements the rules every stage needs:
 *
 *  - Input is read in large chunks and split into lines with memchr (no
 *    per-byte stdio). Partial lines are kept across reads. A line longer than
 *    FP_LINE_MAX is skipped and reported through ops->too_long (default: a
 *    W record plus a stderr warning). A last line without LF is delivered.
 *  - gzip input is detected by its magic bytes when FP_PUMP_GZIP is set and
 *    inflated on the fly (concatenated members too).
 *  - Output is buffered; it is flushed when it reaches FP_OUT_CHUNK and
 *    whenever the input has nothing more to read right now (so a live stream
 *    is never held back). Backpressure: while more than FP_OUT_HIGH bytes are
 *    waiting for a slow reader, the input watcher is stopped; it restarts
 *    once the output drains. A single write that would take the buffer past
 *    FP_OUT_HARD waits (poll) for the reader, so memory stays bounded even
 *    when one input line produces a lot of output (snapshots, history).
 *  - FIFOs and pipes are switched to O_NONBLOCK; regular files and ttys are
 *    used as they are (a regular file is read from an ev_idle watcher, since
 *    epoll cannot watch it).
 *  - EINTR and EAGAIN are normal. SIGPIPE is ignored: EPIPE on output means
 *    the reader went away; the stage exits quietly with FP_EXIT_PIPE.
 *  - SIGINT / SIGTERM end the input at the next line boundary: ops->eof runs
 *    (final tables are written), output is flushed, fp_pump_run returns.
 *
 * Calling sequence:
 *
 *	struct fp_pump p;
 *	fp_pump_init(&p, EV_DEFAULT, 0, 1, &my_ops, my_state, FP_PUMP_GZIP);
 *	p.in_name = "capture.perf";      // for messages (default "stdin")
 *	... add own watchers on p.loop (timers, control FIFO) ...
 *	return fp_pump_run(&p);          // returns FP_EXIT_OK after eof
 *
 * Inside callbacks, write with fp_out_write()/fp_out_str()/fp_out_u64()...
 * p.lineno is the number of the line being delivered (1-based).
 */
#ifndef FP_IO_H
#define FP_IO_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <ev.h>

#include "fp_record.h"

/* Longest line, LF included. Overridable only for fuzzing (docs/fuzzing.md):
 * a small limit lets short inputs reach the too-long paths. */
#ifndef FP_LINE_MAX
#define FP_LINE_MAX (1u << 20)
#endif
#define FP_IN_CHUNK (256u << 10)      /* bytes per read() */
#define FP_IN_PER_CALLBACK (4u << 20) /* then let other watchers run */
/* Flush when this much is buffered. 256 KiB, not 64: a batch chain's
 * stages then wake each other a quarter as often (involuntary context
 * switches of `flamepipe report` on the mixed corpus: 1,650 -> 640). */
#define FP_OUT_CHUNK (256u << 10)
#define FP_OUT_HIGH (1u << 20) /* stop reading input above this */
#define FP_OUT_HARD (8u << 20) /* block (poll) before growing past this */
#define FP_PIPE_SIZE (1 << 20) /* kernel buffer of our pipes/FIFOs */
/* A stage writing into a pipe or FIFO whose pipe or FIFO input delivered
 * less than FP_TRICKLE_BYTES in two read callbacks in a row (a live source
 * writing sample by sample) reads again only FP_GATHER_S later: one wakeup per FP_GATHER_S gathers what arrived
 * meanwhile, instead of a context switch per small write. It adds at most
 * FP_GATHER_S of delay per stage; a batch stream (writers flush
 * FP_OUT_CHUNK at a time) is never held. */
#define FP_TRICKLE_BYTES (32u << 10)
#define FP_GATHER_S 0.005

/* ---- output buffer ---------------------------------------------------- */

struct fp_out {
	int fd;
	int nonblock; /* fd is O_NONBLOCK (pipe/FIFO) */
	char *buf;
	size_t off, len, cap; /* pending: buf[off .. off + len) */
	/* After a write found the fd full, appends try again only once len
	 * reaches this (the EV_WRITE watcher says when it drains): a write
	 * per record into a full pipe was 18,763 failed calls in one report. */
	size_t retry_at;
	uint64_t bytes_written;
	struct ev_loop *loop;
	ev_io w;                            /* armed only while bytes are pending */
	void (*on_drain)(struct fp_out *o); /* below FP_OUT_HIGH again */
	void *owner;
};

void fp_out_init(struct fp_out *o, struct ev_loop *loop, int fd);
void fp_out_write(struct fp_out *o, const void *p, size_t n);
void fp_out_str(struct fp_out *o, const char *s);
void fp_out_char(struct fp_out *o, char c);
void fp_out_u64(struct fp_out *o, uint64_t v);
/* Writes what it can now; arms EV_WRITE for the rest. */
void fp_out_flush(struct fp_out *o);
/* Writes everything, waiting for the reader (used at exit). */
void fp_out_flush_all(struct fp_out *o);
void fp_out_free(struct fp_out *o);
/* The record writers' view of o (fp_record.h): fp_write_cell(fp_out_wr(o), ...). */
struct fp_wr fp_out_wr(struct fp_out *o);

/* Set while a write waits (poll) for a slow reader, so the pump's SIGTERM
 * handler can still end the stage (fp_out.c sets it, fp_io.c reads it). */
extern volatile sig_atomic_t fp_out_in_blocking_write;

/* ---- the pump: line input + output ------------------------------------ */

struct fp_pump;

struct fp_pump_ops {
	/* One complete line, LF removed, NUL-terminated at line[len]
	 * (a CR before the LF is kept: callers that care strip it). */
	void (*line)(struct fp_pump *p, char *line, size_t len);
	/* Input ended (EOF, or SIGINT/SIGTERM). Write final tables here. */
	void (*eof)(struct fp_pump *p);
	/* Optional: the input has nothing more to read right now. */
	void (*idle)(struct fp_pump *p);
	/* Optional: line number `lineno` was longer than FP_LINE_MAX and was
	 * skipped. Default: W record and a stderr warning. */
	void (*too_long)(struct fp_pump *p, uint64_t lineno);
	/* Optional, mapped input (FP_PUMP_MMAP) only: called where a line
	 * starts at byte pos of the map, before the pump splits lines there.
	 * Returns how many bytes the stage took there itself (whole lines,
	 * *lines of them: a stage that parses ahead on threads), or 0: the
	 * pump delivers the lines before *serial_end one by one, as usual. */
	size_t (*map_block)(struct fp_pump *p, const char *map, size_t size, size_t pos,
			    uint64_t *lines, size_t *serial_end);
};

enum {
	FP_PUMP_GZIP = 1, /* inflate input that starts with the gzip magic */
	/* Live sources: never stop reading input because the output is slow
	 * (that would stall perf). The stage must check fp_out_is_full() and
	 * drop (and count) whole records instead of writing them. */
	FP_PUMP_NEVER_BLOCK = 2,
	/* A regular file is mapped (mmap) instead of read: no copy into the
	 * line buffer. Lines are then NOT NUL-terminated and must not be
	 * written to: the stage uses (line, len) only. gzip input and
	 * pipes use the normal path. The file must not shrink meanwhile. */
	FP_PUMP_MMAP = 4,
};

/* True while more than FP_OUT_HIGH bytes wait for a slow reader. */
static inline int fp_out_is_full(const struct fp_out *o)
{
	return o->len > FP_OUT_HIGH;
}

struct fp_pump {
	struct ev_loop *loop;
	const struct fp_pump_ops *ops;
	void *ctx;           /* the stage's state */
	const char *in_name; /* "stdin" or a path, for messages */
	const char *stage;   /* stage name for W/I records (default prog) */
	uint64_t lineno;     /* line being delivered, 1-based */
	uint64_t bytes_in;   /* raw bytes read from in_fd */
	uint64_t text_bytes; /* text consumed (after gzip): lines delivered or
				 * skipped, so it does not depend on how the
				 * input arrived, even when a stage stops early */
	uint64_t lines_too_long;
	int seen_idle;    /* the input has paused at least once (a live
				 * stream, not a file read to its end) */
	int unterminated; /* the line being delivered is the last one and
				 * had no LF (a cut file?) */
	struct fp_out out;

	/* private */
	int in_fd, flags, in_pollable, done, stopping;
	ev_io in_w;
	ev_idle in_idle;
	ev_timer gather_w;    /* trickling input: wait before reading again */
	uint64_t step_bytes;  /* bytes read by the last read callback */
	unsigned small_steps; /* read callbacks in a row that read little */
	ev_signal sig_int, sig_term;
	char *buf; /* line assembly buffer */
	size_t start, end, cap;
	int skipping; /* inside an over-long line */
	void *gz;     /* z_stream when inflating */
	char *raw;    /* compressed bytes when inflating */
	size_t raw_len;
	int gz_checked, gz_error;
	uint64_t inflated; /* bytes inflated so far (fp_inflate_check) */
	const char *map;   /* FP_PUMP_MMAP: the mapped file, or NULL */
	size_t map_size, map_pos, map_released;
	size_t map_serial_end; /* ops->map_block: lines before it go one by one */
};

void fp_pump_init(struct fp_pump *p, struct ev_loop *loop, int in_fd, int out_fd,
		  const struct fp_pump_ops *ops, void *ctx, int flags);
/* Runs the loop until input ends; returns an exit code
 * (FP_EXIT_OK, or FP_EXIT_DATA after a gzip stream error). */
int fp_pump_run(struct fp_pump *p);
/* Ends input processing early (e.g. a fatal input error found by a stage):
 * ops->eof runs, output is flushed, fp_pump_run returns. */
void fp_pump_stop(struct fp_pump *p);
/* Pause/resume reading input (e.g. while re-sending history). */
void fp_pump_pause(struct fp_pump *p);
void fp_pump_resume(struct fp_pump *p);

/* Writes `W <stage> <where> <message>` downstream and
 * `prog: where: message` on stderr. where is "<in_name>:<lineno>". */
/* 1 once SIGINT/SIGTERM arrived (after fp_pump_init) more than
 * FP_SIGNAL_GRACE_MS ago and the stage is still busy: its own long loops
 * (a replay) stop early so the pump can finish. Line delivery stops then
 * too (before that, the lines already read are delivered as usual). */
#define FP_SIGNAL_GRACE_MS 500
int fp_signal_pending(void);

/* The input a stage names on its command line: NULL or "-" is stdin
 * (returns 0, *name "stdin"); a path is opened read-only (*name = path),
 * or the program ends: `prog: open PATH: why` (FP_EXIT_SYS). */
int fp_open_input(const char *path, const char **name);

/* "line longer than FP_LINE_MAX bytes skipped": the default too_long
 * warning's text, for stages that route it through their own counters. */
const char *fp_too_long_text(void);
void fp_pump_warn(struct fp_pump *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Makes fd O_NONBLOCK if it is a pipe/FIFO/socket; returns 1 if it did. */
int fp_fd_make_nonblock_if_pipe(int fd);
/* Grows a pipe's kernel buffer to FP_PIPE_SIZE (best effort). */
void fp_fd_grow_pipe(int fd);

#endif
