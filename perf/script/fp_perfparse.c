/* fp_perfparse.c: `perf script` text to S records (see fp_perfparse.h).
 *
 * Hot path: frame lines. Each costs a scan over the address, one memrchr
 * for the dso group, a short backward scan for the +0x offset and one copy
 * of the symbol into the record buffer, which is filled from its end down
 * so that perf's leaf-first frames come out root first without a second
 * pass. Event lines are rarer and parsed field by field from the timestamp.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "fp_bytes.h"
#include "fp_error.h"
#include "fp_fmt.h"
#include "fp_io.h"
#include "fp_perfparse.h"
#include "fp_perftext.h"
#include "fp_record.h"

/* The record is built in rec[0 .. REC_CAP): the stack ends at STACK_END,
 * where the LF is; the header fields are prepended to the stack at the end.
 * So a finished record is never longer than FP_LINE_MAX. */
#define REC_CAP FP_LINE_MAX
#define STACK_END (REC_CAP - 1)
/* Every frame costs at least one name byte plus a ';' in the stack, so the
 * kinds field can never need more than half a record. */
#define KINDS_CAP (FP_LINE_MAX / 2)
/* comm and event together come from one input line. */
#define HDR_CAP FP_LINE_MAX
/* More digits than this before the '.' cannot be a perf timestamp in ns
 * that fits 64 bits (10 digits of seconds = 317 years). */
#define TIME_SEC_DIGITS_MAX 10
#define TIME_FRAC_DIGITS_MAX 9

#define PERF_RECORD_LOST "PERF_RECORD_LOST"
#define UNKNOWN_NAME "[unknown]"

/* perf prints a frame as TAB, the address right-aligned in 16 columns
 * (`%16lx`), a space, then the symbol: the fast path checks that shape. */
#define PERF_ADDR_WIDTH 16

/* The per-frame helpers are small and called from one hot spot each. */
#define HOT_INLINE static inline __attribute__((always_inline))

static int has_suffix(const char *s, size_t n, const char *suf, size_t sn)
{
	return n >= sn && memcmp(s + n - sn, suf, sn) == 0;
}

#define HAS_SUFFIX(s, n, lit) has_suffix(s, n, lit, sizeof(lit) - 1)
#define IS_LIT(s, n, lit) ((n) == sizeof(lit) - 1 && memcmp(s, lit, n) == 0)

/* Word-at-a-time byte tests (little or big endian alike: only "is there
 * any" is asked). From the classic bit hacks: exact for "any byte". */
#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull
#define WORD 8

static inline uint64_t load_word(const char *p)
{
	uint64_t v;
	memcpy(&v, p, WORD);
	return v;
}

static inline uint64_t has_byte(uint64_t v, unsigned char c)
{
	uint64_t x = v ^ (ONES * c);
	return (x - ONES) & ~x & HIGHS;
}

static inline uint64_t has_less(uint64_t v, unsigned char n)
{
	return (v - ONES * n) & ~v & HIGHS;
}

#define LOW7 0x7f7f7f7f7f7f7f7full

/* High bit set in exactly the bytes of x that are zero. */
static inline uint64_t zero_bytes(uint64_t x)
{
	return ~(((x & LOW7) + LOW7) | x | LOW7);
}

static inline int word_needs_cleaning(uint64_t v)
{
	return (has_byte(v, ';') | has_less(v, 0x20) | has_byte(v, 0x7f)) != 0;
}

#ifdef __SSE2__
/* Bytes of v the protocol does not allow in a name: ';', DEL, and those
 * below 0x20 (the unsigned minimum of such a byte and 0x1f is itself). */
static inline unsigned bad_bytes(__m128i v)
{
	const __m128i semi = _mm_set1_epi8(';'), del = _mm_set1_epi8(0x7f),
		      ctl = _mm_set1_epi8(0x1f);

	return (unsigned)_mm_movemask_epi8(
		_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, semi), _mm_cmpeq_epi8(v, del)),
			     _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v)));
}
#endif

