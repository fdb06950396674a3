/* fp_container.h: the readable name of a cgroup path, and the container
 * filter (fp-range --container, fp-serve's container=, the runner's
 * --container).
 *
 * A sample's cgroup is its task's cgroup v2 path as perf recorded it
 * (PERF_RECORD_CGROUP, the S record's 11th field). People know the
 * container by a shorter name; one table of rules (fp_container.c) turns
 * the last path component, with the pod found in the path, into it:
 *
 *	/system.slice/docker-<64 hex>.scope               docker-<12 hex>
 *	/docker/<64 hex>                                  docker-<12 hex>
 *	/system.slice/cri-containerd-<64 hex>.scope       containerd-<12 hex>
 *	/machine.slice/libpod-<64 hex>.scope              podman-<12 hex>
 *	/system.slice/crio-<64 hex>.scope                 crio-<12 hex>
 *	/kubepods.slice/kubepods-burstable.slice/
 *	  kubepods-burstable-pod<uid>.slice/cri-containerd-<hex>.scope
 *	                                                  pod-<uid>/<12 hex>
 *	/kubepods/besteffort/pod<uid>/<64 hex>            pod-<uid>/<12 hex>
 *	/kubepods.slice/.../kubepods-pod<uid>.slice       pod-<uid>
 *	/lxc.payload.web                                  lxc-web
 *	/system.slice/nginx.service                       nginx.service
 *	/user.slice/user-1000.slice/session-3.scope       session-3.scope
 *	/                                                 /
 *	/a/b (anything else)                              a/b
 *
 * (the pod UID as Kubernetes prints it: systemd's '_' back to '-').
 */
#ifndef FP_CONTAINER_H
#define FP_CONTAINER_H

#include <stddef.h>

#include "fp_record.h"

/* A name is at most this much longer than its path (the "pod-" and '/'
 * a kubepods name adds; every other rule shortens). */
#define FP_CONTAINER_NAME_EXTRA 8
/* Container ids are shown by their first this many hex digits (docker ps). */
#define FP_CONTAINER_ID_SHOWN 12

/* The name of cgroup path[0..n) in out (NUL-terminated, at most cap - 1
 * bytes: cap = n + FP_CONTAINER_NAME_EXTRA + 1 always holds it); its
 * length. An empty path (no cgroup recorded) has the empty name. */
size_t fp_container_name(const char *path, size_t n, char *out, size_t cap);

/* The container filter: NAME|REGEX. A sample passes when its container
 * name or its cgroup path is the argument exactly, or the argument as a
 * regex (fifo/fp_regex.h, PCRE2, bounded) matches the whole name or the
 * whole path. A sample without a cgroup passes only a regex that matches
 * the empty string. */
struct fp_regex;
struct fp_container_filter {
	char *src; /* the argument as given */
	size_t n;
	struct fp_regex *re; /* ^(?:src)$ */
	char *name;          /* scratch for fp_container_name */
	size_t name_cap;
	int over_limit; /* a match hit the regex bounds */
};

/* 0, or -1 with the regex compiler's message in why. */
int fp_container_filter_init(struct fp_container_filter *f, const char *src, size_t n, char *why,
			     size_t whysize);
/* 1 if the sample of cgroup path[0..n) passes. */
int fp_container_filter_passes(struct fp_container_filter *f, const char *path, size_t n);
void fp_container_filter_free(struct fp_container_filter *f);

#endif
