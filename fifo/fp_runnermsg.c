/* fp_runnermsg.c: the datagrams stages send flamepipe (fp_runnermsg.h). */
#include "fp_runnermsg.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define READ_PREFIX "samples="
#define FOLDED_PREFIX "folded "

int fp_runnermsg_fd(void)
{
	const char *env = getenv(FP_RUNNERMSG_ENV);
	int fd = env ? atoi(env) : 0;

	return fd > STDERR_FILENO ? fd : 0;
}

static int send_msg(int fd, const char *msg, int n)
{
	if (n <= 0)
		return 0;
	if (send(fd, msg, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 && errno != EAGAIN &&
	    errno != EWOULDBLOCK && errno != ENOBUFS)
		return -1;
	return 0;
}

int fp_runnermsg_send_read(int fd, uint64_t samples, uint64_t bytes)
{
	char msg[64];

	return send_msg(fd, msg,
			snprintf(msg, sizeof msg, READ_PREFIX "%llu bytes=%llu",
				 (unsigned long long)samples, (unsigned long long)bytes));
}

int fp_runnermsg_send_folded(int fd, uint64_t samples, uint64_t stacks, const char *dir)
{
	char msg[FP_RUNNERMSG_MAX];
	int n = snprintf(msg, sizeof msg, FOLDED_PREFIX "samples=%llu stacks=%llu dir=%s",
			 (unsigned long long)samples, (unsigned long long)stacks, dir);

	return (size_t)n < sizeof msg ? send_msg(fd, msg, n) : 0; /* too long: the file tells */
}

void fp_runnermsg_parse(const char *msg, struct fp_runnermsg *m)
{
	unsigned long long samples, stacks;
	const char *b;
	int at = 0;

	*m = (struct fp_runnermsg){ FP_RUNNERMSG_OTHER, -1, -1, -1, NULL };
	if (!strncmp(msg, FOLDED_PREFIX, sizeof FOLDED_PREFIX - 1)) {
		if (sscanf(msg, FOLDED_PREFIX "samples=%llu stacks=%llu dir=%n", &samples, &stacks,
			   &at) == 2 &&
		    at) {
			*m = (struct fp_runnermsg){ FP_RUNNERMSG_FOLDED, (long long)samples, -1,
						    (long long)stacks, msg + at };
		}
		return;
	}
	if (!strncmp(msg, READ_PREFIX, sizeof READ_PREFIX - 1)) {
		m->kind = FP_RUNNERMSG_READ;
		m->samples = strtoll(msg + sizeof READ_PREFIX - 1, NULL, 10);
	}
	if ((b = strstr(msg, " bytes="))) {
		m->kind = FP_RUNNERMSG_READ;
		m->bytes = strtoll(b + 7, NULL, 10);
	}
}