/* Does a name hold a byte the protocol does not allow in a name? */
HOT_INLINE int needs_cleaning(const char *s, size_t n)
{
	if (n < WORD) {
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)s[i];
			if (c == ';' || c < 0x20 || c == 0x7f)
				return 1;
		}
		return 0;
	}
#ifdef __SSE2__
	/* 16 bytes a step (x86-64's baseline), the last 16 overlapping: the
	 * three tests a word at a time were a tenth of fp-read. */
	if (n >= 2 * WORD) {
		for (size_t i = 0;; i += 2 * WORD) {
			if (i + 2 * WORD > n)
				i = n - 2 * WORD;
			if (bad_bytes(_mm_loadu_si128((const __m128i *)(s + i))))
				return 1;
			if (i + 2 * WORD >= n)
				return 0;
		}
	}
#endif
	for (size_t i = 0; i + WORD < n; i += WORD)
		if (word_needs_cleaning(load_word(s + i)))
			return 1;
	/* The last word overlaps the one before: no byte loop for the tail. */
	return word_needs_cleaning(load_word(s + n - WORD));
}

/* Copies a name, making it safe for the protocol: ';' separates frames, so
 * it becomes ':' (as stackcollapse-perf.pl does); TAB, CR, NUL and other
 * control bytes become a space. */
HOT_INLINE void copy_name(char *dst, const char *src, size_t n)
{
	memcpy(dst, src, n);
	if (!needs_cleaning(src, n))
		return;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];
		dst[i] = c == ';' ? ':' : (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
	}
}

/* copy_name for a frame's name of n bytes at src, where the bytes up to
 * readable (the line's end) may be read: most names (13 bytes on average,
 * followed by their offset and dso) are checked with one or two 16-byte
 * loads and stored from them, without memcpy's call and the word-at-a-
 * time tests (half of parse_frame's instructions). Exactly dst[0..n) is
 * written: the record is filled from its end down, the next frame's
 * bytes lie right after. */
HOT_INLINE void copy_frame_name(char *dst, const char *src, size_t n, const char *readable)
{
#ifdef __SSE2__
	if (n >= 4 && n <= 2 * 16 && readable - src >= 2 * 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)src);
		__m128i b = _mm_loadu_si128((const __m128i *)(src + 16));
		uint32_t bad = bad_bytes(a) | bad_bytes(b) << 16;

		if (!(bad & (uint32_t)((UINT64_C(1) << n) - 1))) {
			if (n >= 16) { /* two 16-byte stores, overlapping */
				_mm_storeu_si128((__m128i *)dst, a);
				_mm_storeu_si128((__m128i *)(dst + n - 16),
						 _mm_loadu_si128((const __m128i *)(src + n - 16)));
			} else if (n >= 8) { /* two 8-byte stores, overlapping */
				uint64_t x, y;

				memcpy(&x, src, 8);
				memcpy(&y, src + n - 8, 8);
				memcpy(dst, &x, 8);
				memcpy(dst + n - 8, &y, 8);
			} else { /* two 4-byte stores, overlapping */
				uint32_t x, y;

				memcpy(&x, src, 4);
				memcpy(&y, src + n - 4, 4);
				memcpy(dst, &x, 4);
				memcpy(dst + n - 4, &y, 4);
			}
			return;
		}
	}
#else
	(void)readable;
#endif
	copy_name(dst, src, n);
}

static const char *basename_of(const char *s, size_t n)
{
	const char *slash = memrchr(s, '/', n);
	return slash ? slash + 1 : s;
}

/* A kernel module file, as perf names it when it reads the module itself
 * rather than [module] from kallsyms: name.ko, or compressed name.ko.xz,
 * .ko.zst, .ko.gz. */
static int is_kernel_module(const char *base, size_t bn)
{
	if (HAS_SUFFIX(base, bn, ".ko"))
		return 1;
	const char *ko = memmem(base, bn, ".ko.", 4);
	return ko && !memchr(ko + 4, '.', (size_t)(base + bn - ko - 4));
}

