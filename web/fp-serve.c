/* fp-serve: the flamepipe web UI and JSON API (FlameScope's routes).
 *
 * Interface: fp-serve [--dir DIR] [--listen ADDR:PORT | --listen-fd N] [--max-upload N]
 *                     [--live NAME [--recording FILE]]
 * --listen-fd N: serve on socket N, already bound and listening (flamepipe
 *         live binds it before perf starts, so a port in use stops the
 *         session before anything runs, and a restarted fp-serve answers
 *         on the same port).
 * Output: one line `fp-serve: listening on http://ADDR:PORT/` on stdout
 *         once the socket is bound (port 0 picks a free one); with --live,
 *         then `fp-serve: the live capture's page: URL` (the page that
 *         opens on the live profile).
 * Input:  with --live, a flamepipe protocol stream on stdin (the last stage
 *         of a live chain); without, stdin is not read.
 * HTTP: libmicrohttpd with MHD_USE_THREAD_PER_CONNECTION: a request that
 *         runs stages or holds an SSE stream blocks only its own thread.
 *         Connections are accepted by the gate (gate.h), which hands each
 *         one over only once its request head is complete (slow clients
 *         hold no thread). Routes: docs/fp-serve.md.
 * Signals: SIGINT/SIGTERM stop the server (exit 0). They are blocked in
 *         every server thread and handled by the main thread's libev loop.
 * Exit codes: 0 ok, 100 usage, 111 system error (cannot bind ...).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <ev.h>
#include <microhttpd.h>

#include "escape.h"
#include "fp_error.h"
#include "fp_io.h"
#include "fp_opts.h"
#include "gate.h"
#include "http.h"
#include "live.h"
#include "routes.h"
#include "serve.h"

#define USAGE                                                                                     \
	"usage: fp-serve [--dir DIR] [--listen ADDR:PORT | --listen-fd N] [--max-upload BYTES]\n" \
	"                [--user NAME] [--cache-dir DIR] [--cache-size BYTES]\n"                  \
	"                [--max-cpu S] [--max-time S] [--max-inflate BYTES] [--max-output "       \
	"BYTES]\n"                                                                                \
	"                [--upload-quota BYTES] [--upload-evict] [--upload-host-symbols]\n"       \
	"                [--live NAME [--recording FILE]]"

#define DEFAULT_DIR "examples"
#define DEFAULT_ADDR "127.0.0.1"
#define CONNECTION_TIMEOUT_S 30 /* idle, once the head is in (gate.h before) */
#define PER_IP_LIMIT \
	32                             /* active connections per client address, when
				 * not on loopback (where every client is one) */
#define CONNECTION_MEMORY (128u << 10) /* > GATE_HEAD_MAX: never MHD's own 431 */
#define LISTEN_BACKLOG 1024
#define STOP_GRACE_S 3 /* then exit without waiting for stuck threads */
#define URL_MAX 4096
/* budgets (docs/fp-serve.md "Budgets") */
#define DEFAULT_MAX_CPU_S 60
#define DEFAULT_MAX_TIME_S 120
#define DEFAULT_MAX_INFLATE (4ull << 30)
#define DEFAULT_MAX_OUTPUT (256ull << 20)
#define DEFAULT_UPLOAD_QUOTA (1ull << 30)
#define DEFAULT_CACHE_SIZE (1ull << 30)
#define SECONDS_MAX 86400

extern char **environ;

static volatile sig_atomic_t quitting;

/* ---- dispatch ------------------------------------------------------------------ */

struct request {
	int is_upload;
	struct upload *up;
};

static int is_get(const char *m)
{
	return strcmp(m, MHD_HTTP_METHOD_GET) == 0 || strcmp(m, MHD_HTTP_METHOD_HEAD) == 0;
}

