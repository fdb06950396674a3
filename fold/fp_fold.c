/* fp_fold.c: one S sample -> its folded stack (see fp_fold.h).
 * The rules are stackcollapse-perf.pl's; docs/fp-fold.md lists them. */
#include "fp_fold.h"
#include "fp_container.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "fp_error.h"

#define ANNOTATION_LEN 4 /* "_[k]" */
#define UNKNOWN_ID "?"   /* pid/tid perf did not print */
#define BUF_MIN 4096

static const char ANON_NAMESPACE[] = "(anonymous namespace)";
#define ANON_NAMESPACE_LEN (sizeof ANON_NAMESPACE - 1)

static void buf_reserve(struct fp_fold_buf *b, size_t more)
{
	if (b->cap - b->len < more)
		b->p = fp_xgrow(b->p, &b->cap, b->len + more, 1, BUF_MIN);
}

void fp_fold_buf_add(struct fp_fold_buf *b, const void *s, size_t n)
{
	if (n == 0) /* an empty buffer has no memory yet: memcpy(NULL, ...) */
		return;
	buf_reserve(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

/* One kind character for a frame just added (kinds may be NULL). */
static void kind_add(struct fp_fold_buf *kinds, char kind)
{
	if (kinds)
		fp_fold_buf_add(kinds, &kind, 1);
}

void fp_fold_buf_free(struct fp_fold_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

static int has_prefix(const char *s, size_t n, const char *prefix, size_t plen)
{
	return n >= plen && memcmp(s, prefix, plen) == 0;
}

static int contains(const char *s, size_t n, const char *needle, size_t nlen)
{
	return memmem(s, n, needle, nlen) != NULL;
}

/* memmem(s, n, "ab", 2): glibc's memmem sets up a general search per
 * call, ~600 instructions for a frame name; a memchr for the first byte
 * is what a two-byte needle needs (fp-fold splits every frame that needs
 * tidying at "->"). */
static const char *find_pair(const char *s, size_t n, char a, char b)
{
	const char *end = s + n, *p;

	while (end - s >= 2 && (p = memchr(s, a, (size_t)(end - s) - 1)) != NULL) {
		if (p[1] == b)
			return p;
		s = p + 1;
	}
	return NULL;
}

/* stackcollapse's `/\.\(.*\)\./`: a Go method such as net/http.(*Client).Do,
 * whose parentheses are part of the name. */
static int looks_like_go_method(const char *s, size_t n)
{
	const char *open = find_pair(s, n, '.', '(');

	if (!open)
		return 0;
	for (const char *q = s + n - 2; q >= open + 2; q--)
		if (q[0] == ')' && q[1] == '.')
			return 1;
	return 0;
}

/* Length of the name once arguments are cut: everything from the first `(`
 * that does not open "(anonymous namespace)" is noise (tidy_generic). */
static size_t cut_arguments(const char *s, size_t n)
{
	const char *p = s, *end = s + n;

	while ((p = memchr(p, '(', end - p)) != NULL) {
		if (!has_prefix(p + 1, end - p - 1, ANON_NAMESPACE + 1, ANON_NAMESPACE_LEN - 1))
			return p - s;
		p++;
	}
	return n;
}

/* Bytes that may make the tidy rules change a name: `(` (arguments, Go
 * methods, anonymous namespaces, skipped frames), quotes, and the `>` of
 * `a->b`. Most frames have none and are copied as they are. */
static const unsigned char TIDY_BYTE[256] = {
	['('] = 1,
	['"'] = 1,
	['\''] = 1,
	['>'] = 1,
};

#define BYTES_ONES 0x0101010101010101ull
#define BYTES_HIGHS 0x8080808080808080ull

/* Nonzero if one of the 8 bytes of w is c (the classic SWAR zero test,
 * exact as a yes/no answer). */
static uint64_t word_has_byte(uint64_t w, unsigned char c)
{
	uint64_t v = w ^ (BYTES_ONES * c);

	return (v - BYTES_ONES) & ~v & BYTES_HIGHS;
}

/* Whether s[0..n) holds a TIDY_BYTE; 8 bytes per step, since this runs over
 * every byte of every stack. */
static int needs_tidy(const char *s, size_t n)
{
	uint64_t w, hit = 0;
	size_t i = 0;

#ifdef __SSE2__
	/* 16 bytes a step (SSE2 is x86-64's baseline). */
	const __m128i paren = _mm_set1_epi8('('), dquote = _mm_set1_epi8('"'),
		      squote = _mm_set1_epi8('\''), gt = _mm_set1_epi8('>');

	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(s + i));
		__m128i m = _mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(v, paren), _mm_cmpeq_epi8(v, dquote)),
			_mm_or_si128(_mm_cmpeq_epi8(v, squote), _mm_cmpeq_epi8(v, gt)));
		if (_mm_movemask_epi8(m))
			return 1;
	}
