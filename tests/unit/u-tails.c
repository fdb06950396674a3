/* u-tails.c: the K definitions of a stack-id stream reader (fifo/fp_tails.h,
 * fp-fold's and fp-record's): a P record is the sample of its S record. */
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "fp_record.h"
#include "fp_tails.h"

/* The fields of a sample as one "event|comm|kinds|stack" string. */
static void fields_are(const struct fp_sample *s, const char *want)
{
	char got[256];

	snprintf(got, sizeof got, "%.*s|%.*s|%.*s|%.*s", (int)s->event.n, s->event.p,
		 (int)s->comm.n, s->comm.p, (int)s->kinds.n, s->kinds.p, (int)s->stack.n,
		 s->stack.p);
	assert_string_equal(got, want);
}

static void a_p_record_is_its_s_record(void **state)
{
	struct fp_tails t;
	struct fp_sample s;
	uint32_t id;

	fp_tails_init(&t);
	assert_int_equal(
		fp_tails_define_line(&t, LINE("K\t0\tcycles:ppp\tmy app\tku\tdo_it;main"), &id),
		FP_TAILS_OK);
	assert_int_equal(id, 0);
	assert_int_equal(fp_tails_define_line(&t, LINE("K\t1\t-\t?\t\t"), &id), FP_TAILS_OK);
	assert_int_equal(fp_tails_sample_line(&t, LINE("P\t5\t-1\t7\t2\t100\t0"), &s, &id),
			 FP_TAILS_OK);
	assert_int_equal(id, 0);
	assert_true(s.time_ns == 5 && s.pid == -1 && s.tid == 7 && s.cpu == 2 && s.period == 100);
	fields_are(&s, "cycles:ppp|my app|ku|do_it;main");
	assert_int_equal(fp_tails_sample_line(&t, LINE("P\t6\t1\t1\t0\t1\t1"), &s, &id),
			 FP_TAILS_OK);
	fields_are(&s, "-|?||"); /* no frames */
	fp_tails_free(&t);
}

static void a_k_records_cgroup_is_its_samples(void **state)
{
	struct fp_tails t;
	struct fp_sample s;

	fp_tails_init(&t);
	assert_int_equal(
		fp_tails_define_line(&t, LINE("K\t0\tcycles\tapp\tu\tmain\t/docker/x y"), NULL),
		FP_TAILS_OK);
	assert_int_equal(fp_tails_define_line(&t, LINE("K\t1\tcycles\tapp\tu\tmain"), NULL),
			 FP_TAILS_OK);
	/* a 7th field is the last: an 8th makes the record malformed */
	assert_int_equal(fp_tails_define_line(&t, LINE("K\t2\tcycles\tapp\tu\tmain\t/a\tb"), NULL),
			 FP_TAILS_MALFORMED);
	assert_int_equal(fp_tails_sample_line(&t, LINE("P\t5\t1\t1\t0\t1\t0"), &s, NULL),
			 FP_TAILS_OK);
	fields_are(&s, "cycles|app|u|main");
	assert_true(s.cgroup.n == 11 && !memcmp(s.cgroup.p, "/docker/x y", 11));
	assert_int_equal(fp_tails_sample_line(&t, LINE("P\t5\t1\t1\t0\t1\t1"), &s, NULL),
			 FP_TAILS_OK);
	assert_int_equal(s.cgroup.n, 0);
	fp_tails_free(&t);
}

static void a_new_definition_replaces_the_old_one(void **state)
{
	struct fp_tails t;
	struct fp_sample s;

	fp_tails_init(&t);
	for (int i = 0; i < 3000; i++) /* the arena grows and moves meanwhile */
		assert_int_equal(fp_tails_define_line(&t, LINE("K\t0\tcycles\tsh\tk\tmain"), NULL),
				 FP_TAILS_OK);
	assert_int_equal(fp_tails_define_line(&t, LINE("K\t0\tclock\tbash\tkku\ta;b;c"), NULL),
			 FP_TAILS_OK);
	assert_int_equal(fp_tails_sample_line(&t, LINE("P\t1\t1\t1\t1\t1\t0"), &s, NULL),
			 FP_TAILS_OK);
	fields_are(&s, "clock|bash|kku|a;b;c");
	assert_true(t.defined == 1 && t.redefined == 3000);
	fp_tails_free(&t);
}

