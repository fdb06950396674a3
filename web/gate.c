/* gate.c: accept, wait for a complete request head, hand to libmicrohttpd
 * (see gate.h for the rules and limits).
 *
 * One thread, one epoll set: the listening socket (level-triggered) and
 * every waiting connection (edge-triggered: the head is only peeked, so
 * the socket stays readable; a new arrival is a new edge). Waiting
 * connections are kept in accept order, which is also deadline order
 * (every one gets the same GATE_HEAD_DEADLINE_S), so both the deadline
 * sweep and the eviction of the oldest look at the list's head. After an
 * error answer a connection lingers (its half-sent request is read and
 * dropped for up to GATE_LINGER_S) so that closing it does not reset the
 * answer away.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fp_clock.h"
#include "fp_error.h"
#include "gate.h"

#define EPOLL_BATCH 64
#define MS_PER_S 1000
#define ACCEPT_RETRY_MS 10 /* out of fds and nothing to evict */

enum conn_state { WAITING, LINGERING };

struct conn {
	struct conn *prev, *next; /* accept order */
	int fd;
	enum conn_state state;
	long long deadline_ms;
	struct sockaddr_storage addr;
	socklen_t alen;
};

struct gate {
	pthread_t thread;
	int listen_fd, ep, wake_fd;
	struct MHD_Daemon *d;
	struct conn *head, *tail; /* oldest first */
	unsigned npending;
	long long earliest_ms; /* no deadline before this */
	struct conn *dead;     /* closed during this epoll batch: its
					 * events may still be in the batch */
	char peek[GATE_HEAD_MAX + 1];
};

static void list_remove(struct gate *g, struct conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		g->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		g->tail = c->prev;
	c->prev = c->next = NULL;
	g->npending--;
}

static void list_append(struct gate *g, struct conn *c)
{
	c->prev = g->tail;
	c->next = NULL;
	if (g->tail)
		g->tail->next = c;
	else
		g->head = c;
	g->tail = c;
	g->npending++;
}

/* Stops watching c and returns its socket, for the caller to close or
 * hand over; c is freed after the current epoll batch (conn_reap). Out
 * of the epoll set first: close() takes a socket out only with its last
 * descriptor, and a chain's posix_spawn child holds a copy of every one
 * until it execs. A socket left in would name the freed conn in a later
 * event (fp-serve died "double free or corruption" under 600 trickling
 * clients while chains started; tests/unit/u-gate.c). */
static int conn_forget(struct gate *g, struct conn *c)
{
	int fd = c->fd;

	epoll_ctl(g->ep, EPOLL_CTL_DEL, fd, NULL);
	list_remove(g, c);
	c->fd = -1;
	c->next = g->dead;
	g->dead = c;
	return fd;
}

static void conn_close(struct gate *g, struct conn *c)
{
	close(conn_forget(g, c));
}

static void conn_reap(struct gate *g)
{
	while (g->dead) {
		struct conn *c = g->dead;
		g->dead = c->next;
		free(c);
	}
}

static void set_deadline(struct gate *g, struct conn *c, int seconds);
static void linger_read(struct gate *g, struct conn *c);

/* A JSON error answer (best effort: the socket buffer is empty, it fits),
 * then linger: read and drop what the client still sends, close at its
 * EOF or after GATE_LINGER_S. */
