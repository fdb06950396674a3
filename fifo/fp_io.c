/* fp_io.c: the pump: buffered line input with backpressure, driven by
 * libev (fp_io.h; the output side is fp_out.c).
 *
 * The pump follows OpenBSD netcat's readwrite() rules: a full output buffer
 * turns the input off, a drained one turns it back on, an empty one turns the
 * output watcher off. EAGAIN and EINTR are not errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "fp_error.h"
#include "fp_io.h"
#include "fp_readall.h"

#define GZIP_MAGIC0 0x1f
#define GZIP_MAGIC1 0x8b
#define GZIP_WINDOW_AUTO (15 + 32) /* zlib.h: 32 = detect gzip/zlib header */
/* FP_PUMP_MMAP: pages already parsed are dropped from the mapping every
 * this many bytes, so the file does not count in our RSS. */
#define MAP_RELEASE_EVERY (8u << 20)

/* Set by SIGINT/SIGTERM (with the time it came): the signal watcher runs
 * when the current callback returns; a callback still delivering lines
 * FP_SIGNAL_GRACE_MS later (a stage busy on each line) stops at the next
 * line boundary instead, so the stage always ends promptly. */
static volatile sig_atomic_t signal_pending;
static struct timespec signal_time;

static int signal_overdue(void)
{
	struct timespec now;

	if (!signal_pending)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - signal_time.tv_sec) * 1000 +
		       (now.tv_nsec - signal_time.tv_nsec) / 1000000 >=
	       FP_SIGNAL_GRACE_MS;
}

int fp_signal_pending(void)
{
	return signal_overdue();
}

/* ---- input ------------------------------------------------------------- */

static void pump_finish(struct fp_pump *p);
static void pump_read_cb(struct ev_loop *loop, ev_io *w, int revents);
static void pump_idle_cb(struct ev_loop *loop, ev_idle *w, int revents);

static void pump_start_input(struct fp_pump *p)
{
	ev_timer_stop(p->loop, &p->gather_w);
	if (p->done)
		return;
	if (p->in_pollable)
		ev_io_start(p->loop, &p->in_w);
	else
		ev_idle_start(p->loop, &p->in_idle);
}

static void pump_stop_input(struct fp_pump *p)
{
	ev_timer_stop(p->loop, &p->gather_w);
	ev_io_stop(p->loop, &p->in_w);
	ev_idle_stop(p->loop, &p->in_idle);
}

static void pump_read_some(struct fp_pump *p, int from_gather);

/* The gathering pause is over: read what arrived meanwhile at once (the
 * input watcher would only report what we know is there). */
static void pump_gather_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	pump_read_some(w->data, 1);
}

void fp_pump_pause(struct fp_pump *p)
{
	pump_stop_input(p);
}

void fp_pump_resume(struct fp_pump *p)
{
	pump_start_input(p);
}

static void pump_out_drained(struct fp_out *o)
{
	struct fp_pump *p = o->owner;

	pump_start_input(p);
	o->on_drain = NULL;
}

int fp_open_input(const char *path, const char **name)
{
	int fd;

	*name = "stdin";
	if (!path || strcmp(path, "-") == 0)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fp_die_sys(FP_EXIT_SYS, "open %s", path);
	*name = path;
	return fd;
}

const char *fp_too_long_text(void)
{
	static char text[64];

	if (!text[0])
		snprintf(text, sizeof text, "line longer than %u bytes skipped", FP_LINE_MAX);
	return text;
}

static void default_too_long(struct fp_pump *p, uint64_t lineno)
{
	(void)lineno;
	fp_pump_warn(p, "%s", fp_too_long_text());
}

void fp_pump_warn(struct fp_pump *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* Names never contain TAB or LF in the protocol; keep W records whole. */
	for (char *c = msg; *c; c++)
		if (*c == '\t' || *c == '\n')
			*c = ' ';
	fprintf(stderr, "%s: %s:%llu: %s\n", fp_prog(), p->in_name, (unsigned long long)p->lineno,
		msg);
	fp_write_warning(fp_out_wr(&p->out), p->stage, p->in_name, p->lineno, msg);
}

/* The signal path: end input at the next line boundary. While blocked on a
 * stuck reader there is no loop to come back to, so leave at once. */
