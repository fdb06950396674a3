/* flamegraph.c: folded stacks -> interactive SVG (see flamegraph.h).
 *
 * Algorithm (one pass after a sort, like flamegraph.pl's flow()): entries
 * are sorted frame-wise, so a frame's descendants are contiguous. Walking
 * them with a stack of open frames, each entry closes the frames where it
 * differs from the previous entry and opens its own; a frame's x is the
 * running sample total when it opens and its width the total when it
 * closes minus x. Nodes come out in pre-order with names pointing into the
 * table (no copy, no per-frame malloc), and are written in that order.
 */
#include "flamegraph.h"
#include "flametree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fp_error.h"
#include "fp_words.h"
#include "flamegraph_js.inc"

#define XPAD 10            /* left and right margin, px */
#define FRAMEPAD 1         /* vertical gap between frames, px */
#define TITLE_FONT_EXTRA 5 /* title is fontsize + 5 px */
#define LABEL_XOFF 3       /* label starts 3 px into the frame */
#define DEFAULT_SEARCH_COLOR "rgb(230,0,230)"
#define HUNDRED_PERCENT_X100 10000u

/* ---- names and colours ------------------------------------------------- */

uint64_t fp_fnv1a(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* "_[k]" style annotation at the end of a name: returns its letter, or 0. */
static char annotation(const char *p, size_t n)
{
	if (n >= 4 && p[n - 4] == '_' && p[n - 3] == '[' && p[n - 1] == ']') {
		char c = p[n - 2];
		if (c == 'k' || c == 'j' || c == 'i' || c == 'w')
			return c;
	}
	return 0;
}

static size_t label_len(const char *p, size_t n)
{
	return annotation(p, n) ? n - 4 : n;
}

static int contains(const char *p, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(p + i, needle, k) == 0)
			return 1;
	return 0;
}

static int starts_with(const char *p, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(p, prefix, k) == 0;
}

/* A kind from the samples, as an annotation letter (0: none). */
static char kind_annotation(char kind)
{
	return kind == 'k' || kind == 'j' || kind == 'i' ? kind : 0;
}

/* Picks the flat hue for a language palette (flamegraph.pl's rules); kind
 * stands in for a missing `_[k]` style annotation. */
static enum fp_palette type_hue(enum fp_palette pal, const char *p, size_t n, char kind)
{
	char a = annotation(p, n);
	if (!a)
		a = kind_annotation(kind);
	switch (pal) {
	case FP_PAL_FLAMEPIPE:
		if (a == 'k')
			return FP_PAL_ORANGE;
		if (a == 'j')
			return FP_PAL_GREEN;
		if (a == 'i')
			return FP_PAL_AQUA;
		if (contains(p, n, "::"))
			return FP_PAL_YELLOW;
		return FP_PAL_RED;
	case FP_PAL_JAVA:
		if (a == 'j')
			return FP_PAL_GREEN;
		if (a == 'i')
			return FP_PAL_AQUA;
		{
			const char *q = p;
			size_t m = n;
			if (m && *q == 'L') {
				q++;
				m--;
			}
			static const char *const pkgs[] = { "java/", "javax/", "jdk/", "net/",
							    "org/",  "com/",   "io/",  "sun/" };
			for (size_t i = 0; i < sizeof pkgs / sizeof *pkgs; i++)
				if (starts_with(q, m, pkgs[i]))
					return FP_PAL_GREEN;
		}
		if (contains(p, n, ":::"))
			return FP_PAL_GREEN;
		if (contains(p, n, "::"))
			return FP_PAL_YELLOW;
		if (a == 'k')
			return FP_PAL_ORANGE;
		return FP_PAL_RED;
	case FP_PAL_JS:
		if (a == 'j')
			return contains(p, n, "/") ? FP_PAL_GREEN : FP_PAL_AQUA;
		if (contains(p, n, "::"))
			return FP_PAL_YELLOW;
		if (contains(p, n, ".js"))
			return FP_PAL_GREEN;
		if (contains(p, n, ":"))
			return FP_PAL_AQUA;
		if (a == 'k')
			return FP_PAL_ORANGE;
		return FP_PAL_RED;
	case FP_PAL_PERL:
		if (contains(p, n, "::"))
			return FP_PAL_YELLOW;
		if (contains(p, n, "Perl") || contains(p, n, ".pl"))
			return FP_PAL_GREEN;
		if (a == 'k')
			return FP_PAL_ORANGE;
		return FP_PAL_RED;
	default:
		return pal;
	}
}

