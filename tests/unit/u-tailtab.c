/* u-tailtab.c: fp-range's tail table (stages/fp-range/fp_tailtab.h): the own ids of
 * an upstream stack-id stream, and P and K records written from the
 * lines as they came that are byte for byte what the record writers
 * (fp_write_tail_ref, fp_write_tail_def) write for the own ids. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "fp_tailtab.h"

struct fixture {
	struct fp_tailtab tt;
	struct fp_wmem got, want;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	fp_tailtab_init(&f->tt);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	fp_tailtab_free(&f->tt);
	fp_wmem_free(&f->got);
	fp_wmem_free(&f->want);
	free(f);
	return 0;
}

static void define(struct fixture *f, const char *line)
{
	assert_int_equal(fp_tailtab_define_line(&f->tt, line, strlen(line)), FP_TAILS_OK);
}

/* P line through fp_tailtab_ref_line: its own id, and the record
 * fp_tailtab_write_ref writes compared with fp_write_tail_ref's (the
 * stage's old path: the parsed numbers and the own id written anew). */
static uint32_t ref_written_as_writer_would(struct fixture *f, const char *line)
{
	struct fp_tailtab_ref r;
	struct fp_tail_ref own;

	assert_int_equal(fp_tailtab_ref_line(&f->tt, line, strlen(line), &r), FP_TAILS_OK);
	f->got.len = f->want.len = 0;
	fp_tailtab_write_ref(fp_wmem_wr(&f->got), line, &r);
	own = r.ref;
	own.id = r.own;
	fp_write_tail_ref(fp_wmem_wr(&f->want), &own);
	assert_int_equal(f->got.len, f->want.len);
	assert_memory_equal(f->got.p, f->want.p, f->want.len);
	return r.own;
}

/* The K record of own id as fp_tailtab_write_def writes it, compared with
 * fp_write_tail_def's of its fields; it is want_line. */
static void def_is(struct fixture *f, uint32_t id, const char *want_line)
{
	struct fp_sample s = { 0 };

	f->got.len = f->want.len = 0;
	fp_tailtab_write_def(&f->tt, fp_wmem_wr(&f->got), id);
	fp_tailtab_fields(&f->tt, id, &s);
	fp_write_tail_def(fp_wmem_wr(&f->want), id, &s);
	assert_int_equal(f->got.len, f->want.len);
	assert_memory_equal(f->got.p, f->want.p, f->want.len);
	assert_int_equal(f->got.len, strlen(want_line));
	assert_memory_equal(f->got.p, want_line, strlen(want_line));
}

static void a_p_of_coinciding_ids_goes_out_as_it_came(void **state)
{
	struct fixture *f = *state;

	define(f, "K\t0\tcycles\tsh\tkk\ta;b");
	assert_int_equal(ref_written_as_writer_would(f, "P\t5\t-1\t7\t0\t1\t0"), 0);
	assert_memory_equal(f->got.p, "P\t5\t-1\t7\t0\t1\t0\n", f->got.len);
	define(f, "K\t1\tcycles\tsh\tk\tc");
	assert_int_equal(ref_written_as_writer_would(f, "P\t6\t2\t2\t1\t1\t1"), 1);
	assert_memory_equal(f->got.p, "P\t6\t2\t2\t1\t1\t1\n", f->got.len);
	assert_int_equal(f->tt.ntails, 2);
	def_is(f, 0, "K\t0\tcycles\tsh\tkk\ta;b\n");
}

static void own_ids_follow_the_first_samples_not_the_k_records(void **state)
{
	struct fixture *f = *state;

	define(f, "K\t0\tcycles\tsh\tk\ta");
	define(f, "K\t1\tcycles\tsh\tk\tb");
	assert_int_equal(ref_written_as_writer_would(f, "P\t5\t1\t1\t0\t1\t1"), 0);
	assert_memory_equal(f->got.p, "P\t5\t1\t1\t0\t1\t0\n", f->got.len);
	assert_int_equal(ref_written_as_writer_would(f, "P\t6\t1\t1\t0\t1\t0"), 1);
	assert_memory_equal(f->got.p, "P\t6\t1\t1\t0\t1\t1\n", f->got.len);
	def_is(f, 0, "K\t0\tcycles\tsh\tk\tb\n");
}

