/* u-pipeline.c: the pipeline file parser and variables (runner/pipeline.c).
 * The runner is not a library: its parser is compiled in here. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "../../runner/pipeline.c"
#include "pipeline-vars.h"

static struct fp_vars vars;
static struct fp_pipeline pl;
static char err[FP_PIPELINE_ERR_MAX];

static int setup(void **state)
{
	seed_test_vars(&vars);
	memset(&pl, 0, sizeof pl);
	err[0] = '\0';
	return 0;
}

static int teardown(void **state)
{
	fp_pipeline_free(&pl);
	fp_vars_free(&vars);
	return 0;
}

static int parse(const char *text)
{
	fp_pipeline_free(&pl);
	return fp_pipeline_parse_string("t.pipeline", text, &vars, &pl, err, sizeof err);
}

/* argv of stage i joined with '|' */
static const char *argv_of(size_t i)
{
	static char buf[1024];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < pl.stages[i].argc; k++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", k ? "|" : "",
				      pl.stages[i].argv[k]);
	assert_null(pl.stages[i].argv[pl.stages[i].argc]);
	return buf;
}

static void stages_settings_and_comments(void **state)
{
	assert_int_equal(parse("# head\n\nread fp-read x # trailing\n"
			       "fold restart=on-failure retries=3 fp-fold\n"
			       "  sink   restart=always  cat\n"),
			 0);
	assert_int_equal(pl.n, 3);
	assert_string_equal(pl.stages[0].name, "read");
	assert_string_equal(argv_of(0), "fp-read|x");
	assert_string_equal(pl.stages[0].where, "t.pipeline:3");
	assert_int_equal(pl.stages[0].restart, FP_RESTART_NEVER);
	assert_int_equal(pl.stages[0].retries, FP_RETRIES_DEFAULT);
	assert_int_equal(pl.stages[1].restart, FP_RESTART_ON_FAILURE);
	assert_int_equal(pl.stages[1].retries, 3);
	assert_int_equal(pl.stages[2].restart, FP_RESTART_ALWAYS);
	assert_string_equal(pl.stages[2].where, "t.pipeline:5");
	assert_int_equal(fp_pipeline_find(&pl, "fold"), 1);
	assert_int_equal(fp_pipeline_find(&pl, "nope"), -1);
}

static void omit_if_leaves_the_stage_out_when_not_empty(void **state)
{
	fp_vars_define(&vars, "SKIP=1", 0);
	assert_int_equal(parse("a p\nb omit-if=${SKIP} restart=always q\nc omit-if=${NONE:-} r\n"
			       "d p\n"),
			 0);
	assert_int_equal(pl.n, 3);
	assert_string_equal(pl.stages[0].name, "a");
	assert_string_equal(pl.stages[1].name, "c");
	assert_string_equal(argv_of(1), "r");
	assert_string_equal(pl.stages[1].where, "t.pipeline:3");
	assert_string_equal(pl.stages[2].name, "d");
}

static void quoting_and_escapes(void **state)
{
	assert_int_equal(parse("a p 'x  ${INPUT}' \"y ${INPUT} \\\"q\\\" \\$z\" w\\ v '' \"\"\n"),
			 0);
	assert_string_equal(argv_of(0), "p|x  ${INPUT}|y my file.perf \"q\" $z|w v||");
	assert_int_equal(pl.stages[0].argc, 6);
}

static void scalars_are_one_word_lists_are_zero_or_more(void **state)
{
	assert_int_equal(parse("a p ${INPUT} ${NONE} ${TWO} \"${TWO}\" x${EMPTY}y ${EMPTY:-dflt} "
			       "${UNSET:-u v}\n"),
			 0);
	assert_string_equal(argv_of(0), "p|my file.perf|--a|b c|--a b c|xy|dflt|u v");
}

static void continued_lines_report_their_first_line(void **state)
{
	assert_int_equal(parse("a p \\\n  q \\\n  r\nb s\n"), 0);
	assert_string_equal(argv_of(0), "p|q|r");
	assert_string_equal(pl.stages[1].where, "t.pipeline:4");
	assert_int_equal(parse("a p\nb 'x \\\ny\n"), -1);
	assert_string_equal(err, "t.pipeline:2: unterminated '...' (expected a closing ')");
}

