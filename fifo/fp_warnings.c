/* fp_warnings.c: warnings limited per kind (fp_warnings.h). */
#include <stdio.h>

#include "fp_error.h"
#include "fp_warnings.h"

void fp_warnings_init(struct fp_warnings *w, const char *const *kind_name, size_t nkinds,
		      void (*say)(void *ctx, const char *msg), void *ctx)
{
	if (nkinds > FP_WARNING_KINDS_MAX)
		fp_die(FP_EXIT_SYS, "fp_warnings: %zu kinds, at most %d", nkinds,
		       FP_WARNING_KINDS_MAX);
	*w = (struct fp_warnings){
		.say = say, .ctx = ctx, .kind_name = kind_name, .nkinds = nkinds
	};
}

static void say_text(struct fp_warnings *w, char *msg)
{
	for (char *c = msg; *c; c++) /* W fields never hold TAB or LF */
		if (*c == '\t' || *c == '\n' || *c == '\r')
			*c = ' ';
	w->say(w->ctx, msg);
}

void fp_warnings_vsay(struct fp_warnings *w, unsigned kind, const char *fmt, va_list ap)
{
	char msg[FP_WARNING_MAX];

	if (w->seen[kind]++ >= FP_WARNINGS_SHOWN)
		return;
	vsnprintf(msg, sizeof msg, fmt, ap);
	say_text(w, msg);
}

void fp_warnings_say(struct fp_warnings *w, unsigned kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fp_warnings_vsay(w, kind, fmt, ap);
	va_end(ap);
}

void fp_warnings_end(struct fp_warnings *w)
{
	for (size_t k = 0; k < w->nkinds; k++) {
		char msg[FP_WARNING_MAX];

		if (w->seen[k] <= FP_WARNINGS_SHOWN)
			continue;
		snprintf(msg, sizeof msg, "%llu more '%s' warnings not shown (%llu in all)",
			 (unsigned long long)(w->seen[k] - FP_WARNINGS_SHOWN), w->kind_name[k],
			 (unsigned long long)w->seen[k]);
		say_text(w, msg);
	}
}

int fp_drops_due(const struct fp_drops *d, double now, int force)
{
	return d->dropped != d->reported &&
	       (force || now - d->last_report >= FP_DROP_REPORT_INTERVAL);
}

void fp_drops_report(struct fp_drops *d, double now, int force, struct fp_wr out, const char *stage,
		     const char *in_name, int quiet)
{
	uint64_t n = d->dropped - d->reported;
	char msg[FP_WARNING_MAX];

	if (!fp_drops_due(d, now, force))
		return;
	d->last_report = now;
	d->reported = d->dropped;
	snprintf(msg, sizeof msg,
		 "dropped %llu samples (%llu in all): the chain fell "
		 "behind the live source, which is never blocked",
		 (unsigned long long)n, (unsigned long long)d->dropped);
	if (!quiet)
		fp_warn("%s: %s", in_name, msg);
	fp_write_warning_at(out, stage, NULL, msg);
	fp_write_info(out, stage, &(struct fp_stat){ "dropped", d->dropped }, 1);
}