static void answer_and_linger(struct gate *g, struct conn *c, unsigned status, const char *reason,
			      const char *msg)
{
	char resp[512];
	int body = (int)strlen(msg) + (int)sizeof "{\"error\":\"\"}\n" - 1;
	int n = snprintf(resp, sizeof resp,
			 "HTTP/1.1 %u %s\r\nContent-Type: application/json\r\n"
			 "Content-Length: %d\r\nConnection: close\r\n"
			 "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n\r\n"
			 "{\"error\":\"%s\"}\n",
			 status, reason, body, msg);
	if (n > 0 && (size_t)n < sizeof resp &&
	    send(c->fd, resp, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* the client is gone: the read below sees it */
	}
	shutdown(c->fd, SHUT_WR);
	c->state = LINGERING;
	set_deadline(g, c, GATE_LINGER_S);
	linger_read(g, c);
}

static void set_deadline(struct gate *g, struct conn *c, int seconds)
{
	c->deadline_ms = (long long)fp_clock_ms(CLOCK_MONOTONIC) + (long long)seconds * MS_PER_S;
	if (c->deadline_ms < g->earliest_ms)
		g->earliest_ms = c->deadline_ms;
}

static void linger_read(struct gate *g, struct conn *c)
{
	for (;;) {
		ssize_t n = recv(c->fd, g->peek, sizeof g->peek, MSG_DONTWAIT);
		if (n > 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		conn_close(g, c); /* EOF or error */
		return;
	}
}

/* The end of the head (CRLF CRLF, or LF LF from lax clients) in p[0..n). */
static int head_complete(const char *p, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (p[i] != '\n')
			continue;
		if (p[i - 1] == '\n' ||
		    (i >= 3 && p[i - 1] == '\r' && p[i - 2] == '\n' && p[i - 3] == '\r'))
			return 1;
	}
	return 0;
}

static void hand_over(struct gate *g, struct conn *c)
{
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(g->d,
							     MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	if (di && di->num_connections >= GATE_ACTIVE_MAX) {
		answer_and_linger(g, c, 503, "Service Unavailable",
				  "server busy: too many connections, try again");
		return;
	}
	int fd = conn_forget(g, c);
	/* MHD owns (and closes) the socket from here, even on failure */
	if (MHD_add_connection(g->d, fd, (struct sockaddr *)&c->addr, c->alen) != MHD_YES)
		fp_warn("http: cannot hand a connection to the server: %s", strerror(errno));
}

/* New bytes (or EOF) on a waiting connection; peer_done: the client
 * shut down its side (what it sent is all there will be). */
static void waiting_read(struct gate *g, struct conn *c, int peer_done)
{
	ssize_t n;
	do
		n = recv(c->fd, g->peek, sizeof g->peek, MSG_PEEK | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		conn_close(g, c);
		return;
	}
	size_t len = (size_t)n;
	const char *eol = memchr(g->peek, '\n', len);
	if ((!eol && len > GATE_LINE_MAX) || (eol && (size_t)(eol - g->peek) > GATE_LINE_MAX))
		answer_and_linger(g, c, 414, "URI Too Long",
				  "request line too long (URL too long)");
	else if (head_complete(g->peek, len))
		hand_over(g, c);
	else if (len > GATE_HEAD_MAX)
		answer_and_linger(g, c, 431, "Request Header Fields Too Large",
				  "request headers too large");
	else if (peer_done)
		conn_close(g, c); /* a head that can never complete */
}

static void on_event(struct gate *g, struct conn *c, uint32_t events)
{
	if (c->fd < 0)
		return; /* closed earlier in this batch */
	if (c->state == WAITING)
		waiting_read(g, c, (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0);
	else
		linger_read(g, c);
}

/* Accepts all pending connections; 0, or a delay in ms before retrying
 * (out of file descriptors with nothing to evict). */
static int accept_all(struct gate *g)
{
	for (;;) {
		struct conn *c = fp_xcalloc(1, sizeof *c);
		c->alen = sizeof c->addr;
		c->fd = accept4(g->listen_fd, (struct sockaddr *)&c->addr, &c->alen,
				SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (c->fd < 0) {
			int e = errno;
			free(c);
			if (e == EINTR || e == ECONNABORTED)
				continue;
			if ((e == EMFILE || e == ENFILE) && g->head) {
				conn_close(g, g->head);
				continue;
			}
			return e == EAGAIN || e == EWOULDBLOCK ? 0 : ACCEPT_RETRY_MS;
		}
		if (g->npending >= GATE_PENDING_MAX) {
			/* an answered (lingering) one first: it has had its
			 * answer; else the oldest still waiting */
			struct conn *old = g->head;
			while (old && old->state != LINGERING)
				old = old->next;
			conn_close(g, old ? old : g->head);
		}
		c->state = WAITING;
		list_append(g, c);
		set_deadline(g, c, GATE_HEAD_DEADLINE_S);
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.ptr = c };
		if (epoll_ctl(g->ep, EPOLL_CTL_ADD, c->fd, &ev) < 0) {
			conn_close(g, c);
			continue;
		}
		waiting_read(g, c, 0); /* the head may be there already */
	}
}

/* Ends what is past its deadline; returns ms until the next one (-1:
 * none). The list is walked only when the earliest deadline has come. */
static int sweep(struct gate *g)
{
	long long now = (long long)fp_clock_ms(CLOCK_MONOTONIC);
	if (!g->head)
		return -1;
	if (now < g->earliest_ms)
		return (int)(g->earliest_ms - now);
	struct conn *c = g->head;
	while (c) {
		struct conn *next = c->next;
		if (c->deadline_ms <= now) {
			if (c->state == WAITING)
				answer_and_linger(g, c, 408, "Request Timeout",
						  "request head not complete within the deadline");
			else
				conn_close(g, c);
		}
		c = next;
	}
	g->earliest_ms = LLONG_MAX;
	for (c = g->head; c; c = c->next)
		if (c->deadline_ms < g->earliest_ms)
			g->earliest_ms = c->deadline_ms;
	if (!g->head)
		return -1;
	return g->earliest_ms <= now ? 0 : (int)(g->earliest_ms - now);
}

static void *gate_main(void *arg)
{
	struct gate *g = arg;
	struct epoll_event evs[EPOLL_BATCH];
	int retry_ms = 0;
	for (;;) {
		int timeout = sweep(g);
		if (retry_ms && (timeout < 0 || timeout > retry_ms))
			timeout = retry_ms;
		int n = epoll_wait(g->ep, evs, EPOLL_BATCH, timeout);
		if (n < 0 && errno != EINTR)
			fp_die_sys(FP_EXIT_SYS, "http: epoll_wait");
		if (retry_ms) {
			retry_ms = 0;
			struct epoll_event lev = { .events = EPOLLIN, .data.ptr = NULL };
			epoll_ctl(g->ep, EPOLL_CTL_MOD, g->listen_fd, &lev);
		}
		for (int i = 0; i < n; i++) {
			if (evs[i].data.ptr == g)
				return NULL; /* gate_stop */
			if (evs[i].data.ptr == NULL) {
				retry_ms = accept_all(g);
				if (retry_ms) { /* stop listening for a moment */
					struct epoll_event lev = { .events = 0, .data.ptr = NULL };
					epoll_ctl(g->ep, EPOLL_CTL_MOD, g->listen_fd, &lev);
				}
				continue;
			}
			on_event(g, evs[i].data.ptr, evs[i].events);
		}
		conn_reap(g);
	}
}

struct gate *gate_start(int listen_fd, struct MHD_Daemon *d)
{
	struct gate *g = fp_xcalloc(1, sizeof *g);
	g->listen_fd = listen_fd;
	g->d = d;
	g->earliest_ms = LLONG_MAX;
	int fl = fcntl(listen_fd, F_GETFL);
	if (fl < 0 || fcntl(listen_fd, F_SETFL, fl | O_NONBLOCK) < 0)
		fp_die_sys(FP_EXIT_SYS, "http: listening socket");
	g->ep = epoll_create1(EPOLL_CLOEXEC);
	g->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (g->ep < 0 || g->wake_fd < 0)
		fp_die_sys(FP_EXIT_SYS, "http: cannot start the connection gate");
	struct epoll_event lev = { .events = EPOLLIN, .data.ptr = NULL };
	struct epoll_event wev = { .events = EPOLLIN, .data.ptr = g };
	if (epoll_ctl(g->ep, EPOLL_CTL_ADD, listen_fd, &lev) < 0 ||
	    epoll_ctl(g->ep, EPOLL_CTL_ADD, g->wake_fd, &wev) < 0)
		fp_die_sys(FP_EXIT_SYS, "http: cannot start the connection gate");
	int rc = pthread_create(&g->thread, NULL, gate_main, g);
	if (rc != 0) {
		errno = rc;
		fp_die_sys(FP_EXIT_SYS, "http: cannot start the connection gate thread");
	}
	return g;
}

void gate_stop(struct gate *g)
{
	uint64_t one = 1;
	if (write(g->wake_fd, &one, sizeof one) < 0)
		fp_warn_sys("http: cannot stop the connection gate");
	pthread_join(g->thread, NULL);
	while (g->head)
		conn_close(g, g->head);
	conn_reap(g);
	close(g->wake_fd);
	close(g->ep);
	close(g->listen_fd);
	free(g);
}
