/* u-snapshot.c: render/snapshot.c, fp-fold's snapshots whose stacks are
 * the timeline's strings (not copied), re-pointed when the timeline's
 * text moved. */
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "snapshot.h"
#include "timeline.h"

static struct fp_timeline tl;
static struct fp_snapshot sn;

static int fresh(void **state)
{
	fp_timeline_init(&tl, 100);
	fp_snapshot_init(&sn);
	return 0;
}

static int done(void **state)
{
	fp_snapshot_free(&sn);
	fp_timeline_free(&tl);
	return 0;
}

/* A D record of stack id (its frames all user code). */
static void define(uint32_t id, const char *folded)
{
	char kinds[64];
	size_t frames = 1;

	for (const char *p = folded; *p; p++)
		frames += *p == ';';
	memset(kinds, 'u', frames);
	struct fp_stack_def d = { id, { kinds, frames }, { folded, strlen(folded) } };
	assert_int_equal(fp_timeline_define(&tl, &d), 0);
}

static void a_snapshot_replaces_the_table_only_when_it_ends(void **state)
{
	define(0, "app;main;f");
	fp_snapshot_begin(&sn);
	fp_snapshot_add(&sn, &tl, 1, LINE("app;main;f"), 3);
	assert_int_equal(fp_snapshot_table(&sn, &tl)->n, 0);
	fp_snapshot_end(&sn);
	const struct fp_folded *t = fp_snapshot_table(&sn, &tl);
	assert_int_equal(t->n, 1);
	assert_int_equal(t->total, 3);
	assert_int_equal(t->e[0].len, 10);
	assert_memory_equal(t->e[0].stack, "app;main;f", 10);
	/* the next one replaces it whole */
	fp_snapshot_begin(&sn);
	fp_snapshot_add(&sn, &tl, 1, LINE("app;main;f"), 5);
	fp_snapshot_end(&sn);
	assert_int_equal(fp_snapshot_table(&sn, &tl)->total, 5);
}

static void a_stack_of_the_timeline_is_its_string_not_a_copy(void **state)
{
	define(0, "app;main;f");
	fp_snapshot_add(&sn, &tl, 0, LINE("app;main;f"), 1);
	fp_snapshot_add(&sn, &tl, 0, LINE("app;no;d;record"), 2); /* hand-written */
	const struct fp_folded *t = fp_snapshot_table(&sn, &tl);
	assert_ptr_equal(t->e[0].stack, fp_strtab_str(&tl.stacks, 0, NULL));
	assert_memory_equal(t->e[1].stack, "app;no;d;record", 15);
}

/* Live: stacks keep coming after a snapshot, the timeline's text grows
 * (and moves); the table's strings follow it (ASan: no stale pointer). */
static void entries_follow_the_timelines_text_when_it_moves(void **state)
{
	char name[64];

	define(0, "app;main;first");
	fp_snapshot_begin(&sn);
	fp_snapshot_add(&sn, &tl, 1, LINE("app;main;first"), 7);
	const char *before = fp_strtab_str(&tl.stacks, 0, NULL);
	uint32_t id = 1;
	for (; fp_strtab_str(&tl.stacks, 0, NULL) == before; id++) { /* until it moves */
		snprintf(name, sizeof name, "app;main;stack%u", id);
		define(id, name);
	}
	fp_snapshot_end(&sn);
	const struct fp_folded *t = fp_snapshot_table(&sn, &tl);
	assert_int_equal(t->n, 1);
	assert_ptr_equal(t->e[0].stack, fp_strtab_str(&tl.stacks, 0, NULL));
	assert_memory_equal(t->e[0].stack, "app;main;first", 14);
}

/* The text moves in the middle of a snapshot (entries before the move
 * point into the old place, those after into the new one): every entry
 * is re-pointed, not only those of a table pointed into an older text. */
static void entries_from_before_and_after_a_move_all_follow_the_text(void **state)
{
	char name[64];

	define(0, "app;main;first");
	fp_snapshot_begin(&sn);
	fp_snapshot_add_stack(&sn, &tl, 1, 0, 7);
	const char *before = fp_strtab_str(&tl.stacks, 0, NULL);
	uint32_t id = 1;
	for (; fp_strtab_str(&tl.stacks, 0, NULL) == before; id++) { /* until it moves */
		snprintf(name, sizeof name, "app;main;stack%u", id);
		define(id, name);
	}
	fp_snapshot_add_stack(&sn, &tl, 1, 1, 2); /* pointed into the new place */
	fp_snapshot_end(&sn);
	const struct fp_folded *t = fp_snapshot_table(&sn, &tl);
	assert_int_equal(t->n, 2);
	assert_ptr_equal(t->e[0].stack, fp_strtab_str(&tl.stacks, 0, NULL));
	assert_ptr_equal(t->e[1].stack, fp_strtab_str(&tl.stacks, 1, NULL));
	assert_memory_equal(t->e[0].stack, "app;main;first", 14);
	/* and a table whose text did not move is as it was */
	assert_ptr_equal(fp_snapshot_table(&sn, &tl), t);
	assert_ptr_equal(t->e[0].stack, fp_strtab_str(&tl.stacks, 0, NULL));
}

/* A delta snapshot (fp-fold --delta-snapshots) sets the counts it names
 * in the table, stacks of the timeline and copied ones alike, and adds a
 * stack it did not have; the table is then what a full snapshot holds. */
