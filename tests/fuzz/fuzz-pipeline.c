/* fuzz-pipeline.c: libFuzzer target for the pipeline file parser
 * (runner/pipeline.c, fp_pipeline_parse_string).
 *
 * fuzz-sources: runner/pipeline.c lib/fp_error.c
 * fuzz-libs: -lm
 * fuzz-max-len: 4096
 *
 * The input is the text of a pipeline file (cut at its first NUL, as the
 * file reader refuses NUL bytes), parsed with the variables the runner
 * defines (scalars, lists, an empty list). Checks, beyond "no crash, no
 * leak": a refused file gets a message that names the file; an accepted one
 * has at least one stage, each with a valid name found by
 * fp_pipeline_find, a program (argv[0] non-empty is not required: "" is a
 * word), a NULL-terminated argv of argc words, and a "file:line" origin.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
#include "../unit/pipeline-vars.h"

#define FILE_NAME "fuzz.pipeline"

static struct fp_vars vars;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* the unit tests' variables, and those of the shipped pipelines */
	seed_test_vars(&vars);
	fp_vars_set(&vars, "OUTDIR", "");
	fp_vars_list(&vars, "READ_ARGS");
	fp_vars_append(&vars, "RANGE_ARGS", "--from");
	fp_vars_append(&vars, "RANGE_ARGS", "1.5");
	fp_vars_append(&vars, "FOLD_ARGS", "");
	fp_vars_define(&vars, "ROWS=100", 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	char err[FP_PIPELINE_ERR_MAX];
	struct fp_pipeline pl;

	memcpy(text, data, size);
	text[size] = '\0';
	err[0] = '\0';
	if (fp_pipeline_parse_string(FILE_NAME, text, &vars, &pl, err, sizeof err) < 0) {
		assert(strncmp(err, FILE_NAME ":", sizeof FILE_NAME) == 0);
		assert(strlen(err) < sizeof err);
		free(text);
		return 0;
	}
	assert(pl.n > 0 && pl.stages);
	for (size_t i = 0; i < pl.n; i++) {
		const struct fp_stage_spec *st = &pl.stages[i];

		assert(st->name && *st->name && strlen(st->name) <= FP_STAGE_NAME_MAX);
		assert(fp_pipeline_find(&pl, st->name) >= 0);
		assert(st->where && strncmp(st->where, FILE_NAME ":", sizeof FILE_NAME) == 0);
		assert(st->argc >= 1 && st->argv && st->argv[st->argc] == NULL);
		for (size_t k = 0; k < st->argc; k++)
			assert(st->argv[k] != NULL);
		assert(fp_restart_name(st->restart) != NULL);
	}
	fp_pipeline_free(&pl);
	free(text);
	return 0;
}