static enum MHD_Result handle_get(struct server *srv, struct MHD_Connection *c, const char *url)
{
	if (strcmp(url, "/profile/") == 0 || strcmp(url, "/profile") == 0)
		return api_profile(srv, c);
	if (strcmp(url, "/heatmap/") == 0 || strcmp(url, "/heatmap") == 0)
		return api_heatmap(srv, c, 0);
	if (strcmp(url, "/flamegraph/") == 0 || strcmp(url, "/flamegraph") == 0)
		return api_flamegraph(srv, c, FG_TREE);
	if (strcmp(url, "/differential/") == 0 || strcmp(url, "/differential") == 0)
		return api_compare(srv, c, 0);
	if (strcmp(url, "/elided/") == 0 || strcmp(url, "/elided") == 0)
		return api_compare(srv, c, 1);
	if (strcmp(url, "/svg/flamegraph") == 0)
		return api_flamegraph(srv, c, FG_SVG);
	if (strcmp(url, "/svg/heatmap") == 0)
		return api_heatmap(srv, c, 1);
	if (strcmp(url, "/folded") == 0)
		return api_flamegraph(srv, c, FG_FOLDED);
	if (strcmp(url, "/pprof/") == 0 || strcmp(url, "/pprof") == 0)
		return api_pprof(srv, c);
	if (strcmp(url, "/threads/") == 0 || strcmp(url, "/threads") == 0)
		return api_threads(srv, c);
	if (strcmp(url, "/flamechart/") == 0 || strcmp(url, "/flamechart") == 0)
		return api_flamechart(srv, c);
	if (strcmp(url, "/live/events") == 0)
		return api_live_events(srv, c);
	if (strcmp(url, "/live/flamegraph") == 0)
		return api_live_flamegraph(srv, c);
	if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0)
		return ui_serve(c, "", NULL);
	if (strncmp(url, "/ui/", 4) == 0)
		return ui_serve(c, url + 4, NULL);
	int found = 0;
	enum MHD_Result r = ui_serve(c, url + 1, &found);
	if (found)
		return r;
	return http_error(c, MHD_HTTP_NOT_FOUND, "no such route: see docs/fp-serve.md");
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *c, const char *url,
				      const char *method, const char *version,
				      const char *upload_data, size_t *upload_data_size,
				      void **con_cls)
{
	(void)version;
	struct server *srv = cls;
	struct request *rq = *con_cls;
	if (rq && rq->is_upload)
		return upload_request(srv, c, upload_data, upload_data_size, &rq->up);
	if (!rq) {
		const char *why;
		budget_begin(srv, c);
		if (strlen(url) > URL_MAX)
			return http_error(c, MHD_HTTP_URI_TOO_LONG, "URL too long");
		if (!http_request_allowed(srv, c, method, &why))
			return http_error(c, MHD_HTTP_FORBIDDEN, "%s", why);
		if (strcmp(method, MHD_HTTP_METHOD_POST) == 0) {
			if (strcmp(url, "/upload") == 0 || strcmp(url, "/upload/") == 0) {
				rq = fp_xcalloc(1, sizeof *rq);
				rq->is_upload = 1;
				*con_cls = rq;
				return upload_request(srv, c, upload_data, upload_data_size,
						      &rq->up);
			}
			return http_error(c,
					  strncmp(url, "/live/", 6) == 0 || is_get(method)
						  ? MHD_HTTP_NOT_FOUND
						  : MHD_HTTP_METHOD_NOT_ALLOWED,
					  "POST is only for /upload");
		}
		if (!is_get(method))
			return http_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method %s not allowed",
					  strlen(method) < 16 ? method : "?");
		if (strcmp(url, "/upload") == 0)
			return http_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "use POST");
		return handle_get(srv, c, url);
	}
	return MHD_NO;
}

static void request_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			      enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	struct request *rq = *con_cls;
	if (rq) {
		upload_free(rq->up);
		free(rq);
		*con_cls = NULL;
	}
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	char msg[512];
	vsnprintf(msg, sizeof msg, fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	fp_warn("http: %s", msg);
}

/* ---- options ---------------------------------------------------------------- */

static uint64_t parse_size(const char *opt, const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		fp_die(FP_EXIT_USAGE, "--%s: not a size: %s", opt, s);
	uint64_t mul = 1;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		mul = 1ull << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mul = 1ull << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mul = 1ull << 30;
		end++;
		break;
	default:
		end = (char *)"x";
	}
	if (*end || v > UINT64_MAX / mul)
		fp_die(FP_EXIT_USAGE, "--%s: not a size: %s", opt, s);
	return v * mul;
}