#endif

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		hit |= word_has_byte(w, '(') | word_has_byte(w, '"') | word_has_byte(w, '\'') |
		       word_has_byte(w, '>');
	}
	for (; i < n; i++)
		hit |= TIDY_BYTE[(unsigned char)s[i]];
	return hit != 0;
}

/* Appends the annotation of the name that ends b (see add_frame_part). */
static void add_annotation(struct fp_fold_buf *b, size_t start, int part, char kind,
			   const struct fp_fold_opts *o)
{
	const char *name = b->p + start;
	size_t len = b->len - start;

	/* Precedence as in stackcollapse: inlined, kernel, jit. perf's own
	 * inlined frames (kind i) are marked too when asked (fp-fold --all),
	 * so the FlameScope API reports their libtype "inlined". */
	if (part > 0 || (kind == FP_KIND_INLINED && o->annotate_inlined)) {
		if (!contains(name, len, "_[i]", ANNOTATION_LEN))
			fp_fold_buf_add(b, "_[i]", ANNOTATION_LEN);
	} else if (kind == FP_KIND_KERNEL && o->annotate_kernel) {
		fp_fold_buf_add(b, "_[k]", ANNOTATION_LEN);
	} else if (kind == FP_KIND_JIT && o->annotate_jit) {
		if (!contains(name, len, "_[j]", ANNOTATION_LEN))
			fp_fold_buf_add(b, "_[j]", ANNOTATION_LEN);
	}
}

/* Appends one tidied name (one part of an `a->b->c` frame) to b:
 * tidy_generic, then tidy_java, then the annotation. */
static void add_frame_part(struct fp_fold_buf *b, const char *s, size_t n, int part, char kind,
			   int java, const struct fp_fold_opts *o, struct fp_fold_buf *kinds)
{
	size_t start;

	/* `[dso]` is fp-read's name for an unknown symbol in a known dso; a
	 * dso such as "/memfd:x (deleted)" must stay whole (stackcollapse,
	 * which reads the dso with a greedy regex, makes it "[unknown] "). */
	int dso_name = n >= 2 && s[0] == '[' && s[n - 1] == ']';

	if (!dso_name && !looks_like_go_method(s, n))
		n = cut_arguments(s, n);
	buf_reserve(b, 1 + n + ANNOTATION_LEN);
	b->p[b->len++] = ';';
	start = b->len;
	/* quotes are dropped; most names have none: one copy, not a test
	 * and a store per byte (a tenth of fp-fold's C++ frames' cost) */
	memcpy(b->p + start, s, n);
	if (memchr(s, '"', n) || memchr(s, '\'', n)) {
		char *d = b->p + start;
		size_t j = 0;

		for (size_t i = 0; i < n; i++)
			if (d[i] != '"' && d[i] != '\'')
				d[j++] = d[i];
		n = j;
	}
	b->len += n;
	char *name = b->p + start;
	size_t len = b->len - start;

	/* Lorg/x/Y:.m -> org/x/Y:.m */
	if (java && len > 0 && name[0] == 'L' && memchr(name, '/', len)) {
		memmove(name, name + 1, len - 1);
		b->len--;
		len--;
	}
	add_annotation(b, start, part, kind, o);
	kind_add(kinds, part > 0 ? FP_KIND_INLINED : kind);
}

/* Appends one frame of the S record. A frame `a->b->c` (perf-map-agent's
 * unfolded inline/JIT frames) is split like Perl's split: trailing empty
 * parts vanish (an empty frame name stays an empty frame). A name starting with `(` is a "process name" to
 * stackcollapse and is skipped, except `(anonymous namespace)::f`. */
static void add_frame(struct fp_fold_buf *b, const char *s, size_t n, char kind, int java,
		      const struct fp_fold_opts *o, struct fp_fold_buf *kinds)
{
	if (!needs_tidy(s, n) && !(java && n > 0 && s[0] == 'L')) {
		size_t start = b->len + 1;

		buf_reserve(b, 1 + n + ANNOTATION_LEN);
		b->p[b->len++] = ';';
		memcpy(b->p + b->len, s, n);
		b->len += n;
		add_annotation(b, start, 0, kind, o);
		kind_add(kinds, kind);
		return;
	}
	if (n > 0 && s[0] == '(' && !has_prefix(s, n, ANON_NAMESPACE, ANON_NAMESPACE_LEN))
		return;
	while (n >= 2 && s[n - 2] == '-' && s[n - 1] == '>')
		n -= 2;

	const char *end = s + n;
	int part = 0;

	while (s < end) {
		const char *arrow = find_pair(s, (size_t)(end - s), '-', '>');
		const char *stop = arrow ? arrow : end;

		add_frame_part(b, s, stop - s, part++, kind, java, o, kinds);
		s = arrow ? arrow + 2 : end;
	}
}