char fp_perf_dso_kind(const char *dso, size_t n)
{
	if (n == 0 || IS_LIT(dso, n, UNKNOWN_NAME))
		return FP_KIND_UNKNOWN;
	if (dso[0] == '[') /* [kernel.kallsyms], [nf_conntrack], [vdso] */
		return FP_KIND_KERNEL;
	if (IS_LIT(dso, n, "inlined"))
		return FP_KIND_INLINED;
	const char *base = basename_of(dso, n);
	size_t bn = (size_t)(dso + n - base);
	if (HAS_SUFFIX(dso, n, "vmlinux") || HAS_PREFIX(base, bn, "vmlinux") ||
	    is_kernel_module(base, bn))
		return FP_KIND_KERNEL;
	/* perf-PID.map: perf reads it from /tmp, but a capture may be
	 * symbolised elsewhere (--symfs); jitted-PID-N.so: perf inject --jit. */
	if ((bn > 9 && HAS_PREFIX(base, bn, "perf-") && HAS_SUFFIX(base, bn, ".map") &&
	     all_digits(base + 5, bn - 5 - 4)) ||
	    (HAS_PREFIX(base, bn, "jitted-") && HAS_SUFFIX(base, bn, ".so")))
		return FP_KIND_JIT;
	return FP_KIND_USER;
}

