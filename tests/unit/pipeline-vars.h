/* tests/unit/pipeline-vars.h: the variables the pipeline parser's tests
 * expand (u-pipeline.c, and fuzz/fuzz-pipeline.c on top of them): a plain
 * value, one with a space, an empty value, an empty list and a list of two
 * words, one with a space. */
#ifndef FP_TESTS_PIPELINE_VARS_H
#define FP_TESTS_PIPELINE_VARS_H

/* (after runner/pipeline.h: struct fp_vars and its functions) */

static void seed_test_vars(struct fp_vars *v)
{
	fp_vars_init(v);
	fp_vars_set(v, "FIFODIR", "/tmp/fp.X");
	fp_vars_set(v, "INPUT", "my file.perf");
	fp_vars_set(v, "EMPTY", "");
	fp_vars_list(v, "NONE");
	fp_vars_append(v, "TWO", "--a");
	fp_vars_append(v, "TWO", "b c");
}

#endif
