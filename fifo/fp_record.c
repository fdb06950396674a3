/* fp_record.c: fields and S records (fp_record.h); the other record
 * types are in fp_records.c, the writers in fp_recwrite.c. */
#include <string.h>

#include "fp_record.h"

#define SAMPLE_FIELDS 10 /* tag + 9 fields */
#define MAX_FRACTION_DIGITS 9

size_t fp_split_fields(const char *line, size_t len, struct fp_str *f, size_t max)
{
	size_t n = 0;
	const char *p = line, *end = line + len;

	if (!max)
		return 0;
	while (n + 1 < max) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));

		if (!tab)
			break;
		f[n].p = p;
		f[n].n = (size_t)(tab - p);
		n++;
		p = tab + 1;
	}
	f[n].p = p;
	f[n].n = (size_t)(end - p);
	return n + 1;
}

int fp_parse_seconds_ns(const char *s, size_t n, uint64_t *ns)
{
	const char *dot = memchr(s, '.', n);
	size_t ilen = dot ? (size_t)(dot - s) : n;
	uint64_t secs, frac = 0;

	if (ilen == 0 && !(dot && n > 1))
		return -1;
	if (ilen == 0)
		secs = 0;
	else if (fp_parse_u64(s, ilen, &secs) < 0)
		return -1;
	if (dot) {
		size_t flen = n - ilen - 1;

		if (flen == 0 || flen > MAX_FRACTION_DIGITS)
			return -1;
		if (fp_parse_u64(dot + 1, flen, &frac) < 0)
			return -1;
		for (size_t i = flen; i < MAX_FRACTION_DIGITS; i++)
			frac *= 10;
	}
	if (secs > (UINT64_MAX - frac) / FP_NSEC_PER_SEC)
		return -1;
	*ns = secs * FP_NSEC_PER_SEC + frac;
	return 0;
}

/* Word-at-a-time byte tests: eight bytes per step instead of one memchr
 * call per frame (stacks are a few hundred bytes of short names). */
#define ONES 0x0101010101010101ull
#define LOW7 0x7f7f7f7f7f7f7f7full
#define WORD 8
#ifdef __SSE2__
#include <emmintrin.h>
#define SSE_BYTES 16
#define SSE_LANE_MAX 255 /* steps before a byte lane could overflow */
#endif

/* High bit set in exactly the bytes of x that are zero (no false hits). */
static inline uint64_t zero_bytes(uint64_t x)
{
	return ~(((x & LOW7) + LOW7) | x | LOW7);
}

/* Counts the ';' in s[0..n) and tells whether a TAB is among them. */
static size_t count_semis(const char *s, size_t n, int *has_tab)
{
	size_t count = 0, i = 0;
	uint64_t tabs = 0;

#ifdef __SSE2__
	/* 16 bytes a step: each match adds 1 to its byte lane (cmpeq gives
	 * -1, subtracted); the lanes are summed (psadbw) before they can
	 * reach 255. */
	const __m128i semi = _mm_set1_epi8(';'), tab = _mm_set1_epi8('\t');
	__m128i any_tab = _mm_setzero_si128();

	while (i + SSE_BYTES <= n) {
		__m128i lanes = _mm_setzero_si128();
		size_t stop = n - (n - i) % SSE_BYTES;

		if (stop - i > SSE_LANE_MAX * SSE_BYTES)
			stop = i + SSE_LANE_MAX * SSE_BYTES;
		for (; i < stop; i += SSE_BYTES) {
			__m128i v = _mm_loadu_si128((const __m128i *)(s + i));

			lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(v, semi));
			any_tab = _mm_or_si128(any_tab, _mm_cmpeq_epi8(v, tab));
		}
		__m128i sums = _mm_sad_epu8(lanes, _mm_setzero_si128());
		count += (size_t)_mm_cvtsi128_si32(sums) +
			 (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
	}
	tabs = (uint64_t)_mm_movemask_epi8(any_tab);
#endif

	for (; i + WORD <= n; i += WORD) {
		uint64_t v;

		memcpy(&v, s + i, WORD);
		/* 0 or 1 per byte, summed into the top byte by the multiply
		 * (no popcount instruction in baseline x86-64). */
		count += (size_t)(((zero_bytes(v ^ (ONES * ';')) >> 7) * ONES) >> 56);
		tabs |= zero_bytes(v ^ (ONES * '\t'));
	}
	for (; i < n; i++) {
		count += s[i] == ';';
		tabs |= s[i] == '\t';
	}
	*has_tab = tabs != 0;
	return count;
}

size_t fp_stack_depth(struct fp_str stack)
{
	int has_tab;

	if (stack.n == 0)
		return 0;
	return count_semis(stack.p, stack.n, &has_tab) + 1;
}

int fp_frames_ok(struct fp_str kinds, struct fp_str stack)
{
	int has_tab = 0;
	size_t depth = stack.n ? count_semis(stack.p, stack.n, &has_tab) + 1 : 0;

	return !has_tab && kinds.n == depth;
}

int fp_str_eq(struct fp_str a, const char *s)
{
	size_t n = strlen(s);

	return a.n == n && memcmp(a.p, s, n) == 0;
}

static int fp_id_ok(int64_t v)
{
	return v >= -1 && v <= FP_ID_MAX;
}

#define SAMPLE_TAIL_FIELDS 4     /* event comm kinds stack, after the head's five numbers */
#define SAMPLE_TAIL_FIELDS_MAX 5 /* and the optional cgroup */

int fp_sample_parse(const char *line, size_t len, struct fp_sample *s)
{
	struct fp_str f[SAMPLE_TAIL_FIELDS_MAX];
	size_t off, n;

	if (fp_sample_head_parse(line, len, s, &off) < 0)
		return -1;
	n = fp_split_fields(line + off, len - off, f, SAMPLE_TAIL_FIELDS_MAX);
	if (n < SAMPLE_TAIL_FIELDS)
		return -1;
	if (!fp_id_ok(s->pid) || !fp_id_ok(s->tid) || !fp_id_ok(s->cpu))
		return -1;
	s->event = f[0];
	s->comm = f[1];
	s->kinds = f[2];
	s->stack = f[3];
	s->cgroup = n > SAMPLE_TAIL_FIELDS ? f[4] : (struct fp_str){ "", 0 };
	if (memchr(s->cgroup.p, '\t', s->cgroup.n))
		return -1; /* a 12th field */
	return fp_frames_ok(s->kinds, s->stack) ? 0 : -1;
}

const char *fp_sample_problem(const char *line, size_t len)
{
	struct fp_str f[SAMPLE_FIELDS + 2];
	size_t n = fp_split_fields(line, len, f, SAMPLE_FIELDS + 2);
	uint64_t u;
	int64_t i;

	if (n != SAMPLE_FIELDS && n != SAMPLE_FIELDS + 1)
		return "want 10 or 11 TAB-separated fields "
		       "(S time_ns pid tid cpu period event comm kinds stack [cgroup])";
	if (fp_parse_u64(f[1].p, f[1].n, &u) || fp_parse_i64(f[2].p, f[2].n, &i) ||
	    fp_parse_i64(f[3].p, f[3].n, &i) || fp_parse_i64(f[4].p, f[4].n, &i) ||
	    fp_parse_u64(f[5].p, f[5].n, &u))
		return "time_ns and period must be unsigned decimal, pid, tid and cpu decimal";
	for (int k = 2; k <= 4; k++)
		if (fp_parse_i64(f[k].p, f[k].n, &i) == 0 && !fp_id_ok(i))
			return "pid, tid and cpu must be -1 .. 2147483647";
	return "kinds must have one character per frame";
}