static void a_shed_tail_keeps_its_event_comm_and_cgroup(void **state)
{
	struct fp_tails t;
	struct fp_sample s;

	fp_tails_init(&t);
	assert_int_equal(fp_tails_define_line(&t, LINE("K\t0\tcycles\tapp\tku\tf;main"), NULL),
			 FP_TAILS_OK);
	assert_int_equal(
		fp_tails_define_line(&t, LINE("K\t1\tclock\tmy app\tuu\tg;main\t/docker/x"), NULL),
		FP_TAILS_OK);
	assert_int_equal(fp_tails_shed(&t, 1), 1);
	assert_int_equal(fp_tails_sample_line(&t, LINE("P\t5\t1\t1\t0\t1\t1"), &s, NULL),
			 FP_TAILS_OK);
	fields_are(&s, "clock|my app||");
	assert_true(s.cgroup.n == 9 && !memcmp(s.cgroup.p, "/docker/x", 9));
	assert_int_equal(fp_tails_shed(&t, 1), 0); /* nothing left to drop */
	/* the next definition after it reads whole */
	assert_int_equal(fp_tails_define_line(&t, LINE("K\t2\tcycles\tsh\tk\th"), NULL),
			 FP_TAILS_OK);
	assert_int_equal(fp_tails_sample_line(&t, LINE("P\t5\t1\t1\t0\t1\t2"), &s, NULL),
			 FP_TAILS_OK);
	fields_are(&s, "cycles|sh|k|h");
	assert_int_equal(s.cgroup.n, 0);
	assert_int_equal(fp_tails_shed(&t, 2), 1);
	assert_int_equal(fp_tails_sample_line(&t, LINE("P\t5\t1\t1\t0\t1\t2"), &s, NULL),
			 FP_TAILS_OK);
	fields_are(&s, "cycles|sh||");
	assert_int_equal(s.cgroup.n, 0);
	fp_tails_free(&t);
}

static void only_the_latest_definition_gives_its_bytes_back(void **state)
{
	struct fp_tails t;
	struct fp_sample s;

	fp_tails_init(&t);
	assert_int_equal(fp_tails_define_line(&t, LINE("K\t0\tcycles\tapp\tku\tf;main"), NULL),
			 FP_TAILS_OK);
	assert_int_equal(fp_tails_define_line(&t, LINE("K\t1\tcycles\tapp\tu\tmain"), NULL),
			 FP_TAILS_OK);
	size_t len = t.text.len;
	assert_int_equal(fp_tails_shed(&t, 0), 0); /* another came after it */
	assert_int_equal(t.text.len, len);
	assert_int_equal(fp_tails_sample_line(&t, LINE("P\t5\t1\t1\t0\t1\t0"), &s, NULL),
			 FP_TAILS_OK);
	fields_are(&s, "cycles|app|ku|f;main");
	assert_int_equal(fp_tails_shed(&t, 1), 1);
	assert_true(t.text.len < len);
	fp_tails_free(&t);
}

/* Each K shed at its first P, as fp-fold does: the arena holds the heads. */
static void memory_follows_the_heads_of_shed_tails(void **state)
{
	struct fp_tails t;
	char line[4200];

	fp_tails_init(&t);
	for (int i = 0; i < 1000; i++) {
		int n = snprintf(line, sizeof line, "K\t%d\tcycles\tapp\t", i);
		memset(line + n, 'u', 1000);
		line[n + 1000] = '\t';
		for (int f = 0; f < 1000; f++)
			memcpy(line + n + 1001 + 3 * f, f ? ";ab" : "abc", 3);
		assert_int_equal(fp_tails_define_line(&t, line, (size_t)n + 4001, NULL),
				 FP_TAILS_OK);
		assert_int_equal(fp_tails_shed(&t, (uint32_t)i), 1);
	}
	assert_true(t.text.len < 1000 * (sizeof(struct fp_tail_head) + 16));
	fp_tails_free(&t);
}

