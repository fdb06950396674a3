/* fp_runnermsg.h: the datagrams a stage sends flamepipe on the socket the
 * runner passes as fd 3 and names in FLAMEPIPE_PROGRESS_FD (docs/flamepipe.md,
 * the progress line and the summary). One module writes and parses them:
 *
 *	samples=N bytes=M                     fp-read: samples and input bytes read so far
 *	folded samples=N stacks=M dir=DIR     fp-render: what it wrote to DIR/stacks.folded
 *
 * Sending never blocks and never raises SIGPIPE; a report lost to a full
 * socket is fine (the next one, or the file, carries the same).
 */
#ifndef FP_RUNNERMSG_H
#define FP_RUNNERMSG_H

#include <limits.h>
#include <stdint.h>

#define FP_RUNNERMSG_ENV "FLAMEPIPE_PROGRESS_FD"
/* The longest datagram, NUL aside: fp-render's names its directory. */
#define FP_RUNNERMSG_MAX (64 + PATH_MAX)

/* The socket from the environment, or 0: none (never 0-2). */
int fp_runnermsg_fd(void);

/* Each returns -1 when the fd is no socket or the runner is gone (stop
 * sending), else 0. */
int fp_runnermsg_send_read(int fd, uint64_t samples, uint64_t bytes);
int fp_runnermsg_send_folded(int fd, uint64_t samples, uint64_t stacks, const char *dir);

enum fp_runnermsg_kind { FP_RUNNERMSG_OTHER, FP_RUNNERMSG_READ, FP_RUNNERMSG_FOLDED };

/* A datagram, NUL-terminated. READ: samples (-1 if absent) and bytes
 * (-1 if absent); FOLDED: samples, stacks and dir (pointing into msg). */
struct fp_runnermsg {
	enum fp_runnermsg_kind kind;
	long long samples, bytes, stacks;
	const char *dir;
};
void fp_runnermsg_parse(const char *msg, struct fp_runnermsg *m);

#endif
