/* escape.h: text escaping for every document render/ produces.
 *
 * Frame names come from arbitrary binaries: they may hold `<`, `&`, quotes,
 * control bytes or invalid UTF-8. These functions make any byte string safe
 * as XML/HTML text or attribute value, or as a JSON string body. Invalid
 * UTF-8 bytes become U+FFFD and control characters (which XML 1.0 forbids)
 * become U+FFFD too, so the output is always well-formed UTF-8.
 * The web server reuses them.
 */
#ifndef FP_ESCAPE_H
#define FP_ESCAPE_H

#include <stddef.h>

#include "sink.h"

/* XML/XHTML text and attribute values: & < > " ' are written as entities. */
void fp_xml_escape(struct fp_sink *s, const char *p, size_t n);
/* HTML attribute value (quoted with " or '): same rules as fp_xml_escape. */
void fp_html_attr_escape(struct fp_sink *s, const char *p, size_t n);
/* Body of a JSON string (without the quotes): " \ and control characters
 * escaped, and also < > & (as \u003c ...) so the JSON may be embedded in an
 * HTML <script> or an XML CDATA section unchanged. */
void fp_json_escape(struct fp_sink *s, const char *p, size_t n);
/* A complete JSON string: "..." */
void fp_json_string(struct fp_sink *s, const char *p, size_t n);

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if p does not start
 * one within n bytes. */
size_t fp_utf8_seq_len(const unsigned char *p, size_t n);

#endif