/* "ADDR:PORT", "PORT", "[v6]:PORT" -> sockaddr. Dies 100 on a bad one. */
static void parse_listen(const char *arg, struct sockaddr_storage *ss, socklen_t *sl, int *ipv6)
{
	char host[256] = DEFAULT_ADDR;
	const char *port = arg;
	if (arg[0] == '[') {
		const char *e = strchr(arg, ']');
		if (!e || e[1] != ':' || (size_t)(e - arg - 1) >= sizeof host)
			fp_die(FP_EXIT_USAGE, "--listen: expected [IPV6]:PORT, got %s", arg);
		memcpy(host, arg + 1, (size_t)(e - arg - 1));
		host[e - arg - 1] = '\0';
		port = e + 2;
	} else if (strrchr(arg, ':')) {
		const char *colon = strrchr(arg, ':');
		if ((size_t)(colon - arg) >= sizeof host || colon == arg)
			fp_die(FP_EXIT_USAGE, "--listen: expected ADDR:PORT, got %s", arg);
		memcpy(host, arg, (size_t)(colon - arg));
		host[colon - arg] = '\0';
		port = colon + 1;
	}
	char *end;
	errno = 0;
	long p = strtol(port, &end, 10);
	if (errno || end == port || *end || p < 0 || p > 65535)
		fp_die(FP_EXIT_USAGE, "--listen: bad port in %s", arg);
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE },
			*res;
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0)
		fp_die(FP_EXIT_USAGE, "--listen: cannot resolve %s: %s", host, gai_strerror(rc));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*sl = res->ai_addrlen;
	*ipv6 = res->ai_family == AF_INET6;
	freeaddrinfo(res);
}

static int addr_is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
		return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
		return IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
	}
	return 0;
}

static void addr_text(const struct sockaddr_storage *ss, char *buf, size_t n)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
		inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
		port = ntohs(a->sin_port);
		snprintf(buf, n, "%s:%u", ip, port);
	} else {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
		port = ntohs(a->sin6_port);
		snprintf(buf, n, "[%s]:%u", ip, port);
	}
}

/* The listening socket (the gate accepts on it, not libmicrohttpd). */
static int listen_on(const struct sockaddr_storage *ss, socklen_t sl)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (ss->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	if (bind(fd, (const struct sockaddr *)ss, sl) < 0 || listen(fd, LISTEN_BACKLOG) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* bin_dir: the directory of /proc/self/exe, where the stages are */
static char *self_dir(const char *argv0)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n <= 0) {
		if (!realpath(argv0, buf))
			fp_die_sys(FP_EXIT_SYS, "cannot find my own directory");
		n = (ssize_t)strlen(buf);
	}
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	return fp_xstrdup(buf);
}

/* ---- live input on the main thread ------------------------------------------- */

static void live_pump_line(struct fp_pump *p, char *line, size_t len)
{
	live_line(p->ctx, line, len);
}

static void live_pump_idle(struct fp_pump *p)
{
	live_idle(p->ctx);
}

static void live_pump_eof(struct fp_pump *p)
{
	live_eof(p->ctx);
}

static void live_pump_too_long(struct fp_pump *p, uint64_t lineno)
{
	fp_warn("stdin:%llu: line longer than %u bytes skipped", (unsigned long long)lineno,
		FP_LINE_MAX);
}

static const struct fp_pump_ops live_ops = {
	.line = live_pump_line,
	.eof = live_pump_eof,
	.idle = live_pump_idle,
	.too_long = live_pump_too_long,
};

static void quit_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	(void)w;
	(void)revents;
	quitting = 1;
	ev_break(loop, EVBREAK_ALL);
}

/* SIGALRM after STOP_GRACE_S of MHD_stop_daemon: exit now, successfully. */
static void stop_grace_expired(int sig)
{
	static const char msg[] =
		"fp-serve: stop: connections still open after the grace period, exiting\n";
	(void)sig;
	if (write(2, msg, sizeof msg - 1) < 0) {
		/* nothing more to do: we are leaving */
	}
	index_cleanup_now();
	_exit(FP_EXIT_OK);
}

/* the size options, each into its field of the server */
static void opt_size(void *ctx, const char *opt, const char *arg)
{
	struct server *srv = ctx;
	uint64_t v = parse_size(opt, arg);

	if (strcmp(opt, "max-upload") == 0)
		srv->max_upload = v;
	else if (strcmp(opt, "max-inflate") == 0)
		srv->limits.inflate = v;
	else if (strcmp(opt, "max-output") == 0)
		srv->limits.output = v;
	else if (strcmp(opt, "upload-quota") == 0)
		srv->upload_quota = v;
	else if (strcmp(opt, "cache-size") == 0)
		srv->cache_max = v;
}

/* environ + FP_INFLATE_MAX=N for the stages (fp_io.h) */
static char **child_env_of(uint64_t inflate)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = fp_xcalloc(n + 2, sizeof *env);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "FP_INFLATE_MAX=", 15) != 0)
			env[k++] = environ[i];
	if (inflate) {
		char buf[48];
		snprintf(buf, sizeof buf, "FP_INFLATE_MAX=%llu", (unsigned long long)inflate);
		env[k++] = fp_xstrdup(buf);
	}
	env[k] = NULL;
	return env;
}

