/* fp_quote: input bytes made safe to quote in a message or a W record.
 *
 * Printable ASCII is kept, `"` and `\` are escaped, every other byte
 * (control bytes, TAB, LF, >= 0x80) becomes \xHH, so a binary input never
 * puts raw bytes on a terminal nor a TAB or LF into a W record.
 *
 * Calling sequence: size the buffer with FP_QUOTE_CAP(max input bytes),
 * then fp_quote_bytes (bare), fp_quote_excerpt ("..." quoted, cut) or
 * fp_quote_name (bare, cut).
 */
#ifndef FP_QUOTE_H
#define FP_QUOTE_H

#include <stddef.h>

/* Room for n input bytes quoted: \xHH each, quotes, "..." and a NUL. */
#define FP_QUOTE_CAP(n) (4 * (n) + 8)

/* Escapes n bytes of src into dst (room for 4 * n + 1); returns the length. */
size_t fp_quote_bytes(char *dst, const char *src, size_t n);

/* At most max bytes of line in double quotes, then ... if the line is
 * longer. dst has FP_QUOTE_CAP(max) bytes. */
void fp_quote_excerpt(char *dst, const char *line, size_t len, size_t max);

/* At most max bytes of the string s escaped (no quotes), then ... if it is
 * longer; returns dst (FP_QUOTE_CAP(max) bytes). */
const char *fp_quote_name(char *dst, const char *s, size_t max);

#endif
