/* negotiate.c: the stream options the runner negotiates between the
 * stages of a pipeline before it starts them (fifo/PROTOCOL.md,
 * "Negotiation").
 *
 * The stack-id stream (K and P records): a source writes it only when
 * asked, and the runner asks only when every stage that reads the source's
 * samples reads K and P: from the source, each following stage passes
 * them on (fp-bucket, fp-range, fp-record) until one consumes them
 * (fp-fold). A stage of any other program on the way (grep, awk, a script) gets
 * plain S records, and so does the whole chain. A stage that may be
 * restarted (restart=...) would lose the definitions it was sent, so a
 * chain with one gets plain records too. FLAMEPIPE_STACK_IDS=0 in the
 * environment turns the negotiation off (the bench compares both).
 *
 * Delta snapshots (fold/fp_foldsnap.h): fp-fold writes them only when
 * asked, and the runner asks when every stage after it reads them
 * (fp-render, fp-serve) or passes them on untouched (fp-bucket, fp-range,
 * fp-record), and the last stage reads them and keeps the stream to
 * itself (not fp-render --passthrough). Stages may restart: a reader that
 * (re)starts skips deltas until its first full snapshot, which the runner
 * asks fp-fold for as it starts the reader (runner/spawn.c, SIGUSR1); a
 * restarted fp-fold's first snapshot is full.
 * FLAMEPIPE_DELTA_SNAPSHOTS=0 turns it off.
 *
 * Snapshots by id (E records, fifo/PROTOCOL.md "Snapshots by id"): an
 * fp-fold with --pass-samples (its D records define the ids) gets
 * --snapshot-ids when every stage after it reads E records (fp-render,
 * the table's reads_ids) or passes them on untouched with the D records
 * (fp-bucket, fp-range, fp-record), the last one reads them and keeps
 * the stream (not fp-render --passthrough), and neither fp-fold nor a
 * stage after it may be restarted (a restarted reader would have lost
 * the D records the ids name). fp-serve reads F records only, any other
 * program (grep, awk, a script) gets them too. FLAMEPIPE_SNAPSHOT_IDS=0
 * turns it off.
 */
#include <stdlib.h>
#include <string.h>

#include "fp_error.h"
#include "fp_foldsnap.h"
#include "fp_tails.h"
#include "negotiate.h"

enum tails_role {
	TAILS_NO,       /* reads S only: wants plain samples */
	TAILS_SOURCE,   /* writes K and P when given FP_TAILS_SOURCE_OPTION */
	TAILS_PASSES,   /* reads K and P and passes samples on */
	TAILS_CONSUMES, /* reads K and P; nothing after it sees samples */
};

enum snap_role {
	SNAP_OTHER,  /* full snapshots only */
	SNAP_WRITES, /* writes deltas or E records when given the option */
	SNAP_READS,  /* reads deltas */
	SNAP_PASSES, /* passes F, E, D and C records on untouched */
};

/* What each of flamepipe's programs does with the negotiated streams:
 * the one table. Any other program (grep, awk, a script) is a row of
 * zeros: plain S records and full F snapshots. */
static const struct role {
	const char *program;
	enum tails_role tails;
	enum snap_role snaps;
	int reads_ids; /* reads E records through its D records */
} roles[] = {
	{ "fp-read", TAILS_SOURCE, SNAP_OTHER, 0 },
	{ "fp-perfdata", TAILS_SOURCE, SNAP_OTHER, 0 },
	{ "fp-bucket", TAILS_PASSES, SNAP_PASSES, 0 },
	{ "fp-range", TAILS_PASSES, SNAP_PASSES, 0 },
	{ "fp-record", TAILS_PASSES, SNAP_PASSES, 0 }, /* records P as S */
	{ "fp-fold", TAILS_CONSUMES, SNAP_WRITES, 0 },
	{ "fp-render", TAILS_NO, SNAP_READS, 1 },
	{ "fp-serve", TAILS_NO, SNAP_READS, 0 }, /* its table is by text */
	/* fp-tui's trees are of D/R samples: it takes snapshots in any form
	 * (and passes them on untouched with --passthrough) */
	{ "fp-tui", TAILS_NO, SNAP_READS, 1 },
	{ "fp-baseline", TAILS_NO, SNAP_PASSES, 0 }, /* counts D and R itself */
};

static const char *program_name(const struct fp_stage_spec *st)
{
	const char *p = st->path ? st->path : st->argv[0];
	const char *slash = strrchr(p, '/');

	return slash ? slash + 1 : p;
}

static const struct role *role_of(const struct fp_stage_spec *st)
{
	static const struct role other = { NULL, TAILS_NO, SNAP_OTHER, 0 };
	const char *name = program_name(st);

	for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++)
		if (strcmp(roles[i].program, name) == 0)
			return &roles[i];
	return &other;
}

