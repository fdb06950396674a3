/* http-load: a bounded loopback load test for fp-serve (t7202, bench/run.sh).
 *
 *	http-load PORT PATH SLOW NORMAL SECONDS [TRICKLE_MS]
 *
 * For SECONDS seconds, against 127.0.0.1:PORT (loopback only, by
 * construction: there is no host argument):
 *  - SLOW slowloris clients: each connects, sends a request line and then
 *    one more header line every TRICKLE_MS (default 1000) without ever
 *    ending the head; when the server closes one, it reconnects;
 *  - NORMAL clients (threads): each sends `GET PATH` (Connection: close),
 *    reads the whole answer, and starts the next request at once.
 * A normal request fails if it cannot connect, gets no complete answer
 * within REQUEST_TIMEOUT_S, or an answer other than 200.
 * Prints one line:
 *	requests=N failures=F p50_ms=X p99_ms=Y max_ms=Z slow=S slow_reconnects=R seconds=T
 * HTTP_LOAD_GZIP=1 in the environment: normal requests take gzip;
 * HTTP_LOAD_EVERY_MS=N: each normal client starts a request every N ms
 * (or at once when the last took longer) instead of back to back.
 * Exit codes: 0 every normal request was answered 200 (and there was at
 * least one), 1 otherwise, 100 usage, 111 system error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fp_error.h"

#define SLOW_MAX 1024
#define NORMAL_MAX 256
#define SECONDS_MAX 600
#define REQUEST_TIMEOUT_S 20
#define LATENCIES_PER_THREAD (1u << 20)
#define RESPONSE_BUF 65536
#define TRICKLE_DEFAULT_MS 1000
#define FAILURE_BACKOFF_MS 10

static struct sockaddr_in target;
static char request[1024];
static size_t request_len;
static double stop_at;

struct worker {
	pthread_t t;
	double *lat; /* ms */
	size_t n;
	unsigned long failures;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int connect_target(int nonblock)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&target, sizeof target) < 0 && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One request: 1 if answered 200 completely within the timeout. */