static void pump_signal_handler(int sig)
{
	if (fp_out_in_blocking_write)
		_exit(128 + sig);
	if (!signal_pending)
		clock_gettime(CLOCK_MONOTONIC, &signal_time);
	signal_pending = 1;
	ev_feed_signal(sig);
}

static void pump_signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct fp_pump *p = w->data;

	(void)loop;
	(void)revents;
	if (!p->done)
		pump_finish(p);
}

void fp_pump_init(struct fp_pump *p, struct ev_loop *loop, int in_fd, int out_fd,
		  const struct fp_pump_ops *ops, void *ctx, int flags)
{
	struct stat st;
	struct sigaction sa;

	memset(p, 0, sizeof *p);
	p->loop = loop;
	p->ops = ops;
	p->ctx = ctx;
	p->in_fd = in_fd;
	p->flags = flags;
	p->in_name = "stdin";
	p->stage = fp_prog();
	p->cap = FP_LINE_MAX + FP_IN_CHUNK;
	p->buf = fp_xmalloc(p->cap + 1); /* +1: room for a NUL after a last line */

	signal(SIGPIPE, SIG_IGN);
	fp_out_init(&p->out, loop, out_fd);
	p->out.owner = p;

	p->in_pollable = !(fstat(in_fd, &st) == 0 && S_ISREG(st.st_mode));
	if (fp_fd_make_nonblock_if_pipe(in_fd))
		fp_fd_grow_pipe(in_fd);
	ev_io_init(&p->in_w, pump_read_cb, in_fd, EV_READ);
	p->in_w.data = p;
	ev_idle_init(&p->in_idle, pump_idle_cb);
	p->in_idle.data = p;
	ev_timer_init(&p->gather_w, pump_gather_cb, FP_GATHER_S, 0.);
	p->gather_w.data = p;

	ev_signal_init(&p->sig_int, pump_signal_cb, SIGINT);
	ev_signal_init(&p->sig_term, pump_signal_cb, SIGTERM);
	p->sig_int.data = p->sig_term.data = p;
	ev_signal_start(loop, &p->sig_int);
	ev_signal_start(loop, &p->sig_term);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = pump_signal_handler;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* gzip: inflate raw bytes into the line buffer. */
static int gz_start(struct fp_pump *p, const char *first, size_t n)
{
	z_stream *zs = fp_xcalloc(1, sizeof *zs);

	if (inflateInit2(zs, GZIP_WINDOW_AUTO) != Z_OK)
		fp_die(FP_EXIT_SYS, "%s: cannot initialise zlib", p->in_name);
	p->gz = zs;
	p->raw = fp_xmalloc(FP_IN_CHUNK);
	memcpy(p->raw, first, n);
	zs->next_in = (Bytef *)p->raw;
	zs->avail_in = (uInt)n;
	return 0;
}

/* Reports damaged gzip input as file:line (the last line read whole) on
 * stderr. Not as a W record: the pump also feeds stages whose output is
 * not a flamepipe stream (fp-latency, fp-bpftrace). */
static void gz_fail(struct fp_pump *p, const char *what)
{
	fprintf(stderr, "%s: %s:%llu: %s: line %llu and later are cut short or missing\n",
		fp_prog(), p->in_name, (unsigned long long)p->lineno, what,
		(unsigned long long)p->lineno + 1);
	p->gz_error = 1;
}

/* Fills buf[end..] with up to `room` bytes. Returns >0 bytes added, 0 at
 * end of input, -1 when nothing is available now (EAGAIN). */
static ssize_t pump_fill(struct fp_pump *p, size_t room)
{
	z_stream *zs = p->gz;

	if (!zs) {
		ssize_t n;

		do
			n = read(p->in_fd, p->buf + p->end, room);
		while (n < 0 && errno == EINTR);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return -1;
		if (n < 0)
			fp_die_sys(FP_EXIT_SYS, "read '%s'", p->in_name);
		if (n > 0) {
			p->bytes_in += (uint64_t)n;
			if ((p->flags & FP_PUMP_GZIP) && !p->gz_checked && p->end == 0) {
				p->gz_checked = 1;
				if (n >= 2 && (unsigned char)p->buf[0] == GZIP_MAGIC0 &&
				    (unsigned char)p->buf[1] == GZIP_MAGIC1) {
					gz_start(p, p->buf, (size_t)n);
					return pump_fill(p, room);
				}
			}
			p->gz_checked = 1;
		}
		return n;
	}
	if (p->gz_error)
		return 0;
	for (;;) {
		if (zs->avail_in == 0) {
			ssize_t n;

			do
				n = read(p->in_fd, p->raw, FP_IN_CHUNK);
			while (n < 0 && errno == EINTR);
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				return -1;
			if (n < 0)
				fp_die_sys(FP_EXIT_SYS, "read '%s'", p->in_name);
			if (n == 0) {
				/* total_in > 0 means a member was started and not ended. */
				if (zs->total_in > 0)
					gz_fail(p, "truncated gzip data (unexpected end of file)");
				return 0;
			}
			p->bytes_in += (uint64_t)n;
			zs->next_in = (Bytef *)p->raw;
			zs->avail_in = (uInt)n;
		}
		zs->next_out = (Bytef *)p->buf + p->end;
		zs->avail_out = (uInt)room;
		int r = inflate(zs, Z_NO_FLUSH);
		size_t got = room - zs->avail_out;

		p->inflated += got;
		fp_inflate_check(p->in_name, p->inflated);

		if (r == Z_STREAM_END) {
			/* Concatenated members: start again on what follows. */
			inflateReset(zs);
			zs->total_in = 0;
		} else if (r != Z_OK && r != Z_BUF_ERROR) {
			char msg[256];

			snprintf(msg, sizeof msg, "invalid gzip data: %s",
				 zs->msg ? zs->msg : "inflate error");
			gz_fail(p, msg);
			return got ? (ssize_t)got : 0;
		}
		if (got)
			return (ssize_t)got;
	}
}

/* Delivers every complete line in buf[start..end). */
static void pump_scan(struct fp_pump *p)
{
	while (p->start < p->end && !p->stopping && !signal_overdue()) {
		char *s = p->buf + p->start;
		char *nl = memchr(s, '\n', p->end - p->start);

		if (!nl)
			break;
		size_t len = (size_t)(nl - s);

		p->start += len + 1;
		p->text_bytes += len + 1;
		if (p->skipping) { /* the rest of an over-long line */
			p->skipping = 0;
			continue;
		}
		p->lineno++;
		if (len + 1 > FP_LINE_MAX) {
			p->lines_too_long++;
			(p->ops->too_long ? p->ops->too_long : default_too_long)(p, p->lineno);
			continue;
		}
		*nl = '\0';
		p->ops->line(p, s, len);
	}
	if (p->stopping || signal_overdue())
		return;
	/* A partial line that cannot end within the limit: skip it. */
	if (p->skipping) {
		p->text_bytes += p->end - p->start;
		p->start = p->end;
	} else if (p->end - p->start >= FP_LINE_MAX) {
		p->lineno++;
		p->lines_too_long++;
		p->skipping = 1;
		p->text_bytes += p->end - p->start;
		p->start = p->end;
		(p->ops->too_long ? p->ops->too_long : default_too_long)(p, p->lineno);
	}
	if (p->start == p->end)
		p->start = p->end = 0;
}

static void pump_finish(struct fp_pump *p)
{
	if (p->done)
		return;
	p->done = 1;
	pump_stop_input(p);
	if (p->ops->eof)
		p->ops->eof(p);
	fp_out_flush_all(&p->out);
	ev_break(p->loop, EVBREAK_ALL);
}

/* Reads and delivers up to FP_IN_PER_CALLBACK bytes. Returns 1 if the
 * input is drained for now, 0 if there may be more, -1 at end. */
static int pump_step(struct fp_pump *p)
{
	size_t budget = FP_IN_PER_CALLBACK;

	p->step_bytes = 0;
	while (budget > 0) {
		if (p->start > 0 && p->cap - p->end < FP_IN_CHUNK) {
			memmove(p->buf, p->buf + p->start, p->end - p->start);
			p->end -= p->start;
			p->start = 0;
		}
		size_t room = p->cap - p->end;

		if (room > FP_IN_CHUNK)
			room = FP_IN_CHUNK;
		ssize_t n = pump_fill(p, room);

		if (n < 0)
			return 1;
		if (n == 0) {
			/* End of input: a last line without LF still counts. */
			if (p->end > p->start && !p->skipping) {
				size_t len = p->end - p->start;

				p->lineno++;
				p->buf[p->end] = '\0';
				p->start = p->end;
				p->text_bytes += len;
				p->unterminated = 1;
				p->ops->line(p, p->buf + p->end - len, len);
			}
			return -1;
		}
		p->end += (size_t)n;
		p->step_bytes += (uint64_t)n;
		budget = (size_t)n > budget ? 0 : budget - (size_t)n;
		pump_scan(p);
		if (p->stopping)
			return -1;
		if (signal_overdue())
			return 0; /* back to the loop: its signal watcher finishes */
		if (p->out.len > FP_OUT_HIGH && !(p->flags & FP_PUMP_NEVER_BLOCK)) {
			/* Backpressure: wait for the reader before reading more. */
			fp_out_flush(&p->out);
			if (p->out.len > FP_OUT_HIGH) {
				pump_stop_input(p);
				p->out.on_drain = pump_out_drained;
				return 0;
			}
		}
	}
	return 0;
}

/* FP_PUMP_MMAP: maps the input if it is a non-empty regular file that is
 * not gzip; returns 1 if it did. */
/* A mapped file that shrinks under us raises SIGBUS on the missing pages:
 * say so and exit like any other failed read, rather than crash. */
static void pump_map_sigbus(int sig)
{
	static const char msg[] = ": the input file shrank while it was being read\n";
	const char *prog = fp_prog();

	(void)sig;
	(void)!write(2, prog, strlen(prog));
	(void)!write(2, msg, sizeof msg - 1);
	_exit(FP_EXIT_SYS);
}

static int pump_map(struct fp_pump *p)
{
	struct stat st;
	struct sigaction sa;

	if (!(p->flags & FP_PUMP_MMAP) || p->in_pollable || fstat(p->in_fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX)
		return 0;
	off_t at = lseek(p->in_fd, 0, SEEK_CUR);
	if (at != 0)
		return 0; /* already partly read: keep to read() */
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, p->in_fd, 0);
	if (m == MAP_FAILED)
		return 0;
	const unsigned char *u = m;
	if ((p->flags & FP_PUMP_GZIP) && st.st_size >= 2 && u[0] == GZIP_MAGIC0 &&
	    u[1] == GZIP_MAGIC1) {
		munmap(m, (size_t)st.st_size);
		return 0;
	}
	madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = pump_map_sigbus;
	sigaction(SIGBUS, &sa, NULL);
	p->map = m;
	p->map_size = (size_t)st.st_size;
	p->gz_checked = 1;
	return 1;
}

/* Drops the pages before map_pos from the mapping (not from the page
 * cache). */
static void pump_map_release(struct fp_pump *p, int all)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t upto = all ? p->map_size : p->map_pos / (size_t)page * (size_t)page;

	if (upto > p->map_released) {
		madvise((void *)(p->map + p->map_released), upto - p->map_released, MADV_DONTNEED);
		p->map_released = upto;
	}
}

