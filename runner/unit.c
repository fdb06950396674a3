/* unit.c: restarting a unit (unit=NAME, adjacent stages that share one
 * stream) as one (supervise.h).
 *
 * A source is such a unit: `perf record -o -` and the fp-perfdata that
 * reads it. perf's pipe format starts with a header that defines every
 * later record, so a reader cannot join perf's stream mid-way and a new
 * perf cannot continue an old reader's. When any member fails:
 *
 *  1. the members upstream of it get SIGTERM (perf writes its end and
 *     exits); the links from it downstream lose the runner's write hold,
 *     so the members after it read what is left, see EOF and end as they
 *     do at the end of a capture (nothing already written is lost);
 *  2. once every member has ended, what is left in the links inside the
 *     unit (the tail of the old stream, useless to a new reader) is read
 *     and counted, the write holds are opened again, and one W record
 *     plus `C restarted NAME` go out on the unit's output link;
 *  3. every member is started again after the failed one's backoff.
 *
 * A member that does not end within the kill timeout of step 1 gets
 * SIGTERM, then SIGKILL (kill_timer_cb). The gap (no capture) and the
 * bytes dropped are counted for the summary (fp_run_unit_stats).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fp_error.h"
#include "fp_io.h"
#include "fp_record.h"
#include "supervise.h"

#define UNIT_DRAIN_CHUNK 65536

void sv_unit_range(const struct stage *st, size_t *lo, size_t *hi)
{
	const struct fp_run *r = st->run;
	const char *u = st->spec->unit;

	*lo = *hi = st->index;
	if (!u)
		return;
	while (*lo > 0 && r->stages[*lo - 1]->spec->unit &&
	       !strcmp(r->stages[*lo - 1]->spec->unit, u))
		(*lo)--;
	while (*hi + 1 < r->n && r->stages[*hi + 1]->spec->unit &&
	       !strcmp(r->stages[*hi + 1]->spec->unit, u))
		(*hi)++;
}

int sv_in_unit(const struct stage *st)
{
	size_t lo, hi;

	sv_unit_range(st, &lo, &hi);
	return hi > lo;
}

/* The bytes left in link i, read and dropped (its writer and reader are
 * gone: they are the tail of a stream nobody can read any more). */
