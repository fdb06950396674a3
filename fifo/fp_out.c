/* fp_out.c: the output side of fp_io.h: a buffered writer on a
 * (non-blocking) fd, flushed when it is full or the input is idle, with a
 * hard bound that waits (poll) for a slow reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fp_error.h"
#include "fp_fmt.h"
#include "fp_io.h"

#define BLOCKING_POLL_MS 1000

volatile sig_atomic_t fp_out_in_blocking_write;

/* ---- output ------------------------------------------------------------ */

int fp_fd_make_nonblock_if_pipe(int fd)
{
	struct stat st;
	int fl;

	if (fstat(fd, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return 0;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return 0;
	if (!(fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return 0;
	return 1;
}

/* A bigger pipe buffer lets writer and reader run longer between context
 * switches (Linux: 64 KiB by default). Best effort: not a pipe, or over
 * /proc/sys/fs/pipe-max-size for an unprivileged user, is fine. */
void fp_fd_grow_pipe(int fd)
{
#ifdef F_SETPIPE_SZ
	int cur = fcntl(fd, F_GETPIPE_SZ);

	if (cur > 0 && cur < FP_PIPE_SIZE)
		(void)fcntl(fd, F_SETPIPE_SZ, FP_PIPE_SIZE);
#else
	(void)fd;
#endif
}

static void out_writable_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct fp_out *o = w->data;

	(void)loop;
	(void)revents;
	o->retry_at = 0;
	fp_out_flush(o);
	if (o->len < FP_OUT_HIGH && o->on_drain)
		o->on_drain(o);
}

static void out_wr_write(void *o, const void *p, size_t n)
{
	fp_out_write(o, p, n);
}

static void out_reserve(struct fp_out *o, size_t n);

/* After an append: a chunk's worth goes out, unless the fd was full and
 * not that much more has gathered since (o->retry_at). */
static inline void out_appended(struct fp_out *o)
{
	if (o->len >= FP_OUT_CHUNK && o->len >= o->retry_at)
		fp_out_flush(o);
}

/* A line and its LF: one reservation and one flush test. */
static void out_wr_line(void *ctx, const void *p, size_t n)
{
	struct fp_out *o = ctx;

	out_reserve(o, n + 1);
	char *at = o->buf + o->off + o->len;

	memcpy(at, p, n);
	at[n] = '\n';
	o->len += n + 1;
	out_appended(o);
}

struct fp_wr fp_out_wr(struct fp_out *o)
{
	return (struct fp_wr){ out_wr_write, o, out_wr_line };
}

void fp_out_init(struct fp_out *o, struct ev_loop *loop, int fd)
{
	memset(o, 0, sizeof *o);
	o->fd = fd;
	o->loop = loop;
	o->nonblock = fp_fd_make_nonblock_if_pipe(fd);
	if (o->nonblock)
		fp_fd_grow_pipe(fd);
	o->cap = 2 * FP_OUT_CHUNK;
	o->buf = fp_xmalloc(o->cap);
	ev_io_init(&o->w, out_writable_cb, fd, EV_WRITE);
	o->w.data = o;
}

void fp_out_free(struct fp_out *o)
{
	if (o->loop)
		ev_io_stop(o->loop, &o->w);
	free(o->buf);
	o->buf = NULL;
	o->off = o->len = o->cap = 0;
}

/* Writes as much as the fd takes now. Returns 0 when everything is out.
 * What a partial write leaves stays where it is (off moves on): moving it
 * to the front each time copied up to a megabyte per pipe buffer's worth. */
static int out_try_write(struct fp_out *o)
{
	while (o->len) {
		ssize_t n = write(o->fd, o->buf + o->off, o->len);

		if (n > 0) {
			o->off += (size_t)n;
			o->len -= (size_t)n;
			o->bytes_written += (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			o->retry_at = o->len + FP_OUT_CHUNK;
			break;
		}
		if (n < 0 && errno == EPIPE)
			exit(FP_EXIT_PIPE); /* the reader went away: not an error of ours */
		fp_die_sys(FP_EXIT_SYS, "write to fd %d", o->fd);
	}
	if (!o->len)
		o->off = o->retry_at = 0;
	/* Whatever path wrote the bytes (the write watcher, a flush from a
	 * timer, a blocking wait), a pump that stopped reading until the
	 * output drains must hear of it, or its input stays off for good. */
	if (o->on_drain && o->len < FP_OUT_HIGH)
		o->on_drain(o);
	return o->len != 0;
}

void fp_out_flush(struct fp_out *o)
{
	if (!o->len) {
		if (o->loop)
			ev_io_stop(o->loop, &o->w);
		return;
	}
	if (out_try_write(o) && o->loop && o->nonblock)
		ev_io_start(o->loop, &o->w);
	else if (o->loop)
		ev_io_stop(o->loop, &o->w);
}

/* Waits until the fd can take more, then writes; until len <= keep. */
static void out_wait_until(struct fp_out *o, size_t keep)
{
	while (o->len > keep) {
		if (!out_try_write(o))
			break;
		if (o->len <= keep)
			break;
		struct pollfd pfd = { .fd = o->fd, .events = POLLOUT };
		fp_out_in_blocking_write = 1;
		int r = poll(&pfd, 1, BLOCKING_POLL_MS);
		fp_out_in_blocking_write = 0;
		if (r < 0 && errno != EINTR)
			fp_die_sys(FP_EXIT_SYS, "poll on output");
	}
}

void fp_out_flush_all(struct fp_out *o)
{
	out_wait_until(o, 0);
	if (o->loop)
		ev_io_stop(o->loop, &o->w);
}

static void out_reserve(struct fp_out *o, size_t n)
{
	if (o->off + o->len + n <= o->cap)
		return;
	/* Past the hard limit, wait for the reader instead of growing. */
	if (o->len + n > FP_OUT_HARD && o->len)
		out_wait_until(o, 0);
	if (o->off) { /* the pending bytes to the front: once per buffer */
		memmove(o->buf, o->buf + o->off, o->len);
		o->off = 0;
	}
	if (o->len + n > o->cap)
		o->buf = fp_xgrow(o->buf, &o->cap, o->len + n, 1, FP_OUT_CHUNK);
}

void fp_out_write(struct fp_out *o, const void *p, size_t n)
{
	out_reserve(o, n);
	memcpy(o->buf + o->off + o->len, p, n);
	o->len += n;
	out_appended(o);
}

void fp_out_str(struct fp_out *o, const char *s)
{
	fp_out_write(o, s, strlen(s));
}

void fp_out_char(struct fp_out *o, char c)
{
	if (o->off + o->len + 1 > o->cap)
		out_reserve(o, 1);
	o->buf[o->off + o->len++] = c;
	out_appended(o);
}

void fp_out_u64(struct fp_out *o, uint64_t v)
{
	char buf[FP_FMT_U64_MAX], *end = buf + sizeof buf, *p = fp_fmt_u64(end, v);

	fp_out_write(o, p, (size_t)(end - p));
}