int fp_perf_parse_time(const char *s, size_t n, uint64_t *ns)
{
	const char *dot = memchr(s, '.', n);
	if (!dot)
		return -1;
	size_t sec_digits = (size_t)(dot - s), frac_digits = n - sec_digits - 1;
	if (sec_digits == 0 || sec_digits > TIME_SEC_DIGITS_MAX || frac_digits == 0 ||
	    frac_digits > TIME_FRAC_DIGITS_MAX)
		return -1;
	uint64_t sec = 0, frac = 0;
	for (size_t i = 0; i < sec_digits; i++) {
		if (!IS_DIGIT(s[i]))
			return -1;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	for (size_t i = sec_digits + 1; i < n; i++) {
		if (!IS_DIGIT(s[i]))
			return -1;
		frac = frac * 10 + (uint64_t)(s[i] - '0');
	}
	for (size_t i = frac_digits; i < TIME_FRAC_DIGITS_MAX; i++)
		frac *= 10;
	*ns = sec * FP_NSEC_PER_SEC + frac;
	return 0;
}

int fp_all_digits(const char *s, size_t n)
{
	return all_digits(s, n);
}

int fp_all_hex(const char *s, size_t n)
{
	return all_hex(s, n);
}

/* ---- building the record --------------------------------------------- */

static void reset_sample(struct fp_perf_parser *pp)
{
	pp->in_sample = 0;
	pp->line_frame = 0;
	pp->overflow = 0;
	pp->nframes = 0;
	pp->rec_head = STACK_END;
	pp->kinds_head = KINDS_CAP;
	pp->comm_len = pp->event_len = 0;
}

/* Reserves n bytes for the next (more rootward) frame name and records its
 * kind; returns where to write the name, or NULL once the record is full. */
HOT_INLINE char *frame_slot(struct fp_perf_parser *pp, size_t n, char kind)
{
	size_t need = n + (pp->nframes ? 1 : 0);

	if (pp->overflow || need > pp->rec_head || pp->kinds_head == 0) {
		pp->overflow = 1;
		return NULL;
	}
	if (pp->nframes)
		pp->rec[--pp->rec_head] = ';';
	pp->rec_head -= n;
	pp->kinds[--pp->kinds_head] = kind;
	pp->nframes++;
	pp->last_len = n;
	pp->srcline_done = 0;
	return pp->rec + pp->rec_head;
}

HOT_INLINE void push_name(struct fp_perf_parser *pp, const char *name, size_t n, char kind)
{
	char *dst = frame_slot(pp, n, kind);
	if (dst)
		copy_name(dst, name, n);
}

/* push_name for a name in a frame line that may be read up to readable. */
HOT_INLINE void push_frame_name(struct fp_perf_parser *pp, const char *name, size_t n, char kind,
				const char *readable)
{
	char *dst = frame_slot(pp, n, kind);
	if (dst)
		copy_frame_name(dst, name, n, readable);
}

/* `[unknown]` (or no symbol) in a known dso is named after the dso's
 * basename, e.g. [libc.so.6]; a dso already in brackets ([vdso]) is used
 * as it is rather than bracketed twice. */
static void push_dso_name(struct fp_perf_parser *pp, const char *dso, size_t n, char kind)
{
	const char *base = basename_of(dso, n);
	size_t bn = (size_t)(dso + n - base);

	if (bn == 0) {
		push_name(pp, UNKNOWN_NAME, sizeof(UNKNOWN_NAME) - 1, kind);
		return;
	}
	if (base[0] == '[' && base[bn - 1] == ']') {
		push_name(pp, base, bn, kind);
		return;
	}
	char *dst = frame_slot(pp, bn + 2, kind);
	if (!dst)
		return;
	dst[0] = '[';
	copy_name(dst + 1, base, bn);
	dst[bn + 1] = ']';
}

static void problem(struct fp_perf_parser *pp, enum fp_perf_problem what, const char *line,
		    size_t len)
{
	if (pp->ops->problem)
		pp->ops->problem(pp->ctx, what, line, len);
}

/* Finishes the pending sample: prepends the header fields to the stack and
 * hands the record on. */
static void emit_sample(struct fp_perf_parser *pp)
{
	if (!pp->in_sample)
		return;
	size_t klen = KINDS_CAP - pp->kinds_head;
	size_t header_max = FP_SAMPLE_HEAD_MAX(pp->event_len, pp->comm_len, klen);
	if (pp->overflow || header_max > pp->rec_head) {
		pp->st.dropped_samples++;
		problem(pp, FP_PERF_SAMPLE_TOO_BIG, NULL, 0);
		reset_sample(pp);
		return;
	}
	char *r = pp->rec;
	size_t h = fp_write_sample_head_back(r, pp->rec_head, pp->time_ns, pp->pid, pp->tid,
					     pp->cpu, pp->period, pp->hdr + pp->comm_len,
					     pp->event_len, pp->hdr, pp->comm_len,
					     pp->kinds + pp->kinds_head, klen);
	pp->st.samples++;
	pp->st.frames += pp->nframes;
	pp->ops->record(pp->ctx, r + h, REC_CAP - h);
	reset_sample(pp);
}

/* ---- frames ------------------------------------------------------------ */

/* The last '(' or ')' in [begin, q), or NULL. A word at a time: dso paths
 * are long and this runs once per frame. */
static const char *last_paren(const char *begin, const char *q)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (q - begin >= WORD) {
		uint64_t v = load_word(q - WORD);
		uint64_t m = zero_bytes(v ^ (ONES * '(')) | zero_bytes(v ^ (ONES * ')'));
		if (m) /* the highest flagged byte is the last in memory */
			return q - WORD + (63 - __builtin_clzll(m)) / 8;
		q -= WORD;
	}
#endif
	while (q > begin) {
		q--;
		if (*q == '(' || *q == ')')
			return q;
	}
	return NULL;
}

/* Finds the '(' that opens the group closed by *close (the last byte), so
 * that a dso path containing parentheses stays whole. NULL if unbalanced. */
static const char *group_open(const char *begin, const char *close)
{
	const char *q = last_paren(begin, close);
	if (!q || *q == '(')
		return q; /* common case: no nested parentheses */
	int depth = 1;
	for (q = close - 1; q >= begin; q--) {
		if (*q == ')')
			depth++;
		else if (*q == '(' && --depth == 0)
			return q;
	}
	return NULL;
}

