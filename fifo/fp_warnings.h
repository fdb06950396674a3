/* fp_warnings.h: warnings about bad input, limited per kind, for the
 * sources (fp-read, fp-perfdata): the first FP_WARNINGS_SHOWN of a kind are
 * said, the others only counted, and at the end one warning per kind says
 * how many were not shown. Each text is a W record's: TAB, CR and LF in it
 * become spaces.
 *
 *	static const char *const kinds[N] = { "bad line", ... };
 *	struct fp_warnings w;
 *	fp_warnings_init(&w, kinds, N, say, ctx);   // say(ctx, msg): W + stderr
 *	fp_warnings_say(&w, kind, "fmt", ...);      // said, or only counted
 *	fp_warnings_end(&w);    // "N more 'KIND' warnings not shown (M in all)"
 *
 * And a live source's samples dropped rather than block the source
 * (fp-read --live, fp-perfdata --live): count them in d.dropped, and
 *
 *	fp_drops_report(&d, now, force, out, stage, in_name, quiet);
 *
 * writes `W STAGE - dropped N samples (M in all): ...`, `I STAGE
 * dropped=M` and (unless quiet) the stderr line for the ones since the
 * last report, at most once per FP_DROP_REPORT_INTERVAL seconds unless
 * force (end of input).
 */
#ifndef FP_WARNINGS_H
#define FP_WARNINGS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "fp_record.h"

#define FP_WARNINGS_SHOWN 10 /* of each kind */
#define FP_WARNING_MAX 512   /* bytes of a message, NUL included */
#define FP_WARNING_KINDS_MAX 8

struct fp_warnings {
	void (*say)(void *ctx, const char *msg);
	void *ctx;
	const char *const *kind_name;
	size_t nkinds;
	uint64_t seen[FP_WARNING_KINDS_MAX]; /* said or not */
};

void fp_warnings_init(struct fp_warnings *w, const char *const *kind_name, size_t nkinds,
		      void (*say)(void *ctx, const char *msg), void *ctx);
void fp_warnings_vsay(struct fp_warnings *w, unsigned kind, const char *fmt, va_list ap);
void fp_warnings_say(struct fp_warnings *w, unsigned kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void fp_warnings_end(struct fp_warnings *w);

#define FP_DROP_REPORT_INTERVAL 1.0 /* seconds */

struct fp_drops {
	uint64_t dropped;   /* in all */
	uint64_t reported;  /* ... as of the last report */
	double last_report; /* when (the caller's clock, seconds) */
};

/* 1 if fp_drops_report would write now (a source that must write
 * something first, fp-read its pending K records, asks). */
int fp_drops_due(const struct fp_drops *d, double now, int force);
void fp_drops_report(struct fp_drops *d, double now, int force, struct fp_wr out, const char *stage,
		     const char *in_name, int quiet);

#endif
