/* fp_tails.h: the stack-id stream (fifo/PROTOCOL.md, K and P records) for
 * the stages that read it and the sources that write it.
 *
 * A reader keeps every K definition by its id (struct fp_tails) and turns
 * each P record back into the struct fp_sample its S record would have
 * parsed to, so a stage handles S and P samples with one code path:
 *
 *	case FP_REC_TAIL:        fp_tails_define_line(&t, line, len, &id);  (then pass it on)
 *	case FP_REC_TAIL_SAMPLE: if (fp_tails_sample_line(&t, line, len, &s) == 0) ...
 *
 * A writer (fp-read, fp-perfdata with --stack-ids) numbers the tails it
 * writes with struct fp_tailw: fp_tailw_write(&w, out, &sample) writes the
 * K record the first time a tail is seen, then the P record. A source that
 * can tell a tail by something cheaper than its text (fp-perfdata: the
 * frame ids) looks that key's digest up in w.keys itself (fp_digtab_find,
 * then fp_digtab_intern) and writes the K record only for a new key. A
 * writer knows a tail by its digest (lib/fp_digtab.h) and keeps none of
 * its text: 24 bytes a distinct tail.
 *
 * Memory follows the distinct tails (each came as a K record, or, for a
 * writer, as a sample), never the samples.
 */
#ifndef FP_TAILS_H
#define FP_TAILS_H

#include <stddef.h>
#include <stdint.h>

#include "fp_digtab.h"
#include "fp_record.h"

/* The definitions: each in the arena as its fields' lengths (struct
 * fp_tail_head) right before its text "event TAB comm TAB kinds TAB
 * stack [TAB cgroup]", so a P's lookup reads its id's offset (a small array) and then
 * one place, the one its reader reads the event and comm from anyway. */
struct fp_tail_head {
	uint32_t event_n, comm_n, kinds_n, stack_n, cgroup_n; /* cgroup_n 0: none */
};

struct fp_tails {
	size_t *off;         /* by id: where its head is in text */
	size_t n, cap;       /* ids 0 .. n-1 are defined */
	struct fp_wmem text; /* the heads and texts */
	uint64_t defined, redefined;
};

/* Why a K or P record was not taken (for the stage's W record). */
enum fp_tails_err {
	FP_TAILS_OK = 0,
	FP_TAILS_MALFORMED = -1,   /* not a well-formed K / P record */
	FP_TAILS_SKIPS_AHEAD = -2, /* K: an id past the next one */
	FP_TAILS_UNDEFINED = -3,   /* P: no K defined its id */
};

void fp_tails_init(struct fp_tails *t);
void fp_tails_free(struct fp_tails *t);
/* Stores a K record's definition (an id defined before is replaced: a
 * restarted source numbers from 0 again). FP_TAILS_OK or an error. */
int fp_tails_define(struct fp_tails *t, const struct fp_tail_def *d);
/* The same for a K record's line; *id (if id is not NULL) is its id. */
int fp_tails_define_line(struct fp_tails *t, const char *line, size_t len, uint32_t *id);
/* The sample of a P record, its strings pointing into t (valid until the
 * next define). FP_TAILS_OK or an error. */
int fp_tails_sample(const struct fp_tails *t, const struct fp_tail_ref *r, struct fp_sample *s);
int fp_tails_sample_line(const struct fp_tails *t, const char *line, size_t len,
			 struct fp_sample *s, uint32_t *id);
/* For a reader that keeps what it derived from a tail's frames (fp-fold:
 * its folded stack id): when id is the latest definition, as it is at its
 * first P (every writer sends a K right before the first P of its id),
 * gives the bytes of its kinds and stack back to the arena; they read as
 * empty from then on, its event, comm and cgroup stay. So the reader's
 * memory follows the tails' heads, not their frames. 1 if dropped, 0 if
 * kept (not the latest definition, or no frames). */
int fp_tails_shed(struct fp_tails *t, uint32_t id);
/* The message of an error, for a W record: fp_tails_problem(err), declared
 * in fp_record.h (fp_sample_records writes it). */

/* ---- negotiation (PROTOCOL.md) ------------------------------------------- */

/* The option a source (fp-read, fp-perfdata) takes to write the stack-id
 * stream. */
#define FP_TAILS_SOURCE_OPTION "--stack-ids"

/* ---- writers -------------------------------------------------------------- */

/* A deferring writer holds this many S records back (see fp_tailw_defer). */
#define FP_TAILW_AHEAD 2

struct fp_tailw_held {
	struct fp_wmem rec; /* the S record, without its LF */
	size_t tab;         /* offset of the TAB before its tail, or SIZE_MAX: none */
	struct fp_digest d; /* of its tail */
};

struct fp_tailw {
	struct fp_digtab keys;                         /* the tails' keys; id = tail id */
	struct fp_wmem scratch;                        /* a tail whose fields are not contiguous */
	int defer;                                     /* fp_tailw_write_line holds records back */
	struct fp_tailw_held held[FP_TAILW_AHEAD + 1]; /* a ring */
	size_t first, nheld;
};

void fp_tailw_init(struct fp_tailw *w);
void fp_tailw_free(struct fp_tailw *w);
/* A batch source (fp-read on a file) looks up a sample's tail among all
 * the tails so far, a table larger than the cache: with defer on,
 * fp_tailw_write_line writes each S record's K and P records
 * FP_TAILW_AHEAD records later, having asked for its slot meanwhile, so
 * the lookup finds it in the cache. The writer must
 * call fp_tailw_flush before it writes anything else (and at the end), so
 * the stream's order is the same as without. Off by default (a live
 * source writes each sample at once). */
void fp_tailw_defer(struct fp_tailw *w, int on);
void fp_tailw_flush(struct fp_tailw *w, struct fp_wr out);
/* The sample s as K (first time its tail is seen) and P records. */
void fp_tailw_write(struct fp_tailw *w, struct fp_wr out, const struct fp_sample *s);
/* The same for a well-formed S record (LF optional) as a source built it:
 * its tail interned as text, its numbers copied, not parsed again. */
void fp_tailw_write_line(struct fp_tailw *w, struct fp_wr out, const char *rec, size_t len);
/* The P record of s, whose tail is id. */
void fp_tailw_ref(struct fp_wr out, const struct fp_sample *s, uint32_t id);

#endif