/* High bit set in the bytes of x (ASCII only) that lie in [lo, hi]. */
static inline uint64_t bytes_in_range(uint64_t x, unsigned char lo, unsigned char hi)
{
	uint64_t t = (x | HIGHS) - ONES * lo;        /* >= lo */
	uint64_t u = (x | HIGHS) - ONES * (hi + 1u); /* > hi */
	return t & ~u & HIGHS;
}

/* Is every byte of x a space or a lower-case hex digit? */
static inline int is_addr_word(uint64_t x)
{
	uint64_t ok = bytes_in_range(x, '0', '9') | bytes_in_range(x, 'a', 'f') |
		      zero_bytes(x ^ (ONES * ' '));
	return (ok & ~x & HIGHS) == HIGHS;
}

/* Is p[0..PERF_ADDR_WIDTH) perf's address column: spaces then hex digits?
 * (Lenient: spaces between digits pass too.) Other shapes take the slow
 * path in parse_frame. */
static int is_addr_column(const char *p)
{
#ifdef __SSE2__
	/* one 16-byte load: x is in [lo, hi] when min(x - lo, hi - lo) is x - lo */
	const __m128i v = _mm_loadu_si128((const __m128i *)p);
	const __m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
	const __m128i a = _mm_sub_epi8(v, _mm_set1_epi8('a'));
	const __m128i ok = _mm_or_si128(
		_mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d),
			     _mm_cmpeq_epi8(_mm_min_epu8(a, _mm_set1_epi8(5)), a)),
		_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));

	return _mm_movemask_epi8(ok) == 0xffff && IS_HEX(p[PERF_ADDR_WIDTH - 1]);
#else
	return is_addr_word(load_word(p)) && is_addr_word(load_word(p + WORD)) &&
	       IS_HEX(p[PERF_ADDR_WIDTH - 1]);
#endif
}

/* A 64-bit kernel address as perf prints it: 16 hex digits starting with
 * ffff (x86-64 and arm64 kernel space; user space ends at 0x00007fff...). */
static int is_kernel_address(const char *a, size_t n)
{
	return n == PERF_ADDR_WIDTH && memcmp(a, "ffff", 4) == 0;
}

/* Removes a trailing +0x<hex> offset from the symbol [p, end), and only
 * that: operator+= keeps its '+'. Returns the new end. */
HOT_INLINE const char *strip_offset(const char *p, const char *end)
{
	const char *h = end;
	while (h > p && IS_HEX(h[-1]))
		h--;
	if (h < end && h - p >= 3 && h[-3] == '+' && h[-2] == '0' && h[-1] == 'x')
		return h - 3;
	return end;
}

/* If [p, end) ends with `(<dso>)` for a remembered dso, returns the '('
 * and sets *kind. Only dso names without parentheses are remembered, so
 * the '(' found here is the one group_open would find. */
#define DSO_KEY_BYTES 8 /* a dso's last bytes, its cache key */

/* The cache entry for a dso that ends right before `tail_end` (the ')'),
 * by its last DSO_KEY_BYTES bytes; the caller made sure they exist. */
HOT_INLINE unsigned dso_slot(const char *tail_end)
{
	uint64_t w;

	memcpy(&w, tail_end - DSO_KEY_BYTES, DSO_KEY_BYTES);
	return (unsigned)((w * 0x9E3779B97F4A7C15ull) >> (64 - FP_PERF_DSO_CACHE_BITS));
}

HOT_INLINE const char *cached_group(const struct fp_perf_parser *pp, const char *p, const char *end,
				    char *kind)
{
	size_t avail = (size_t)(end - p);

	if (avail < DSO_KEY_BYTES + 2)
		return NULL;
	const char *close = end - 1;
	unsigned i = dso_slot(close);
	size_t n = pp->dso_cache[i].len;

	if (n && n + 2 <= avail && close[-1 - (ptrdiff_t)n] == '(' &&
	    fp_bytes_equal(close - n, pp->dso_cache[i].text, n)) {
		*kind = pp->dso_cache[i].kind;
		return close - 1 - n;
	}
	return NULL;
}

