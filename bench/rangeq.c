/* rangeq.c: N concurrent range queries on fp-serve (issue 23's bench row).
 *
 *	rangeq PORT FILENAME N SPAN_S SEED
 *
 * N threads, released together, each send one GET /flamegraph/ for
 * FILENAME with a random range of 2 to 20 s inside [0, SPAN_S) (three
 * decimals, so no two share a cached answer) to 127.0.0.1:PORT and read
 * the whole answer. Prints one line:
 *	requests=N ok=K p50_ms=.. p99_ms=.. max_ms=..
 * ok counts 200 answers; the percentiles are over every request, from
 * the moment all were released to its last byte. A C client, so the
 * client's own start-up (curl's: ~9 ms of CPU each) is not measured too.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct q {
	pthread_t t;
	char req[512];
	int status;
	double ms;
};

static int port;
static pthread_barrier_t go;
static struct timespec t0;

static double since_ms(const struct timespec *a)
{
	struct timespec b;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) * 1e3 + (double)(b.tv_nsec - a->tv_nsec) / 1e6;
}

static void *run(void *arg)
{
	struct q *q = arg;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	char buf[65536];
	int fd;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	pthread_barrier_wait(&go);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
	    write(fd, q->req, strlen(q->req)) != (ssize_t)strlen(q->req)) {
		q->status = -1;
		q->ms = since_ms(&t0);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	ssize_t n;
	size_t head = 0; /* the status line is in the first bytes */
	while ((n = read(fd, buf + head, sizeof buf - 1 - head)) > 0) {
		if (head < 16) {
			head += (size_t)n;
			buf[head] = '\0';
			if (head >= 12)
				sscanf(buf, "HTTP/1.%*d %d", &q->status);
			if (head >= 16)
				head = 16; /* then keep reading over the rest */
		}
	}
	q->ms = since_ms(&t0);
	close(fd);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: rangeq PORT FILENAME N SPAN_S SEED\n");
		return 100;
	}
	port = atoi(argv[1]);
	int n = atoi(argv[3]);
	double span = atof(argv[4]);
	srand((unsigned)atoi(argv[5]));
	if (n <= 0 || span <= 22)
		return 100;
	struct q *qs = calloc((size_t)n, sizeof *qs);
	double *ms = calloc((size_t)n, sizeof *ms);
	pthread_barrier_init(&go, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++) {
		double len = 2 + 18 * (double)rand() / RAND_MAX;
		double from = (span - len) * (double)rand() / RAND_MAX;
		snprintf(qs[i].req, sizeof qs[i].req,
			 "GET /flamegraph/?filename=%s&start=%.3f&end=%.3f HTTP/1.1\r\n"
			 "Host: 127.0.0.1\r\nConnection: close\r\n\r\n",
			 argv[2], from, from + len);
		pthread_attr_t at;
		pthread_attr_init(&at);
		pthread_attr_setstacksize(&at, 256 << 10);
		if (pthread_create(&qs[i].t, &at, run, &qs[i]) != 0) {
			fprintf(stderr, "rangeq: cannot start thread %d\n", i);
			return 111;
		}
		pthread_attr_destroy(&at);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_barrier_wait(&go);
	int ok = 0;
	for (int i = 0; i < n; i++) {
		pthread_join(qs[i].t, NULL);
		ok += qs[i].status == 200;
		ms[i] = qs[i].ms;
	}
	qsort(ms, (size_t)n, sizeof *ms, cmp);
	int p99 = (int)(0.99 * n + 0.5) - 1;
	printf("requests=%d ok=%d p50_ms=%.1f p99_ms=%.1f max_ms=%.1f\n", n, ok, ms[(n - 1) / 2],
	       ms[p99 < 0 ? 0 : p99], ms[n - 1]);
	return ok == n ? 0 : 1;
}
