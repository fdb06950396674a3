/* fp-tui: the interactive terminal view of a flamepipe stream
 * (docs/fp-tui.md).
 *
 *	fp-tui [--live] [--passthrough] [--max-samples N] [--max-frames N] [--tty PATH]
 *	       [--no-color] [--title TEXT] [--messages FILE] [--quit-file FILE]
 *	       [--baseline FILE] [FILE]
 *
 * A view stage: it reads the stream (stdin or FILE) to its end and draws
 * on the terminal (/dev/tty, not stdout: in `flamepipe live` and `report
 * --tui` it is the chain's last stage) the heatmap with a cursor, and for
 * the range picked with it (or the whole capture) the call tree, top-down
 * and bottom-up, and the functions by self and total; live, as samples
 * come. It writes nothing on stdout, unless --passthrough: then every
 * record goes on unchanged (fp-serve --live after it). What it reads:
 *	G, H          the heatmap (fp-bucket)
 *	D, R          the folded samples (fp-fold --pass-samples): the trees
 *	S, K, P       samples not yet folded (fp-read | fp-bucket | fp-tui):
 *	              folded here with fold/fp_fold's default rules
 *	C reset       the samples held are dropped (fp-range re-sends)
 *	W             counted, the last one shown
 * The samples are kept in a ring of --max-samples (the oldest go first,
 * and the screen says so); a range's trees are built from it.
 *
 * The terminal: fp-tui takes the terminal's foreground (a stage runs in
 * its own process group, and only the foreground group may read keys),
 * puts it in raw mode (Ctrl-C is a key: it quits, as q does) and gives
 * both back on every way out: q, Ctrl-C, SIGTERM/SIGINT/SIGHUP (the runner
 * stopping the chain), the end of the process (atexit: fp_die), and a
 * crash signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: the saved
 * termios and terminfo's exit sequences are written from the handler,
 * then the signal kills the process as it would have).
 *
 * Exit codes: 0 after q, Ctrl-C or a stop signal; 100 usage, no terminal;
 * 111 a system error; 1 a gzip input error.
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <ev.h>

#include "fp_error.h"
#include "fp_fold.h"
#include "fp_io.h"
#include "fp_opts.h"
#include "fp_record.h"
#include "fp_tails.h"
#include "tui.h"

#define USAGE                                                                                     \
	"usage: fp-tui [--live] [--passthrough] [--max-samples N] [--max-frames N] [--tty PATH] " \
	"[--no-color] [--title TEXT] [--messages FILE] [--quit-file FILE] [--baseline FILE] "     \
	"[FILE]\n"
#define MAX_SAMPLES_DEFAULT (4u << 20) /* 96 MiB of samples */
#define MAX_FRAMES_DEFAULT (16u << 20) /* 64 MiB of stack frames */
#define TICK 0.1                       /* s between redraws, at most */
#define LIVE_BUILD_EVERY 0.5           /* s between rebuilds of a live tree */
#define RESTORE_MAX 256
#define HEAT_256_BASE 16  /* xterm-256's colour cube */
#define HANGUP_WAKEUPS 50 /* the tty readable this often with no key: it hung up */

/* ---- the terminal, and giving it back on every way out ------------------------ */

static struct {
	int fd; /* the tty */
	struct termios saved;
	int have_saved;
	pid_t orig_pgrp; /* the foreground group before us */
	int took_fg;
	int active; /* curses is on the screen */
	SCREEN *scr;
	FILE *in, *out;
	char restore[RESTORE_MAX]; /* terminfo's sgr0, cnorm, rmkx, rmcup */
	size_t restore_len;
} term = { .fd = -1 };

/* Async-signal-safe: write, tcsetattr and tcsetpgrp only. */
static void restore_raw(void)
{
	if (term.fd < 0)
		return;
	if (term.restore_len && write(term.fd, term.restore, term.restore_len) < 0) {
		/* nothing more can be done from here */
	}
	if (term.have_saved)
		tcsetattr(term.fd, TCSANOW, &term.saved);
	if (term.took_fg)
		tcsetpgrp(term.fd, term.orig_pgrp);
	term.took_fg = 0;
}

