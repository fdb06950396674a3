/* progress.c: /proc readers and the progress line (progress.h). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ev.h>

#include "fp_error.h"
#include "pipeline_run.h"
#include "progress.h"

#define PROC_PATH_MAX 320

/* The number after `key` ("rchar: ") in a /proc text file, or -1. */
static long long proc_field(const char *path, const char *key)
{
	char line[128];
	size_t kn = strlen(key);
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, key, kn) && sscanf(line + kn, "%lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

long long fp_proc_rchar(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%ld/io", (long)pid);
	return proc_field(path, "rchar: ");
}

/* "pos:" of /proc/PID/fdinfo/FD, or -1. */
static long long fdinfo_pos(pid_t pid, const char *fd)
{
	char path[PROC_PATH_MAX];

	snprintf(path, sizeof path, "/proc/%ld/fdinfo/%s", (long)pid, fd);
	return proc_field(path, "pos:");
}

long long fp_proc_file_pos(pid_t pid, const char *real)
{
	char path[64], link[PATH_MAX];
	long long pos = -1;
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
	if (!(d = opendir(path)))
		return -1;
	while (pos < 0 && (e = readdir(d))) {
		char fdpath[PROC_PATH_MAX];
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(fdpath, sizeof fdpath, "%s/%s", path, e->d_name);
		n = readlink(fdpath, link, sizeof link - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (!strcmp(link, real))
			pos = fdinfo_pos(pid, e->d_name);
	}
	closedir(d);
	return pos;
}

long long fp_run_stage_rchar(struct fp_run *r, const char *name)
{
	for (size_t i = 0; i < fp_run_stage_count(r); i++) {
		pid_t pid = fp_run_stage_pid(r, i);

		if (pid > 0 && !strcmp(fp_run_stage_name(r, i), name))
			return fp_proc_rchar(pid);
	}
	return -1;
}

/* How far the source is in a regular input file: its fd's position, or
 * (closed at EOF, or read another way) what it read, at most the size;
 * the size once the source has ended. -1 if unknown. */
static long long file_position(const struct fp_progress *p, pid_t pid)
{
	long long pos;

	if (pid <= 0)
		return p->size;
	if (!p->input_real[0])
		return -1;
	pos = fp_proc_file_pos(pid, p->input_real);
	if (pos < 0 && (pos = fp_proc_rchar(pid)) > (long long)p->size)
		pos = p->size;
	return pos;
}

static void progress_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct fp_progress *p = w->data;
	pid_t pid = fp_run_stage_pid(p->run, 0);
	double elapsed = ev_now(loop) - p->start, mb;
	long long pos, samples = fp_run_samples(p->run);
	char counted[48] = "";

	if (pid <= 0 && !p->size)
		return;
	if (samples >= 0)
		snprintf(counted, sizeof counted, ", %lld samples", samples);
	pos = file_position(p, pid);
	if (pos >= 0 && p->size > 0) {
		mb = (double)pos / FP_BYTES_PER_MB;
		fprintf(stderr, "\r%s: %s: %.1f of %.1f MB (%d%%), %.1f MB/s%s\033[K", fp_prog(),
			p->label, mb, (double)p->size / FP_BYTES_PER_MB,
			(int)(100.0 * (double)pos / (double)p->size),
			elapsed > 0 ? mb / elapsed : 0.0, counted);
	} else {
		/* Whatever the source reads: a pipe, a FIFO, a live capture. */
		if ((pos = fp_proc_rchar(pid)) < 0)
			return;
		mb = (double)pos / FP_BYTES_PER_MB;
		fprintf(stderr, "\r%s: %s: %s read %.1f MB, %.1f MB/s%s\033[K", fp_prog(), p->label,
			fp_run_stage_name(p->run, 0), mb, elapsed > 0 ? mb / elapsed : 0.0,
			counted);
	}
	fflush(stderr);
	p->shown = 1;
}

void fp_progress_start(struct fp_progress *p, struct fp_run *r, const char *input,
		       const char *label)
{
	struct stat st;

	memset(p, 0, sizeof *p);
	p->run = r;
	p->label = label;
	p->start = ev_now(fp_run_loop(r));
	if (input && strcmp(input, "-") && stat(input, &st) == 0 && S_ISREG(st.st_mode) &&
	    realpath(input, p->input_real))
		p->size = st.st_size;
	else
		p->input_real[0] = '\0';
	ev_timer_init(&p->w, progress_cb, FP_PROGRESS_INTERVAL, FP_PROGRESS_INTERVAL);
	p->w.data = p;
	ev_timer_start(fp_run_loop(r), &p->w);
	p->active = 1;
}

void fp_progress_stop(struct fp_progress *p)
{
	if (!p->active)
		return;
	ev_timer_stop(fp_run_loop(p->run), &p->w);
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	p->active = 0;
}