static void errors_name_the_line_and_what_was_expected(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "a p\nb restart=maybe p\n", "t.pipeline:2: stage 'b': bad restart policy 'maybe' "
					      "(expected never, on-failure or always)" },
		{ "a retries=x p\n",
		  "t.pipeline:1: stage 'a': bad retries 'x' (expected an integer 0..1000)" },
		{ "a retries=1001 p\n",
		  "t.pipeline:1: stage 'a': bad retries '1001' (expected an integer 0..1000)" },
		{ "a restrat=always p\n",
		  "t.pipeline:1: stage 'a': unknown setting 'restrat' (expected restart=..., "
		  "retries=..., give-up=..., unit=... or omit-if=..., then the program)" },
		{ "a unit=u p\nb p\nc unit=u p\n",
		  "t.pipeline:3: stage 'c': unit 'u' is not one run of adjacent stages (expected "
		  "its stages one after another)" },
		{ "a unit=.u p\n",
		  "t.pipeline:1: stage 'a': bad unit name '.u' (expected a name as a "
		  "stage's)" },
		{ "a restart=always\n",
		  "t.pipeline:1: stage 'a': expected a program after the stage name" },
		{ "a p\na q\n",
		  "t.pipeline:2: stage 'a' is defined twice (expected unique stage names)" },
		{ ".a p\n", "t.pipeline:1: bad stage name '.a' (expected letters, digits, '_', '-' "
			    "or '.', at most 64, not starting with '.' or '-')" },
		{ "a/b p\n", NULL },
		{ "a p ${NOPE}\n",
		  "t.pipeline:1: undefined variable ${NOPE} (define it with -D NOPE=VALUE)" },
		{ "a p ${1X}\n", NULL },
		{ "a p ${INPUT\n", "t.pipeline:1: expected '}' to close '${INPUT'" },
		{ "a p ${INPUT:x}\n", "t.pipeline:1: expected '}' or ':-' after '${INPUT'" },
		{ "a p x${TWO}\n", "t.pipeline:1: list variable ${TWO} must stand alone as a word, "
				   "or be inside \"...\"" },
		{ "a p \"open\n", "t.pipeline:1: unterminated \"...\" (expected a closing \")" },
		{ "a p \\",
		  "t.pipeline:1: a backslash at the end of the file (expected another line)" },
		{ "# nothing\n", "t.pipeline:1: no stages (expected lines 'NAME [SETTING=VALUE]... "
				 "PROGRAM [ARG]...')" },
		{ "", "t.pipeline:1: no stages (expected lines 'NAME [SETTING=VALUE]... PROGRAM "
		      "[ARG]...')" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		err[0] = '\0';
		assert_int_equal(parse(cases[i].text), -1);
		assert_int_equal(pl.n, 0);
		if (cases[i].msg)
			assert_string_equal(err, cases[i].msg);
		else
			assert_true(strncmp(err, "t.pipeline:1: ", 14) == 0);
	}
}

static void stage_names(void **state)
{
	char longname[FP_STAGE_NAME_MAX + 2];

	assert_true(fp_stage_name_ok("fold-2.x_y"));
	assert_false(fp_stage_name_ok(""));
	assert_false(fp_stage_name_ok("-x"));
	assert_false(fp_stage_name_ok(".."));
	assert_false(fp_stage_name_ok("a/b"));
	assert_false(fp_stage_name_ok("a b"));
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	assert_false(fp_stage_name_ok(longname));
	longname[FP_STAGE_NAME_MAX] = '\0';
	assert_true(fp_stage_name_ok(longname));
}

static void defines_from_the_command_line(void **state)
{
	const struct fp_var *v;

	assert_int_equal(fp_vars_define(&vars, "ROWS=100", 0), 0);
	assert_int_equal(fp_vars_define(&vars, "ROWS=200", 0), 0);
	v = fp_vars_get(&vars, "ROWS");
	assert_non_null(v);
	assert_false(v->is_list);
	assert_int_equal(v->n, 1);
	assert_string_equal(v->words[0], "200");
	assert_int_equal(fp_vars_define(&vars, "L=a=b", 1), 0);
	assert_int_equal(fp_vars_define(&vars, "L=", 1), 0);
	v = fp_vars_get(&vars, "L");
	assert_true(v->is_list);
	assert_int_equal(v->n, 2);
	assert_string_equal(v->words[0], "a=b");
	assert_string_equal(v->words[1], "");
	assert_int_equal(fp_vars_define(&vars, "no_equals", 0), -1);
	assert_int_equal(fp_vars_define(&vars, "9X=1", 0), -1);
	assert_int_equal(fp_vars_define(&vars, "=1", 0), -1);
}

static void program_lookup(void **state)
{
	char *p = fp_find_program("sh", NULL);

	assert_non_null(p);
	assert_true(p[0] == '/');
	free(p);
	assert_null(fp_find_program("no-such-program-here", NULL));
	assert_null(fp_find_program("", NULL));
	assert_null(fp_find_program("/etc", NULL)); /* a directory is not a program */
	assert_int_equal(parse("a no-such-program-here x\n"), 0);
	assert_int_equal(fp_pipeline_resolve(&pl, NULL, err, sizeof err), -1);
	assert_string_equal(err, "t.pipeline:1: stage 'a': program 'no-such-program-here' not "
				 "found (looked in - and $PATH)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(stages_settings_and_comments, setup, teardown),
		cmocka_unit_test_setup_teardown(omit_if_leaves_the_stage_out_when_not_empty, setup,
						teardown),
		cmocka_unit_test_setup_teardown(quoting_and_escapes, setup, teardown),
		cmocka_unit_test_setup_teardown(scalars_are_one_word_lists_are_zero_or_more, setup,
						teardown),
		cmocka_unit_test_setup_teardown(continued_lines_report_their_first_line, setup,
						teardown),
		cmocka_unit_test_setup_teardown(errors_name_the_line_and_what_was_expected, setup,
						teardown),
		cmocka_unit_test_setup_teardown(stage_names, setup, teardown),
		cmocka_unit_test_setup_teardown(defines_from_the_command_line, setup, teardown),
		cmocka_unit_test_setup_teardown(program_lookup, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
