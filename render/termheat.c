/* termheat.c: terminal heatmap (see termheat.h). */
#include "termheat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define LABEL_WIDTH 6  /* "980ms " */
#define HEADER_LINES 2 /* title, legend */
#define FOOTER_LINES 1 /* seconds axis */
#define CUBE_BASE 16   /* first colour of the xterm 6x6x6 cube */
#define CUBE_LEVELS 6
#define RAMP " .:-=+*#%@"
#define TITLE_MAX 512
#define LEGEND_PREFIX "scale: 0 "
#define MIN_COLS 32          /* the legend line fits */
#define LEGEND_STEPS 9       /* the plain ramp has 9 non-blank steps */
#define DEFAULT_TERM_COLS 80 /* no tty and no $COLUMNS */
#define DEFAULT_TERM_LINES 24

enum fp_term_color fp_term_detect_color(int is_tty)
{
	const char *no_color = getenv("NO_COLOR");
	if (!is_tty || (no_color && *no_color))
		return FP_TERM_PLAIN;
	const char *ct = getenv("COLORTERM");
	if (ct && (strcmp(ct, "truecolor") == 0 || strcmp(ct, "24bit") == 0))
		return FP_TERM_TRUECOLOR;
	return FP_TERM_256;
}

/* One cell: level 0..1000 of the largest value. */
static void put_cell(struct fp_sink *s, enum fp_term_color mode, uint64_t v, uint64_t max)
{
	unsigned level = max ? (unsigned)(v * 1000 / max) : 0;
	if (mode == FP_TERM_PLAIN) {
		size_t steps = sizeof RAMP - 2;
		size_t i = v == 0 ? 0 : 1 + (size_t)level * (steps - 1) / 1000;
		fp_sink_char(s, RAMP[i]);
		return;
	}
	unsigned gb = 255 - level * 255 / 1000;
	if (mode == FP_TERM_TRUECOLOR) {
		fp_sink_printf(s, "\033[48;2;255;%u;%um ", gb, gb);
	} else {
		unsigned c = gb * (CUBE_LEVELS - 1) / 255;
		if (v && c == CUBE_LEVELS - 1)
			c = CUBE_LEVELS - 2; /* never draw a non-empty cell white */
		fp_sink_printf(s, "\033[48;5;%um ", CUBE_BASE + 36 * (CUBE_LEVELS - 1) + 6 * c + c);
	}
}

/* Writes at most `cols` characters of text (UTF-8 aware), control bytes as
 * '?': a line longer than the terminal would wrap and break redrawing in place. */
static void put_clipped(struct fp_sink *s, const char *text, size_t cols)
{
	size_t shown = 0;
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		int starts_char = (*p & 0xc0) != 0x80;
		if (starts_char && shown == cols)
			break;
		shown += starts_char;
		fp_sink_char(s, *p < 0x20 || *p == 0x7f ? '?' : (char)*p);
	}
}

static void end_line(struct fp_sink *s, const struct fp_term_opts *o)
{
	if (o->color != FP_TERM_PLAIN)
		fp_sink_str(s, "\033[0m");
	if (o->home)
		fp_sink_str(s, "\033[K");
	fp_sink_char(s, '\n');
}