static unsigned long long drain_link(struct link *l)
{
	char buf[UNIT_DRAIN_CHUNK];
	unsigned long long n = 0;
	ssize_t got;

	if (l->hold_r < 0)
		return 0;
	/* hold_r is O_NONBLOCK (fifodir.c): stops at EAGAIN */
	while ((got = read(l->hold_r, buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR))
		if (got > 0)
			n += (unsigned long long)got;
	return n;
}

static int reopen_hold_w(struct link *l)
{
	if (l->hold_w >= 0)
		return 0;
	l->hold_w = open(l->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	return l->hold_w >= 0 ? 0 : -1;
}

/* The W record and `C restarted NAME` on the unit's output link: the
 * stages after it learn that the stream they read starts again (fp-range
 * forgets its selection, fp-record adds the old source's counts). */
static void report_unit_loss(struct stage *failed, size_t hi, unsigned long long bytes, double gap)
{
	struct fp_run *r = failed->run;
	struct fp_wmem m = { 0 };
	char msg[CTL_LINE_MAX / 2];

	if (hi + 1 >= r->n || r->links[hi].hold_w < 0 || !sv_link_is_stream(r, hi))
		return;
	snprintf(msg, sizeof msg,
		 "stage %s %s: its unit %s was restarted; %llu bytes of the stream inside it "
		 "were dropped and nothing was captured for %.1f s",
		 failed->spec->name, failed->unit_why, failed->spec->unit, bytes, gap);
	fp_wmem_add(&m, "\n", 1);
	fp_write_warning_at(fp_wmem_wr(&m), fp_prog(), failed->spec->where, msg);
	fp_write_restarted(fp_wmem_wr(&m), r->stages[hi]->spec->name);
	if (m.len > PIPE_BUF || write(r->links[hi].hold_w, m.p, m.len) != (ssize_t)m.len)
		sv_log("unit '%s': no room in its output FIFO for the loss warning",
		       failed->spec->unit);
	fp_wmem_free(&m);
}

/* Every member has ended: clean the links inside, report, start again. */
static void unit_respawn(struct stage *st)
{
	struct fp_run *r = st->run;
	size_t lo, hi;
	unsigned long long bytes = 0;
	struct stage *failed = NULL;
	double delay = 0;

	sv_unit_range(st, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		bytes += drain_link(&r->links[i]);
		if (reopen_hold_w(&r->links[i]) < 0) {
			sv_log("unit '%s': cannot open FIFO %s again: %s", st->spec->unit,
			       r->links[i].path, strerror(errno));
			for (size_t k = lo; k <= hi; k++)
				sv_stage_finish(r->stages[k], 0, FP_EXIT_SYS);
			return;
		}
	}
	for (size_t i = lo; i <= hi; i++)
		if (r->stages[i]->unit_failed)
			failed = r->stages[i];
	if (!failed)
		failed = st;
	delay = sv_restart_delay(failed, 1);
	r->unit_restarts++;
	r->unit_dropped_bytes += bytes;
	r->unit_gap += ev_now(r->loop) - failed->unit_since + delay;
	sv_log("unit '%s': every stage has ended (%llu bytes left in its FIFOs dropped); "
	       "starting it again in %.1f s (fast failures in a row: %u of %u allowed)",
	       failed->spec->unit, bytes, delay, failed->fast_failures, failed->spec->retries);
	report_unit_loss(failed, hi, bytes, ev_now(r->loop) - failed->unit_since + delay);
	/* the reader's count starts again: keep the old one's */
	if (r->samples > 0)
		r->samples_base += r->samples;
	r->samples = -1;
	for (size_t i = lo; i <= hi; i++) {
		struct stage *m = r->stages[i];

		m->unit_restarting = m->unit_failed = 0;
		m->state = FP_ST_BACKOFF;
		ev_timer_stop(r->loop, &m->restart_w);
		ev_timer_set(&m->restart_w, delay, 0.);
		ev_timer_start(r->loop, &m->restart_w);
	}
}

static void unit_check(struct stage *st)
{
	struct fp_run *r = st->run;
	size_t lo, hi;

	sv_unit_range(st, &lo, &hi);
	for (size_t i = lo; i <= hi; i++)
		if (r->stages[i]->pid > 0)
			return;
	if (r->stopping)
		return;
	if (r->stages[lo]->ending) { /* the capture's end came meanwhile */
		for (size_t i = lo; i <= hi; i++)
			sv_stage_finish(r->stages[i], 1, 0);
		return;
	}
	unit_respawn(st);
}

/* st has failed (already reaped), or the unit is asked to restart (ctl
 * restart of st, still running: the unit ends as at the end of a capture,
 * its first stage stopped and the rest draining, so nothing is dropped).
 * The others are told to end. */
void sv_unit_begin(struct stage *st, const char *why)
{
	struct fp_run *r = st->run;
	size_t lo, hi, from;

	sv_unit_range(st, &lo, &hi);
	from = st->pid > 0 ? lo : st->index; /* asked: the first stage ends */
	st->unit_failed = 1;
	st->unit_since = ev_now(r->loop);
	snprintf(st->unit_why, sizeof st->unit_why, "%s", why);
	sv_log("stage '%s' (%s) %s: restarting its unit '%s' (stages %s to %s)", st->spec->name,
	       st->spec->argv[0], why, st->spec->unit, r->stages[lo]->spec->name,
	       r->stages[hi]->spec->name);
	for (size_t i = lo; i <= hi; i++)
		r->stages[i]->unit_restarting = 1;
	if (st->pid <= 0)
		st->state = FP_ST_BACKOFF;
	/* after st: EOF once the writers inside the unit are gone; one that
	 * does not end by twice the kill timeout is killed */
	for (size_t i = from; i < hi; i++) {
		struct stage *m = r->stages[i + 1];

		sv_close_fd(&r->links[i].hold_w);
		if (m->pid > 0) {
			ev_timer_stop(r->loop, &m->kill_w);
			ev_timer_set(&m->kill_w, 2 * r->opts.kill_timeout, 0.);
			ev_timer_start(r->loop, &m->kill_w);
		}
	}
	/* before the failed one, or the first when asked: SIGTERM */
	for (size_t i = lo; i < from || i == lo; i++)
		if (r->stages[i]->pid > 0)
			sv_term_stage(r->stages[i]);
	unit_check(st);
}

/* A member has ended while its unit restarts. */
void sv_unit_down(struct stage *st)
{
	st->state = FP_ST_BACKOFF;
	unit_check(st);
}

void fp_run_unit_stats(const struct fp_run *r, unsigned *restarts, double *gap,
		       unsigned long long *dropped_bytes)
{
	*restarts = r->unit_restarts;
	*gap = r->unit_gap;
	*dropped_bytes = r->unit_dropped_bytes;
}
