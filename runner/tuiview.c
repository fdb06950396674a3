/* tuiview.c: fp-tui as the runner's terminal view (tuiview.h). */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fp_error.h"
#include "tuiview.h"

#define TUI_PIPELINE_NAME "tui.pipeline"
#define STDERR_LOG_NAME "stderr.log"
#define QUIT_FILE_NAME "tui.quit"
#define LOG_TAIL (64 * 1024) /* bytes of the log shown at the end */
#define WATCH_POLL 0.1       /* s between checks of the view */
#define LINE_MAX_TEXT 8192

/* 1 if line is a stage line named name (NAME then a blank). */
static int is_stage(const char *line, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(line, name, n) && (line[n] == ' ' || line[n] == '\t');
}

char *fp_tui_pipeline(const char *dir, const char *file, int keep_render)
{
	size_t dl = strlen(dir);
	char *out = fp_xmalloc(dl + sizeof "/" TUI_PIPELINE_NAME);
	char line[LINE_MAX_TEXT];
	int last_nl = 1;
	FILE *in, *f;

	memcpy(out, dir, dl);
	memcpy(out + dl, "/" TUI_PIPELINE_NAME, sizeof "/" TUI_PIPELINE_NAME);
	if (!(in = fopen(file, "r")))
		fp_die_sys(FP_EXIT_USAGE, "cannot read pipeline file %s", file);
	if (!(f = fopen(out, "wx")))
		fp_die_sys(FP_EXIT_SYS, "cannot write %s", out);
	while (fgets(line, sizeof line, in)) {
		size_t n = strlen(line);

		if (!keep_render && last_nl && is_stage(line, "render")) {
			last_nl = n && line[n - 1] == '\n';
			continue;
		}
		fputs(line, f);
		last_nl = n && line[n - 1] == '\n';
	}
	if (!last_nl)
		fputc('\n', f);
	fprintf(f, "# the terminal view, added by flamepipe\n%s fp-tui ${TUI_ARGS}\n",
		FP_TUI_STAGE);
	if (ferror(in) || fclose(f) != 0)
		fp_die_sys(FP_EXIT_SYS, "cannot write %s", out);
	fclose(in);
	return out;
}

static void quit_path(const struct fp_run *r, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", fp_run_dir(r), QUIT_FILE_NAME);
}

static void watch_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct fp_tui_watch *tw = w->data;
	char quit[PATH_MAX];

	if (!tw->found) {
		for (size_t i = 0; i < fp_run_stage_count(tw->run); i++)
			if (!strcmp(fp_run_stage_name(tw->run, i), FP_TUI_STAGE)) {
				tw->index = i;
				tw->found = 1;
			}
		if (!tw->found) {
			ev_timer_stop(loop, w);
			return;
		}
	}
	pid_t pid = fp_run_stage_pid(tw->run, tw->index);

	quit_path(tw->run, quit, sizeof quit);
	if (!tw->stopped && access(quit, F_OK) == 0) { /* the user quit: the chain drains */
		tw->stopped = 1;
		fp_run_stop(tw->run);
	}
	if (pid > 0) {
		/* stopped by a signal (SIGTERM, Ctrl-C of a shell script...):
		 * the view does not wait for its input's end, it goes now */
		if (fp_run_stop_signal(tw->run) && !tw->termed) {
			tw->termed = 1;
			kill(pid, SIGTERM);
		}
		return;
	}
	/* the view has ended: the capture or the report ends with it */
	ev_timer_stop(loop, w);
	if (!tw->stopped)
		fp_run_stop(tw->run);
}

void fp_tui_watch_start(struct fp_tui_watch *tw, struct fp_run *r)
{
	memset(tw, 0, sizeof *tw);
	tw->run = r;
	ev_timer_init(&tw->w, watch_cb, WATCH_POLL, WATCH_POLL);
	tw->w.data = tw;
	ev_timer_start(fp_run_loop(r), &tw->w);
}

void fp_tui_watch_stop(struct fp_tui_watch *tw)
{
	if (tw->run)
		ev_timer_stop(fp_run_loop(tw->run), &tw->w);
}

static int saved_stderr = -1, saved_stdout = -1;
static char log_path[4096];

/* DIR/stderr.log into buf; -1 if stderr is not a terminal (no log then). */
static int log_path_of(const char *dir, char *buf, size_t n)
{
	if (!isatty(2))
		return -1;
	snprintf(buf, n, "%s/%s", dir, STDERR_LOG_NAME);
	return 0;
}

void fp_tui_vars(struct fp_run *r, struct fp_vars *v)
{
	char path[PATH_MAX];

	if (log_path_of(fp_run_dir(r), path, sizeof path) == 0) {
		fp_vars_append(v, "TUI_ARGS", "--messages");
		fp_vars_append(v, "TUI_ARGS", path);
	}
	quit_path(r, path, sizeof path);
	fp_vars_append(v, "TUI_ARGS", "--quit-file");
	fp_vars_append(v, "TUI_ARGS", path);
}

void fp_tui_stderr_begin(const char *dir)
{
	static int registered;
	int fd;

	if (saved_stderr >= 0 || log_path_of(dir, log_path, sizeof log_path) < 0)
		return;
	fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return; /* the view still works; messages land on it */
	fflush(stderr);
	saved_stderr = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (saved_stderr < 0 || dup2(fd, 2) < 0) {
		close(fd);
		return;
	}
	/* the last stage's stdout too (fp-serve's "listening on" line) */
	if (isatty(1)) {
		fflush(stdout);
		saved_stdout = fcntl(1, F_DUPFD_CLOEXEC, 3);
		if (saved_stdout >= 0 && dup2(fd, 1) < 0) {
			close(saved_stdout);
			saved_stdout = -1;
		}
	}
	close(fd);
	if (!registered) {
		registered = 1;
		atexit(fp_tui_stderr_end);
	}
}

void fp_tui_stderr_end(void)
{
	char buf[LOG_TAIL];
	struct stat st;
	ssize_t n;
	int fd;

	if (saved_stderr < 0)
		return;
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
	if (saved_stdout >= 0) {
		fflush(stdout);
		dup2(saved_stdout, 1);
		close(saved_stdout);
		saved_stdout = -1;
	}
	fd = open(log_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && st.st_size > LOG_TAIL) {
		lseek(fd, st.st_size - LOG_TAIL, SEEK_SET);
		fprintf(stderr, "%s: (the first %lld bytes of the stages' messages are left out)\n",
			fp_prog(), (long long)(st.st_size - LOG_TAIL));
	}
	while ((n = read(fd, buf, sizeof buf)) > 0)
		if (write(2, buf, (size_t)n) < 0)
			break;
	close(fd);
	unlink(log_path);
}
