/* pd_remote.h: a recording's files from the host it was made on, over
 * ssh, for fp-perfdata --remote (flamepipe live --ssh), off the sample
 * path.
 *
 * The remote host runs only what every host has: `cat -- PATH` for an
 * ELF file at its recorded path, `cat /sys/kernel/notes` and `cat
 * /proc/kallsyms` for its kernel, each through `ssh -n -T -o BatchMode=yes
 * [--ssh-arg ...] -- HOST`. With a ControlPath of fp-ssh's connection
 * (--remote-control) every fetch rides on the capture's own ssh
 * connection (a multiplexed session: no new login, no new key exchange);
 * without one, or before that connection is up, ssh connects on its own.
 *
 * What is fetched is kept in a cache laid out as perf's build-id cache:
 * DIR/.build-id/xx/yyyy/elf for a file (after its build-id was checked
 * against the recorded one), DIR/[kernel.kallsyms]/ID/kallsyms for the
 * kernel's symbols (ID the remote kernel's build-id, from its
 * /sys/kernel/notes), with the /proc/modules they went with: used again
 * while the host's /proc/modules is the same (the same boot). A file
 * already in the cache is not fetched again.
 * A file without a build-id (none recorded, none in the file) is used for
 * this run only and removed at the end.
 *
 * Each file is fetched once, by a small pool of worker threads, never by
 * the thread that reads samples; each fetch has a time limit (the ssh
 * command is killed then). The kernel's symbols are asked at the start.
 */
#ifndef PD_REMOTE_H
#define PD_REMOTE_H

#include <stddef.h>

#include "pd_buildid.h"
#include "pd_debuginfod.h"

/* Default time limit of one fetch, seconds (--remote-timeout). */
#define PD_REMOTE_LIMIT_DEFAULT 30.0

struct pd_remote_opts {
	const char *host;            /* [USER@]HOST */
	const char *const *ssh_args; /* ssh's own options, one word each */
	size_t nssh_args;
	const char *control; /* ControlPath of a master connection, or NULL */
	const char *cache;   /* the cache directory, or NULL: the default */
	double limit;        /* seconds per fetch */
};

/* The default cache: $XDG_CACHE_HOME/flamepipe/buildid, else
 * ~/.cache/flamepipe/buildid. */
const char *pd_remote_default_cache(void);
/* Starts the workers and asks for the remote kernel's symbols. Returns 0,
 * or -1 with *why (the cache cannot be made). */
int pd_remote_start(const struct pd_remote_opts *o, const char **why);
/* 1 if started. */
int pd_remote_on(void);
/* The remote file recorded as name (build-id id of n bytes, n 0 if none
 * recorded): its local copy's path once fetched. wait: block until it is
 * answered or its limit passed. *path / *why stay valid until the end. */
enum pd_di_state pd_remote_get(const char *name, const unsigned char *id, size_t n, int wait,
			       const char **path, const char **why);
/* The kernel's symbols for d (its build-id the recorded one, if any):
 * waits for the remote kallsyms (asked at the start, within its limit;
 * --live at most 2 s, then d->pending: read again when they come);
 * PD_KSRC_CACHE with its path, or PD_KSRC_NONE with d->missing_why. */
enum pd_ksrc pd_remote_kallsyms(struct pd_dso *d, char *path, size_t cap);
/* Bumped by every answer (pd_machine_poll_debuginfod). */
unsigned pd_remote_answers(void);
/* Counts for the I record: files fetched (bytes), failed, found in the
 * cache without a fetch. */
struct pd_remote_stats {
	unsigned long fetched, failed, cached, bytes;
};
void pd_remote_stats(struct pd_remote_stats *st);
/* Kills the fetches under way, waits at most wait_s for the workers,
 * removes this run's files without a build-id. */
void pd_remote_stop(double wait_s);

#endif