static void ids_are_dense_and_a_p_names_a_defined_one(void **state)
{
	struct fp_tails t;
	struct fp_sample s;

	fp_tails_init(&t);
	assert_int_equal(fp_tails_define_line(&t, LINE("K\t1\tcycles\tsh\tk\tmain"), NULL),
			 FP_TAILS_SKIPS_AHEAD);
	assert_int_equal(fp_tails_sample_line(&t, LINE("P\t1\t1\t1\t1\t1\t0"), &s, NULL),
			 FP_TAILS_UNDEFINED);
	assert_int_equal(fp_tails_define_line(&t, LINE("K\t0\tcycles\tsh\tkk\tmain"), NULL),
			 FP_TAILS_MALFORMED);
	for (uint32_t i = 0; i < 5000; i++) {
		char line[64];
		int n = snprintf(line, sizeof line, "K\t%u\tcycles\tc%u\tu\tf%u", i, i, i);
		assert_int_equal(fp_tails_define_line(&t, line, (size_t)n, NULL), FP_TAILS_OK);
	}
	assert_int_equal(fp_tails_sample_line(&t, LINE("P\t1\t1\t1\t1\t1\t4321"), &s, NULL),
			 FP_TAILS_OK);
	fields_are(&s, "cycles|c4321|u|f4321");
	assert_int_equal(fp_tails_sample_line(&t, LINE("P\t1\t1\t1\t1\t1\t5000"), &s, NULL),
			 FP_TAILS_UNDEFINED);
	fp_tails_free(&t);
}

/* The writer of a source's S records (fp-read's) spells the K and P
 * records as the writer of parsed samples does: with and without a
 * cgroup, and with an empty cgroup field, which a K record leaves out. */
static void s_records_become_the_k_and_p_records_of_their_samples(void **state)
{
	static const char *const recs[] = {
		"S\t5\t-1\t7\t2\t100\tcycles:ppp\tmy app\tku\tdo_it;main",
		"S\t6\t1\t1\t0\t1\t-\t?\t\t",
		"S\t7\t3\t3\t1\t1\tev\tapp\tuu\ta;b\t/docker/x",
		"S\t8\t3\t3\t1\t1\tev\tapp\tuu\ta;c\t",
		"S\t9\t-1\t7\t2\t100\tcycles:ppp\tmy app\tku\tdo_it;main",
	};
	struct fp_tailw a, b;
	struct fp_wmem wa = { 0 }, wb = { 0 };

	fp_tailw_init(&a);
	fp_tailw_init(&b);
	for (size_t i = 0; i < sizeof recs / sizeof *recs; i++) {
		struct fp_sample smp;

		fp_tailw_write_line(&a, fp_wmem_wr(&wa), recs[i], strlen(recs[i]));
		if (fp_sample_parse(recs[i], strlen(recs[i]), &smp) == 0)
			fp_tailw_write(&b, fp_wmem_wr(&wb), &smp);
	}
	fp_wmem_add(&wa, "", 1);
	fp_wmem_add(&wb, "", 1);
	assert_string_equal(wa.p, "K\t0\tcycles:ppp\tmy app\tku\tdo_it;main\n"
				  "P\t5\t-1\t7\t2\t100\t0\n"
				  "K\t1\t-\t?\t\t\n"
				  "P\t6\t1\t1\t0\t1\t1\n"
				  "K\t2\tev\tapp\tuu\ta;b\t/docker/x\n"
				  "P\t7\t3\t3\t1\t1\t2\n"
				  "K\t3\tev\tapp\tuu\ta;c\n"
				  "P\t8\t3\t3\t1\t1\t3\n"
				  "P\t9\t-1\t7\t2\t100\t0\n");
	assert_string_equal(wa.p, wb.p);
	fp_wmem_free(&wa);
	fp_wmem_free(&wb);
	fp_tailw_free(&a);
	fp_tailw_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_p_record_is_its_s_record),
		cmocka_unit_test(a_k_records_cgroup_is_its_samples),
		cmocka_unit_test(a_new_definition_replaces_the_old_one),
		cmocka_unit_test(a_shed_tail_keeps_its_event_comm_and_cgroup),
		cmocka_unit_test(only_the_latest_definition_gives_its_bytes_back),
		cmocka_unit_test(memory_follows_the_heads_of_shed_tails),
		cmocka_unit_test(ids_are_dense_and_a_p_names_a_defined_one),
		cmocka_unit_test(s_records_become_the_k_and_p_records_of_their_samples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
