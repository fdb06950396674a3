/* gate.h: fp-serve's front door. A thread that accepts connections and
 * holds each one, without a thread and without reading it, until its whole
 * request head has arrived (peeked, so libmicrohttpd later reads it as
 * sent); only then is the connection handed to libmicrohttpd
 * (MHD_add_connection). So a client that trickles its headers costs one
 * socket and a few bytes, never one of the daemon's threads, and cannot
 * lock anyone out:
 *
 *  - the head must be complete within GATE_HEAD_DEADLINE_S of the accept,
 *    however slowly it trickles (408, then closed);
 *  - at most GATE_PENDING_MAX connections wait at once: a new one closes
 *    the oldest that has had its error answer, else the oldest waiting one
 *    (a normal client's head arrives in microseconds, a slow one is the
 *    oldest);
 *  - a request line over GATE_LINE_MAX bytes is a 414, a head over
 *    GATE_HEAD_MAX bytes a 431, both JSON like every other error (they
 *    never reach libmicrohttpd, whose own answers are HTML);
 *  - when libmicrohttpd already runs GATE_ACTIVE_MAX connections, 503.
 * Every response fp-serve sends closes its connection (Connection: close,
 * http.c), so every request of a client passes the gate.
 */
#ifndef FP_GATE_H
#define FP_GATE_H

#include <microhttpd.h>

#define GATE_HEAD_DEADLINE_S 10
#define GATE_PENDING_MAX 512
#define GATE_ACTIVE_MAX 256 /* libmicrohttpd's connection limit */
#define GATE_LINE_MAX \
	16384               /* "GET " + URL + " HTTP/1.1": room for every
				 * filter at QUERY_VALUE_MAX, URL-encoded */
#define GATE_HEAD_MAX 32768 /* libmicrohttpd gets a larger memory limit */
#define GATE_LINGER_S 2     /* reading what follows an error answer */

struct gate;

/* Starts the gate thread on a listening socket (non-blocking is set
 * here); connections go to d. Dies (FP_EXIT_SYS) if it cannot start. */
struct gate *gate_start(int listen_fd, struct MHD_Daemon *d);

/* Stops accepting, closes waiting connections, joins the thread. */
void gate_stop(struct gate *g);

#endif
