/* fp_container.c: readable container names of cgroup paths, and the
 * container filter (fp_container.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_container.h"
#include "fp_error.h"
#include "fp_regex.h"

#define CONTAINER_ID_MIN 32 /* hex digits of an id a runtime names (docker: 64) */
#define POD_UID_LEN 36      /* 8-4-4-4-12 */

/* What a rule's middle part (between its prefix and suffix) must be. */
enum part { HEX_ID, ANY_NAME };

/* The rules for the last path component, first match wins. The label is
 * put before the (shortened) id or name; a container id under a pod is
 * shown as pod-<uid>/<id> whatever its runtime (kubectl names it so). */
static const struct comp_rule {
	const char *prefix, *suffix;
	enum part part;
	const char *label;
} comp_rules[] = {
	{ "docker-", ".scope", HEX_ID, "docker-" },
	{ "cri-containerd-", ".scope", HEX_ID, "containerd-" },
	{ "crio-conmon-", ".scope", HEX_ID, "crio-conmon-" },
	{ "crio-", ".scope", HEX_ID, "crio-" },
	{ "libpod-conmon-", ".scope", HEX_ID, "podman-conmon-" },
	{ "libpod-", ".scope", HEX_ID, "podman-" },
	{ "lxc.payload.", "", ANY_NAME, "lxc-" },
	{ "", "", HEX_ID, "" },             /* a bare id: cgroupfs drivers; see parent_labels */
	{ "", ".service", ANY_NAME, NULL }, /* systemd units: the unit name itself */
	{ "", ".scope", ANY_NAME, NULL },
};

/* A bare id's label by its parent component (docker's cgroupfs driver). */
static const struct {
	const char *parent, *label;
} parent_labels[] = {
	{ "docker", "docker-" },
	{ "lxc", "lxc-" },
};

struct comp {
	const char *p;
	size_t n;
};

static int has_prefix(struct comp c, const char *s, size_t sn)
{
	return c.n >= sn && memcmp(c.p, s, sn) == 0;
}

static int has_suffix(struct comp c, const char *s, size_t sn)
{
	return c.n >= sn && memcmp(c.p + c.n - sn, s, sn) == 0;
}

static int is_hex(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return 0;
	return 1;
}

/* A pod UID as systemd (8_4_4_4_12) or cgroupfs (8-4-4-4-12) spells it. */
static int is_pod_uid(const char *p, size_t n)
{
	if (n != POD_UID_LEN)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? p[i] != '-' && p[i] != '_' : !is_hex(p + i, 1))
			return 0;
	}
	return 1;
}

/* The pod UID of a component: "pod<uid>" (cgroupfs) or
 * "kubepods[-<qos>]-pod<uid>.slice" (systemd). */
static int pod_of(struct comp c, struct comp *uid)
{
	static const char slice[] = ".slice", pod[] = "pod", kp[] = "kubepods";
	size_t sl = sizeof slice - 1;

	if (has_prefix(c, pod, sizeof pod - 1) && is_pod_uid(c.p + 3, c.n - 3)) {
		*uid = (struct comp){ c.p + 3, c.n - 3 };
		return 1;
	}
	if (has_prefix(c, kp, sizeof kp - 1) && has_suffix(c, slice, sl) &&
	    c.n >= sl + POD_UID_LEN + 4 &&
	    memcmp(c.p + c.n - sl - POD_UID_LEN - 4, "-pod", 4) == 0 &&
	    is_pod_uid(c.p + c.n - sl - POD_UID_LEN, POD_UID_LEN)) {
		*uid = (struct comp){ c.p + c.n - sl - POD_UID_LEN, POD_UID_LEN };
		return 1;
	}
	return 0;
}

struct out {
	char *p;
	size_t n, cap;
};

static void put(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && o->n + 1 < o->cap; i++)
		o->p[o->n++] = s[i];
	if (o->cap)
		o->p[o->n] = '\0';
}

