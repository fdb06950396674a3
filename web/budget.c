/* budget.c: what one request may spend, and the fair queue of chain slots.
 *
 * Every request runs on its own connection thread (one request per
 * connection, gate.h), so its budget is that thread's: started when the
 * request arrives, checked by spawn.c while its chains run (CPU, wall
 * time, output) and here while it waits for a slot.
 *
 * The fair queue: at most COMPUTE_PARALLEL_MAX chains run at once. Each
 * request belongs to a flow, the client it comes from: the local user
 * that owns the client's socket when the client is on this host (on
 * loopback every client has the same address; sock_diag names the
 * socket's owner), else its address. A flow runs at most FLOW_SLOTS_MAX
 * chains at once (one slot is always left to the others), and a freed
 * slot goes to the waiting flow with the fewest chains running (the
 * earliest waiter among equals), so one client asking for many heavy
 * chains cannot hold every slot nor jump ahead of another's first one.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "fp_clock.h"
#include "fp_error.h"
#include "serve.h"

#define COMPUTE_PARALLEL_MAX \
	4                                         /* stage chains at once (the rest wait):
				 * each is 2-4 processes on a small host */
#define FLOW_SLOTS_MAX (COMPUTE_PARALLEL_MAX - 1) /* one flow's chains at once */
#define MS_PER_S 1000

static __thread struct budget current;

long long budget_now_ms(void)
{
	return (long long)fp_clock_ms(CLOCK_MONOTONIC);
}

struct budget *budget_current(void)
{
	return &current;
}

/* The uid owning the socket local=peer, remote=us (the client's end of
 * the connection, on this host), or -1: one sock_diag lookup of that
 * exact socket (reading /proc/net/tcp instead walks every socket, a
 * quarter of the server's CPU under 200 concurrent requests). */
static long long socket_owner(const struct sockaddr_storage *peer,
			      const struct sockaddr_storage *us)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = {
		.nlh = { .nlmsg_len = sizeof req,
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST },
		.r = { .sdiag_family = (uint8_t)peer->ss_family,
		       .sdiag_protocol = IPPROTO_TCP,
		       .idiag_states = ~0u },
	};
	struct inet_diag_sockid *id = &req.r.id;
	long long uid = -1;

	id->idiag_cookie[0] = id->idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (peer->ss_family == AF_INET) {
		const struct sockaddr_in *p = (const void *)peer, *u = (const void *)us;
		id->idiag_sport = p->sin_port;
		id->idiag_dport = u->sin_port;
		memcpy(id->idiag_src, &p->sin_addr, 4);
		memcpy(id->idiag_dst, &u->sin_addr, 4);
	} else {
		const struct sockaddr_in6 *p = (const void *)peer, *u = (const void *)us;
		id->idiag_sport = p->sin6_port;
		id->idiag_dport = u->sin6_port;
		memcpy(id->idiag_src, &p->sin6_addr, 16);
		memcpy(id->idiag_dst, &u->sin6_addr, 16);
	}
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -1;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	if (sendto(fd, &req, sizeof req, 0, (struct sockaddr *)&nl, sizeof nl) ==
	    (ssize_t)sizeof req) {
		union {
			struct nlmsghdr h;
			char buf[8192];
		} ans;
		ssize_t n = recv(fd, &ans, sizeof ans, 0);
		for (struct nlmsghdr *h = &ans.h; n > 0 && NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
				break; /* NLMSG_ERROR: no such socket */
			const struct inet_diag_msg *m = NLMSG_DATA(h);
			uid = m->idiag_uid;
			break;
		}
	}
	close(fd);
	return uid;
}

static int is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	return ss->ss_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* The flow of connection c: "uid:N" for a client on loopback, else
 * "ip:ADDR" ("?" when the address is unknown). */
static void flow_of(struct MHD_Connection *c, char *buf, size_t n)
{
	const union MHD_ConnectionInfo *ai = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const union MHD_ConnectionInfo *fi = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct sockaddr_storage peer, us;
	socklen_t ul = sizeof us;

	snprintf(buf, n, "?");
	if (!ai || !ai->client_addr)
		return;
	memset(&peer, 0, sizeof peer);
	memcpy(&peer, ai->client_addr,
	       ai->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						      : sizeof(struct sockaddr_in));
	if (peer.ss_family != AF_INET && peer.ss_family != AF_INET6)
		return;
	if (is_loopback(&peer) && fi &&
	    getsockname(fi->connect_fd, (struct sockaddr *)&us, &ul) == 0) {
		long long uid = socket_owner(&peer, &us);
		if (uid >= 0) {
			snprintf(buf, n, "uid:%lld", uid);
			return;
		}
	}
	char ip[INET6_ADDRSTRLEN] = "?";
	if (peer.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&peer)->sin_addr, ip, sizeof ip);
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&peer)->sin6_addr, ip, sizeof ip);
	snprintf(buf, n, "ip:%s", ip);
}