struct rgb {
	unsigned r, g, b;
};

/* base + span * v / 65536, v in 0..65535: integer-only, so colours are the
 * same on every machine. */
static unsigned ramp(unsigned base, unsigned span, unsigned v)
{
	return base + span * v / 65536u;
}

static struct rgb name_color(enum fp_palette pal, const char *p, size_t n, char kind)
{
	size_t ln = label_len(p, n);
	uint64_t h = fp_fnv1a(p, ln);
	unsigned v1 = (unsigned)(h & 0xffff), v2 = (unsigned)((h >> 16) & 0xffff);
	unsigned v3 = (unsigned)((h >> 32) & 0xffff);
	struct rgb c;
	if (ln == 2 && memcmp(p, "--", 2) == 0)
		return (struct rgb){ 160, 160, 160 };
	if (ln == 1 && p[0] == '-')
		return (struct rgb){ 200, 200, 200 };
	switch (type_hue(pal, p, n, kind)) {
	case FP_PAL_HOT:
		c.r = ramp(205, 50, v3);
		c.g = ramp(0, 230, v1);
		c.b = ramp(0, 55, v2);
		break;
	case FP_PAL_MEM:
		c.r = 0;
		c.g = ramp(190, 50, v2);
		c.b = ramp(0, 210, v1);
		break;
	case FP_PAL_IO:
		c.r = ramp(80, 60, v1);
		c.g = c.r;
		c.b = ramp(190, 55, v2);
		break;
	case FP_PAL_RED:
		c.r = ramp(200, 55, v1);
		c.g = c.b = ramp(50, 80, v1);
		break;
	case FP_PAL_GREEN:
		c.g = ramp(200, 55, v1);
		c.r = c.b = ramp(50, 60, v1);
		break;
	case FP_PAL_BLUE:
		c.r = c.g = ramp(80, 60, v1);
		c.b = ramp(205, 50, v1);
		break;
	case FP_PAL_YELLOW:
		c.r = c.g = ramp(175, 55, v1);
		c.b = ramp(50, 20, v1);
		break;
	case FP_PAL_PURPLE:
		c.r = c.b = ramp(190, 65, v1);
		c.g = ramp(80, 60, v1);
		break;
	case FP_PAL_AQUA:
		c.r = ramp(50, 60, v1);
		c.g = c.b = ramp(165, 55, v1);
		break;
	case FP_PAL_ORANGE:
		c.r = ramp(190, 65, v1);
		c.g = ramp(90, 65, v1);
		c.b = 0;
		break;
	default:
		c.r = c.g = c.b = 0;
		break;
	}
	return c;
}

void fp_flame_color(enum fp_palette pal, const char *name, size_t n, char *buf)
{
	fp_flame_color_kind(pal, name, n, 0, buf);
}

/* "rgb(R,G,B)" into buf (20 bytes): by hand, as snprintf's %u would
 * (a colour per frame of the SVG and per name of the page: snprintf was
 * most of the colour's cost); numbers past 3 digits, which no palette
 * makes, go through snprintf and its truncation. */
void fp_flame_color_kind(enum fp_palette pal, const char *name, size_t n, char kind, char *buf)
{
	struct rgb c = name_color(pal, name, n, kind);
	const unsigned v[3] = { c.r, c.g, c.b };
	char *d = buf;

	if (c.r > 999 || c.g > 999 || c.b > 999) {
		snprintf(buf, 20, "rgb(%u,%u,%u)", c.r, c.g, c.b);
		return;
	}
	memcpy(d, "rgb(", 4);
	d += 4;
	for (int i = 0; i < 3; i++) {
		if (v[i] >= 100)
			*d++ = (char)('0' + v[i] / 100);
		if (v[i] >= 10)
			*d++ = (char)('0' + v[i] / 10 % 10);
		*d++ = (char)('0' + v[i] % 10);
		*d++ = i < 2 ? ',' : ')';
	}
	*d = '\0';
}

/* A frame's change, self2/total2 - self1/total1, as the numerator over the
 * common denominator total1 * total2 (exact integers, so colours and
 * percentages are the same on every machine and easy to check by hand). */
typedef __int128 delta_t;