static void put_str(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_uid(struct out *o, struct comp uid)
{
	for (size_t i = 0; i < uid.n; i++)
		put(o, uid.p[i] == '_' ? "-" : uid.p + i, 1);
}

/* Whether the last component matches rule r: its middle part in *mid. */
static int rule_matches(const struct comp_rule *r, struct comp c, struct comp *mid)
{
	size_t pl = strlen(r->prefix), sl = strlen(r->suffix);

	if (c.n <= pl + sl || !has_prefix(c, r->prefix, pl) || !has_suffix(c, r->suffix, sl))
		return 0;
	*mid = (struct comp){ c.p + pl, c.n - pl - sl };
	if (r->part == HEX_ID)
		return mid->n >= CONTAINER_ID_MIN && is_hex(mid->p, mid->n);
	return 1;
}

size_t fp_container_name(const char *path, size_t n, char *out, size_t cap)
{
	struct out o = { out, 0, cap };
	struct comp last = { path, 0 }, parent = { path, 0 }, uid = { NULL, 0 };
	int have_pod = 0;

	if (cap)
		out[0] = '\0';
	if (n == 0)
		return 0;
	/* the components: the last, its parent, and a pod anywhere */
	for (size_t i = 0; i < n;) {
		while (i < n && path[i] == '/')
			i++;
		size_t s = i;
		while (i < n && path[i] != '/')
			i++;
		if (i == s)
			break;
		struct comp c = { path + s, i - s };
		if (pod_of(c, &uid))
			have_pod = 1;
		parent = last;
		last = c;
	}
	if (last.n == 0) { /* "/": the root cgroup, the host's */
		put_str(&o, "/");
		return o.n;
	}
	struct comp pod_uid;
	if (pod_of(last, &pod_uid)) { /* the pod itself (its pause process, ...) */
		put_str(&o, "pod-");
		put_uid(&o, pod_uid);
		return o.n;
	}
	for (size_t k = 0; k < sizeof comp_rules / sizeof *comp_rules; k++) {
		const struct comp_rule *r = &comp_rules[k];
		struct comp mid;

		if (!rule_matches(r, last, &mid))
			continue;
		if (r->part == HEX_ID) {
			size_t shown = mid.n < FP_CONTAINER_ID_SHOWN ? mid.n
								     : FP_CONTAINER_ID_SHOWN;
			const char *label = r->label;
			if (have_pod) {
				put_str(&o, "pod-");
				put_uid(&o, uid);
				put_str(&o, "/");
				label = "";
			} else if (!*label) {
				for (size_t j = 0; j < sizeof parent_labels / sizeof *parent_labels;
				     j++)
					if (parent.n == strlen(parent_labels[j].parent) &&
					    memcmp(parent.p, parent_labels[j].parent, parent.n) ==
						    0)
						label = parent_labels[j].label;
			}
			put_str(&o, label);
			put(&o, mid.p, shown);
			return o.n;
		}
		if (r->label) {
			put_str(&o, r->label);
			put(&o, mid.p, mid.n);
		} else {
			put(&o, last.p, last.n);
		}
		return o.n;
	}
	while (n > 1 && *path == '/') /* the path below the root */
		path++, n--;
	put(&o, path, n);
	return o.n;
}

/* ---- the filter ------------------------------------------------------------ */

int fp_container_filter_init(struct fp_container_filter *f, const char *src, size_t n, char *why,
			     size_t whysize)
{
	static const char open[] = "^(?:", close[] = ")$";
	struct fp_regex *re;

	memset(f, 0, sizeof *f);
	/* compiled alone first: the compiler's offsets are the user's */
	re = fp_regex_compile(src, n, why, whysize);
	if (!re)
		return -1;
	fp_regex_free(re);
	char *wrapped = fp_xmalloc(n + sizeof open + sizeof close);
	memcpy(wrapped, open, sizeof open - 1);
	memcpy(wrapped + sizeof open - 1, src, n);
	memcpy(wrapped + sizeof open - 1 + n, close, sizeof close);
	f->re = fp_regex_compile(wrapped, n + sizeof open + sizeof close - 2, why, whysize);
	free(wrapped);
	if (!f->re)
		return -1;
	f->src = fp_xstrndup(src, n);
	f->n = n;
	return 0;
}

/* 1 if the regex matches s whole; a match past the bounds is no match
 * and remembered. */
static int whole_match(struct fp_container_filter *f, const char *s, size_t n)
{
	int m = fp_regex_match(f->re, s, n);

	if (m == FP_REGEX_LIMIT)
		f->over_limit = 1;
	return m == FP_REGEX_MATCH;
}

int fp_container_filter_passes(struct fp_container_filter *f, const char *path, size_t n)
{
	size_t need = n + FP_CONTAINER_NAME_EXTRA + 1;

	if (need > f->name_cap) {
		f->name_cap = need * 2;
		f->name = fp_xrealloc(f->name, f->name_cap);
	}
	size_t nn = fp_container_name(path, n, f->name, f->name_cap);
	if ((nn == f->n && memcmp(f->name, f->src, nn) == 0) ||
	    (n == f->n && memcmp(path, f->src, n) == 0))
		return 1;
	return whole_match(f, f->name, nn) || (n && whole_match(f, path, n));
}

void fp_container_filter_free(struct fp_container_filter *f)
{
	fp_regex_free(f->re);
	free(f->src);
	free(f->name);
	memset(f, 0, sizeof *f);
}