static __thread struct MHD_Connection *current_conn;

void budget_begin(const struct server *srv, struct MHD_Connection *c)
{
	memset(&current, 0, sizeof current);
	if (srv->limits.wall_ms)
		current.deadline_ms = budget_now_ms() + (long long)srv->limits.wall_ms;
	current_conn = c; /* its flow: looked up when it first needs a slot */
}

static const char *flow_key(struct budget *b)
{
	if (!b)
		return "?";
	if (!b->flow[0] && b == &current && current_conn)
		flow_of(current_conn, b->flow, sizeof b->flow);
	return b->flow[0] ? b->flow : "?";
}

/* ---- the fair queue ------------------------------------------------------ */

struct flow {
	struct flow *next;
	char key[sizeof current.flow];
	unsigned running, waiting;
};

struct waiter {
	struct waiter *next;
	struct flow *flow;
	int granted;
	pthread_cond_t cv; /* its own: a grant wakes one thread, not all */
};

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static struct flow *flows;
static struct waiter *waiters, **waiters_tail = &waiters; /* arrival order */
static unsigned running;

static struct flow *flow_get(const char *key)
{
	for (struct flow *f = flows; f; f = f->next)
		if (strcmp(f->key, key) == 0)
			return f;
	struct flow *f = fp_xcalloc(1, sizeof *f);
	snprintf(f->key, sizeof f->key, "%s", key);
	f->next = flows;
	flows = f;
	return f;
}

static void flow_drop_if_idle(struct flow *f)
{
	if (f->running || f->waiting)
		return;
	for (struct flow **pp = &flows; *pp; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			free(f);
			return;
		}
}

/* Hands free slots to waiters: the one whose flow runs the fewest chains
 * (earliest first among equals), never a flow's FLOW_SLOTS_MAX + 1st.
 * Called with q_lock held. */
static void grant(void)
{
	while (running < COMPUTE_PARALLEL_MAX) {
		struct waiter *best = NULL;
		for (struct waiter *w = waiters; w; w = w->next) {
			if (w->granted)
				continue;
			if (w->flow->running >= FLOW_SLOTS_MAX)
				continue; /* the last slot is always another flow's */
			if (!best || w->flow->running < best->flow->running)
				best = w;
		}
		if (!best)
			return;
		best->granted = 1;
		best->flow->running++;
		best->flow->waiting--;
		running++;
		pthread_cond_signal(&best->cv);
	}
}

static void waiter_remove(struct waiter *me)
{
	for (struct waiter **pp = &waiters; *pp; pp = &(*pp)->next)
		if (*pp == me) {
			*pp = me->next;
			if (!*pp)
				waiters_tail = pp;
			return;
		}
}

int fairq_enter(const struct job *job)
{
	struct budget *b = job->budget;
	struct waiter me = { .granted = 0 };
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&me.cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_lock(&q_lock);
	me.flow = flow_get(flow_key(b));
	me.flow->waiting++;
	*waiters_tail = &me;
	waiters_tail = &me.next;
	grant();
	while (!me.granted) {
		if (b && b->deadline_ms) {
			if (budget_now_ms() >= b->deadline_ms)
				break;
			struct timespec ts = { .tv_sec = b->deadline_ms / MS_PER_S,
					       .tv_nsec = (b->deadline_ms % MS_PER_S) * 1000000 };
			pthread_cond_timedwait(&me.cv, &q_lock, &ts);
		} else {
			pthread_cond_wait(&me.cv, &q_lock);
		}
	}
	waiter_remove(&me);
	int granted = me.granted;
	if (!granted) {
		me.flow->waiting--;
		flow_drop_if_idle(me.flow);
		grant(); /* the slot rule may have held one back for us */
	}
	pthread_mutex_unlock(&q_lock);
	pthread_cond_destroy(&me.cv);
	return granted ? 0 : -1;
}

void fairq_leave(const struct job *job)
{
	struct budget *b = job->budget;

	pthread_mutex_lock(&q_lock);
	struct flow *f = flow_get(flow_key(b));
	f->running--;
	running--;
	flow_drop_if_idle(f);
	grant();
	pthread_mutex_unlock(&q_lock);
}