static int one_request(void)
{
	int fd = connect_target(0);
	if (fd < 0)
		return 0;
	int ok = 0;
	if (send(fd, request, request_len, MSG_NOSIGNAL) != (ssize_t)request_len)
		goto out;
	char buf[RESPONSE_BUF];
	size_t got = 0;
	int status = 0;
	double deadline = now_s() + REQUEST_TIMEOUT_S;
	for (;;) {
		int left = (int)((deadline - now_s()) * 1000);
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		if (left <= 0 || poll(&pf, 1, left) <= 0)
			goto out;
		ssize_t n = recv(fd, buf + (got < sizeof buf / 2 ? got : 0), sizeof buf / 2, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out;
		if (n == 0)
			break; /* Connection: close: the answer is complete */
		if (!status && got == 0 && n >= 12 && memcmp(buf, "HTTP/1.", 7) == 0)
			status = atoi(buf + 9);
		got += (size_t)n;
	}
	ok = status == 200;
out:
	close(fd);
	return ok;
}

static double every_s; /* HTTP_LOAD_EVERY_MS: a request per client this often */

static void *normal_main(void *arg)
{
	struct worker *w = arg;
	double next = now_s();
	while (now_s() < stop_at) {
		if (every_s > 0) { /* paced, as a page that refreshes */
			double wait = next - now_s();
			if (wait > 0) {
				struct timespec ts = {
					(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)
				};
				nanosleep(&ts, NULL);
			}
			next += every_s;
			if (now_s() >= stop_at)
				break;
		}
		double t0 = now_s();
		if (!one_request()) {
			struct timespec backoff = { 0, FAILURE_BACKOFF_MS * 1000000L };
			w->failures++;
			nanosleep(&backoff, NULL); /* a refusing server is not hammered */
			continue;
		}
		if (w->n < LATENCIES_PER_THREAD)
			w->lat[w->n++] = (now_s() - t0) * 1000;
	}
	return NULL;
}

/* The slow clients, all on this thread: connect, trickle, reconnect. */
static unsigned long slow_run(int nslow, int trickle_ms)
{
	static int fd[SLOW_MAX];
	static unsigned line[SLOW_MAX];
	unsigned long reconnects = 0;
	for (int i = 0; i < nslow; i++)
		fd[i] = -1;
	while (now_s() < stop_at) {
		for (int i = 0; i < nslow; i++) {
			char l[64];
			int n;
			if (fd[i] < 0) {
				fd[i] = connect_target(1);
				line[i] = 0;
				if (fd[i] < 0)
					continue;
				reconnects++;
				n = snprintf(l, sizeof l,
					     "GET /profile/ HTTP/1.1\r\nHost: 127.0.0.1\r\n");
			} else {
				n = snprintf(l, sizeof l, "X-Slow-%u: %u\r\n", line[i], line[i]);
			}
			line[i]++;
			if (send(fd[i], l, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
			    errno != EAGAIN && errno != EINPROGRESS && errno != ENOTCONN) {
				close(fd[i]);
				fd[i] = -1;
				continue;
			}
			/* the server closed it (deadline, eviction): reconnect */
			char sink[512];
			ssize_t r = recv(fd[i], sink, sizeof sink, MSG_DONTWAIT);
			if (r == 0 || (r < 0 && errno != EAGAIN && errno != ENOTCONN)) {
				close(fd[i]);
				fd[i] = -1;
			}
		}
		struct timespec ts = { trickle_ms / 1000, (long)(trickle_ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < nslow; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return reconnects > (unsigned long)nslow ? reconnects - (unsigned long)nslow : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static long arg_num(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || end == s || v < lo || v > hi)
		fp_die(FP_EXIT_USAGE, "%s: expected %ld..%ld, got %s", what, lo, hi, s);
	return v;
}

int main(int argc, char **argv)
{
	fp_set_prog(argv[0]);
	if (argc < 6 || argc > 7)
		fp_die(FP_EXIT_USAGE,
		       "usage: http-load PORT PATH SLOW NORMAL SECONDS [TRICKLE_MS]");
	long port = arg_num(argv[1], 1, 65535, "PORT");
	const char *path = argv[2];
	int nslow = (int)arg_num(argv[3], 0, SLOW_MAX, "SLOW");
	int nnormal = (int)arg_num(argv[4], 1, NORMAL_MAX, "NORMAL");
	long seconds = arg_num(argv[5], 1, SECONDS_MAX, "SECONDS");
	int trickle = argc > 6 ? (int)arg_num(argv[6], 1, 60000, "TRICKLE_MS") : TRICKLE_DEFAULT_MS;
	if (path[0] != '/' || strlen(path) > 512 || strpbrk(path, " \r\n"))
		fp_die(FP_EXIT_USAGE, "PATH: expected /something without spaces");
	target.sin_family = AF_INET;
	target.sin_port = htons((uint16_t)port);
	target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	const char *every = getenv("HTTP_LOAD_EVERY_MS");
	if (every && *every)
		every_s = (double)arg_num(every, 1, 600000, "HTTP_LOAD_EVERY_MS") / 1000;
	/* HTTP_LOAD_GZIP=1: ask for gzip, as a browser does */
	const char *gz = getenv("HTTP_LOAD_GZIP");
	request_len = (size_t)snprintf(
		request, sizeof request,
		"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sConnection: close\r\n\r\n", path,
		gz && strcmp(gz, "1") == 0 ? "Accept-Encoding: gzip\r\n" : "");
	double start = now_s();
	stop_at = start + (double)seconds;

	struct worker *w = fp_xcalloc((size_t)nnormal, sizeof *w);
	for (int i = 0; i < nnormal; i++) {
		w[i].lat = fp_xmalloc(LATENCIES_PER_THREAD * sizeof *w[i].lat);
		int rc = pthread_create(&w[i].t, NULL, normal_main, &w[i]);
		if (rc)
			fp_die(FP_EXIT_SYS, "pthread_create: %s", strerror(rc));
	}
	unsigned long reconnects = slow_run(nslow, trickle);
	size_t total = 0;
	unsigned long failures = 0;
	for (int i = 0; i < nnormal; i++) {
		pthread_join(w[i].t, NULL);
		total += w[i].n;
		failures += w[i].failures;
	}
	double *all = fp_xmalloc((total ? total : 1) * sizeof *all);
	size_t k = 0;
	for (int i = 0; i < nnormal; i++) {
		memcpy(all + k, w[i].lat, w[i].n * sizeof *all);
		k += w[i].n;
		free(w[i].lat);
	}
	free(w);
	qsort(all, total, sizeof *all, cmp_double);
	double p50 = total ? all[total / 2] : 0, p99 = total ? all[(total * 99) / 100] : 0;
	double max = total ? all[total - 1] : 0;
	printf("requests=%zu failures=%lu p50_ms=%.2f p99_ms=%.2f max_ms=%.2f slow=%d "
	       "slow_reconnects=%lu seconds=%.1f\n",
	       total + failures, failures, p50, p99, max, nslow, reconnects, now_s() - start);
	free(all);
	return failures == 0 && total > 0 ? 0 : 1;
}