static void two_k_records_of_one_text_share_an_own_id(void **state)
{
	struct fixture *f = *state;

	define(f, "K\t0\tcycles\tsh\tk\tmain");
	define(f, "K\t1\tcycles\tsh\tk\tmain");
	define(f, "K\t2\tcycles\tsh\tk\tother");
	assert_int_equal(ref_written_as_writer_would(f, "P\t1\t1\t1\t1\t1\t0"), 0);
	assert_int_equal(ref_written_as_writer_would(f, "P\t2\t1\t1\t1\t1\t1"), 0);
	assert_memory_equal(f->got.p, "P\t2\t1\t1\t1\t1\t0\n", f->got.len);
	/* the ids no longer coincide: 2 is own id 1 */
	assert_int_equal(ref_written_as_writer_would(f, "P\t3\t1\t1\t1\t1\t2"), 1);
	assert_memory_equal(f->got.p, "P\t3\t1\t1\t1\t1\t1\n", f->got.len);
	assert_int_equal(f->tt.ntails, 2);
	def_is(f, 1, "K\t1\tcycles\tsh\tk\tother\n");
}

static void a_k_without_samples_gets_no_own_id(void **state)
{
	struct fixture *f = *state;

	define(f, "K\t0\tcycles\tswapper\tk\tcpu_idle");
	define(f, "K\t1\tcycles\tsh\tk\tmain");
	assert_int_equal(ref_written_as_writer_would(f, "P\t1\t1\t1\t1\t1\t1"), 0);
	assert_memory_equal(f->got.p, "P\t1\t1\t1\t1\t1\t0\n", f->got.len);
	assert_int_equal(f->tt.ntails, 1);
	def_is(f, 0, "K\t0\tcycles\tsh\tk\tmain\n");
}

static void numbers_not_written_canonically_are_written_anew(void **state)
{
	struct fixture *f = *state;

	define(f, "K\t0\tcycles\tsh\tk\tmain");
	ref_written_as_writer_would(f, "P\t007\t1\t1\t1\t1\t0");
	assert_memory_equal(f->got.p, "P\t7\t1\t1\t1\t1\t0\n", f->got.len);
	ref_written_as_writer_would(f, "P\t1\t-0\t1\t1\t1\t0");
	assert_memory_equal(f->got.p, "P\t1\t0\t1\t1\t1\t0\n", f->got.len);
	ref_written_as_writer_would(f, "P\t1\t-01\t1\t1\t1\t0");
	assert_memory_equal(f->got.p, "P\t1\t-1\t1\t1\t1\t0\n", f->got.len);
	ref_written_as_writer_would(f, "P\t1\t1\t1\t1\t1\t00");
	assert_memory_equal(f->got.p, "P\t1\t1\t1\t1\t1\t0\n", f->got.len);
	ref_written_as_writer_would(f, "P\t0\t0\t0\t0\t0\t0"); /* zeros are canonical */
	assert_memory_equal(f->got.p, "P\t0\t0\t0\t0\t0\t0\n", f->got.len);
}

static void a_head_not_canonical_keeps_the_own_id(void **state)
{
	struct fixture *f = *state;

	define(f, "K\t0\tcycles\tsh\tk\tmain");
	define(f, "K\t1\tcycles\tsh\tk\tmain");
	ref_written_as_writer_would(f, "P\t1\t1\t1\t1\t1\t0");
	ref_written_as_writer_would(f, "P\t1\t01\t1\t1\t1\t1");
	assert_memory_equal(f->got.p, "P\t1\t1\t1\t1\t1\t0\n", f->got.len);
}