static void add_id(struct fp_fold_buf *b, int64_t id)
{
	char digits[24];
	int n;

	if (id < 0) {
		fp_fold_buf_add(b, UNKNOWN_ID, sizeof UNKNOWN_ID - 1);
		return;
	}
	n = snprintf(digits, sizeof digits, "%lld", (long long)id);
	fp_fold_buf_add(b, digits, n);
}

/* The root frame: comm (spaces -> _), optionally -PID or -PID/TID. */
static void add_root(struct fp_fold_buf *b, const struct fp_sample *s, const struct fp_fold_opts *o)
{
	size_t start = b->len;

	fp_fold_buf_add(b, s->comm.p, s->comm.n);
	if (o->root_id != FP_FOLD_ROOT_COMM) {
		fp_fold_buf_add(b, "-", 1);
		add_id(b, s->pid);
		if (o->root_id == FP_FOLD_ROOT_TID) {
			fp_fold_buf_add(b, "/", 1);
			add_id(b, s->tid);
		}
	}
	for (char *p = b->p + start; p < b->p + b->len; p++)
		if (*p == ' ')
			*p = '_';
}

/* The container root frame and its ';': the readable name, a ';' in it
 * as ':' (a frame never holds one). */
static void add_container(struct fp_fold_buf *b, const struct fp_sample *s)
{
	if (s->cgroup.n == 0) {
		fp_fold_buf_add(b, FP_FOLD_NO_CONTAINER ";", sizeof FP_FOLD_NO_CONTAINER);
		return;
	}
	buf_reserve(b, s->cgroup.n + FP_CONTAINER_NAME_EXTRA + 2);
	size_t start = b->len;
	b->len += fp_container_name(s->cgroup.p, s->cgroup.n, b->p + start,
				    s->cgroup.n + FP_CONTAINER_NAME_EXTRA + 1);
	for (char *p = b->p + start; p < b->p + b->len; p++)
		if (*p == ';')
			*p = ':';
	b->p[b->len++] = ';';
}

/* The common case: no frame needs tidying or an annotation, so the folded
 * stack is the stack field as it is. */
static int stack_is_tidy(const struct fp_sample *s, int java, const struct fp_fold_opts *o)
{
	if (java)
		return 0;
	if (o->annotate_kernel && memchr(s->kinds.p, FP_KIND_KERNEL, s->kinds.n))
		return 0;
	if (o->annotate_jit && memchr(s->kinds.p, FP_KIND_JIT, s->kinds.n))
		return 0;
	if (o->annotate_inlined && memchr(s->kinds.p, FP_KIND_INLINED, s->kinds.n))
		return 0;
	return !needs_tidy(s->stack.p, s->stack.n);
}

int fp_fold_build(struct fp_fold_buf *b, const struct fp_sample *s, const struct fp_fold_opts *o,
		  struct fp_fold_buf *kinds)
{
	static const char java_prefix[] = "java";
	int java = has_prefix(s->comm.p, s->comm.n, java_prefix, sizeof java_prefix - 1);
	const char *p = s->stack.p, *end = s->stack.p + s->stack.n;
	size_t frame = 0;

	b->len = 0;
	if (kinds)
		kinds->len = 0;
	if (o->container_root) {
		add_container(b, s);
		kind_add(kinds, FP_FOLD_KIND_ROOT);
	}
	if (o->event_root) {
		fp_fold_buf_add(b, s->event.p, s->event.n);
		fp_fold_buf_add(b, ";", 1);
		kind_add(kinds, FP_FOLD_KIND_ROOT);
	}
	add_root(b, s, o);
	kind_add(kinds, FP_FOLD_KIND_ROOT);
	if (s->stack.n == 0)
		return s->kinds.n == 0 ? 0 : -1;
	if (stack_is_tidy(s, java, o)) {
		buf_reserve(b, 1 + s->stack.n);
		b->p[b->len++] = ';';
		memcpy(b->p + b->len, s->stack.p, s->stack.n);
		b->len += s->stack.n;
		if (kinds)
			fp_fold_buf_add(kinds, s->kinds.p, s->kinds.n);
		return 0;
	}
	for (;;) {
		const char *semi = memchr(p, ';', end - p);
		const char *stop = semi ? semi : end;

		if (frame >= s->kinds.n)
			return -1;
		add_frame(b, p, stop - p, s->kinds.p[frame++], java, o, kinds);
		if (!semi)
			break;
		p = semi + 1;
	}
	return frame == s->kinds.n ? 0 : -1;
}
