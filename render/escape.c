/* escape.c: XML, HTML and JSON escaping (see escape.h). */
#include "escape.h"

#include <string.h>

#define UTF8_REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

size_t fp_utf8_seq_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	unsigned cp = c & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	/* U+FFFE/U+FFFF are not XML characters. */
	if (cp == 0xfffe || cp == 0xffff)
		return 0;
	return len;
}

/* Copies the run of bytes that need no escaping; returns its length. */
static size_t plain_run(const unsigned char *p, size_t n, const unsigned char *special)
{
	size_t i = 0;
	while (i < n && p[i] >= 0x20 && p[i] < 0x7f && !special[p[i]])
		i++;
	return i;
}

/* constant, so that threads may escape at once (fp-render writes its
 * files two at a time) */
static const unsigned char xml_special[256] = {
	['&'] = 1, ['<'] = 1, ['>'] = 1, ['"'] = 1, ['\''] = 1,
};
static const unsigned char json_special[256] = {
	['"'] = 1, ['\\'] = 1, ['<'] = 1, ['>'] = 1, ['&'] = 1,
};

/* Copies text to s: runs of plain bytes as they are, each other byte (a
 * special one, a control byte, UTF-8) through one(), which writes its
 * escape and returns how many bytes it took. */
static void escape_runs(struct fp_sink *s, const char *text, size_t n, const unsigned char *special,
			size_t (*one)(struct fp_sink *, const unsigned char *, size_t))
{
	const unsigned char *p = (const unsigned char *)text;

	while (n) {
		size_t run = plain_run(p, n, special);
		fp_sink_write(s, p, run);
		p += run;
		n -= run;
		if (n) {
			size_t used = one(s, p, n);
			p += used;
			n -= used;
		}
	}
}

/* A valid UTF-8 sequence as it is, anything else as `bad`. */
static size_t copy_utf8(struct fp_sink *s, const unsigned char *p, size_t n, const char *bad,
			size_t bad_len)
{
	size_t len = *p >= 0x80 ? fp_utf8_seq_len(p, n) : 0;

	if (len) {
		fp_sink_write(s, p, len);
		return len;
	}
	fp_sink_write(s, bad, bad_len);
	return 1;
}

static size_t xml_one(struct fp_sink *s, const unsigned char *p, size_t n)
{
	switch (*p) {
	case '&':
		fp_sink_write(s, "&amp;", 5);
		return 1;
	case '<':
		fp_sink_write(s, "&lt;", 4);
		return 1;
	case '>':
		fp_sink_write(s, "&gt;", 4);
		return 1;
	case '"':
		fp_sink_write(s, "&quot;", 6);
		return 1;
	case '\'':
		fp_sink_write(s, "&#39;", 5);
		return 1;
	case '\t':
	case '\n':
	case '\r':
		fp_sink_char(s, (char)*p);
		return 1;
	}
	return copy_utf8(s, p, n, UTF8_REPLACEMENT, 3);
}

void fp_xml_escape(struct fp_sink *s, const char *text, size_t n)
{
	escape_runs(s, text, n, xml_special, xml_one);
}

void fp_html_attr_escape(struct fp_sink *s, const char *p, size_t n)
{
	fp_xml_escape(s, p, n);
}

static size_t json_one(struct fp_sink *s, const unsigned char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	unsigned c = *p;

	if (c == '"' || c == '\\') {
		char e[2] = { '\\', (char)c };
		fp_sink_write(s, e, 2);
		return 1;
	}
	if (c < 0x80) { /* control characters, DEL, < > & */
		char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
		fp_sink_write(s, e, 6);
		return 1;
	}
	return copy_utf8(s, p, n, "\\ufffd", 6);
}

void fp_json_escape(struct fp_sink *s, const char *text, size_t n)
{
	escape_runs(s, text, n, json_special, json_one);
}

void fp_json_string(struct fp_sink *s, const char *p, size_t n)
{
	fp_sink_char(s, '"');
	fp_json_escape(s, p, n);
	fp_sink_char(s, '"');
}
