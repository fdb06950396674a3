/* fp_perfevent.c: the event line of perf script text (fp_perfparse.h:
 * fp_perf_event_line), read by fp_perfparse.c's parser and by fp-latency.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fp_perfparse.h"
#include "fp_perftext.h"

/* Finds the timestamp: the first token `digits.digits:` followed by a space
 * or the end of the line. Sets [*tb, *te) to the digits (te is the ':'). */
static int find_timestamp(const char *line, size_t n, size_t *tb, size_t *te)
{
	const char *p = line, *end = line + n, *c;

	while ((c = memchr(p, ':', (size_t)(end - p)))) {
		if (c + 1 == end || IS_SPACE(c[1])) {
			const char *f = c;
			while (f > line && IS_DIGIT(f[-1]))
				f--;
			if (f < c && f > line && f[-1] == '.') {
				const char *s = f - 1;
				while (s > line && IS_DIGIT(s[-1]))
					s--;
				if (s < f - 1 && (s == line || IS_SPACE(s[-1]))) {
					*tb = (size_t)(s - line);
					*te = (size_t)(c - line);
					return 0;
				}
			}
		}
		p = c + 1;
	}
	return -1;
}

/* The last whitespace-separated token of [begin, end) (end already trimmed). */
static const char *last_token(const char *begin, const char *end)
{
	const char *t = end;
	while (t > begin && !IS_SPACE(t[-1]))
		t--;
	return t;
}

/* `comm pid/tid [cpu]`, each part optional, parsed from the right, into
 * ev's comm (trimmed, maybe empty), pid, tid and cpu. */
static void split_task(const char *begin, const char *end, struct fp_perf_event *ev)
{
	int64_t pid = -1, tid = -1, cpu = -1;

	end = trim_spaces_back(begin, end);
	const char *t = last_token(begin, end);
	size_t tn = (size_t)(end - t);
	if (tn >= 3 && t[0] == '[' && end[-1] == ']' && parse_int(t + 1, tn - 2, &cpu) == 0)
		end = trim_spaces_back(begin, t);

	t = last_token(begin, end);
	tn = (size_t)(end - t);
	const char *slash = memchr(t, '/', tn);
	if (slash) {
		if (parse_int(t, (size_t)(slash - t), &pid) == 0 &&
		    parse_int(slash + 1, (size_t)(end - slash - 1), &tid) == 0)
			end = trim_spaces_back(begin, t);
		else
			pid = tid = -1;
	} else if (parse_int(t, tn, &tid) == 0) {
		/* One number: perf's default prints the tid, `-F pid` the pid.
		 * Either way it is the best pid we have (PROTOCOL.md example). */
		pid = tid;
		end = trim_spaces_back(begin, t);
	}
	begin = skip_spaces(begin, end);
	ev->comm.p = begin;
	ev->comm.n = (size_t)(end - begin);
	/* One rule for ids (fp_record.h): outside -1 .. FP_ID_MAX is unknown. */
	ev->pid = pid >= -1 && pid <= FP_ID_MAX ? pid : -1;
	ev->tid = tid >= -1 && tid <= FP_ID_MAX ? tid : -1;
	ev->cpu = cpu >= -1 && cpu <= FP_ID_MAX ? cpu : -1;
}

int fp_perf_event_line(const char *line, size_t n, struct fp_perf_event *ev)
{
	size_t tb, te;

	if (find_timestamp(line, n, &tb, &te) < 0 ||
	    fp_perf_parse_time(line + tb, te - tb, &ev->time_ns) < 0)
		return -1;
	const char *end = line + n;
	const char *p = skip_spaces(line + te + 1, end);
	split_task(line, line + tb, ev);
	ev->side_band = HAS_PREFIX(p, (size_t)(end - p), PERF_RECORD_PREFIX);
	ev->period = 1;
	ev->event.p = p;
	ev->event.n = 0;
	if (ev->side_band) {
		ev->rest.p = p;
		ev->rest.n = (size_t)(end - p);
		return 0;
	}
	/* [period] [event:] [payload | ip sym (dso)] */
	const char *t1e = next_token_end(p, end);
	if (all_digits(p, (size_t)(t1e - p))) {
		const char *t2 = skip_spaces(t1e, end), *t2e = next_token_end(t2, end);
		if (t2 == end || t2e[-1] == ':' || all_hex(t2, (size_t)(t2e - t2))) {
			int64_t period;
			if (parse_int(p, (size_t)(t1e - p), &period) == 0)
				ev->period = (uint64_t)period;
			p = t2;
			t1e = t2e;
		}
	}
	if (t1e - p > 1 && t1e[-1] == ':') {
		ev->event.p = p;
		ev->event.n = (size_t)(t1e - 1 - p);
		p = skip_spaces(t1e, end);
	}
	ev->rest.p = p;
	ev->rest.n = (size_t)(end - p);
	return 0;
}