/* One line of a mapped file at pos, the same rules as pump_scan's;
 * returns where the next line starts. */
static size_t map_line(struct fp_pump *p, const char *base, size_t size, size_t pos)
{
	const char *s = base + pos;
	size_t avail = size - pos;
	size_t look = avail < FP_LINE_MAX ? avail : FP_LINE_MAX;
	const char *nl = memchr(s, '\n', look);

	p->lineno++;
	if (nl) {
		size_t len = (size_t)(nl - s);

		p->ops->line(p, (char *)s, len);
		return pos + len + 1;
	}
	if (avail < FP_LINE_MAX) { /* a last line without LF */
		p->unterminated = 1;
		p->ops->line(p, (char *)s, avail);
		return size;
	}
	const char *e = memchr(s + look, '\n', avail - look);

	p->lines_too_long++;
	(p->ops->too_long ? p->ops->too_long : default_too_long)(p, p->lineno);
	return e ? (size_t)(e - base) + 1 : size;
}

/* The lines at pos that the stage's map_block takes as a block, or 0. */
static size_t map_block(struct fp_pump *p, const char *base, size_t size, size_t pos)
{
	uint64_t lines = 0;
	size_t taken;

	if (!p->ops->map_block || pos < p->map_serial_end)
		return 0;
	taken = p->ops->map_block(p, base, size, pos, &lines, &p->map_serial_end);
	if (taken)
		p->lineno += lines;
	else if (p->map_serial_end <= pos)
		p->map_serial_end = size; /* the stage has no more blocks */
	return taken;
}