static void a_redefined_id_takes_its_new_text_from_its_next_sample(void **state)
{
	struct fixture *f = *state;

	define(f, "K\t0\tcycles\tsh\tk\tmain");
	assert_int_equal(ref_written_as_writer_would(f, "P\t1\t1\t1\t1\t1\t0"), 0);
	define(f, "K\t0\tcycles\tsh\tkk\tmain;work"); /* a restarted source */
	assert_int_equal(ref_written_as_writer_would(f, "P\t2\t1\t1\t1\t1\t0"), 1);
	assert_memory_equal(f->got.p, "P\t2\t1\t1\t1\t1\t1\n", f->got.len);
	def_is(f, 1, "K\t1\tcycles\tsh\tkk\tmain;work\n");
	define(f, "K\t0\tcycles\tsh\tk\tmain"); /* back to the first text */
	assert_int_equal(ref_written_as_writer_would(f, "P\t3\t1\t1\t1\t1\t0"), 0);
}

static void s_and_p_samples_of_one_tail_share_an_own_id(void **state)
{
	struct fixture *f = *state;
	static const char s_line[] = "S\t1\t1\t1\t1\t1\tcycles\tsh\tk\tmain";
	struct fp_sample s;

	assert_int_equal(fp_sample_parse(LINE(s_line), &s), 0);
	define(f, "K\t0\tcycles\tsh\tk\tother");
	assert_int_equal(fp_tailtab_intern_sample(&f->tt, LINE(s_line), &s), 0);
	define(f, "K\t1\tcycles\tsh\tk\tmain");
	assert_int_equal(ref_written_as_writer_would(f, "P\t1\t1\t1\t1\t1\t1"), 0);
	assert_int_equal(ref_written_as_writer_would(f, "P\t1\t1\t1\t1\t1\t0"), 1);
}

static uint32_t intern_s(struct fixture *f, const char *line)
{
	struct fp_sample s;

	assert_int_equal(fp_sample_parse(line, strlen(line), &s), 0);
	return fp_tailtab_intern_sample(&f->tt, line, strlen(line), &s);
}

static void s_samples_then_a_k_of_a_new_text_keep_their_own_ids(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(intern_s(f, "S\t1\t1\t1\t1\t1\tcycles\tsh\tk\ta"), 0);
	assert_int_equal(intern_s(f, "S\t1\t1\t1\t1\t1\tcycles\tsh\tk\tb"), 1);
	define(f, "K\t0\tcycles\tsh\tk\tnew"); /* a text, no own id yet */
	define(f, "K\t1\tcycles\tsh\tk\tb");
	assert_int_equal(intern_s(f, "S\t1\t1\t1\t1\t1\tcycles\tsh\tk\tc"), 2);
	assert_int_equal(intern_s(f, "S\t1\t1\t1\t1\t1\tcycles\tsh\tk\ta"), 0);
	assert_int_equal(ref_written_as_writer_would(f, "P\t1\t1\t1\t1\t1\t0"), 3);
	assert_int_equal(ref_written_as_writer_would(f, "P\t1\t1\t1\t1\t1\t1"), 1);
	assert_int_equal(intern_s(f, "S\t1\t1\t1\t1\t1\tcycles\tsh\tk\tnew"), 3);
	assert_int_equal(intern_s(f, "S\t1\t1\t1\t1\t1\tcycles\tsh\tk\tc"), 2);
	assert_int_equal(f->tt.ntails, 4);
	def_is(f, 3, "K\t3\tcycles\tsh\tk\tnew\n");
}