/* Remembered: names without parentheses (so the '(' cached_group finds
 * is the one group_open would) and of at least the key's length. */
static void remember_dso(struct fp_perf_parser *pp, const char *dso, size_t n, char kind)
{
	if (n < DSO_KEY_BYTES || n > FP_PERF_DSO_CACHE_TEXT || memchr(dso, '(', n) ||
	    memchr(dso, ')', n))
		return;
	unsigned i = dso_slot(dso + n);

	pp->dso_cache[i].len = (uint32_t)n;
	pp->dso_cache[i].kind = kind;
	memcpy(pp->dso_cache[i].text, dso, n);
}

/* Parses `[<hex addr>] [<sym>[+0x<off>]] [(<dso>)]` in [p, end) and pushes
 * the frame. Returns 0, or -1 if there is nothing at all. */
static int parse_frame(struct fp_perf_parser *pp, const char *p, const char *end)
{
	const char *readable = end; /* the line's end, before trimming */

	if (end > p && IS_SPACE(end[-1]))
		end = trim_spaces_back(p, end);
	const char *addr = NULL; /* the address, when there is one */
	size_t addr_len = 0;
	if (end - p > PERF_ADDR_WIDTH + 1 && p[PERF_ADDR_WIDTH] == ' ' &&
	    p[PERF_ADDR_WIDTH + 1] != ' ' && is_addr_column(p)) {
		addr = p;
		addr_len = PERF_ADDR_WIDTH;
		p += PERF_ADDR_WIDTH + 1;
	} else {
		p = skip_spaces(p, end);
		if (p == end)
			return -1;
		const char *a = p;
		while (a < end && IS_HEX(*a))
			a++;
		if (a > p && (a == end || IS_SPACE(*a))) {
			addr = p;
			addr_len = (size_t)(a - p);
			p = skip_spaces(a, end); /* skip the address */
		}
	}

	const char *sym_end = end, *dso = NULL;
	size_t dso_len = 0;
	char kind = FP_KIND_UNKNOWN;
	if (end > p && end[-1] == ')') {
		int cached = 1;
		const char *open = cached_group(pp, p, end, &kind);
		if (!open) {
			cached = 0;
			open = group_open(p, end - 1);
		}
		if (open && (open == p || IS_SPACE(open[-1]))) {
			dso = open + 1;
			dso_len = (size_t)(end - 1 - dso);
			sym_end = trim_spaces_back(p, open);
			if (!cached) {
				kind = fp_perf_dso_kind(dso, dso_len);
				remember_dso(pp, dso, dso_len, kind);
			}
		} else {
			kind = FP_KIND_UNKNOWN;
		}
	}

	/* No dso printed (-F without dso): a kernel address still tells. */
	if (!dso && addr && is_kernel_address(addr, addr_len))
		kind = FP_KIND_KERNEL;

	sym_end = strip_offset(p, sym_end);

	size_t sym_len = (size_t)(sym_end - p);
	if (sym_len == 0 || IS_LIT(p, sym_len, UNKNOWN_NAME)) {
		if (dso && dso_len && kind != FP_KIND_UNKNOWN)
			push_dso_name(pp, dso, dso_len, kind);
		else
			push_name(pp, UNKNOWN_NAME, sizeof(UNKNOWN_NAME) - 1, kind);
	} else {
		push_frame_name(pp, p, sym_len, kind, readable);
	}
	return 0;
}

/* ---- event lines ------------------------------------------------------- */

/* `PERF_RECORD_LOST lost N` (and _LOST_SAMPLES): adds N to lost_events. */
static void count_side_band(struct fp_perf_parser *pp, const char *p, const char *end)
{
	if (!HAS_PREFIX(p, (size_t)(end - p), PERF_RECORD_LOST)) {
		pp->st.other_records++;
		return;
	}
	pp->st.lost_records++;
	const char *lost = memmem(p, (size_t)(end - p), " lost ", 6);
	int64_t n;
	if (lost) {
		const char *d = lost + 6, *e = d;
		while (e < end && IS_DIGIT(*e))
			e++;
		if (parse_int(d, (size_t)(e - d), &n) == 0) {
			pp->st.lost_events += (uint64_t)n;
			return;
		}
	}
	pp->st.lost_events++; /* a lost record with no count: at least 1 */
}