static int has_arg(const struct fp_stage_spec *st, const char *arg)
{
	for (size_t i = 1; i < st->argc; i++)
		if (strcmp(st->argv[i], arg) == 0)
			return 1;
	return 0;
}

/* The index of the stage whose samples can go as the stack-id stream, or
 * -1: the first source, if every stage after it passes K and P on up to
 * one that consumes them, and none of them restarts. */
static long stack_id_source(const struct fp_pipeline *pl)
{
	size_t src = 0;

	while (src < pl->n && role_of(&pl->stages[src])->tails != TAILS_SOURCE)
		src++;
	if (src == pl->n || pl->stages[src].restart != FP_RESTART_NEVER)
		return -1;
	for (size_t i = src + 1; i < pl->n; i++) {
		const struct fp_stage_spec *st = &pl->stages[i];
		enum tails_role role = role_of(st)->tails;

		if (st->restart != FP_RESTART_NEVER)
			return -1;
		if (role == TAILS_CONSUMES)
			return (long)src;
		if (role != TAILS_PASSES)
			return -1;
	}
	return -1; /* no consumer: the samples leave the pipeline */
}

/* argv[1] = opt (a stage's last argument may be its input file) */
static void insert_option(struct fp_stage_spec *st, const char *opt)
{
	st->argv = fp_xrealloc(st->argv, (st->argc + 2) * sizeof *st->argv);
	memmove(st->argv + 2, st->argv + 1, st->argc * sizeof *st->argv);
	st->argv[1] = fp_xstrdup(opt);
	st->argc++;
}

int fp_negotiate_stack_ids(struct fp_pipeline *pl)
{
	const char *env = getenv("FLAMEPIPE_STACK_IDS");
	long src;

	if ((env && strcmp(env, "0") == 0) || (src = stack_id_source(pl)) < 0)
		return 0;
	struct fp_stage_spec *st = &pl->stages[src];
	if (has_arg(st, FP_TAILS_SOURCE_OPTION))
		return 1;
	insert_option(st, FP_TAILS_SOURCE_OPTION);
	return 1;
}

/* A snapshot form fp-fold writes when asked (see the top). */
struct snapshot_form {
	const char *env;    /* "0" there turns the negotiation off */
	const char *option; /* what fp-fold is given */
	int by_id;          /* E records: readers must take them, fp-fold must
				 * pass samples (its D records) and never restart */
};

/* 1 if every stage after stage `fold` takes the form f (see the top). */
static int form_read_after(const struct fp_pipeline *pl, size_t fold, const struct snapshot_form *f)
{
	for (size_t i = fold + 1; i < pl->n; i++) {
		const struct fp_stage_spec *st = &pl->stages[i];
		const struct role *r = role_of(st);
		int reads = r->snaps == SNAP_READS && (!f->by_id || r->reads_ids);

		/* ids need the D records a restarted reader lost; deltas heal */
		if ((f->by_id && st->restart != FP_RESTART_NEVER) ||
		    (!reads && r->snaps != SNAP_PASSES))
			return 0;
		if (i == pl->n - 1)
			return reads && !has_arg(st, "--passthrough");
	}
	return 0; /* fp-fold is the last stage: its snapshots leave the pipeline */
}

/* Gives f's option to each fp-fold whose snapshots every later stage takes
 * in form f; how many. */
static int negotiate_snapshot_form(struct fp_pipeline *pl, const struct snapshot_form *f)
{
	const char *env = getenv(f->env);
	int n = 0;

	if (env && strcmp(env, "0") == 0)
		return 0;
	for (size_t i = 0; i < pl->n; i++) {
		struct fp_stage_spec *st = &pl->stages[i];

		if (role_of(st)->snaps != SNAP_WRITES)
			continue;
		if (f->by_id && (!has_arg(st, FP_FOLDSNAP_PASS_SAMPLES_OPTION) ||
				 st->restart != FP_RESTART_NEVER))
			continue;
		if (!form_read_after(pl, i, f))
			continue;
		if (!has_arg(st, f->option))
			insert_option(st, f->option);
		n++;
	}
	return n;
}

int fp_negotiate_writes_deltas(const struct fp_stage_spec *st)
{
	return role_of(st)->snaps == SNAP_WRITES && has_arg(st, FP_FOLDSNAP_DELTA_OPTION);
}

int fp_negotiate_snapshot_ids(struct fp_pipeline *pl)
{
	static const struct snapshot_form ids = {
		"FLAMEPIPE_SNAPSHOT_IDS",
		FP_FOLDSNAP_IDS_OPTION,
		1,
	};

	return negotiate_snapshot_form(pl, &ids);
}

int fp_negotiate_delta_snapshots(struct fp_pipeline *pl)
{
	static const struct snapshot_form deltas = {
		"FLAMEPIPE_DELTA_SNAPSHOTS",
		FP_FOLDSNAP_DELTA_OPTION,
		0,
	};

	return negotiate_snapshot_form(pl, &deltas);
}
