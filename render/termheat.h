/* termheat.h: the heatmap as terminal text, for SSH sessions.
 *
 * One character per second (the newest seconds that fit the width), one
 * line per slice group (rows are summed in groups so the map fits the
 * height), the start of the second at the bottom as on the web page.
 * Colours: truecolor or 256-colour background cells, white->red scaled to
 * the largest displayed cell; or, in plain mode, a character ramp
 * " .:-=+*#%@" with no escape sequences at all (for pipes and NO_COLOR).
 *
 * With `home` set, the drawing starts with cursor-home and every line ends
 * with clear-to-end-of-line, so redrawing in place never flickers.
 */
#ifndef FP_TERMHEAT_H
#define FP_TERMHEAT_H

#include "heatmap.h"
#include "sink.h"

enum fp_term_color { FP_TERM_PLAIN, FP_TERM_256, FP_TERM_TRUECOLOR };

struct fp_term_opts {
	unsigned cols, lines; /* terminal size */
	enum fp_term_color color;
	int home; /* redraw in place */
	const char *title;
};

/* Picks the colour mode from the environment: NO_COLOR or !is_tty -> plain,
 * COLORTERM=truecolor|24bit -> truecolor, else 256 colours. */
enum fp_term_color fp_term_detect_color(int is_tty);

void fp_heatmap_term(struct fp_sink *s, const struct fp_heatmap *hm, const struct fp_term_opts *o);

/* The terminal driver: a heatmap redrawn in place on a terminal (or drawn
 * once, as plain text, into a pipe).
 *
 * Calling sequence:
 *	struct fp_term_view v;
 *	if (fp_term_view_open(&v, tty_path, mode) < 0)  // NULL: stdout
 *		die(errno);
 *	v.cols = v.lines = 0;          // 0: ask the terminal, then $COLUMNS/$LINES
 *	v.title = ...;                 // NULL: "flamepipe heatmap"
 *	fp_term_view_draw(&v, hm, 0);  // as often as the cells change
 *	fp_term_view_draw(&v, hm, 1);  // the last frame: the cursor comes back
 * On a tty the first frame clears the screen and hides the cursor; each
 * frame starts at cursor-home. Draws return -1 with errno after a failed
 * write (EPIPE: the reader went away), 0 otherwise. */
enum fp_term_mode { FP_TERM_MODE_OFF, FP_TERM_MODE_AUTO, FP_TERM_MODE_COLOR, FP_TERM_MODE_PLAIN };

struct fp_term_view {
	int fd, is_tty, drawn;
	enum fp_term_color color;
	unsigned cols, lines; /* 0: ask the terminal */
	const char *title;
};

int fp_term_view_open(struct fp_term_view *v, const char *tty_path, enum fp_term_mode mode);
int fp_term_view_draw(struct fp_term_view *v, const struct fp_heatmap *hm, int final);

#endif
