/* fp_words.c: word tables (fp_words.h). */
#include <string.h>

#include "fp_words.h"

int fp_word_value(const struct fp_word *t, size_t count, const char *s, size_t n, int missing)
{
	for (size_t i = 0; i < count; i++)
		if (strlen(t[i].word) == n && memcmp(t[i].word, s, n) == 0)
			return t[i].value;
	return missing;
}

const char *fp_word_name(const struct fp_word *t, size_t count, int value, const char *missing)
{
	for (size_t i = 0; i < count; i++)
		if (t[i].value == value)
			return t[i].word;
	return missing;
}
