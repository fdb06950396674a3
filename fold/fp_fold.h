/* fp_fold.h: one S sample -> its folded stack `comm;root;...;leaf`.
 *
 * The folding rules of stackcollapse-perf.pl (docs/fp-fold.md).
 * fp-fold folds every sample once with them (and sends the folded stacks
 * on as D records with --pass-samples); the exports fold the samples of
 * a hand-written stream with the default rules.
 *
 *	struct fp_fold_opts o = FP_FOLD_OPTS_DEFAULT;
 *	struct fp_fold_buf b = { 0 };
 *	if (fp_fold_build(&b, &sample, &o, NULL) == 0)
 *		use(b.p, b.len);
 *	fp_fold_buf_free(&b);
 */
#ifndef FP_FOLD_H
#define FP_FOLD_H

#include <stddef.h>

#include "fp_record.h"

enum fp_fold_root { FP_FOLD_ROOT_COMM, FP_FOLD_ROOT_PID, FP_FOLD_ROOT_TID };

struct fp_fold_opts {
	enum fp_fold_root root_id;         /* comm, comm-PID or comm-PID/TID */
	int annotate_kernel, annotate_jit; /* append _[k] / _[j] */
	int event_root;                    /* the event name as an extra root frame */
	int annotate_inlined;              /* append _[i] to inlined frames (kind i) */
	int container_root;                /* the container (fp_container.h) as the outermost
					 * root frame, FP_FOLD_NO_CONTAINER without one */
};

/* The container root frame of a sample without a cgroup. */
#define FP_FOLD_NO_CONTAINER "[no-cgroup]"

#define FP_FOLD_OPTS_DEFAULT                  \
	{                                     \
		FP_FOLD_ROOT_COMM, 0, 0, 0, 0 \
	}

/* A growable byte buffer reused for every sample: it grows to the longest
 * folded stack seen and stays there (no allocation per sample or frame). */
struct fp_fold_buf {
	char *p;
	size_t len, cap;
};

void fp_fold_buf_free(struct fp_fold_buf *b);
/* Appends n bytes (a key being built, a stack). */
void fp_fold_buf_add(struct fp_fold_buf *b, const void *s, size_t n);

/* The kind given to the root frames (comm, event) in a kinds output. */
#define FP_FOLD_KIND_ROOT FP_KIND_ROOT

/* Builds the folded string of s into b (b->len = its length). If kinds is
 * not NULL it gets one character per folded frame (FP_FOLD_KIND_ROOT for the
 * comm and event roots, the sample's kind for the others, 'i' for the parts
 * after the first of an `a->b` frame). Returns 0, or -1 if the kinds field
 * does not have one character per frame. */
int fp_fold_build(struct fp_fold_buf *b, const struct fp_sample *s, const struct fp_fold_opts *o,
		  struct fp_fold_buf *kinds);

#endif