static delta_t node_delta(const struct fp_flame_tree *tr, const struct fp_flame_node *n, int negate)
{
	delta_t d = (delta_t)n->self * tr->total1 - (delta_t)n->self1 * tr->total;
	if (!tr->total1 || !tr->total) /* one side empty: the other alone */
		d = tr->total ? (delta_t)n->self : -(delta_t)n->self1;
	return negate ? -d : d;
}

static delta_t delta_abs(delta_t d)
{
	return d < 0 ? -d : d;
}

/* The change in hundredths of a percent, rounded half away from zero. */
static int64_t delta_pct100(const struct fp_flame_tree *tr, delta_t d)
{
	delta_t den = (delta_t)(tr->total1 ? tr->total1 : 1) * (tr->total ? tr->total : 1);
	delta_t v = (delta_abs(d) * 10000 * 2 + den) / (2 * den);
	return (int64_t)(d < 0 ? -v : v);
}

/* Differential colour: flamegraph.pl's color_scale on normalised deltas:
 * red for more, blue for less, 210 levels scaled to the largest change. */
static struct rgb diff_color(delta_t delta, delta_t maxdelta)
{
	if (maxdelta == 0 || delta == 0)
		return (struct rgb){ 255, 255, 255 };
	unsigned v = (unsigned)(210 * (maxdelta - delta_abs(delta)) / maxdelta);
	if (delta > 0)
		return (struct rgb){ 255, v, v };
	return (struct rgb){ v, v, 255 };
}

/* ---- options ------------------------------------------------------------ */

void fp_flame_opts_init(struct fp_flame_opts *o)
{
	memset(o, 0, sizeof *o);
	o->width = 1200;
	o->frame_height = 16;
	o->minwidth = 0.1;
	o->countname = "samples";
	o->nametype = "Function:";
	o->fontsize = 12;
	o->fonttype = "Verdana";
	o->fontwidth = 0.59;
	o->palette = FP_PAL_FLAMEPIPE;
	o->search_color = DEFAULT_SEARCH_COLOR;
}

static const struct fp_word palettes[] = {
	{ "flamepipe", FP_PAL_FLAMEPIPE },
	{ "hot", FP_PAL_HOT },
	{ "mem", FP_PAL_MEM },
	{ "io", FP_PAL_IO },
	{ "java", FP_PAL_JAVA },
	{ "js", FP_PAL_JS },
	{ "perl", FP_PAL_PERL },
	{ "red", FP_PAL_RED },
	{ "green", FP_PAL_GREEN },
	{ "blue", FP_PAL_BLUE },
	{ "aqua", FP_PAL_AQUA },
	{ "yellow", FP_PAL_YELLOW },
	{ "purple", FP_PAL_PURPLE },
	{ "orange", FP_PAL_ORANGE },
};

int fp_palette_parse(const char *name, enum fp_palette *out)
{
	int pal = fp_word_value(palettes, FP_WORDS(palettes), name, strlen(name), -1);

	if (pal < 0)
		return -1;
	*out = (enum fp_palette)pal;
	return 0;
}

int fp_flame_parse_minwidth(struct fp_flame_opts *o, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || v < 0 || !isfinite(v))
		return -1;
	o->minwidth_pct = 0;
	if (*end == '%') {
		o->minwidth_pct = 1;
		end++;
	}
	if (*end)
		return -1;
	o->minwidth = v;
	return 0;
}

