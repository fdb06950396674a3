/* fp_words.h: a table of words and the values they stand for (fp-range's
 * control commands, the stages' roles in the stack-id negotiation, the
 * flame graph palettes), looked up one way: the whole word, bytewise.
 *
 *	static const struct fp_word colours[] = { { "red", RED }, { "blue", BLUE } };
 *	int v = fp_word_value(colours, FP_WORDS(colours), s, n, -1);   // -1: no such word
 *	const char *w = fp_word_name(colours, FP_WORDS(colours), RED, "?");
 */
#ifndef FP_WORDS_H
#define FP_WORDS_H

#include <stddef.h>

struct fp_word {
	const char *word;
	int value;
};

#define FP_WORDS(table) (sizeof(table) / sizeof((table)[0]))

/* The value of the word s[0..n) in t[0..count), or missing. */
int fp_word_value(const struct fp_word *t, size_t count, const char *s, size_t n, int missing);
/* The word of value in t[0..count) (the first), or missing. */
const char *fp_word_name(const struct fp_word *t, size_t count, int value, const char *missing);

#endif