/* Parses an event line; returns -1 if it is not one. Starts a sample, or
 * counts a PERF_RECORD_* line. */
static int parse_event_line(struct fp_perf_parser *pp, const char *line, size_t n)
{
	struct fp_perf_event ev;

	if (fp_perf_event_line(line, n, &ev) < 0)
		return -1;
	const char *end = line + n, *p = ev.rest.p;
	if (ev.side_band) {
		emit_sample(pp);
		pp->discarding = 0;
		count_side_band(pp, p, end);
		return 0;
	}
	emit_sample(pp);
	reset_sample(pp);
	pp->in_sample = 1;
	pp->discarding = 0;
	pp->time_ns = ev.time_ns;
	pp->pid = ev.pid;
	pp->tid = ev.tid;
	pp->cpu = ev.cpu;
	if (ev.comm.n == 0) {
		pp->hdr[0] = '?';
		pp->comm_len = 1;
	} else {
		pp->comm_len = ev.comm.n;
		copy_name(pp->hdr, ev.comm.p, pp->comm_len);
	}
	pp->period = ev.period;
	char *event = pp->hdr + pp->comm_len;
	if (ev.event.n) {
		pp->event_len = ev.event.n;
		copy_name(event, ev.event.p, pp->event_len);
	} else {
		event[0] = '-';
		pp->event_len = 1;
	}

	const char *t1e;
	/* Recorded without -g, perf prints the one frame on the event line.
	 * With -g it prints none there, but a tracepoint's payload may start
	 * with a hex-looking word: if frame lines follow, this was not one. */
	t1e = next_token_end(p, end);
	if (all_hex(p, (size_t)(t1e - p)) && parse_frame(pp, p, end) == 0)
		pp->line_frame = 1;
	return 0;
}

/* Frame lines follow: the event line's "frame" was payload. It is the only
 * frame so far, so the stack starts again empty. */
static void forget_line_frame(struct fp_perf_parser *pp)
{
	pp->line_frame = 0;
	pp->overflow = 0;
	pp->nframes = 0;
	pp->rec_head = STACK_END;
	pp->kinds_head = KINDS_CAP;
}

/* ---- srcline lines ------------------------------------------------------ */

#define INLINED_MARK " (inlined)"

/* The line after a frame with -F +srcline (`  x.c:3 (inlined)`): its
 * marker makes the frame inlined when perf printed no dso for it; with the
 * srcline option the text is appended to the frame's name. Returns 0 if
 * the line was used, -1 if it is to be counted as skipped. */
static int srcline_line(struct fp_perf_parser *pp, const char *p, const char *end)
{
	if (!pp->in_sample || !pp->nframes || pp->srcline_done || pp->overflow)
		return -1;
	pp->srcline_done = 1;
	end = trim_spaces_back(p, end);
	size_t mark = sizeof INLINED_MARK - 1;
	if ((size_t)(end - p) > mark && !memcmp(end - mark, INLINED_MARK, mark)) {
		end -= mark;
		if (pp->kinds[pp->kinds_head] == FP_KIND_UNKNOWN)
			pp->kinds[pp->kinds_head] = FP_KIND_INLINED;
	}
	if (!pp->srcline)
		return -1;
	/* ":" + the text without [..] groups, named as frame names are. */
	char text[FP_PERF_SRCLINE_MAX];
	size_t k = 0;
	int depth = 0;
	text[k++] = ':';
	for (const char *q = p; q < end && k < sizeof text; q++) {
		if (*q == '[')
			depth++;
		else if (*q == ']' && depth)
			depth--;
		else if (!depth)
			text[k++] = *q == ';' ? ':' : *q == '\t' ? ' ' : *q;
	}
	while (k > 1 && text[k - 1] == ' ')
		k--;
	if (k == 1)
		return 0;
	if (k > pp->rec_head) { /* the record no longer fits: dropped */
		pp->overflow = 1;
		return 0;
	}
	char *name = pp->rec + pp->rec_head;
	memmove(name - k, name, pp->last_len);
	memcpy(name - k + pp->last_len, text, k);
	pp->rec_head -= k;
	pp->last_len += k;
	return 0;
}