static void bad_k_and_p_records_are_refused_as_fp_tails_refuses_them(void **state)
{
	struct fixture *f = *state;
	struct fp_tailtab_ref r;

	assert_int_equal(fp_tailtab_define_line(&f->tt, LINE("K\t1\tcycles\tsh\tk\tmain")),
			 FP_TAILS_SKIPS_AHEAD);
	assert_int_equal(fp_tailtab_define_line(&f->tt, LINE("K\t0\tcycles\tsh\tkk\tmain")),
			 FP_TAILS_MALFORMED); /* two kinds, one frame */
	assert_int_equal(fp_tailtab_ref_line(&f->tt, LINE("P\t1\t1\t1\t1\t1\t0"), &r),
			 FP_TAILS_UNDEFINED);
	define(f, "K\t0\tcycles\tsh\tk\tmain");
	assert_int_equal(fp_tailtab_ref_line(&f->tt, LINE("P\t1\t1\t1\t1\t0"), &r),
			 FP_TAILS_MALFORMED);
	assert_int_equal(fp_tailtab_ref_line(&f->tt, LINE("P\t1\t-2\t1\t1\t1\t0"), &r),
			 FP_TAILS_MALFORMED);
	assert_int_equal(f->tt.ntails, 0);
}

/* ---- the P parser against the field-by-field rules ---------------------- */

#define P_FIELDS 7

/* A decimal digit by digit, refusing the digit that would overflow (the
 * rule fp_parse_u64 keeps four digits at a time). */
static int ref_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > 20)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int ref_i64(const char *s, size_t n, int64_t *out)
{
	uint64_t v;

	if (n > 0 && s[0] == '-') {
		if (ref_u64(s + 1, n - 1, &v) < 0 || v > (uint64_t)INT64_MAX + 1)
			return -1;
		*out = (int64_t)(0 - v);
		return 0;
	}
	if (ref_u64(s, n, &v) < 0 || v > (uint64_t)INT64_MAX)
		return -1;
	*out = (int64_t)v;
	return 0;
}

/* fp_tail_ref_parse_head as PROTOCOL.md states it, field by field with
 * fp_split_fields and the digit-by-digit rules (the parser reads in one
 * pass, with fp_parse_u64). */
static int reference_parse(const char *line, size_t len, struct fp_tail_ref *r, size_t *head_n,
			   int *canonical)
{
	struct fp_str f[P_FIELDS];
	uint64_t id;

	if (len < 1 || line[0] != 'P' || (len > 1 && line[1] != '\t') ||
	    fp_split_fields(line, len, f, P_FIELDS) != P_FIELDS ||
	    ref_u64(f[1].p, f[1].n, &r->time_ns) < 0 || ref_i64(f[2].p, f[2].n, &r->pid) < 0 ||
	    ref_i64(f[3].p, f[3].n, &r->tid) < 0 || ref_i64(f[4].p, f[4].n, &r->cpu) < 0 ||
	    ref_u64(f[5].p, f[5].n, &r->period) < 0 || ref_u64(f[6].p, f[6].n, &id) < 0 ||
	    id >= FP_STACK_ID_MAX)
		return -1;
	for (int i = 2; i <= 4; i++) {
		int64_t v = i == 2 ? r->pid : i == 3 ? r->tid : r->cpu;
		if (v < -1 || v > FP_ID_MAX)
			return -1;
	}
	r->id = (uint32_t)id;
	*canonical = 1;
	for (int i = 1; i < P_FIELDS; i++)
		if (f[i].n > 1 && (f[i].p[0] == '0' || (f[i].p[0] == '-' && f[i].p[1] == '0')))
			*canonical = 0;
	*head_n = (size_t)(f[6].p - 1 - line);
	return 0;
}

/* The parser and the reference agree on line: refused by both, or read
 * alike. Returns 1 if it was read. */
static int parsers_agree(const char *line, size_t len)
{
	struct fp_tail_ref a = { 0 }, b = { 0 };
	size_t ha = 0, hb = 0;
	int ca = -1, cb = -1;
	int ra = fp_tail_ref_parse_head(line, len, &a, &ha, &ca);
	int rb = reference_parse(line, len, &b, &hb, &cb);
	struct fp_tail_ref c;

	if (ra != rb)
		fail_msg("\"%.*s\": parser %d, reference %d", (int)len, line, ra, rb);
	assert_int_equal(fp_tail_ref_parse(line, len, &c), ra);
	if (ra < 0)
		return 0;
	if (a.time_ns != b.time_ns || a.pid != b.pid || a.tid != b.tid || a.cpu != b.cpu ||
	    a.period != b.period || a.id != b.id || ha != hb || ca != cb)
		fail_msg("\"%.*s\": read otherwise than the reference", (int)len, line);
	return 1;
}

