/* fp_rangectl.h: the fp-range control language (one command per line).
 *
 * fp-range reads these lines from its control FIFO, and its command-line
 * options are turned into the same lines, so both go through one parser:
 *
 *	range FROM TO       FROM, TO: decimal seconds on the heatmap axis, or -
 *	pid LIST|-          LIST: comma-separated decimal integers (-1 allowed)
 *	tid LIST|-
 *	cpu LIST|-
 *	comm NAMES|-        NAMES: comma-separated exact comm names
 *	event NAMES|-       NAMES: comma-separated event names
 *	include REGEX|-     regex (fp_regex.h: PCRE2, bounded) on "comm;frame;...;leaf"
 *	exclude REGEX|-
 *	container NAME|REGEX|-  the sample's container (fp_container.h): its
 *	                    readable name or cgroup path is NAME, or REGEX
 *	                    matches the whole name or path
 *	clear               every filter and the range off
 *	replay              re-send the selection without changing it
 *
 * Words are separated by one or more spaces; the argument of comm, event,
 * include, exclude and container is the rest of the line (it may contain spaces).
 * Leading and trailing blanks and a final CR are ignored. A blank line or a
 * line starting with '#' is FP_RC_NONE (not an error).
 *
 * Calling sequence:
 *	struct fp_rangectl_cmd c;
 *	const char *why;
 *	if (fp_rangectl_parse(line, len, &c, &why) < 0) warn(why);
 *	else switch (c.kind) { ... }
 *	// lists: iterate the items of c.arg
 *	struct fp_str it; const char *cur = c.arg.p, *end = c.arg.p + c.arg.n;
 *	while (fp_rangectl_next_item(&cur, end, &it)) ...
 *
 * Parsing never allocates; c.arg points into the caller's line (the
 * filter sets below copy what they keep).
 */
#ifndef FP_RANGECTL_H
#define FP_RANGECTL_H

#include <stddef.h>
#include <stdint.h>

#include "fp_record.h"

#define FP_RANGECTL_LINE_MAX (64u << 10) /* longest control line */

enum fp_rangectl_kind {
	FP_RC_NONE, /* blank line or comment: nothing to do */
	FP_RC_RANGE,
	FP_RC_PID,
	FP_RC_TID,
	FP_RC_CPU,
	FP_RC_COMM,
	FP_RC_EVENT,
	FP_RC_INCLUDE,
	FP_RC_EXCLUDE,
	FP_RC_CLEAR,
	FP_RC_CONTAINER,
	FP_RC_REPLAY,
};

struct fp_rangectl_cmd {
	enum fp_rangectl_kind kind;
	int off; /* the argument was "-": this filter is off */
	/* FP_RC_RANGE: an absent end is open */
	int has_from, has_to;
	uint64_t from_ns, to_ns;
	/* pid/tid/cpu/comm/event: the list; include/exclude: the regex;
	 * container: the name or regex */
	struct fp_str arg;
};

/* Parses one control line (no LF). Returns 0 and fills *cmd, or -1 and
 * sets *why to a static message saying what was expected. Lists are fully
 * validated (every pid/tid/cpu item is a decimal integer that fits in 32
 * bits; no empty item). A regex is not compiled here. */
int fp_rangectl_parse(const char *line, size_t len, struct fp_rangectl_cmd *cmd, const char **why);

/* Iterates the comma-separated items of a list: stores the next item in
 * *item and advances *cur; returns 0 when there is none left. */
int fp_rangectl_next_item(const char **cur, const char *end, struct fp_str *item);

/* Whether an event filter name matches a sample's event name: equal, or
 * the name followed by perf's modifiers (filter "cpu-clock" matches
 * "cpu-clock:ppp" and "cycles" matches "cycles:u"). fp-range and fp-bucket
 * match --event with it. */
int fp_event_name_matches(const char *filter, size_t fn, const char *name, size_t n);

/* Whether name matches one item of a comma-separated list of event names
 * (fp_event_name_matches). */
int fp_event_in_list(const char *list, size_t listlen, const char *name, size_t n);

/* The sets a pid/tid/cpu or comm/event command selects (fp-range's
 * filters), built from a parsed command; "off" (LIST -) empties the set
 * and turns it off. A name set keeps its own copy of the names. */
struct fp_id_set {
	int on;
	int32_t *v; /* sorted */
	size_t n;
};

struct fp_name_set {
	int on;
	char *text; /* the list as given */
	struct fp_str *v;
	size_t n;
};

void fp_id_set_from(struct fp_id_set *set, const struct fp_rangectl_cmd *c);
void fp_name_set_from(struct fp_name_set *set, const struct fp_rangectl_cmd *c);

/* Whether id is in the set (binary search: samples are tested one by one). */
static inline int fp_id_set_has(const struct fp_id_set *set, int64_t id)
{
	size_t lo = 0, hi = set->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (set->v[mid] == id)
			return 1;
		if (set->v[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The command that selects the set again ("pid 1,2,3") into out (cleared
 * first): what fp-range announces downstream in a C filter record. */
void fp_id_set_command(const struct fp_id_set *set, const char *word, struct fp_wmem *out);

/* Whether p[0..n) is one of the names exactly. */
int fp_name_set_has(const struct fp_name_set *set, const char *p, size_t n);
/* The same for an event name: a name without perf's modifiers matches
 * every variant ("cpu-clock" matches "cpu-clock:ppp"). */
int fp_name_set_has_event(const struct fp_name_set *set, const char *p, size_t n);

/* The command word of a kind ("range", "pid", ...). */
const char *fp_rangectl_name(enum fp_rangectl_kind kind);

/* Formats ns as decimal seconds without trailing zeros ("1", "1.5",
 * "0.000000001") into buf (at least FP_RANGECTL_SECONDS_MAX bytes);
 * returns buf. */
#define FP_RANGECTL_SECONDS_MAX 32
char *fp_rangectl_format_seconds(uint64_t ns, char *buf);

#endif