static void on_crash(int sig)
{
	restore_raw();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void term_end(void)
{
	if (term.active) {
		term.active = 0;
		endwin();
		fflush(term.out);
	}
	if (term.have_saved)
		tcsetattr(term.fd, TCSANOW, &term.saved);
	if (term.took_fg)
		tcsetpgrp(term.fd, term.orig_pgrp);
	term.took_fg = 0;
}

static void add_restore(const char *cap)
{
	const char *s = tigetstr((char *)cap);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (term.restore_len + n < RESTORE_MAX) {
		memcpy(term.restore + term.restore_len, s, n);
		term.restore_len += n;
	}
}

static void init_colors(struct tui *t, int want)
{
	/* white (5,5,5) to red (5,0,0) on xterm-256's cube, 9 steps */
	static const short gb256[9] = { 5, 4, 4, 3, 3, 2, 2, 1, 0 };
	static const short bg8[9] = { COLOR_WHITE,   COLOR_WHITE,  COLOR_CYAN,
				      COLOR_YELLOW,  COLOR_YELLOW, COLOR_MAGENTA,
				      COLOR_MAGENTA, COLOR_RED,    COLOR_RED };

	t->color = 0;
	if (!want || !has_colors() || start_color() == ERR)
		return;
	use_default_colors();
	for (short i = 0; i < 9; i++) {
		short bg = COLORS >= 256 ? (short)(HEAT_256_BASE + 36 * 5 + 6 * gb256[i] + gb256[i])
					 : bg8[i];

		init_pair((short)(i + 1), COLOR_BLACK, bg);
	}
	t->color = 1;
}

static void term_open(struct tui *t, const char *path, int no_color)
{
	const char *nc = getenv("NO_COLOR");
	struct sigaction sa;
	static const int crash[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP };

	term.fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (term.fd < 0 || !isatty(term.fd))
		fp_die_sys(FP_EXIT_USAGE,
			   "open %s: fp-tui draws on a terminal (run it from one, "
			   "or use fp-render --term or -o DIR in a pipe)",
			   path);
	/* A stage is in a process group of its own: keys go to the terminal's
	 * foreground group only, so take it (SIGTTOU ignored: a background
	 * group may then), and give it back on the way out. */
	signal(SIGTTOU, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	term.orig_pgrp = tcgetpgrp(term.fd);
	if (term.orig_pgrp > 0 && term.orig_pgrp != getpgrp()) {
		/* only from the job that has the terminal: the runner that
		 * started us (a job in the background must not take it from
		 * the shell) */
		if (term.orig_pgrp != getpgid(getppid()))
			fp_die(FP_EXIT_USAGE,
			       "%s belongs to another job: run it in the foreground "
			       "(flamepipe live: --no-term or --term heatmap in the background)",
			       path);
		if (tcsetpgrp(term.fd, getpgrp()) == 0)
			term.took_fg = 1;
	}
	if (tcgetattr(term.fd, &term.saved) == 0)
		term.have_saved = 1;
	atexit(term_end);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof crash / sizeof *crash; i++)
		sigaction(crash[i], &sa, NULL);
	term.in = fdopen(term.fd, "r");
	term.out = fdopen(dup(term.fd), "w");
	if (!term.in || !term.out)
		fp_die_sys(FP_EXIT_SYS, "fdopen %s", path);
	setlocale(LC_ALL, "");
	term.scr = newterm(NULL, term.out, term.in);
	if (!term.scr)
		fp_die(FP_EXIT_USAGE, "%s: the terminal type '%s' is unknown (set TERM)", path,
		       getenv("TERM") ? getenv("TERM") : "");
	term.active = 1;
	set_term(term.scr);
	{
		const char *cup = tigetstr((char *)"cup");

		if (!cup || cup == (char *)-1) /* TERM=dumb: no cursor addressing */
			fp_die(FP_EXIT_USAGE,
			       "%s: the terminal type '%s' cannot move the cursor "
			       "(set TERM to the terminal's type)",
			       path, getenv("TERM") ? getenv("TERM") : "");
	}
	add_restore("sgr0");
	add_restore("cnorm");
	add_restore("rmkx"); /* the cursor keys as the shell expects them */
	add_restore("rmcup");
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	init_colors(t, !no_color && !(nc && *nc));
}

/* ---- the stream ------------------------------------------------------------------ */

struct stage {
	struct tui t;
	struct fp_pump *pump;
	struct fp_tails tails;
	struct fp_strtab folded; /* S samples' folded stacks -> stack ids */
	struct fp_fold_buf fb, kinds;
	int saw_defs;    /* D records: S samples are not ours to fold */
	int passthrough; /* every record goes on to stdout */
	uint64_t bad;
};

static void fold_sample(struct stage *st, const struct fp_sample *s)
{
	static const struct fp_fold_opts o = FP_FOLD_OPTS_DEFAULT;
	int added = 0;
	uint32_t id;

	if (st->saw_defs)
		return;
	st->fb.len = st->kinds.len = 0;
	if (fp_fold_build(&st->fb, s, &o, &st->kinds) < 0) {
		st->bad++;
		return;
	}
	id = fp_strtab_intern(&st->folded, st->fb.p, st->fb.len, &added);
	if (added)
		tui_model_define(&st->t.m, id, st->kinds.p, st->kinds.len, st->fb.p, st->fb.len);
	tui_model_sample(&st->t.m, id, s->time_ns,
			 fp_event_is_timed(s->event) && s->period ? s->period : 1,
			 tui_model_event(&st->t.m, s->event.p, s->event.n));
}

static int on_s(void *ctx, const char *line, size_t len)
{
	struct fp_sample s;

	if (fp_sample_parse(line, len, &s) < 0)
		return -1;
	fold_sample(ctx, &s);
	return 0;
}

static int on_k(void *ctx, const char *line, size_t len)
{
	struct stage *st = ctx;
	uint32_t id;

	return fp_tails_define_line(&st->tails, line, len, &id);
}

static int on_p(void *ctx, const char *line, size_t len)
{
	struct stage *st = ctx;
	struct fp_sample s;
	int err = fp_tails_sample_line(&st->tails, line, len, &s, NULL);

	if (!err)
		fold_sample(st, &s);
	return err;
}

static void on_bad(void *ctx, const char *problem)
{
	struct stage *st = ctx;

	st->bad++;
	st->t.warnings++;
	snprintf(st->t.last_warning, sizeof st->t.last_warning, "fp-tui: %s:%llu: %s",
		 st->pump->in_name, (unsigned long long)st->pump->lineno, problem);
}

static const struct fp_sample_handlers sample_handlers = { on_s, on_k, on_p, on_bad };

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	struct stage *st = p->ctx;
	struct tui *t = &st->t;
	enum fp_rec tag = fp_record_tag(line, &len);
	struct fp_cell c;
	struct fp_stack_def d;
	struct fp_ref r;
	struct fp_control ctl;
	struct fp_warning w;

	if (st->passthrough)
		fp_write_line(fp_out_wr(&p->out), line, len);
	if (fp_sample_records(&sample_handlers, st, tag, line, len))
		return;
	switch (tag) {
	case FP_REC_HEADER:
		fp_header_require(line, len, p->in_name, p->lineno);
		break;
	case FP_REC_GEOMETRY:
		if (fp_heatmap_geometry(&t->m.hm, line, len) < 0)
			on_bad(st, "malformed G record (expected G <rows> <base_sec>): ignored");
		t->dirty = 1;
		break;
	case FP_REC_CELL:
		if (fp_cell_parse(line, len, &c) < 0 ||
		    fp_heatmap_set(&t->m.hm, c.col, c.row, c.count) < 0)
			on_bad(st,
			       "malformed H record (expected H <column> <row> <count>): ignored");
		t->dirty = 1;
		break;
	case FP_REC_STACK:
		st->saw_defs = 1;
		if (fp_stack_def_parse(line, len, &d) < 0 ||
		    tui_model_define(&t->m, d.id, d.kinds.p, d.kinds.n, d.folded.p, d.folded.n) < 0)
			on_bad(st,
			       "malformed D record (expected D <id> <kinds> <folded>): ignored");
		break;
	case FP_REC_REF:
		if (fp_ref_parse(line, len, &r) < 0)
			on_bad(st, "malformed R record: ignored");
		else
			tui_model_sample(&t->m, r.id, r.time_ns, r.count,
					 tui_model_event(&t->m, r.event.p, r.event.n));
		break;
	case FP_REC_CONTROL:
		if (fp_control_parse(line, len, &ctl) < 0)
			break;
		if (ctl.kind == FP_CTL_RESET)
			tui_model_reset(&t->m);
		else if (ctl.kind == FP_CTL_EVENTS) /* the capture's order, for E */
			for (size_t i = 0; i < ctl.nargs; i++)
				tui_model_event(&t->m, ctl.arg[i].p, ctl.arg[i].n);
		break;
	case FP_REC_WARNING:
		if (fp_warning_parse(line, len, &w) == 0) {
			t->warnings++;
			snprintf(t->last_warning, sizeof t->last_warning, "%.*s: %.*s",
				 (int)w.stage.n, w.stage.p, (int)w.message.n, w.message.p);
		}
		break;
	default:
		break; /* F, E, I, #, unknown records: nothing to draw */
	}
}