/* pump_step for a mapped file. The file offset follows the parse, for
 * progress readers of /proc/PID/fdinfo. */
static int pump_step_map(struct fp_pump *p)
{
	const char *base = p->map;
	size_t size = p->map_size, pos = p->map_pos;
	size_t stop = size - pos > FP_IN_PER_CALLBACK ? pos + FP_IN_PER_CALLBACK : size;
	size_t check = pos + FP_IN_CHUNK; /* next backpressure check */

	while (pos < stop && !p->stopping && !signal_overdue()) {
		size_t taken = map_block(p, base, size, pos);

		pos = taken ? pos + taken : map_line(p, base, size, pos);
		if (pos >= check) {
			check = pos + FP_IN_CHUNK;
			if (p->out.len > FP_OUT_HIGH && !(p->flags & FP_PUMP_NEVER_BLOCK)) {
				fp_out_flush(&p->out);
				if (p->out.len > FP_OUT_HIGH)
					break;
			}
		}
	}
	p->bytes_in += pos - p->map_pos;
	p->text_bytes += pos - p->map_pos;
	p->map_pos = pos;
	if (pos - p->map_released >= MAP_RELEASE_EVERY || pos == size)
		pump_map_release(p, 0);
	lseek(p->in_fd, (off_t)pos, SEEK_SET);
	if (p->stopping || pos == size)
		return -1;
	if (p->out.len > FP_OUT_HIGH && !(p->flags & FP_PUMP_NEVER_BLOCK)) {
		pump_stop_input(p);
		p->out.on_drain = pump_out_drained;
	}
	return 0;
}