static int is_hex_color(const char *s)
{
	if (s[0] != '#' || strlen(s) != 7)
		return 0;
	for (int i = 1; i < 7; i++) {
		char c = s[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return 0;
	}
	return 1;
}

int fp_flame_check_bgcolors(const char *arg)
{
	if (!strcmp(arg, "yellow") || !strcmp(arg, "blue") || !strcmp(arg, "green") ||
	    !strcmp(arg, "grey") || is_hex_color(arg))
		return 0;
	return -1;
}

static void background_colors(const struct fp_flame_opts *o, const char **c1, const char **c2)
{
	const char *bg = o->bgcolors;
	if (!bg || fp_flame_check_bgcolors(bg) < 0) {
		switch (o->palette) {
		case FP_PAL_MEM:
			bg = "green";
			break;
		case FP_PAL_IO:
			bg = "blue";
			break;
		case FP_PAL_RED:
		case FP_PAL_GREEN:
		case FP_PAL_BLUE:
		case FP_PAL_AQUA:
		case FP_PAL_YELLOW:
		case FP_PAL_PURPLE:
		case FP_PAL_ORANGE:
			bg = "grey";
			break;
		default:
			bg = "yellow";
			break;
		}
	}
	if (!strcmp(bg, "yellow")) {
		*c1 = "#eeeeee";
		*c2 = "#eeeeb0";
	} else if (!strcmp(bg, "blue")) {
		*c1 = "#eeeeee";
		*c2 = "#e0e0ff";
	} else if (!strcmp(bg, "green")) {
		*c1 = "#eef2ee";
		*c2 = "#e0ffe0";
	} else if (!strcmp(bg, "grey")) {
		*c1 = "#f8f8f8";
		*c2 = "#e8e8e8";
	} else {
		*c1 = *c2 = bg;
	}
}

/* ---- SVG writing ---------------------------------------------------------- */

struct layout {
	unsigned width, fh, fontsize;
	unsigned ypad1, ypad2, height;
	uint64_t avail100; /* drawable width in 1/100 px */
	uint32_t maxdepth;
	double fontwidth;
};

/* x (in samples) -> 1/100 px from the left margin, rounded. */
static uint64_t scale_x100(const struct layout *L, uint64_t x, uint64_t total)
{
	unsigned __int128 v = (unsigned __int128)x * L->avail100 + total / 2;
	return (uint64_t)(v / total);
}

static void put_px(struct fp_sink *s, uint64_t v100)
{
	fp_sink_fixed(s, (int64_t)v100, 2);
}

static void put_u_between(struct fp_sink *s, const char *before, uint64_t v, const char *after)
{
	fp_sink_str(s, before);
	fp_sink_u64(s, v);
	fp_sink_str(s, after);
}

static void put_attr_px(struct fp_sink *s, const char *name, uint64_t v100)
{
	fp_sink_str(s, name);
	put_px(s, v100);
	fp_sink_char(s, '"');
}

/* Percentage with 2 decimals, e.g. "12.34". */
static void put_pct(struct fp_sink *s, uint64_t part, uint64_t total)
{
	unsigned __int128 v = (unsigned __int128)part * HUNDRED_PERCENT_X100 + total / 2;
	fp_sink_fixed(s, (int64_t)(total ? (uint64_t)(v / total) : 0), 2);
}

/* Writes the label: at most `chars` characters (UTF-8 aware), with ".."
 * when cut, nothing below 3 characters (flamegraph.pl's rule). */
static void put_label(struct fp_sink *s, const char *p, size_t n, uint64_t w100,
		      const struct layout *L)
{
	double chars_d = ((double)w100 / 100.0 - LABEL_XOFF) / (L->fontsize * L->fontwidth);
	if (chars_d < 3)
		return;
	size_t chars = (size_t)chars_d;
	size_t i = 0, count = 0, cut = 0;
	for (; i < n; i++) {
		if (((unsigned char)p[i] & 0xc0) != 0x80) {
			if (count == chars - 2)
				cut = i;
			if (count == chars)
				break;
			count++;
		}
	}
	if (i < n) {
		fp_xml_escape(s, p, cut);
		fp_sink_write(s, "..", 2);
	} else {
		fp_xml_escape(s, p, n);
	}
}

static void put_css_font(struct fp_sink *s, const char *font)
{
	/* Font names go into a style sheet: keep only harmless characters. */
	for (const char *p = font; *p; p++) {
		char c = *p;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == ' ' || c == ',' || c == '-' || c == '_')
			fp_sink_char(s, c);
	}
}

static const char *default_title(const struct fp_flame_opts *o)
{
	if (o->title)
		return o->title;
	if (o->flamechart)
		return "Flame Chart";
	return o->inverted ? "Icicle Graph" : "Flame Graph";
}

