/* u-gate.c: fp-serve's connection gate (web/gate.c) against the sockets of
 * real loopback clients. The gate's source is compiled into this test, as
 * u-web does with the web sources, so the test can watch its count of
 * waiting connections. No request head here ever completes: nothing is
 * handed to libmicrohttpd, and the gate runs without a daemon. */
#include "unit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "../../web/gate.c"

#define EXTRA 100 /* connections past GATE_PENDING_MAX: as many evictions */
#define WAIT_MS 20000

static int listen_loopback(struct sockaddr_in *sa)
{
	socklen_t n = sizeof *sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	memset(sa, 0, sizeof *sa);
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)sa, sizeof *sa), 0);
	assert_int_equal(listen(fd, 1024), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)sa, &n), 0);
	return fd;
}

/* A client that has sent a request line and no end of head. */
static int trickler(const struct sockaddr_in *sa)
{
	static const char line[] = "GET /profile/ HTTP/1.1\r\n";
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (const struct sockaddr *)sa, sizeof *sa), 0);
	assert_int_equal(send(fd, line, sizeof line - 1, MSG_NOSIGNAL), (ssize_t)sizeof line - 1);
	return fd;
}

/* The gate thread writes npending; a racy read is enough to wait on it. */
static unsigned pending(struct gate *g)
{
	return __atomic_load_n(&g->npending, __ATOMIC_RELAXED);
}

static void wait_pending(struct gate *g, unsigned want)
{
	for (int ms = 0; pending(g) != want && ms < WAIT_MS; ms++)
		poll(NULL, 0, 1);
	assert_int_equal(pending(g), want);
}

/* A client whose request line is over GATE_LINE_MAX, once the start of
 * its 414 answer has come: the gate thread has been round its loop since,
 * and lingers on the connection until the client hangs up. */
static int answered_414(const struct sockaddr_in *sa)
{
	static char line[GATE_LINE_MAX + 64];
	char answer[12];
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(line, 'a', sizeof line);
	memcpy(line, "GET /", 5);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (const struct sockaddr *)sa, sizeof *sa), 0);
	assert_int_equal(send(fd, line, sizeof line, MSG_NOSIGNAL), (ssize_t)sizeof line);
	assert_int_equal(recv(fd, answer, sizeof answer, MSG_WAITALL), (ssize_t)sizeof answer);
	assert_memory_equal(answer, "HTTP/1.1 414", 12);
	return fd;
}

/* One round trip through the gate: a 414 answered whole, then hung up. */
static void round_trip(const struct sockaddr_in *sa)
{
	char rest[64];
	int fd = answered_414(sa);
	ssize_t n;

	while ((n = recv(fd, rest, sizeof rest, 0)) > 0)
		; /* the rest of the answer, to the gate's end of it */
	close(fd);
}

/* posix_spawn (fp-serve's chains) clones the descriptor table: until the
 * child execs, it holds every socket the gate has. A socket the gate
 * closes then stays open, and stays in the gate's epoll set: closing a
 * descriptor removes it only with the last reference. Its next event
 * named a freed connection (fp-serve died "double free or corruption"
 * under 600 trickling clients while chains started). Here a child holds
 * the copies for the whole test, the gate evicts EXTRA connections, and
 * their clients hang up: the gate must hear nothing of them. */
static void a_closed_connection_is_never_heard_of_again_while_a_child_holds_its_socket(void **state)
{
	struct rlimit rl;
	struct sockaddr_in sa;
	int lfd = listen_loopback(&sa);
	int *fd = calloc(GATE_PENDING_MAX + EXTRA, sizeof *fd);

	/* both ends of every connection live in this process */
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < 2 * (GATE_PENDING_MAX + EXTRA) + 64) {
		rl.rlim_cur = rl.rlim_max;
		if (rl.rlim_cur < 2 * (GATE_PENDING_MAX + EXTRA) + 64)
			skip();
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	struct gate *g = gate_start(lfd, NULL);
	for (int i = 0; i < GATE_PENDING_MAX; i++)
		fd[i] = trickler(&sa);
	wait_pending(g, GATE_PENDING_MAX);

	pid_t child = fork(); /* the spawned child, before its exec */
	assert_true(child >= 0);
	if (child == 0) { /* it holds the gate's sockets, not the clients' */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (int i = 0; i < GATE_PENDING_MAX; i++)
			close(fd[i]);
		for (;;)
			pause();
	}
	for (int i = GATE_PENDING_MAX; i < GATE_PENDING_MAX + EXTRA; i++)
		fd[i] = trickler(&sa); /* each evicts the oldest waiting one */
	/* accepted after them, the probe evicts one more (fd[EXTRA]), then
	 * its own connection ends: one fewer waits */
	round_trip(&sa);
	wait_pending(g, GATE_PENDING_MAX - 1);
	for (int i = 0; i <= EXTRA; i++)
		close(fd[i]); /* the evicted ones' clients hang up */
	for (int i = 0; i < 4; i++)
		round_trip(&sa);
	/* every trickler not evicted still waits */
	wait_pending(g, GATE_PENDING_MAX - 1);
	for (int ms = 0; ms < 100; ms++) {
		assert_int_equal(pending(g), GATE_PENDING_MAX - 1);
		poll(NULL, 0, 1);
	}

	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	gate_stop(g);
	for (int i = EXTRA + 1; i < GATE_PENDING_MAX + EXTRA; i++)
		close(fd[i]);
	free(fd);
}

/* A full gate closes a connection that has had its error answer before
 * one still waiting for its head: the answered client has all it will
 * get, the waiting one may be a slow but honest client. */
static void a_full_gate_closes_an_answered_connection_before_a_waiting_one(void **state)
{
	struct rlimit rl;
	struct sockaddr_in sa;
	int lfd = listen_loopback(&sa);
	int *fd = calloc(GATE_PENDING_MAX, sizeof *fd);

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < 2 * GATE_PENDING_MAX + 64) {
		rl.rlim_cur = rl.rlim_max;
		if (rl.rlim_cur < 2 * GATE_PENDING_MAX + 64)
			skip();
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	struct gate *g = gate_start(lfd, NULL);
	for (int i = 0; i < GATE_PENDING_MAX - 1; i++)
		fd[i] = trickler(&sa);
	wait_pending(g, GATE_PENDING_MAX - 1);

	/* answered 414, and kept open: the gate lingers on it */
	int answered = answered_414(&sa);

	fd[GATE_PENDING_MAX - 1] = trickler(&sa); /* the gate is full */
	/* the gate closes the answered one: bytes sent to it are refused */
	int ms = 0;
	while (send(answered, "x", 1, MSG_NOSIGNAL) == 1 && ms++ < WAIT_MS)
		poll(NULL, 0, 1);
	assert_true(ms < WAIT_MS);
	/* and every trickler still waits: none of them sees an EOF */
	wait_pending(g, GATE_PENDING_MAX);
	for (int i = 0; i < GATE_PENDING_MAX; i++) {
		struct pollfd p = { .fd = fd[i], .events = POLLIN };
		assert_int_equal(poll(&p, 1, 0), 0);
	}

	gate_stop(g);
	close(answered);
	for (int i = 0; i < GATE_PENDING_MAX; i++)
		close(fd[i]);
	free(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			a_closed_connection_is_never_heard_of_again_while_a_child_holds_its_socket),
		cmocka_unit_test(a_full_gate_closes_an_answered_connection_before_a_waiting_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