static void the_p_parser_reads_what_the_field_rules_read(void **state)
{
	static const char *const seeds[] = {
		"P\t5873583507224\t26327\t26327\t0\t200040\t0",
		"P\t0\t-1\t-1\t-1\t0\t4294967293",
		"P\t18446744073709551615\t2147483647\t0\t1\t18446744073709551615\t12",
	};
	static const char *const numbers[] = {
		"",
		"0",
		"00",
		"-0",
		"-00",
		"-1",
		"-01",
		"-2",
		"1",
		"01",
		"2147483647",
		"2147483648",
		"-2147483648",
		"4294967293",
		"4294967294",
		"4294967295",
		"9223372036854775807",
		"9223372036854775808",
		"-9223372036854775808",
		"-9223372036854775809",
		"18446744073709551615",
		"18446744073709551616",
		"99999999999999999999",
		"00000000000000000001",
		"000000000000000000001",
		"1-",
		"+1",
		"1 ",
		"0x1",
	};
	static const char edits[] = "019-\ta \r";
	char buf[256];
	size_t read = 0, tried = 0;

	for (size_t k = 0; k < sizeof seeds / sizeof *seeds; k++) {
		const char *seed = seeds[k];
		size_t n = strlen(seed);

		read += parsers_agree(seed, n), tried++;
		for (size_t i = 0; i <= n; i++) {
			for (size_t e = 0; e < sizeof edits - 1; e++) {
				/* replace byte i, insert before it */
				memcpy(buf, seed, n);
				if (i < n) {
					buf[i] = edits[e];
					read += parsers_agree(buf, n), tried++;
				}
				memcpy(buf, seed, i);
				buf[i] = edits[e];
				memcpy(buf + i + 1, seed + i, n - i);
				read += parsers_agree(buf, n + 1), tried++;
			}
			if (i < n) { /* delete byte i */
				memcpy(buf, seed, i);
				memcpy(buf + i, seed + i + 1, n - i - 1);
				read += parsers_agree(buf, n - 1), tried++;
			}
		}
		for (int field = 1; field < P_FIELDS; field++) /* each number in each field */
			for (size_t v = 0; v < sizeof numbers / sizeof *numbers; v++) {
				struct fp_str f[P_FIELDS];
				size_t len = 0;

				fp_split_fields(seed, n, f, P_FIELDS);
				for (int j = 0; j < P_FIELDS; j++) {
					const char *p = j == field ? numbers[v] : f[j].p;
					size_t m = j == field ? strlen(numbers[v]) : f[j].n;

					if (j)
						buf[len++] = '\t';
					memcpy(buf + len, p, m);
					len += m;
				}
				read += parsers_agree(buf, len), tried++;
			}
	}
	/* both outcomes were tried many times */
	assert_true(read > 100 && tried - read > 100);
}

/* Random lines of six fields of 0 to 22 characters, mostly digits (a '-'
 * first, a stray byte, a missing or extra TAB now and then): numbers of
 * every length at every distance from the end of the line. */
static void random_p_lines_are_read_as_the_field_rules_read(void **state)
{
	static const char stray[] = "-+ /:a\t\r0";
	uint64_t seed = 0x2545F4914F6CDD1Dull;
	char buf[256];
	size_t read = 0;

#define NEXT() (seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17, seed)
	for (int k = 0; k < 200000; k++) {
		size_t len = 0;

		buf[len++] = 'P';
		for (int field = 1; field < P_FIELDS; field++) {
			if (NEXT() % 64 != 0) /* else a TAB missing */
				buf[len++] = '\t';
			size_t n = NEXT() % 23;
			if (NEXT() % 8 == 0)
				buf[len++] = '-';
			for (size_t i = 0; i < n; i++)
				buf[len++] = (char)('0' + NEXT() % 10);
			if (NEXT() % 32 == 0)
				buf[len++] = stray[NEXT() % (sizeof stray - 1)];
		}
		read += parsers_agree(buf, len);
	}
#undef NEXT
	assert_true(read > 1000);
}

