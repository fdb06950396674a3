/* pd_debuginfod.h: files by build-id from debuginfod servers, for
 * fp-perfdata, off the sample path.
 *
 * libdebuginfod (elfutils) asks the servers of DEBUGINFOD_URLS, as every
 * elfutils tool reads it (DEBUGINFOD_CACHE_PATH, _TIMEOUT, _MAXTIME,
 * _VERBOSE... too), and keeps what it gets in its cache
 * ($DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client or
 * ~/.cache/debuginfod_client): a file found once is read from there
 * afterwards without a network round trip.
 *
 * Each (build-id, kind) is asked once, by a fetch pool's worker threads
 * (pd_fetchpool.h; each with its own debuginfod_client, which is not
 * thread-safe), never by the thread that reads samples. Every look-up has a time limit from
 * the moment it is asked: a worker cancels it then (its progress callback,
 * called about once a second by libdebuginfod), and a caller waiting for
 * it (pd_debuginfod_get with wait) never waits past it. A look-up that
 * timed out without the server sending a byte marks the servers
 * unresponsive: the look-ups after it fail at once instead of each
 * costing the limit.
 */
#ifndef PD_DEBUGINFOD_H
#define PD_DEBUGINFOD_H

#include <stddef.h>

#include "pd_fetchpool.h" /* enum pd_di_state: PD_DI_OFF if no server */

enum pd_di_kind { PD_DI_EXECUTABLE, PD_DI_DEBUGINFO };

/* Default time limit of one look-up, seconds (--debuginfod-timeout). */
#define PD_DI_LIMIT_DEFAULT 10.0

/* Starts the service if DEBUGINFOD_URLS names a server: limit_s per
 * look-up. Returns 1 if it runs. */
int pd_debuginfod_start(double limit_s);
/* 1 if it runs. */
int pd_debuginfod_on(void);
/* The state of (id, kind), asking for it first if it was never asked.
 * wait: block until it is answered or its time limit passes (then
 * FAILED). *path / *why stay valid until the process ends. */
enum pd_di_state pd_debuginfod_get(const unsigned char *id, size_t n, enum pd_di_kind kind,
				   int wait, const char **path, const char **why);
/* The state of (id, kind) without asking (PD_DI_OFF if never asked). */
enum pd_di_state pd_debuginfod_peek(const unsigned char *id, size_t n, enum pd_di_kind kind,
				    const char **path);
/* Bumped by every answer: callers with pending look-ups need to look
 * again only when it changed. */
unsigned pd_debuginfod_answers(void);
/* Counts for the I record: look-ups asked, found, failed (timeouts
 * included), timed out (pd_fetchpool.h). */
void pd_debuginfod_stats(struct pd_fetch_stats *st);
/* Cancels what is under way and waits at most wait_s seconds for the
 * workers to leave their look-ups (libdebuginfod then removes its partial
 * files from its cache; it notices a cancel about once a second) and end;
 * joins them if they all did, else leaves them to the process's exit. */
void pd_debuginfod_stop(double wait_s);

#endif
