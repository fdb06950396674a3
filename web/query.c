/* query.c: checks of client-supplied query values, before they reach a
 * stage's argv or fp-range's control FIFO.
 *
 * Every value is checked as bytes with an explicit length (libmicrohttpd
 * decodes %00 into a real NUL). Filters are validated by the same parser
 * fp-range uses (fp_rangectl_parse), so whatever passes here is accepted
 * by fp-range, and nothing can smuggle a second control line (CR/LF are
 * control characters, refused).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_container.h"
#include "fp_rangectl.h"
#include "fp_record.h"
#include "fp_regex.h"
#include "serve.h"

int query_value_ok(const char *s, size_t n, size_t max, const char **why)
{
	if (n > max) {
		*why = "parameter value too long";
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f) {
			*why = c == 0 ? "parameter contains NUL"
				      : "parameter contains a control character";
			return 0;
		}
	}
	return 1;
}

int query_rows(const char *s, size_t n, unsigned *rows, const char **why)
{
	uint64_t v;
	if (n == 0 || n > 10 || fp_parse_u64(s, n, &v) < 0) {
		*why = "rows must be an integer from 1 to 1000";
		return 0;
	}
	if (v < 1 || v > FP_ROWS_MAX) {
		*why = "rows must be an integer from 1 to 1000";
		return 0;
	}
	*rows = (unsigned)v;
	return 1;
}

int query_seconds(const char *s, size_t n, uint64_t *ns, const char **why)
{
	int dots = 0;
	*why = "times must be decimal seconds like 12 or 12.345";
	if (n == 0 || n > QUERY_SECONDS_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (++dots > 1 || i == 0 || i + 1 == n)
				return 0;
		} else if (s[i] < '0' || s[i] > '9') {
			return 0;
		}
	}
	if (fp_parse_seconds_ns(s, n, ns) < 0)
		return 0;
	return 1;
}

int query_filter_ok(const char *word, const char *s, size_t n, char *why, size_t whysize)
{
	const char *msg;
	if (!query_value_ok(s, n, QUERY_VALUE_MAX, &msg))
		goto refused;
	char line[QUERY_VALUE_MAX + 32];
	int m = snprintf(line, sizeof line, "%s %.*s", word, (int)n, s);
	if (m < 0 || (size_t)m >= sizeof line) {
		msg = "parameter value too long";
		goto refused;
	}
	struct fp_rangectl_cmd cmd;
	if (fp_rangectl_parse(line, (size_t)m, &cmd, &msg) < 0)
		goto refused;
	if (cmd.kind == FP_RC_NONE || strcmp(fp_rangectl_name(cmd.kind), word) != 0) {
		msg = "empty filter value";
		goto refused;
	}
	if (cmd.kind == FP_RC_CONTAINER && !cmd.off) {
		/* fp-range's container filter, compiled with its bounds */
		char rmsg[FP_REGEX_WHY_MAX];
		struct fp_container_filter f;
		if (fp_container_filter_init(&f, cmd.arg.p, cmd.arg.n, rmsg, sizeof rmsg) < 0) {
			snprintf(why, whysize, "bad regex: %s", rmsg);
			return 0;
		}
		fp_container_filter_free(&f);
	}
	if ((cmd.kind == FP_RC_INCLUDE || cmd.kind == FP_RC_EXCLUDE) && !cmd.off) {
		/* compiled here with fp-range's own bounds, so a bad regex is a
		 * 400 with the compiler's reason, not a stage failure */
		char rmsg[FP_REGEX_WHY_MAX];
		struct fp_regex *re = fp_regex_compile(cmd.arg.p, cmd.arg.n, rmsg, sizeof rmsg);
		if (!re) {
			snprintf(why, whysize, "bad regex: %s", rmsg);
			return 0;
		}
		fp_regex_free(re);
	}
	return 1;
refused:
	snprintf(why, whysize, "%s", msg);
	return 0;
}

size_t upload_safe_name(const char *in, size_t n, char *out, size_t outsz)
{
	/* basename: browsers may send C:\dir\x.perf or dir/x.perf */
	for (size_t i = n; i-- > 0;)
		if (in[i] == '/' || in[i] == '\\') {
			in += i + 1;
			n -= i + 1;
			break;
		}
	while (n > 0 && in[0] == '.') { /* no hidden or `..` names */
		in++;
		n--;
	}
	size_t k = 0;
	for (size_t i = 0; i < n && k + 1 < outsz && k < UPLOAD_NAME_MAX; i++) {
		char c = in[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		out[k++] = ok ? c : '_';
	}
	if (k == 0) {
		static const char dflt[] = "upload";
		k = sizeof dflt - 1 < outsz ? sizeof dflt - 1 : outsz - 1;
		memcpy(out, dflt, k);
	}
	out[k] = '\0';
	return k;
}
