/* fp_ctlfifo.c: a control FIFO read on a libev loop (fp_ctlfifo.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fp_ctlfifo.h"
#include "fp_error.h"
#include "fp_fifo.h"

/* Delivers the complete lines in c->buf, keeps the partial one. */
static int split_lines(struct fp_ctlfifo *c)
{
	char *start = c->buf, *nl;
	int changed = 0;

	while ((nl = memchr(start, '\n', c->buf + c->len - start)) != NULL) {
		if (c->skipping) {
			c->skipping = 0;
		} else {
			c->lineno++;
			changed |= c->line(c->ctx, start, nl - start) != 0;
		}
		start = nl + 1;
	}
	c->len -= start - c->buf;
	memmove(c->buf, start, c->len);
	if (c->len > c->line_max) {
		if (!c->skipping) {
			c->lineno++;
			c->too_long(c->ctx, c->buf, c->len);
		}
		c->skipping = 1;
		c->len = 0;
	}
	return changed;
}

static void read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct fp_ctlfifo *c = w->data;
	int changed = 0;

	for (;;) {
		ssize_t n = read(c->fd, c->buf + c->len, c->line_max + 1 - c->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) { /* cannot happen while we hold a write end */
			if (n < 0)
				fp_warn_sys("%s: read failed", c->path);
			ev_io_stop(loop, w);
			break;
		}
		c->len += (size_t)n;
		changed |= split_lines(c);
	}
	c->done(c->ctx, changed);
}

void fp_ctlfifo_open(struct fp_ctlfifo *c, struct ev_loop *loop)
{
	struct stat st;

	if (lstat(c->path, &st) < 0) {
		if (errno != ENOENT)
			fp_die_sys(FP_EXIT_SYS, "cannot check control FIFO %s", c->path);
		if (fp_fifo_make(c->path) < 0)
			fp_die_sys(FP_EXIT_SYS, "cannot create control FIFO %s", c->path);
		c->created = 1;
	} else if (!S_ISFIFO(st.st_mode)) {
		fp_die(FP_EXIT_USAGE, "control FIFO %s: exists and is not a FIFO", c->path);
	}
	c->fd = fp_fifo_open_reader(c->path, &c->keep_fd);
	if (c->fd < 0)
		fp_die_sys(FP_EXIT_SYS, "cannot open control FIFO %s", c->path);
	c->buf = fp_xmalloc(c->line_max + 1);
	ev_io_init(&c->w, read_cb, c->fd, EV_READ);
	c->w.data = c;
	ev_io_start(loop, &c->w);
}

void fp_ctlfifo_close(struct fp_ctlfifo *c, struct ev_loop *loop)
{
	if (!c->path || !c->buf)
		return;
	ev_io_stop(loop, &c->w);
	close(c->fd);
	close(c->keep_fd);
	if (c->created)
		unlink(c->path);
	free(c->buf);
	c->buf = NULL;
}