/* fp_sample_parse as PROTOCOL.md states it: ten fields, or eleven with
 * the cgroup, the numbers by the digit rule, one kind per frame and no
 * TAB in the stack or the cgroup. */
static int reference_s_parse(const char *line, size_t len, struct fp_sample *s)
{
	struct fp_str f[12];
	size_t frames = 0, n;

	if (len < 2 || line[0] != 'S' || line[1] != '\t' ||
	    ((n = fp_split_fields(line, len, f, 12)) != 10 && n != 11) ||
	    ref_u64(f[1].p, f[1].n, &s->time_ns) < 0 || ref_i64(f[2].p, f[2].n, &s->pid) < 0 ||
	    ref_i64(f[3].p, f[3].n, &s->tid) < 0 || ref_i64(f[4].p, f[4].n, &s->cpu) < 0 ||
	    ref_u64(f[5].p, f[5].n, &s->period) < 0)
		return -1;
	for (int i = 2; i <= 4; i++) {
		int64_t v = i == 2 ? s->pid : i == 3 ? s->tid : s->cpu;
		if (v < -1 || v > FP_ID_MAX)
			return -1;
	}
	for (size_t i = 0; i < f[9].n; i++)
		frames += f[9].p[i] == ';';
	if (f[8].n != (f[9].n ? frames + 1 : 0))
		return -1;
	s->event = f[6], s->comm = f[7], s->kinds = f[8], s->stack = f[9];
	s->cgroup = n == 11 ? f[10] : (struct fp_str){ "", 0 };
	return 0;
}

static int same_str(struct fp_str a, struct fp_str b)
{
	return a.p == b.p && a.n == b.n;
}

/* Random S lines (numbers as in the P lines, a tail of four fields with
 * TABs and ';' here and there, kinds of the right length or not). */
static void random_s_lines_are_read_as_the_field_rules_read(void **state)
{
	static const char tail_bytes[] = "ab;;\t-?k";
	uint64_t seed = 0x9E3779B97F4A7C15ull;
	char buf[512];
	size_t read = 0;

#define NEXT() (seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17, seed)
	for (int k = 0; k < 200000; k++) {
		size_t len = 0, frames = 1;

		buf[len++] = NEXT() % 64 ? 'S' : 'P';
		for (int field = 1; field <= 5; field++) {
			if (NEXT() % 64 != 0)
				buf[len++] = '\t';
			size_t n = NEXT() % 23;
			if (NEXT() % 8 == 0)
				buf[len++] = '-';
			for (size_t i = 0; i < n; i++)
				buf[len++] = (char)('0' + NEXT() % 10);
		}
		buf[len++] = '\t';
		size_t ev = NEXT() % 4, cm = NEXT() % 4, st = NEXT() % 12;
		for (size_t i = 0; i < ev; i++)
			buf[len++] = tail_bytes[NEXT() % (sizeof tail_bytes - 1)];
		buf[len++] = '\t';
		for (size_t i = 0; i < cm; i++)
			buf[len++] = 'c';
		buf[len++] = '\t';
		char stack[16];
		for (size_t i = 0; i < st; i++) {
			stack[i] = NEXT() % 3 ? 'f' : NEXT() % 16 ? ';' : '\t';
			frames += stack[i] == ';';
		}
		size_t kinds = st == 0 ? 0 : NEXT() % 4 ? frames : NEXT() % 5;
		for (size_t i = 0; i < kinds; i++)
			buf[len++] = 'k';
		buf[len++] = '\t';
		memcpy(buf + len, stack, st);
		len += st;

		struct fp_sample a = { 0 }, b = { 0 };
		int ra = fp_sample_parse(buf, len, &a), rb = reference_s_parse(buf, len, &b);
		if (ra != rb)
			fail_msg("\"%.*s\": parser %d, reference %d", (int)len, buf, ra, rb);
		if (ra == 0 &&
		    (a.time_ns != b.time_ns || a.pid != b.pid || a.tid != b.tid || a.cpu != b.cpu ||
		     a.period != b.period || !same_str(a.event, b.event) ||
		     !same_str(a.comm, b.comm) || !same_str(a.kinds, b.kinds) ||
		     !same_str(a.stack, b.stack) || a.cgroup.n != b.cgroup.n ||
		     (a.cgroup.n && a.cgroup.p != b.cgroup.p)))
			fail_msg("\"%.*s\": read otherwise than the reference", (int)len, buf);
		read += ra == 0;
	}
#undef NEXT
	assert_true(read > 1000);
}