void fp_heatmap_term(struct fp_sink *s, const struct fp_heatmap *hm, const struct fp_term_opts *o)
{
	unsigned cols = o->cols > MIN_COLS ? o->cols : MIN_COLS;
	unsigned lines = o->lines > HEADER_LINES + FOOTER_LINES + 2
				 ? o->lines
				 : HEADER_LINES + FOOTER_LINES + 2;
	unsigned avail_lines = lines - HEADER_LINES - FOOTER_LINES - 1;
	unsigned group = (hm->rows + avail_lines - 1) / avail_lines;
	unsigned shown_rows = (hm->rows + group - 1) / group;
	size_t width = cols - LABEL_WIDTH - 1;
	size_t first = hm->ncols > width ? hm->ncols - width : 0;
	size_t ncols = hm->ncols - first;

	/* Largest displayed (grouped) cell. */
	uint64_t max = 0;
	for (size_t c = first; c < hm->ncols; c++)
		for (unsigned g = 0; g < shown_rows; g++) {
			uint64_t v = 0;
			for (unsigned r = g * group; r < (g + 1) * group && r < hm->rows; r++)
				v += fp_heatmap_get(hm, c, r);
			if (v > max)
				max = v;
		}

	if (o->home)
		fp_sink_str(s, "\033[H");
	char head[TITLE_MAX];
	snprintf(head, sizeof head, "%s  %zu..%zu s, %u ms/line, 0 s = %lld",
		 o->title ? o->title : "flamepipe heatmap", first, hm->ncols ? hm->ncols - 1 : 0,
		 1000 * group / hm->rows, (long long)hm->base_sec);
	put_clipped(s, head, cols);
	end_line(s, o);
	fp_sink_str(s, LEGEND_PREFIX);
	for (unsigned i = 0; i <= LEGEND_STEPS; i++)
		put_cell(s, o->color, i, LEGEND_STEPS);
	if (o->color != FP_TERM_PLAIN)
		fp_sink_str(s, "\033[0m");
	snprintf(head, sizeof head, " %llu samples per cell", (unsigned long long)max);
	put_clipped(s, head, cols - (sizeof LEGEND_PREFIX - 1) - (LEGEND_STEPS + 1));
	end_line(s, o);
	for (unsigned g = shown_rows; g-- > 0;) {
		fp_sink_printf(s, "%4ums ", 1000 * g * group / hm->rows);
		for (size_t c = first; c < hm->ncols; c++) {
			uint64_t v = 0;
			for (unsigned r = g * group; r < (g + 1) * group && r < hm->rows; r++)
				v += fp_heatmap_get(hm, c, r);
			put_cell(s, o->color, v, max);
		}
		end_line(s, o);
	}
	/* Seconds axis: a mark every 10 columns. */
	fp_sink_printf(s, "%*s", LABEL_WIDTH, "");
	for (size_t i = 0; i < ncols;) {
		size_t c = first + i;
		if (c % 10 == 0) {
			char num[24];
			int n = snprintf(num, sizeof num, "%zu", c);
			if (i + (size_t)n <= ncols) {
				fp_sink_write(s, num, (size_t)n);
				i += (size_t)n;
				continue;
			}
		}
		fp_sink_char(s, ' ');
		i++;
	}
	end_line(s, o);
	if (o->home)
		fp_sink_str(s, "\033[J");
}

/* ---- the terminal driver ------------------------------------------------ */

int fp_term_view_open(struct fp_term_view *v, const char *tty_path, enum fp_term_mode mode)
{
	memset(v, 0, sizeof *v);
	v->fd = 1;
	if (tty_path) {
		v->fd = open(tty_path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (v->fd < 0)
			return -1;
	}
	v->is_tty = isatty(v->fd);
	switch (mode) {
	case FP_TERM_MODE_PLAIN:
		v->color = FP_TERM_PLAIN;
		break;
	case FP_TERM_MODE_COLOR:
		v->color = fp_term_detect_color(1);
		if (v->color == FP_TERM_PLAIN) /* NO_COLOR, but asked for colour */
			v->color = FP_TERM_256;
		break;
	default:
		v->color = fp_term_detect_color(v->is_tty);
		break;
	}
	return 0;
}

/* The size asked for, else the tty's, else $COLUMNS x $LINES, else 80x24. */
static void view_size(const struct fp_term_view *v, unsigned *cols, unsigned *lines)
{
	struct winsize ws;
	const char *e;

	*cols = v->cols;
	*lines = v->lines;
	if (*cols && *lines)
		return;
	if (v->is_tty && ioctl(v->fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		*cols = ws.ws_col;
		*lines = ws.ws_row;
		return;
	}
	*cols = (e = getenv("COLUMNS")) && atoi(e) > 0 ? (unsigned)atoi(e) : DEFAULT_TERM_COLS;
	*lines = (e = getenv("LINES")) && atoi(e) > 0 ? (unsigned)atoi(e) : DEFAULT_TERM_LINES;
}

int fp_term_view_draw(struct fp_term_view *v, const struct fp_heatmap *hm, int final)
{
	struct fp_term_opts o;
	struct fp_sink s;
	int rc = 0;

	view_size(v, &o.cols, &o.lines);
	o.color = v->color;
	o.home = v->is_tty;
	o.title = v->title;
	fp_sink_init_mem(&s);
	if (v->is_tty && !v->drawn)
		fp_sink_str(&s, "\033[2J\033[?25l"); /* clear once, hide the cursor */
	fp_heatmap_term(&s, hm, &o);
	if (v->is_tty && final)
		fp_sink_str(&s, "\033[?25h");
	for (size_t off = 0; off < s.len;) {
		ssize_t n = write(v->fd, s.buf + off, s.len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = -1;
			break;
		}
		off += (size_t)n;
	}
	int err = errno;
	fp_sink_free(&s);
	errno = err;
	v->drawn = 1;
	return rc;
}