/* ---- lines ------------------------------------------------------------- */

static void bad_line(struct fp_perf_parser *pp, const char *line, size_t n)
{
	pp->st.bad_lines++;
	if (!pp->st.first_bad_line)
		pp->st.first_bad_line = pp->st.lines;
	/* End the pending sample; frames that follow a broken event line must
	 * not be glued to the previous sample. */
	emit_sample(pp);
	pp->discarding = 1;
	problem(pp, FP_PERF_BAD_LINE, line, n);
}

void fp_perf_line(struct fp_perf_parser *pp, const char *line, size_t n)
{
	pp->st.lines++;
	if (n && line[n - 1] == '\r')
		n--;

	if (n && line[0] == '\t') { /* hot path: a frame */
		if (pp->in_sample) {
			if (__builtin_expect(pp->line_frame, 0))
				forget_line_frame(pp);
			if (parse_frame(pp, line + 1, line + n) < 0)
				pp->st.skipped_lines++;
		} else if (pp->discarding) {
			pp->st.skipped_lines++;
		} else {
			bad_line(pp, line, n);
		}
		return;
	}

	const char *end = line + n, *p = skip_spaces(line, end);
	if (p == end) { /* blank line: the sample is complete */
		emit_sample(pp);
		pp->discarding = 0;
		return;
	}
	if (line[0] == '#') {
		pp->st.comment_lines++;
		return;
	}
	if (parse_event_line(pp, line, n) == 0)
		return;
	if (HAS_PREFIX(p, (size_t)(end - p), PERF_RECORD_PREFIX)) {
		/* A side-band record printed without a time (perf prints no
		 * sample prefix when it knows no thread for it). */
		emit_sample(pp);
		pp->discarding = 0;
		count_side_band(pp, p, end);
		return;
	}
	if (p > line && (pp->in_sample || pp->discarding)) {
		/* Indented, inside a sample: a frame printed with spaces (bpftrace
		 * style) if it starts with an address, else e.g. a srcline. */
		const char *a = next_token_end(p, end);
		if (pp->in_sample && all_hex(p, (size_t)(a - p))) {
			if (pp->line_frame)
				forget_line_frame(pp);
			parse_frame(pp, p, end);
		} else if (srcline_line(pp, p, end) < 0) {
			pp->st.skipped_lines++;
		}
		return;
	}
	bad_line(pp, line, n);
}

void fp_perf_line_too_long(struct fp_perf_parser *pp)
{
	pp->st.lines++;
	pp->st.too_long_lines++;
	if (pp->in_sample) {
		pp->st.dropped_samples++;
		reset_sample(pp);
	}
	pp->discarding = 1;
}

void fp_perf_finish(struct fp_perf_parser *pp)
{
	emit_sample(pp);
	pp->discarding = 0;
}

void fp_perf_init(struct fp_perf_parser *pp, const struct fp_perf_ops *ops, void *ctx)
{
	memset(pp, 0, sizeof *pp);
	pp->ops = ops;
	pp->ctx = ctx;
	pp->rec = fp_xmalloc(REC_CAP);
	pp->rec[STACK_END] = '\n';
	pp->kinds = fp_xmalloc(KINDS_CAP);
	pp->hdr = fp_xmalloc(HDR_CAP);
	reset_sample(pp);
}

void fp_perf_free(struct fp_perf_parser *pp)
{
	free(pp->rec);
	free(pp->kinds);
	free(pp->hdr);
	pp->rec = pp->kinds = pp->hdr = NULL;
}