static void fp_parse_u64_reads_what_the_digit_rule_reads(void **state)
{
	static const char *const numbers[] = {
		"",
		"0",
		"7",
		"00",
		"1234",
		"12345",
		"99999999",
		"123456789",
		"4294967296",
		"9223372036854775807",
		"9999999999999999999",
		"10000000000000000000",
		"18446744073709551614",
		"18446744073709551615",
		"18446744073709551616",
		"18446744073709551625",
		"19999999999999999999",
		"28446744073709551615",
		"99999999999999999999",
		"00000000000000000001",
		"000000000000000000001",
		"1x",
		"x1",
		"12 4",
		"-1",
		"+1",
		"1:",
		"/1",
	};
	char buf[24];
	uint64_t seed = 88172645463325252ull;

	for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) {
		uint64_t a = 1, b = 2;
		size_t n = strlen(numbers[i]);
		int ra = fp_parse_u64(numbers[i], n, &a), rb = ref_u64(numbers[i], n, &b);

		if (ra != rb || (ra == 0 && a != b))
			fail_msg("\"%s\": %d %llu, the digit rule %d %llu", numbers[i], ra,
				 (unsigned long long)a, rb, (unsigned long long)b);
	}
	for (int k = 0; k < 100000; k++) { /* random digit strings of 1 .. 21 digits */
		uint64_t a = 1, b = 2;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		size_t n = 1 + seed % 21;
		for (size_t i = 0; i < n; i++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			buf[i] = (char)(i == 0 && n >= 20 ? '1' + seed % 2 : '0' + seed % 10);
		}
		int ra = fp_parse_u64(buf, n, &a), rb = ref_u64(buf, n, &b);
		if (ra != rb || (ra == 0 && a != b))
			fail_msg("\"%.*s\": %d %llu, the digit rule %d %llu", (int)n, buf, ra,
				 (unsigned long long)a, rb, (unsigned long long)b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_p_of_coinciding_ids_goes_out_as_it_came, setup,
						teardown),
		cmocka_unit_test_setup_teardown(own_ids_follow_the_first_samples_not_the_k_records,
						setup, teardown),
		cmocka_unit_test_setup_teardown(two_k_records_of_one_text_share_an_own_id, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_k_without_samples_gets_no_own_id, setup,
						teardown),
		cmocka_unit_test_setup_teardown(numbers_not_written_canonically_are_written_anew,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_head_not_canonical_keeps_the_own_id, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			a_redefined_id_takes_its_new_text_from_its_next_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(s_and_p_samples_of_one_tail_share_an_own_id, setup,
						teardown),
		cmocka_unit_test_setup_teardown(s_samples_then_a_k_of_a_new_text_keep_their_own_ids,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			bad_k_and_p_records_are_refused_as_fp_tails_refuses_them, setup, teardown),
		cmocka_unit_test(the_p_parser_reads_what_the_field_rules_read),
		cmocka_unit_test(random_p_lines_are_read_as_the_field_rules_read),
		cmocka_unit_test(fp_parse_u64_reads_what_the_digit_rule_reads),
		cmocka_unit_test(random_s_lines_are_read_as_the_field_rules_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
