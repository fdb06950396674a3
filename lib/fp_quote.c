/* fp_quote: input bytes made safe to quote in messages (fp_quote.h). */
#include <string.h>

#include "fp_quote.h"

#define HEX_DIGIT_BITS 4
#define HEX_DIGIT_MASK 0xf
#define PRINTABLE_FIRST 0x20 /* space */
#define PRINTABLE_END 0x7f   /* DEL */

size_t fp_quote_bytes(char *dst, const char *src, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t j = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c == '"' || c == '\\') {
			dst[j++] = '\\';
			dst[j++] = (char)c;
		} else if (c >= PRINTABLE_FIRST && c < PRINTABLE_END) {
			dst[j++] = (char)c;
		} else {
			dst[j++] = '\\';
			dst[j++] = 'x';
			dst[j++] = hex[c >> HEX_DIGIT_BITS];
			dst[j++] = hex[c & HEX_DIGIT_MASK];
		}
	}
	dst[j] = '\0';
	return j;
}

void fp_quote_excerpt(char *dst, const char *line, size_t len, size_t max)
{
	size_t n = len < max ? len : max, j = 0;

	dst[j++] = '"';
	j += fp_quote_bytes(dst + j, line, n);
	dst[j++] = '"';
	if (n < len) {
		memcpy(dst + j, "...", 3);
		j += 3;
	}
	dst[j] = '\0';
}

const char *fp_quote_name(char *dst, const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max) {
		fp_quote_bytes(dst, s, n);
	} else {
		size_t j = fp_quote_bytes(dst, s, max);
		memcpy(dst + j, "...", 4);
	}
	return dst;
}