static void pump_after_step(struct fp_pump *p, int r)
{
	if (r < 0) {
		pump_finish(p);
		return;
	}
	if (r == 1) {
		/* Input idle: let the stage publish, then push everything out. */
		p->seen_idle = 1;
		if (p->ops->idle)
			p->ops->idle(p);
		fp_out_flush(&p->out);
	}
}

/* Reads what the input has now; then gathers (fp_io.h) if it trickles.
 * Only a stage that writes into the next one's pipe gathers (a sink like
 * fp-serve reacts at once). Two small reads in a row: a batch stream has
 * one small read (the tail an upstream stage flushes when its input runs
 * dry) between chunks of FP_OUT_CHUNK, a trickle has only small ones. */
static void pump_read_some(struct fp_pump *p, int from_gather)
{
	int r = pump_step(p);

	pump_after_step(p, r);
	p->small_steps = r == 1 && p->step_bytes < FP_TRICKLE_BYTES ? p->small_steps + 1 : 0;
	if (p->done || p->stopping || p->out.on_drain)
		return; /* finished, or waiting for the output to drain */
	if (p->small_steps >= 2 && p->out.nonblock) {
		ev_io_stop(p->loop, &p->in_w);
		ev_timer_set(&p->gather_w, FP_GATHER_S, 0.);
		ev_timer_start(p->loop, &p->gather_w);
	} else if (from_gather) {
		pump_start_input(p);
	}
}

static void pump_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	pump_read_some(w->data, 0);
}

static void pump_idle_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	(void)loop;
	(void)revents;
	struct fp_pump *p = w->data;

	pump_after_step(p, p->map ? pump_step_map(p) : pump_step(p));
}

void fp_pump_stop(struct fp_pump *p)
{
	p->stopping = 1;
	/* The read callback notices `stopping` and finishes; from elsewhere
	 * (a timer, the control FIFO) finish now. */
	ev_idle_start(p->loop, &p->in_idle);
}

int fp_pump_run(struct fp_pump *p)
{
	pump_map(p);
	pump_start_input(p);
	if (p->stopping)
		pump_finish(p);
	while (!p->done) {
		ev_run(p->loop, 0);
		if (!p->done && p->stopping)
			pump_finish(p);
		else if (!p->done)
			break; /* no more watchers: cannot happen with input open */
	}
	ev_signal_stop(p->loop, &p->sig_int);
	ev_signal_stop(p->loop, &p->sig_term);
	if (p->gz) {
		inflateEnd(p->gz);
		free(p->gz);
		p->gz = NULL;
	}
	if (p->map) {
		munmap((void *)p->map, p->map_size);
		p->map = NULL;
	}
	free(p->raw);
	free(p->buf);
	p->raw = p->buf = NULL;
	fp_out_free(&p->out);
	return p->gz_error ? FP_EXIT_DATA : FP_EXIT_OK;
}