/* DIR, opened as the serving user (after privilege_drop) */
static void open_dir(struct server *srv)
{
	srv->dir_real = realpath(srv->dir, NULL);
	if (!srv->dir_real)
		fp_die_sys(FP_EXIT_SYS, "profile directory %s", srv->dir);
	srv->dir_fd = open(srv->dir_real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (srv->dir_fd < 0)
		fp_die_sys(FP_EXIT_SYS, "cannot open profile directory %s", srv->dir);
}

/* --live NAME: its page is what the user wants to open (printed with the
 * address). */
static const char *live_page_name;

/* "http://AT/#/profile?file=NAME" with NAME percent-encoded, on f. */
static void print_live_url(FILE *f, const char *at, const char *name)
{
	fprintf(f, "fp-serve: the live capture's page: http://%s/#/profile?file=", at);
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z') || strchr("-._~", *p))
			fputc(*p, f);
		else
			fprintf(f, "%%%02X", *p);
	fputc('\n', f);
}

/* fp-serve's command line into srv, and the address to listen on (ss, sl, ipv6). */
static void parse_command_line(int argc, char **argv, struct server *srv,
			       struct sockaddr_storage *ss, socklen_t *sl, int *ipv6,
			       const char **user, unsigned *listen_fd)
{
	const char *dir = NULL, *listen_arg = NULL, *live_name = NULL, *recording = NULL;
	uint64_t max_cpu = DEFAULT_MAX_CPU_S, max_time = DEFAULT_MAX_TIME_S;
	const struct fp_opt options[] = {
		{ "dir", FP_OPT_STR, &dir, .short_name = 'd' },
		{ "listen", FP_OPT_STR, &listen_arg, .short_name = 'l' },
		{ "listen-fd", FP_OPT_UINT, listen_fd, 3, 1024 },
		{ "max-upload", FP_OPT_FN, .fn = opt_size, .short_name = 'm' },
		{ "user", FP_OPT_STR, user, .short_name = 'u' },
		{ "cache-dir", FP_OPT_STR, &srv->cache_dir },
		{ "cache-size", FP_OPT_FN, .fn = opt_size },
		{ "max-cpu", FP_OPT_U64, &max_cpu, 0, SECONDS_MAX },
		{ "max-time", FP_OPT_U64, &max_time, 0, SECONDS_MAX },
		{ "max-inflate", FP_OPT_FN, .fn = opt_size },
		{ "max-output", FP_OPT_FN, .fn = opt_size },
		{ "upload-quota", FP_OPT_FN, .fn = opt_size },
		{ "upload-evict", FP_OPT_FLAG, &srv->upload_evict },
		{ "upload-host-symbols", FP_OPT_FLAG, &srv->upload_host_symbols },
		{ "live", FP_OPT_STR, &live_name },
		{ "recording", FP_OPT_STR, &recording },
		{ NULL },
	};
	int first = fp_opts_parse(argc, argv, options, USAGE, argc, srv);
	char defaddr[64];

	if (first < argc)
		fp_die(FP_EXIT_USAGE, "unexpected argument: %s\n%s", argv[first], USAGE);
	if (recording && !live_name)
		fp_die(FP_EXIT_USAGE, "--recording needs --live NAME");
	if (live_name) {
		const char *why;
		if (!query_value_ok(live_name, strlen(live_name), UPLOAD_NAME_MAX, &why) ||
		    !live_name[0] || strchr(live_name, '/'))
			fp_die(FP_EXIT_USAGE,
			       "--live: bad name '%s' (no '/', no control characters)", live_name);
	}
	snprintf(defaddr, sizeof defaddr, "%s:%d", DEFAULT_ADDR, SERVE_DEFAULT_PORT);
	if (*listen_fd) { /* a socket the caller bound and listens on */
		*sl = sizeof *ss;
		if (listen_arg || getsockname((int)*listen_fd, (struct sockaddr *)ss, sl) < 0)
			fp_die(FP_EXIT_USAGE, "--listen-fd %u: %s", *listen_fd,
			       listen_arg ? "give --listen or --listen-fd, not both"
					  : "not a listening socket");
		*ipv6 = ss->ss_family == AF_INET6;
	} else {
		parse_listen(listen_arg ? listen_arg : defaddr, ss, sl, ipv6);
	}
	srv->listen_loopback = addr_is_loopback(ss);
	srv->dir = dir ? dir : DEFAULT_DIR;
	srv->limits.cpu_ms = max_cpu * 1000;
	srv->limits.wall_ms = max_time * 1000;
	srv->bin_dir = self_dir(argv[0]); /* before a privilege drop: /proc/self/exe */
	if (live_name)
		srv->live = live_create(live_name, recording);
	live_page_name = live_name;
}

/* libmicrohttpd, fed by the gate (gate.h): never from a listen socket of
 * its own. */
static struct MHD_Daemon *start_http(struct server *srv, int ipv6)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			 MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC | MHD_USE_ERROR_LOG |
			 (ipv6 ? MHD_USE_IPv6 : 0);
	struct MHD_Daemon *d = MHD_start_daemon(
		flags, 0, NULL, NULL, access_handler, srv, MHD_OPTION_EXTERNAL_LOGGER, mhd_log,
		NULL, MHD_OPTION_CONNECTION_LIMIT, (unsigned)GATE_ACTIVE_MAX,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned)(srv->listen_loopback ? GATE_ACTIVE_MAX : PER_IP_LIMIT),
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY,
		MHD_OPTION_NOTIFY_COMPLETED, request_completed, NULL, MHD_OPTION_END);

	if (!d)
		fp_die(FP_EXIT_SYS, "cannot start the HTTP server");
	return d;
}