static void on_eof(struct fp_pump *p)
{
	struct stage *st = p->ctx;

	st->t.ended = 1;
	st->t.dirty = 1;
	if (!st->t.m.ring_n && !st->t.m.evicted && !st->t.m.hm.n)
		snprintf(st->t.msg, sizeof st->t.msg,
			 "%s: no samples and no heatmap: not a flamepipe "
			 "stream? (perf script text: fp-read FILE | fp-bucket | fp-tui)",
			 p->in_name);
}

static const struct fp_pump_ops ops = { .line = on_line, .eof = on_eof };

/* ---- the loop ---------------------------------------------------------------------- */

static struct ev_loop *loop;
static const char *messages_path;
static const char *quit_file; /* --quit-file */
static ev_timer tick;
static ev_io keys;
static int draining; /* off the screen, reading the input to its end */

/* The user quit (or a stop signal came). With --quit-file and input still
 * coming: off the screen now, FILE made (the runner then stops the chain
 * from its source), and the stream read to its end, so every stage before
 * this one drains and ends as on any stop (fp-render's report complete),
 * none of them cut off by EPIPE. Otherwise, or the second time: out. */
static void leave(struct tui *t)
{
	t->quit = 1;
	if (!quit_file || t->ended || draining) {
		ev_break(loop, EVBREAK_ALL);
		return;
	}
	draining = 1;
	ev_io_stop(loop, &keys);
	ev_timer_stop(loop, &tick);
	term_end();
	int fd = open(quit_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	if (fd >= 0)
		close(fd);
	else
		ev_break(loop, EVBREAK_ALL); /* nobody would stop the chain: go */
}

/* --messages FILE grew: its last bytes, and its last line for the last
 * line of the screen. */
static void read_messages(struct tui *t)
{
	static off_t seen = -1;
	struct stat st;
	ssize_t n;
	int fd;

	if (!messages_path || stat(messages_path, &st) < 0 || st.st_size == seen)
		return;
	seen = st.st_size;
	fd = open(messages_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = pread(fd, t->messages, sizeof t->messages - 1,
		  st.st_size > (off_t)sizeof t->messages - 1
			  ? st.st_size - (off_t)sizeof t->messages + 1
			  : 0);
	close(fd);
	if (n <= 0)
		return;
	t->messages_len = (size_t)n;
	t->messages[n] = '\0';
	for (ssize_t e = n; e > 0; e--) { /* the last non-empty line */
		if (t->messages[e - 1] == '\n')
			continue;
		ssize_t b = e;

		while (b > 0 && t->messages[b - 1] != '\n')
			b--;
		snprintf(t->last_message, sizeof t->last_message, "%.*s", (int)(e - b),
			 t->messages + b);
		break;
	}
	t->message_at = ev_now(loop);
	t->dirty = 1;
}

static void draw(struct tui *t)
{
	static uint64_t drawn_gen = UINT64_MAX;
	static int message_on;

	if (draining)
		return;

	t->now = ev_now(loop);
	read_messages(t);
	if (message_on != (t->now - t->message_at < 10.0)) /* a message leaves the last line */
		t->dirty = 1;
	message_on = t->now - t->message_at < TUI_MESSAGE_SHOWN;
	tui_view_build(t, ev_now(loop), t->ended ? 0 : LIVE_BUILD_EVERY);
	if (t->dirty || drawn_gen != t->m.gen) {
		tui_screen_draw(t);
		drawn_gen = t->m.gen;
	}
}

static void on_tick(struct ev_loop *l, ev_timer *w, int revents)
{
	draw(w->data);
}

static void on_keys(struct ev_loop *l, ev_io *w, int revents)
{
	static unsigned empty;
	struct tui *t = w->data;
	int key, got = 0;

	while ((key = getch()) != ERR) {
		got = 1;
		if (key == KEY_RESIZE) {
			t->dirty = 2;
			continue;
		}
		if (tui_key(t, key) && !t->dirty)
			t->dirty = 1;
		if (t->quit) {
			leave(t);
			return;
		}
	}
	/* A terminal that went away reads as readable for ever with nothing
	 * in it (EOF, EIO): quit rather than spin. */
	empty = got ? 0 : empty + 1;
	if (empty >= HANGUP_WAKEUPS) {
		leave(t);
		return;
	}
	draw(t);
}

static void on_stop(struct ev_loop *l, ev_signal *w, int revents)
{
	leave(w->data);
}

static void on_winch(struct ev_loop *l, ev_signal *w, int revents)
{
	struct tui *t = w->data;
	struct winsize ws;

	if (ioctl(term.fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resize_term(ws.ws_row, ws.ws_col);
	t->dirty = 2;
	draw(t);
}

int main(int argc, char **argv)
{
	static struct stage st;
	struct tui *t = &st.t;
	struct fp_pump p;
	uint64_t max_samples = MAX_SAMPLES_DEFAULT, max_frames = MAX_FRAMES_DEFAULT;
	const char *tty = "/dev/tty", *input = NULL, *in_name, *baseline = NULL;
	int live = 0, no_color = 0, in_fd, null_fd, rc;
	ev_signal sigs[5];
	static const int stop_sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };
	const struct fp_opt options[] = {
		{ "live", FP_OPT_FLAG, &live },
		{ "passthrough", FP_OPT_FLAG, &st.passthrough },
		{ "max-samples", FP_OPT_U64, &max_samples, .min = 1, .max = (uint64_t)1 << 32 },
		{ "max-frames", FP_OPT_U64, &max_frames, .min = 1, .max = UINT32_MAX },
		{ "tty", FP_OPT_STR, &tty },
		{ "no-color", FP_OPT_FLAG, &no_color },
		{ "title", FP_OPT_STR, &t->title },
		{ "messages", FP_OPT_STR, &messages_path },
		{ "quit-file", FP_OPT_STR, &quit_file },
		{ "baseline", FP_OPT_STR, &baseline },
		{ NULL },
	};
	int first;

	fp_set_prog(argv[0]);
	t->title = "flamepipe";
	first = fp_opts_parse(argc, argv, options, USAGE, 1, NULL);
	if (first < argc)
		input = argv[first];
	if (baseline) { /* before the terminal is taken: an error is a plain line */
		char err[512];

		if (tui_diff_load(t, baseline, err, sizeof err) < 0)
			fp_die(FP_EXIT_USAGE, "--baseline %s", err);
	}
	in_fd = fp_open_input(input, &in_name);
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC); /* fp-tui writes no records */
	if (null_fd < 0)
		fp_die_sys(FP_EXIT_SYS, "open /dev/null");
	tui_model_init(&t->m, (size_t)max_samples, (size_t)max_frames);
	fp_calltree_init(&t->td, 0);
	fp_calltree_init(&t->bu, 1);
	fp_heatmap_init(&t->ehm);
	t->event = TUI_EV_UNTIMED;
	fp_map_init(&t->open);
	fp_tails_init(&st.tails);
	fp_strtab_init(&st.folded);
	t->live = live;
	t->follow = live;
	t->need_build = 1;
	t->dirty = 1;
	term_open(t, tty, no_color);

	loop = EV_DEFAULT;
	fp_pump_init(&p, loop, in_fd, st.passthrough ? 1 : null_fd, &ops, &st, FP_PUMP_GZIP);
	p.in_name = in_name;
	p.stage = "tui";
	st.pump = &p;
	/* A stop signal ends the view, not just the input. */
	ev_signal_stop(loop, &p.sig_int);
	ev_signal_stop(loop, &p.sig_term);
	for (size_t i = 0; i < sizeof stop_sigs / sizeof *stop_sigs; i++) {
		ev_signal_init(&sigs[i], on_stop, stop_sigs[i]);
		sigs[i].data = t;
		ev_signal_start(loop, &sigs[i]);
	}
	ev_signal_init(&sigs[4], on_winch, SIGWINCH);
	sigs[4].data = t;
	ev_signal_start(loop, &sigs[4]);
	ev_timer_init(&tick, on_tick, TICK, TICK);
	tick.data = t;
	ev_timer_start(loop, &tick);
	ev_io_init(&keys, on_keys, term.fd, EV_READ);
	keys.data = t;
	ev_io_start(loop, &keys);
	draw(t);

	rc = fp_pump_run(&p);
	if (!t->quit) { /* the input ended: browse until q */
		t->ended = 1;
		t->dirty = 1;
		draw(t);
		ev_run(loop, 0);
	}
	term_end();
	tui_diff_free(t);
	fp_heatmap_free(&t->ehm);
	return rc;
}
