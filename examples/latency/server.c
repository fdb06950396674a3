/* server: a tiny stand-in for a service that takes a while to come up, and
 * its launcher.
 *
 *	server RUNS [INIT_MS]       start RUNS servers one after the other
 *	server --serve [INIT_MS]    be one server (what each child execs)
 *
 * The launcher forks a child per run; the child execs this program again
 * with --serve (so there is a fork -> execve step to measure), which
 * "initialises" for INIT_MS (default 50, nanosleep), then socket(), bind()
 * to 127.0.0.1 on a kernel-chosen port, listen(), and exits. The launcher
 * waits for each child before starting the next. examples/latency/run.sh
 * measures process start -> execve and process start -> listen(2).
 * Exit codes: 0 ok, 1 a server failed, 100 usage, 111 a system call failed.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_INIT_MS "50"
#define NS_PER_MS 1000000L
#define MS_PER_SEC 1000
#define BACKLOG 16
#define SELF "/proc/self/exe"

static int serve(long ms)
{
	struct timespec init = { ms / MS_PER_SEC, (ms % MS_PER_SEC) * NS_PER_MS };
	struct sockaddr_in addr = { .sin_family = AF_INET };
	int fd;

	nanosleep(&init, NULL);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0 ||
	    listen(fd, BACKLOG) < 0) {
		perror("server: listen");
		return 111;
	}
	close(fd);
	return 0;
}

static int launch(long runs, const char *init_ms)
{
	int failed = 0;

	for (long i = 0; i < runs; i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			perror("server: fork");
			return 111;
		}
		if (pid == 0) {
			execl(SELF, "server", "--serve", init_ms, (char *)NULL);
			perror("server: exec " SELF);
			_exit(111);
		}
		if (waitpid(pid, &status, 0) < 0) {
			perror("server: waitpid");
			return 111;
		}
		failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	return failed;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--serve"))
		return serve(strtol(argc > 2 ? argv[2] : DEFAULT_INIT_MS, NULL, 10));
	if (argc < 2 || atol(argv[1]) <= 0) {
		fprintf(stderr, "usage: server RUNS [INIT_MS] | server --serve [INIT_MS]\n");
		return 100;
	}
	return launch(atol(argv[1]), argc > 2 ? argv[2] : DEFAULT_INIT_MS);
}