static void a_delta_sets_counts_in_the_table_and_adds_new_stacks(void **state)
{
	define(0, "app;main;f");
	fp_snapshot_begin(&sn);
	fp_snapshot_add(&sn, &tl, 1, LINE("app;main;f"), 3);
	fp_snapshot_add(&sn, &tl, 1, LINE("app;copied"), 1);
	fp_snapshot_end(&sn);
	fp_snapshot_set(&sn, &tl, LINE("app;main;f"), 5);
	fp_snapshot_set(&sn, &tl, LINE("app;new"), 2);
	fp_snapshot_set(&sn, &tl, LINE("app;copied"), 4);
	const struct fp_folded *t = fp_snapshot_table(&sn, &tl);
	assert_int_equal(t->n, 3);
	assert_int_equal(t->total, 11);
	assert_int_equal(t->e[0].count, 5);
	assert_int_equal(t->e[1].count, 4);
	assert_memory_equal(t->e[2].stack, "app;new", 7);
	assert_int_equal(t->e[2].count, 2);
	assert_int_equal(fp_snapshot_stacks(&sn), 3);
	/* a full snapshot after it replaces the table, and the next delta
	 * finds its stacks (the index is made again) */
	fp_snapshot_begin(&sn);
	fp_snapshot_add(&sn, &tl, 1, LINE("app;new"), 9);
	fp_snapshot_end(&sn);
	fp_snapshot_set(&sn, &tl, LINE("app;new"), 10);
	t = fp_snapshot_table(&sn, &tl);
	assert_int_equal(t->n, 1);
	assert_int_equal(t->total, 10);
}

/* E records (fp-fold --snapshot-ids) name the timeline's stack: the
 * entry is its string, as for an F record of the same text. */
static void a_stack_by_id_is_the_entry_an_f_record_of_its_text_makes(void **state)
{
	define(0, "app;main;f");
	define(1, "app;main;g");
	fp_snapshot_begin(&sn);
	fp_snapshot_add_stack(&sn, &tl, 1, 1, 4);
	fp_snapshot_add(&sn, &tl, 1, LINE("app;main;f"), 3);
	fp_snapshot_end(&sn);
	const struct fp_folded *t = fp_snapshot_table(&sn, &tl);
	assert_int_equal(t->n, 2);
	assert_int_equal(t->total, 7);
	assert_ptr_equal(t->e[0].stack, fp_strtab_str(&tl.stacks, 1, NULL));
	assert_int_equal(t->e[0].len, 10);
	assert_int_equal(t->e[0].count, 4);
	assert_ptr_equal(t->e[1].stack, fp_strtab_str(&tl.stacks, 0, NULL));
}

/* A delta of E records sets the counts of the stacks it names, found by
 * id whether an E or an F record put them in the table, and adds the
 * others; F and E deltas after each other find each other's entries. */
static void a_delta_by_id_sets_counts_and_adds_new_stacks(void **state)
{
	define(0, "app;main;f");
	define(1, "app;main;g");
	define(2, "app;new");
	fp_snapshot_begin(&sn);
	fp_snapshot_add(&sn, &tl, 1, LINE("app;main;f"), 3);
	fp_snapshot_add_stack(&sn, &tl, 1, 1, 1);
	fp_snapshot_add(&sn, &tl, 1, LINE("app;copied"), 1);
	fp_snapshot_end(&sn);
	fp_snapshot_set_stack(&sn, &tl, 0, 5);
	fp_snapshot_set_stack(&sn, &tl, 2, 2);
	fp_snapshot_set_stack(&sn, &tl, 1, 6);
	fp_snapshot_set(&sn, &tl, LINE("app;new"), 8); /* an F delta finds the E's entry */
	fp_snapshot_set_stack(&sn, &tl, 2, 9);         /* and back */
	fp_snapshot_set(&sn, &tl, LINE("app;copied"), 0);
	const struct fp_folded *t = fp_snapshot_table(&sn, &tl);
	assert_int_equal(t->n, 4);
	assert_int_equal(t->e[0].count, 5);
	assert_int_equal(t->e[1].count, 6);
	assert_int_equal(t->e[2].count, 0);
	assert_memory_equal(t->e[3].stack, "app;new", 7);
	assert_int_equal(t->e[3].count, 9);
	assert_int_equal(t->total, 20);
	assert_int_equal(fp_snapshot_stacks(&sn), 3);
	/* a full snapshot replaces the table: the next delta indexes it again */
	fp_snapshot_begin(&sn);
	fp_snapshot_add_stack(&sn, &tl, 1, 2, 1);
	fp_snapshot_end(&sn);
	fp_snapshot_set_stack(&sn, &tl, 2, 3);
	fp_snapshot_set_stack(&sn, &tl, 0, 1);
	t = fp_snapshot_table(&sn, &tl);
	assert_int_equal(t->n, 2);
	assert_int_equal(t->e[0].count, 3);
	assert_int_equal(t->total, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, fresh, done)
		T(a_snapshot_replaces_the_table_only_when_it_ends),
		T(a_stack_of_the_timeline_is_its_string_not_a_copy),
		T(entries_follow_the_timelines_text_when_it_moves),
		T(entries_from_before_and_after_a_move_all_follow_the_text),
		T(a_delta_sets_counts_in_the_table_and_adds_new_stacks),
		T(a_stack_by_id_is_the_entry_an_f_record_of_its_text_makes),
		T(a_delta_by_id_sets_counts_and_adds_new_stacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