int main(int argc, char **argv)
{
	static struct server srv = {
		.max_upload = SERVE_DEFAULT_MAX_UPLOAD,
		.upload_quota = DEFAULT_UPLOAD_QUOTA,
		.cache_max = DEFAULT_CACHE_SIZE,
		.limits = { .inflate = DEFAULT_MAX_INFLATE, .output = DEFAULT_MAX_OUTPUT },
	};
	struct sockaddr_storage ss;
	socklen_t sl;
	int ipv6 = 0;
	const char *user = NULL;

	fp_set_prog(argv[0]);
	unsigned listen_fd = 0;

	parse_command_line(argc, argv, &srv, &ss, &sl, &ipv6, &user, &listen_fd);

	/* the server threads inherit a mask without SIGINT/SIGTERM: signals
	 * reach the main thread only */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	signal(SIGPIPE, SIG_IGN);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int lfd = listen_fd ? (int)listen_fd : listen_on(&ss, sl);
	if (lfd < 0) {
		char at[96];
		addr_text(&ss, at, sizeof at);
		fp_die_sys(FP_EXIT_SYS, "cannot listen on %s", at);
	}
	/* bound: from here on, the serving user's rights only (before any
	 * thread starts, so every thread has them) */
	privilege_drop(&srv, user);
	open_dir(&srv);
	index_init(&srv);
	srv.child_env = child_env_of(srv.limits.inflate);
	struct MHD_Daemon *d = start_http(&srv, ipv6);
	struct gate *gate = gate_start(lfd, d);
	/* the real port (when 0 was asked) */
	socklen_t l = sizeof ss;
	getsockname(lfd, (struct sockaddr *)&ss, &l);
	char at[96];
	addr_text(&ss, at, sizeof at);
	if (!srv.listen_loopback)
		fp_warn("listening on %s, not on loopback: anyone who can reach this host can "
			"read every capture in %s",
			at, srv.dir_real);
	printf("fp-serve: listening on http://%s/\n", at);
	if (live_page_name)
		print_live_url(stdout, at, live_page_name);
	fflush(stdout);
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	/* a private loop: the default one would reap the stage children that
	 * connection threads wait for (libev's SIGCHLD handling) */
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	if (!loop)
		fp_die(FP_EXIT_SYS, "cannot create event loop");
	ev_signal sig_int, sig_term;
	ev_signal_init(&sig_int, quit_cb, SIGINT);
	ev_signal_init(&sig_term, quit_cb, SIGTERM);
	ev_signal_start(loop, &sig_int);
	ev_signal_start(loop, &sig_term);
	if (srv.live) {
		struct fp_pump p;
		int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
		fp_pump_init(&p, loop, 0, devnull < 0 ? 1 : devnull, &live_ops, srv.live,
			     FP_PUMP_GZIP);
		p.in_name = "stdin";
		fp_pump_run(&p);
		fp_out_free(&p.out);
		/* the pump's SIGINT/SIGTERM handlers also feed our watchers */
	}
	if (!quitting)
		ev_run(loop, 0); /* until SIGINT/SIGTERM */

	api_shutdown(&srv);
	/* a thread stuck in a stage or a client that keeps an SSE stream
	 * open must not hang the stop, nor turn it into a failure: all
	 * answers that matter are sent, so the grace timer exits 0 */
	signal(SIGALRM, stop_grace_expired);
	alarm(STOP_GRACE_S);
	gate_stop(gate);
	MHD_stop_daemon(d);
	ev_loop_destroy(loop);
	index_cleanup(&srv);
	return FP_EXIT_OK;
}