static void write_header(struct fp_sink *s, const struct fp_flame_opts *o, const struct layout *L,
			 const struct fp_flame_tree *tr)
{
	const char *bg1, *bg2;
	background_colors(o, &bg1, &bg2);
	fp_sink_str(s, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		       "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		       "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n");
	fp_sink_printf(s,
		       "<svg version=\"1.1\" width=\"%u\" height=\"%u\" onload=\"init(evt)\" "
		       "viewBox=\"0 0 %u %u\" xmlns=\"http://www.w3.org/2000/svg\" "
		       "xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
		       "xmlns:fp=\"urn:flamepipe:flamegraph\">\n",
		       L->width, L->height, L->width, L->height);
	fp_sink_str(s, "<!-- Flame graph stack visualization. See "
		       "https://github.com/brendangregg/FlameGraph for the format; "
		       "written by flamepipe. -->\n");
	if (o->notes) {
		/* "--" may not appear inside an XML comment. */
		fp_sink_str(s, "<!-- NOTES: ");
		for (const char *p = o->notes; *p; p++) {
			if (*p == '-' && (p[1] == '-' || p[1] == 0))
				fp_sink_char(s, '_');
			else if (*p == '<' || *p == '>' || *p == '&')
				fp_sink_char(s, '_');
			else
				fp_sink_char(s, *p);
		}
		fp_sink_str(s, " -->\n");
	}
	fp_sink_printf(
		s,
		"<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">\n"
		"\t\t<stop stop-color=\"%s\" offset=\"5%%\"/>\n"
		"\t\t<stop stop-color=\"%s\" offset=\"95%%\"/>\n"
		"\t</linearGradient>\n</defs>\n",
		bg1, bg2);
	fp_sink_str(s, "<style type=\"text/css\">\n\ttext { font-family:");
	put_css_font(s, o->fonttype);
	fp_sink_printf(s, "; font-size:%upx; fill:rgb(0,0,0); }\n", L->fontsize);
	fp_sink_printf(s,
		       "\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
		       "\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { "
		       "opacity:1; }\n"
		       "\t#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n"
		       "\t#title { text-anchor:middle; font-size:%upx; }\n"
		       "\t#unzoom { cursor:pointer; }\n"
		       "\t#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
		       "\t.hide { display:none; }\n"
		       "\t.parent { opacity:0.5; }\n"
		       "</style>\n",
		       L->fontsize + TITLE_FONT_EXTRA);
	/* The script's parameters, then the script. */
	fp_sink_str(s, "<script type=\"text/ecmascript\"><![CDATA[\nvar fp_cfg = { nametype: ");
	fp_json_string(s, o->nametype, strlen(o->nametype));
	fp_sink_printf(s,
		       ", fontsize: %u, fontwidth: %.4g, xpad: %u, width: %u, inverted: %d, "
		       "searchcolor: ",
		       L->fontsize, L->fontwidth, XPAD, L->width, o->inverted ? 1 : 0);
	fp_json_string(s, o->search_color, strlen(o->search_color));
	fp_sink_str(s, ", total: ");
	fp_sink_u64(s, tr->total);
	fp_sink_str(s, " };\n");
	fp_sink_write(s, flamegraph_js, sizeof flamegraph_js - 1);
	fp_sink_str(s, "]]></script>\n");

	fp_sink_printf(
		s, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"url(#background)\"/>\n",
		L->width, L->height);
	const char *title = default_title(o);
	fp_sink_printf(s, "<text id=\"title\" x=\"%u\" y=\"%u\">", L->width / 2, L->fontsize * 2);
	fp_xml_escape(s, title, strlen(title));
	fp_sink_str(s, "</text>\n");
	if (o->subtitle) {
		fp_sink_printf(s, "<text id=\"subtitle\" x=\"%u\" y=\"%u\">", L->width / 2,
			       L->fontsize * 4);
		fp_xml_escape(s, o->subtitle, strlen(o->subtitle));
		fp_sink_str(s, "</text>\n");
	}
	fp_sink_printf(s, "<text id=\"details\" x=\"%u\" y=\"%u\"> </text>\n", XPAD,
		       L->height - L->ypad2 / 2);
	fp_sink_printf(s,
		       "<text id=\"unzoom\" class=\"hide\" x=\"%u\" y=\"%u\">Reset Zoom</text>\n",
		       XPAD, L->fontsize * 2);
	fp_sink_printf(s, "<text id=\"search\" x=\"%u\" y=\"%u\">Search</text>\n",
		       L->width - XPAD - 100, L->fontsize * 2);
	fp_sink_printf(s, "<text id=\"ignorecase\" x=\"%u\" y=\"%u\">ic</text>\n",
		       L->width - XPAD - 16, L->fontsize * 2);
	fp_sink_printf(s, "<text id=\"matched\" class=\"hide\" x=\"%u\" y=\"%u\"> </text>\n",
		       L->width - XPAD - 100, L->height - L->ypad2 / 2);
}

static void write_frame(struct fp_sink *s, const struct fp_flame_opts *o, const struct layout *L,
			const struct fp_flame_tree *tr, const struct fp_flame_node *n,
			delta_t maxdelta)
{
	uint64_t x1 = scale_x100(L, n->x, tr->total);
	uint64_t x2 = scale_x100(L, n->x + n->w, tr->total);
	uint64_t w100 = x2 - x1;
	unsigned y;
	if (o->inverted)
		y = L->ypad1 + n->depth * L->fh;
	else
		y = L->height - L->ypad2 - (n->depth + 1) * L->fh + FRAMEPAD;
	size_t ln = label_len(n->name, n->name_len);

	fp_sink_str(s, "<g fp:x=\"");
	fp_sink_u64(s, n->x);
	fp_sink_str(s, "\" fp:w=\"");
	fp_sink_u64(s, n->w);
	fp_sink_str(s, "\"><title>");
	fp_xml_escape(s, n->name, ln);
	fp_sink_str(s, " (");
	fp_sink_u64_sep(s, n->w);
	fp_sink_char(s, ' ');
	fp_xml_escape(s, o->countname, strlen(o->countname));
	fp_sink_str(s, ", ");
	if (n == tr->n)
		fp_sink_str(s, "100");
	else
		put_pct(s, n->w, tr->total);
	fp_sink_char(s, '%');
	struct rgb c;
	if (tr->diff) {
		delta_t d = node_delta(tr, n, o->negate);
		int64_t dsamples = (int64_t)n->self - (int64_t)n->self1;
		if (o->negate)
			dsamples = -dsamples;
		fp_sink_str(s, "; ");
		if (dsamples >= 0)
			fp_sink_char(s, '+');
		fp_sink_i64(s, dsamples);
		fp_sink_char(s, ' ');
		fp_xml_escape(s, o->countname, strlen(o->countname));
		fp_sink_str(s, ", ");
		int64_t d100 = delta_pct100(tr, d);
		if (d100 >= 0)
			fp_sink_char(s, '+');
		fp_sink_fixed(s, d100, 2);
		fp_sink_char(s, '%');
		c = diff_color(d, maxdelta);
	} else {
		char kind = o->kind_of && n->depth > 0
				    ? o->kind_of(o->kind_ctx, n->name, n->name_len)
				    : 0;
		c = name_color(o->palette, n->name, n->name_len, kind);
	}
	/* numbers by hand, not printf: this runs for every frame drawn */
	fp_sink_str(s, ")</title><rect x=\"");
	put_px(s, XPAD * 100u + x1);
	put_u_between(s, "\" y=\"", y, "\" width=\"");
	put_px(s, w100);
	put_u_between(s, "\" height=\"", L->fh - FRAMEPAD, "\" fill=\"rgb(");
	put_u_between(s, "", c.r, ",");
	put_u_between(s, "", c.g, ",");
	put_u_between(s, "", c.b, ")\" rx=\"2\" ry=\"2\"/><text x=\"");
	put_px(s, XPAD * 100u + x1 + LABEL_XOFF * 100u);
	fp_sink_str(s, "\" y=\"");
	/* Baseline: centre of the frame plus about a third of the font size. */
	put_attr_px(s, "", (uint64_t)y * 100 + (L->fh - FRAMEPAD) * 50 + L->fontsize * 35);
	fp_sink_char(s, '>');
	put_label(s, n->name, ln, w100, L);
	fp_sink_str(s, "</text></g>\n");
}

static void write_empty(struct fp_sink *s, const struct fp_flame_opts *o)
{
	fp_sink_printf(s,
		       "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		       "<svg version=\"1.1\" width=\"%u\" height=\"%u\" "
		       "xmlns=\"http://www.w3.org/2000/svg\">\n"
		       "<text x=\"%u\" y=\"%u\" style=\"font-family:Verdana; font-size:%upx\">",
		       o->width, o->fontsize * 5, o->width / 2, o->fontsize * 2, o->fontsize);
	const char *title = default_title(o);
	fp_xml_escape(s, title, strlen(title));
	fp_sink_str(s, ": no samples</text>\n</svg>\n");
}

/* Whether a frame of width w (of total) is drawn: wider than --minwidth. */
struct shown_rule {
	const struct fp_flame_opts *o;
	const struct layout *L;
};

static int frame_shown(void *ctx, uint64_t w, uint64_t total)
{
	const struct shown_rule *r = ctx;

	if (w == 0)
		return 0;
	if (r->o->minwidth_pct)
		return (double)w * 100.0 >= r->o->minwidth * (double)total;
	return (double)w * ((double)r->L->avail100 / 100.0) >= r->o->minwidth * (double)total;
}

/* The tree of t; with L, only the frames the SVG draws (a system-wide
 * capture has millions of frames, a few thousand of them wide enough). */
static void prepare(struct fp_folded *t, const struct fp_flame_opts *o, const struct layout *L,
		    struct fp_flame_tree *tr)
{
	if (o->reverse)
		fp_folded_reverse(t);
	if (!o->flamechart)
		fp_folded_sort(t);
	if (L) {
		struct shown_rule r = { o, L };
		fp_flame_tree_build_kept(tr, t, frame_shown, &r);
	} else {
		fp_flame_tree_build(tr, t);
	}
}

int fp_flame_render(struct fp_sink *s, struct fp_folded *t, const struct fp_flame_opts *o)
{
	struct fp_flame_tree tr;
	struct layout L;
	L.width = o->width > 2 * XPAD + 1 ? o->width : 2 * XPAD + 1;
	L.fh = o->frame_height > FRAMEPAD ? o->frame_height : FRAMEPAD + 1;
	L.fontsize = o->fontsize ? o->fontsize : 1;
	L.fontwidth = o->fontwidth > 0 ? o->fontwidth : 0.59;
	L.avail100 = (uint64_t)(L.width - 2 * XPAD) * 100;
	L.ypad1 = L.fontsize * 3 + (o->subtitle ? L.fontsize * 2 : 0);
	L.ypad2 = L.fontsize * 2 + 10;
	L.maxdepth = 0;
	prepare(t, o, &L, &tr);
	if (tr.total == 0) {
		write_empty(s, o);
		free(tr.n);
		return 1;
	}
	/* The tree holds only the frames drawn, and its root, which the rule
	 * never judged while building. */
	struct shown_rule rule = { o, &L };
	size_t first = frame_shown(&rule, tr.n[0].w, tr.total) ? 0 : 1;
	delta_t maxdelta = 0;
	for (size_t i = first; i < tr.len; i++) {
		struct fp_flame_node *n = &tr.n[i];
		if (n->depth > L.maxdepth)
			L.maxdepth = n->depth;
		if (tr.diff) {
			delta_t d = delta_abs(node_delta(&tr, n, 0));
			if (d > maxdelta)
				maxdelta = d;
		}
	}
	L.height = (L.maxdepth + 1) * L.fh + L.ypad1 + L.ypad2;

	write_header(s, o, &L, &tr);
	fp_sink_str(s, "<g id=\"frames\">\n");
	for (size_t i = first; i < tr.len; i++)
		write_frame(s, o, &L, &tr, &tr.n[i], maxdelta);
	fp_sink_str(s, "</g>\n</svg>\n");
	free(tr.n);
	return 0;
}

/* ---- nested JSON ----------------------------------------------------------- */

void fp_flame_json(struct fp_sink *s, struct fp_folded *t, const struct fp_flame_opts *o)
{
	struct fp_flame_tree tr;
	prepare(t, o, NULL, &tr);
	uint32_t open = 0; /* nodes whose children array is open */
	for (size_t i = 0; i < tr.len; i++) {
		struct fp_flame_node *n = &tr.n[i];
		if (n->w == 0 && i != 0)
			continue;
		/* Close the nodes that are not ancestors of this one. */
		while (open > n->depth) {
			fp_sink_str(s, "]}");
			open--;
		}
		if (i != 0 && tr.n[i - 1].depth >= n->depth)
			fp_sink_char(s, ',');
		fp_sink_str(s, "{\"name\":");
		fp_json_string(s, n->name, label_len(n->name, n->name_len));
		fp_sink_str(s, ",\"value\":");
		fp_sink_u64(s, n->w);
		if (tr.diff) {
			fp_sink_str(s, ",\"delta\":");
			fp_sink_i64(s, (int64_t)n->self - (int64_t)n->self1);
		}
		fp_sink_str(s, ",\"children\":[");
		open++;
	}
	while (open > 0) {
		fp_sink_str(s, "]}");
		open--;
	}
	if (tr.len == 0)
		fp_sink_str(s, "{\"name\":\"all\",\"value\":0,\"children\":[]}");
	fp_sink_char(s, '\n');
	free(tr.n);
}
