/* live.c: `flamepipe live`: profile the running system and watch the
 * heatmap fill in while the workload runs (docs/live.md).
 *
 *	flamepipe live [-F HZ] [-a | -p PID] [-g] [--duration S] [--rows N]
 *	               [--source perf|perf-script|bpftrace] [--http [ADDR:]PORT] [-o DIR]
 *	               [options] [-- COMMAND [ARG]...]
 *
 * The chain is a pipeline file (examples/live-perfdata.pipeline;
 * examples/live.pipeline for --source perf-script, which puts perf script
 * and fp-read where fp-perfdata is; examples/live-bpftrace.pipeline for
 * --source bpftrace; examples/live-ssh.pipeline for --ssh HOST (live-ssh-script.pipeline with
 * --remote-script): fp-ssh
 * runs perf there):
 *	perf record --no-buffering -o - | fp-perfdata --live |
 *	fp-record --output ${RECORDING} | fp-bucket | fp-range | fp-fold --interval
 * --push URL inserts `push fp-push URL ...` after the stage named read,
 * and this command appends the views the user asked for:
 *	render  fp-render [--outdir DIR] [--term] [--passthrough]   (-o DIR; a tty
 *	                                                          with --term heatmap)
 *	tui     fp-tui --live [--passthrough]   (a tty: the interactive view,
 *	        runner/tuiview.h; fp-fold gets --pass-samples for it)
 *	web     fp-serve --live NAME --recording ${RECORDING}       (--http)
 * The recording (DIR/recording.fp.gz with -o, else a file in the FIFO
 * directory, bounded by TEMP_RECORDING_MAX_SIZE) is what the web view
 * answers range and filter queries from: no viewer changes the chain.
 * The chain is linear: with both, fp-render passes the stream on
 * (--passthrough, drawing the terminal view on /dev/tty) to fp-serve. The
 * resulting file is written into the private FIFO directory and run with
 * pipeline_run.h.
 *
 * Stopping: the capture ends at --duration (perf's own `-- sleep S`, so the
 * source ends by itself; for bpftrace a timer started by the first bytes
 * fp-read reads), when COMMAND exits, or on Ctrl-C/SIGTERM (the
 * runner sends SIGTERM to perf record; perf script, then every stage,
 * drain and write their final tables). The web server would serve the
 * ended capture for ever, so once every stage before it has finished it
 * gets SIGTERM (it exits 0; unless --keep-serving: then it stays until
 * Ctrl-C).
 *
 * --user USER (as root): perf record and perf script (or bpftrace) keep
 * root, every analysis stage and the web server run as USER (the runner's
 * fp_run_opts.user/.privileged).
 *
 * fp-perfdata --live (fp-read --live) never blocks perf: when the chain falls behind, samples
 * are dropped and counted (W record, `I read dropped=N`, stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ev.h>

#include "commands.h"
#include "live.h"
#include "fp_recording.h"
#include "fp_error.h"
#include "options.h"
#include "pipeline.h"
#include "pipeline_run.h"
#include "perfcheck.h"
#include "progress.h"
#include "summary.h"
#include "tuiview.h"

#define GENERATED_NAME "live.pipeline"
#define RECORDING_NAME "recording.fp.gz"	/* in -o DIR, else in the FIFO dir */
#define RECORD_STATS_NAME "record.stats"	/* fp-record --stats, in the FIFO dir */
/* Without -o the recording lives in the private FIFO directory (often
 * tmpfs, so memory) for the session only: bounded unless told otherwise. */
#define TEMP_RECORDING_MAX_SIZE "64M"
#define WEB_POLL_INTERVAL 0.2	/* s between checks for the end of the capture */
#define DURATION_POLL 0.1	/* s between checks for the first bytes */
#define DURATION_START_MAX 20.0	/* s: then --duration counts anyway */
#define TEXT_MAX 8192


/* What watches the end of the capture to stop the web server. */
/* --duration when the source cannot end by itself (bpftrace): counted
 * from the first bytes the stage named "read" reads (bpftrace takes
 * seconds to compile and attach), as perf's `-- sleep S` starts once perf
 * samples. */
struct duration {
	ev_timer w;
	struct fp_run *run;
	double seconds;
	int started;
	int polled;
	unsigned long long baseline;	/* rchar at the first poll: the loader's reads */
	ev_tstamp since;		/* time of the first poll */
};

/* rchar of the stage named "read", 0 while it is not running. */
static unsigned long long read_stage_rchar(struct fp_run *r)
{
	long long n = fp_run_stage_rchar(r, "read");

	return n > 0 ? (unsigned long long)n : 0;
}

static void duration_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct duration *d = w->data;

	if (d->started) {
		fp_run_stop(d->run);
		return;
	}
	unsigned long long rchar = read_stage_rchar(d->run);

	if (!d->polled) {
		d->polled = 1;
		d->baseline = rchar;
		d->since = ev_now(loop);
		return;
	}
	/* Still starting: poll again, but not for ever (a source that never
	 * writes must not make --duration hang). */
	if (rchar <= d->baseline && ev_now(loop) - d->since < DURATION_START_MAX)
		return;
	d->started = 1;
	ev_timer_stop(loop, w);
	ev_timer_set(w, d->seconds, 0.);
	ev_timer_start(loop, w);
}

struct web_watch {
	ev_timer w;
	struct fp_run *run;
	size_t index;		/* the web stage */
	int stopped;
};

/* ---- finding files next to the binary ------------------------------------ */

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- can we profile? ----------------------------------------------------- */

/* Dies with FP_EXIT_SYS and `missing` (how to install it) unless prog is
 * in bindir or $PATH. */
static void require_program(const char *prog, const char *bindir, const char *missing)
{
	char *p = fp_find_program(prog, bindir);

	if (!p)
		fp_die(FP_EXIT_SYS, "%s", missing);
	free(p);
}

static void check_source(const struct live_opts *o)
{
	const char *bindir = fp_run_bindir();

	if (o->source == SRC_SSH) {	/* perf runs on the host: only ssh is needed here */
		require_program("ssh", bindir, "live: --ssh: ssh is not installed (or not in $PATH): "
				"install it (Debian: apt-get install openssh-client)");
		return;
	}
	if (o->source == SRC_BPFTRACE) {
		require_program("bpftrace", bindir, "live: bpftrace is not installed (or not in "
				"$PATH): install it (Debian/Ubuntu: apt-get install bpftrace) or use "
				"--source perf");
		if (geteuid() != 0)
			fp_die(FP_EXIT_SYS, "live: --source bpftrace needs root (BPF programs): "
			       "run it with sudo, or use --source perf");
		return;
	}
	require_program("perf", bindir, "live: perf is not installed (or not in $PATH): install "
			"it (Debian: apt-get install linux-perf; Ubuntu: apt-get install "
			"linux-tools-common linux-tools-$(uname -r); Fedora: dnf install perf)");
	fp_check_perf_allowed(o->pid, o->command != NULL, o->all_cpus);
}

/* ---- variables ------------------------------------------------------------- */

/* One word appended to bpftrace's -c text. bpftrace splits that text at
 * blanks itself (no shell), so a word with blanks cannot be passed. */
static void word_append(char *dst, size_t cap, const char *word)
{
	size_t n = strlen(dst), w = strlen(word);

	if (strpbrk(word, " \t\n"))
		fp_die(FP_EXIT_USAGE, "live: --source bpftrace: '%s': bpftrace -c splits the "
		       "command at blanks, so an argument cannot contain one", word);
	if (n + 1 + w + 1 > cap)
		fp_die(FP_EXIT_USAGE, "live: --source bpftrace: the command is too long");
	if (n)
		dst[n++] = ' ';
	memcpy(dst + n, word, w + 1);
}

/* bpftrace -c wants one binary: with a merged /usr, a bare name like
 * `sleep` matches /bin/sleep and /usr/bin/sleep and bpftrace refuses. */
static char *real_program(const char *prog)
{
	char *found = fp_find_program(prog, NULL), *real;

	if (!found)
		fp_die(FP_EXIT_USAGE, "live: %s: command not found", prog);
	real = realpath(found, NULL);
	if (real) {
		free(found);
		return real;
	}
	return found;
}

static void source_vars(const struct live_opts *o, struct fp_vars *v)
{
	fp_vars_set(v, "HZ", o->hz);
	fp_vars_list(v, "RECORD_ARGS");
	fp_vars_list(v, "SCRIPT_ARGS");
	fp_vars_list(v, "BPFTRACE_ARGS");
	fp_vars_set(v, "SSH_HOST", o->ssh_host ? o->ssh_host : "");
	fp_vars_list(v, "SSH_ARGS");
	fp_vars_list(v, "REMOTE_ARGS");
	fp_vars_list(v, "PUSH_ARGS");
	if (o->push) {
		/* perf's -F: Pyroscope's sampleRate, whatever the event (a
		 * --perf-arg -c would make it wrong: docs/fp-push.md) */
		fp_vars_append(v, "PUSH_ARGS", "--sample-rate");
		fp_vars_append(v, "PUSH_ARGS", o->hz);
		fp_vars_append(v, "PUSH_ARGS", o->push);
	}
	if (o->source == SRC_BPFTRACE) {
		if (o->container)
			fp_die(FP_EXIT_USAGE, "live: --container: needs --source perf (only "
			       "fp-perfdata reads the samples' cgroups)");
		char *bt = fp_find_data_file("bpftrace/profile.bt");
		char cmd[TEXT_MAX] = "";

		if (!bt)
			fp_die(FP_EXIT_USAGE, "live: examples/bpftrace/profile.bt not found next "
			       "to %s (give it with -D BT_PROGRAM=FILE)", fp_run_bindir());
		fp_vars_set(v, "BT_PROGRAM", bt);
		free(bt);
		/* bpftrace -c runs COMMAND and stops when it ends. Not for
		 * --duration (a timer stops the run instead): with -c, bpftrace
		 * 0.17 names no user frames of other processes. -p filters in
		 * fp-range (the profile probe fires whatever runs). */
		if (o->command) {
			char *prog = real_program(o->command[0]);

			word_append(cmd, sizeof cmd, prog);
			free(prog);
			for (char **a = o->command + 1; *a; a++)
				word_append(cmd, sizeof cmd, *a);
		}
		if (cmd[0]) {
			fp_vars_append(v, "BPFTRACE_ARGS", "-c");
			fp_vars_append(v, "BPFTRACE_ARGS", cmd);
		}
		if (o->pid) {
			fp_vars_append(v, "RANGE_ARGS", "--pid");
			fp_vars_append(v, "RANGE_ARGS", o->pid);
		}
		return;
	}
	fp_vars_append(v, "RECORD_ARGS", "-F");
	fp_vars_append(v, "RECORD_ARGS", o->hz);
	if (o->all_cpus)
		fp_vars_append(v, "RECORD_ARGS", "-a");
	if (o->pid) {
		fp_vars_append(v, "RECORD_ARGS", "-p");
		fp_vars_append(v, "RECORD_ARGS", o->pid);
	}
	/* each sample's cgroup, for the container views (fp-perfdata reads it) */
	int cgroups = o->source == SRC_PERF && fp_perf_records_cgroups();
	if (cgroups)
		fp_vars_append(v, "RECORD_ARGS", "--all-cgroups");
	if (o->container && !cgroups)
		fp_die(FP_EXIT_USAGE, "live: --container: %s", o->source != SRC_PERF ?
		       "needs --source perf (only fp-perfdata reads the samples' cgroups)" :
		       "this kernel or perf cannot record cgroups (perf record --all-cgroups: "
		       "Linux 5.7 and perf 5.7 or later)");
	if (o->container) {
		fp_vars_append(v, "RANGE_ARGS", "--container");
		fp_vars_append(v, "RANGE_ARGS", o->container);
	}
	if (o->call_graph) {
		fp_vars_append(v, "RECORD_ARGS", "--call-graph");
		fp_vars_append(v, "RECORD_ARGS", o->call_graph);
	} else if (o->callgraph) {
		fp_vars_append(v, "RECORD_ARGS", "-g");
	}
}

/* The workload goes last on perf's command line (after --perf-arg words),
 * so it is its own list, WORKLOAD: COMMAND, or `sleep S` for --duration
 * (perf ends by itself when it exits, and the chain drains). */
static void workload_vars(const struct live_opts *o, struct fp_vars *v)
{
	fp_vars_list(v, "WORKLOAD");
	if (o->source == SRC_SSH && !o->command && o->duration > 0) {
		char buf[64];	/* fp-ssh ends the remote capture itself */

		snprintf(buf, sizeof buf, "%.3f", o->duration);
		fp_vars_append(v, "SSH_ARGS", "--duration");
		fp_vars_append(v, "SSH_ARGS", buf);
		return;
	}
	if (o->source == SRC_BPFTRACE)
		return;
	if (o->command || o->duration > 0)
		fp_vars_append(v, "WORKLOAD", "--");
	if (o->command) {
		for (char **a = o->command; *a; a++)
			fp_vars_append(v, "WORKLOAD", *a);
	} else if (o->duration > 0) {
		char buf[64];

		fp_vars_append(v, "WORKLOAD", "sleep");
		snprintf(buf, sizeof buf, "%.3f", o->duration);
		fp_vars_append(v, "WORKLOAD", buf);
	}
}

/* ---- the views -------------------------------------------------------------- */

struct views {
	int render, tui, web;	/* which stages to append */
};

/* RENDER_VIEW_ARGS for the render stage; which stages to append. */
static void pick_views(const struct live_opts *o, struct fp_run *r, int tty, struct views *vw,
		       struct fp_vars *v)
{
	int term = tty && !o->no_term;

	vw->web = o->http != NULL;
	vw->tui = term && !o->term_heatmap;
	vw->render = o->outdir || (term && o->term_heatmap);
	fp_vars_list(v, "RENDER_VIEW_ARGS");
	fp_vars_list(v, "TUI_ARGS");
	if (vw->tui) {
		/* fp-tui builds a range's trees from the folded samples */
		fp_vars_append(v, "FOLD_ARGS", "--pass-samples");
		fp_vars_append(v, "TUI_ARGS", "--live");
		fp_vars_append(v, "TUI_ARGS", "--title");
		fp_vars_append(v, "TUI_ARGS", "flamepipe live");
		if (vw->web)	/* fp-serve comes next */
			fp_vars_append(v, "TUI_ARGS", "--passthrough");
		fp_tui_vars(r, v);	/* its messages log and quit file */
		if (!vw->web && !o->outdir)	/* nobody reads fp-fold's snapshots */
			fp_vars_set(v, "FOLD_INTERVAL", "0");
	}
	if (o->outdir) {
		fp_vars_append(v, "RENDER_VIEW_ARGS", "--outdir");
		fp_vars_append(v, "RENDER_VIEW_ARGS", o->outdir);
		if (o->interval) {
			fp_vars_append(v, "RENDER_VIEW_ARGS", "--interval");
			fp_vars_append(v, "RENDER_VIEW_ARGS", o->interval);
		}
	}
	if (term && o->term_heatmap)
		fp_vars_append(v, "RENDER_VIEW_ARGS", "--term");
	if (vw->render && (vw->web || vw->tui))	/* fp-tui or fp-serve comes next */
		fp_vars_append(v, "RENDER_VIEW_ARGS", "--passthrough");
}

/* The pipeline file's text followed by the view stages, written to
 * DIR/live.pipeline, with --push's stage right after the stage named
 * "read" (before fp-range: a selection on the web page does not change what
 * is pushed). Returns the path. */
static char *write_generated(const char *dir, const char *file, const struct views *vw,
			     int push)
{
	size_t dl = strlen(dir);
	char *out = fp_xmalloc(dl + sizeof "/" GENERATED_NAME);
	FILE *in, *f;
	char line[TEXT_MAX];
	int last_nl = 1, pushed = 0;

	memcpy(out, dir, dl);
	memcpy(out + dl, "/" GENERATED_NAME, sizeof "/" GENERATED_NAME);
	in = fopen(file, "r");
	if (!in)
		fp_die_sys(FP_EXIT_USAGE, "live: cannot read pipeline file %s", file);
	f = fopen(out, "wx");
	if (!f)
		fp_die_sys(FP_EXIT_SYS, "live: cannot write %s", out);
	while (fgets(line, sizeof line, in)) {
		size_t n = strlen(line);

		fputs(line, f);
		last_nl = n && line[n - 1] == '\n';
		if (push && !pushed && !strncmp(line, "read", 4) && (line[4] == ' ' || line[4] == '\t')) {
			fprintf(f, "%spush fp-push ${PUSH_ARGS}\n", last_nl ? "" : "\n");
			pushed = last_nl = 1;
		}
	}
	if (push && !pushed)
		fp_die(FP_EXIT_USAGE, "live: --push: %s has no stage named read to push after", file);
	if (!last_nl)
		fputc('\n', f);
	fprintf(f, "# views added by flamepipe live\n");
	if (vw->render)
		fprintf(f, "render fp-render ${RENDER_VIEW_ARGS} ${RENDER_ARGS}\n");
	if (vw->tui)
		fprintf(f, "%s fp-tui ${TUI_ARGS}\n", FP_TUI_STAGE);
	if (vw->web)
		fprintf(f, "web fp-serve --live ${LIVE_NAME} --recording ${RECORDING} "
			"--listen ${HTTP} --dir ${SERVE_DIR} ${SERVE_ARGS}\n");
	if (ferror(in) || fclose(f) != 0)
		fp_die_sys(FP_EXIT_SYS, "live: cannot write %s", out);
	fclose(in);
	return out;
}

/* Once every stage before the web server has finished, the capture is
 * over: stop the server (it would serve the ended capture for ever; it
 * exits 0 on SIGTERM). fp-serve is the last stage, so nothing after it is
 * cut short. */
static void web_watch_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct web_watch *ww = w->data;
	pid_t pid;

	for (size_t i = 0; i < ww->index; i++)
		if (fp_run_stage_pid(ww->run, i) > 0)
			return;
	pid = fp_run_stage_pid(ww->run, ww->index);
	if (pid > 0 && !ww->stopped) {
		ww->stopped = 1;
		kill(pid, SIGTERM);
	}
	ev_timer_stop(loop, w);
}

/* ---- summary ------------------------------------------------------------------ */

/* The final line: what perf gave, what the chain dropped, what the
 * report and the recording hold. */
static void print_summary(const struct live_opts *o, struct fp_run *r, const char *recording,
			  double elapsed, int rc)
{
	uint64_t samples, stacks;
	struct fp_record_stats rs;
	char counts[512] = "", rec[PATH_MAX + 256] = "", report[PATH_MAX + 128] = "";

	fp_record_stats_read(fp_run_dir(r), RECORD_STATS_NAME, &rs);
	if (rs.ok) {
		uint64_t all = rs.read + rs.dropped;

		snprintf(counts, sizeof counts, ": %" PRIu64 " samples read, %" PRIu64 " dropped "
			 "(%.1f%%), %" PRIu64 " lost by perf, %" PRIu64 " idle", rs.read, rs.dropped,
			 all ? 100.0 * (double)rs.dropped / (double)all : 0.0, rs.lost, rs.idle);
		if (o->outdir)
			fp_recording_summary(rec, sizeof rec, &rs, recording);
	}
	if (o->outdir) {
		if (fp_folded_totals(o->outdir, &samples, &stacks) == 0)
			snprintf(report, sizeof report, "; %" PRIu64 " samples in %" PRIu64
				 " stacks -> %s/", samples, stacks, o->outdir);
		else
			snprintf(report, sizeof report, "; no %s/%s (a stage failed?)", o->outdir,
				 FP_FOLDED_NAME);
	}
	fprintf(stderr, "%s: live: stopped after %.1f s%s%s%s%s\n", fp_prog(), elapsed, counts,
		report, rec, rc ? " (incomplete: a stage failed)" : "");
}

/* RECORDING (fp-record's file) and RECORDING_ARGS (retention). Returns
 * the path. */
static char *recording_vars(const struct live_opts *o, struct fp_run *r, struct fp_vars *v)
{
	char path[PATH_MAX];
	const char *max = o->max_size ? o->max_size : o->outdir ? NULL : TEMP_RECORDING_MAX_SIZE;

	snprintf(path, sizeof path, "%s/%s", o->outdir ? o->outdir : fp_run_dir(r),
		 RECORDING_NAME);
	fp_vars_set(v, "RECORDING", path);
	fp_vars_list(v, "RECORDING_ARGS");
	if (max) {
		fp_vars_append(v, "RECORDING_ARGS", "--max-size");
		fp_vars_append(v, "RECORDING_ARGS", max);
	}
	if (o->keep) {
		fp_vars_append(v, "RECORDING_ARGS", "--keep");
		fp_vars_append(v, "RECORDING_ARGS", o->keep);
	}
	return fp_xstrdup(path);
}

/* ---- the command ---------------------------------------------------------------- */

/* The pipeline file: --pipeline, or the one for the source next to us. */
static char *live_pipeline(const struct live_opts *o)
{
	const char *rel = o->source == SRC_BPFTRACE ? "live-bpftrace.pipeline" :
			  o->source == SRC_SSH ? (o->remote_script ? "live-ssh-script.pipeline"
								   : "live-ssh.pipeline") :
			  o->source == SRC_PERF_SCRIPT ? "live.pipeline" : "live-perfdata.pipeline";
	char *pipeline;

	if (o->cli.pipeline)
		return fp_xstrdup(o->cli.pipeline);
	if (!(pipeline = fp_find_data_file(rel)))
		fp_die(FP_EXIT_USAGE, "live: %s not found next to %s (give one with "
		       "--pipeline FILE)", rel, fp_run_bindir());
	return pipeline;
}

/* -o DIR: made if missing (with --user as root, given to that user: the
 * renderer writes there as that user). */
static void make_live_outdir(const struct live_opts *o)
{
	const char *user = o->cli.run.user;

	if (!o->outdir)
		return;
	if (mkdir(o->outdir, 0777) == 0) {
		struct passwd *pw = user && geteuid() == 0 ? getpwnam(user) : NULL;

		if (pw && chown(o->outdir, pw->pw_uid, pw->pw_gid) < 0)
			fp_die_sys(FP_EXIT_SYS, "live: cannot give %s to --user %s", o->outdir, user);
	} else if (errno != EEXIST) {
		fp_die_sys(FP_EXIT_SYS, "live: cannot make output dir %s", o->outdir);
	}
}

/* --http: the directory fp-serve lists next to the live capture. */
static char *live_serve_dir(const struct live_opts *o)
{
	char *dir;

	if (!o->http)
		return NULL;
	if (o->serve_dir)
		return fp_xstrdup(o->serve_dir);
	dir = fp_find_data_file(".");
	if (!dir || !is_dir(dir)) {
		free(dir);
		dir = fp_xstrdup(".");
	}
	return dir;
}

/* Every variable of the live pipeline; returns the recording's path. */
static char *live_vars(const struct live_opts *o, struct fp_run *r, int tty, struct views *vw,
		       const char *serve_dir, struct fp_vars *v)
{
	char *recording;

	fp_vars_init(v);
	fp_run_default_vars(r, v);
	pick_views(o, r, tty, vw, v);
	source_vars(o, v);
	workload_vars(o, v);
	recording = recording_vars(o, r, v);
	fp_vars_set(v, "LIVE_NAME", o->name);
	fp_vars_set(v, "HTTP", o->http ? o->http : "");
	fp_vars_set(v, "SERVE_DIR", serve_dir ? serve_dir : ".");
	fp_vars_list(v, "SERVE_ARGS");
	fp_vars_list(v, "TERM_ARGS");
	fp_cli_vars(&o->cli, v);
	return recording;
}

/* Checks the user's pipeline file (errors are reported against it, not
 * the generated one) and writes the generated file with the views; its
 * path. *web_index: where the web stage will be. */
static char *generate_pipeline(struct fp_run *r, const char *pipeline, const struct views *vw,
			       int push, const struct fp_vars *v, size_t *web_index)
{
	char err[FP_PIPELINE_ERR_MAX];
	struct fp_pipeline pl;

	if (fp_pipeline_parse_file(pipeline, v, &pl, err, sizeof err) < 0 ||
	    fp_pipeline_resolve(&pl, fp_run_bindir(), err, sizeof err) < 0)
		fp_die(FP_EXIT_USAGE, "%s", err);
	*web_index = pl.n + (size_t)vw->render + (size_t)vw->tui + (size_t)(push != 0);
	fp_pipeline_free(&pl);
	return write_generated(fp_run_dir(r), pipeline, vw, push);
}

static void print_banner(const struct live_opts *o)
{
	fprintf(stderr, "%s: live: %s%s at %s Hz%s%s%s; Ctrl-C stops and %s\n",
		fp_prog(), o->source == SRC_BPFTRACE ? "bpftrace" : "perf record",
		o->source == SRC_SSH ? " over ssh" : "",
		o->hz, o->pid ? " on pid " : o->command ? " on a command" : " on all CPUs",
		o->pid ? o->pid : "", o->callgraph || o->source == SRC_BPFTRACE ? " with stacks" : "",
		o->outdir ? "writes the report" : "ends");
	/* fp-serve prints its own "listening on URL" line. */
	if (o->http)
		fprintf(stderr, "%s: live: the web view lists this capture as '%s'\n",
			fp_prog(), o->name);
}

/* Waits for the started pipeline with the --duration timer (bpftrace) and
 * the web server's stop watch; prints the summary. The exit code. */
static int watch_run(const struct live_opts *o, struct fp_run *r, const struct views *vw,
		     struct web_watch *ww, const char *recording)
{
	struct ev_loop *loop = fp_run_loop(r);
	struct duration dur = { .run = r, .seconds = o->duration };
	struct fp_tui_watch tw = { 0 };
	int timed = o->source == SRC_BPFTRACE && o->duration > 0;
	ev_tstamp start = ev_now(loop);
	int rc;

	if (!o->quiet)
		print_banner(o);
	if (timed) {
		ev_timer_init(&dur.w, duration_cb, DURATION_POLL, DURATION_POLL);
		dur.w.data = &dur;
		ev_timer_start(loop, &dur.w);
	}
	if (vw->tui)	/* quitting the view ends the capture */
		fp_tui_watch_start(&tw, r);
	if (vw->web && !o->keep_serving) {
		ww->run = r;
		ev_timer_init(&ww->w, web_watch_cb, WEB_POLL_INTERVAL, WEB_POLL_INTERVAL);
		ww->w.data = ww;
		ev_timer_start(loop, &ww->w);
	}
	rc = fp_run_wait(r);
	if (timed)
		ev_timer_stop(loop, &dur.w);
	if (ww->run)
		ev_timer_stop(loop, &ww->w);
	fp_tui_watch_stop(&tw);
	fp_tui_stderr_end();	/* what the stages said, then the summary */
	ev_now_update(loop);
	if (!o->quiet)
		print_summary(o, r, recording, ev_now(loop) - start, rc);
	return rc;
}

int cmd_live(int argc, char **argv)
{
	struct live_opts o = { 0 };
	struct fp_vars v;
	struct views vw;
	struct web_watch ww = { 0 };
	char *pipeline, *generated, *serve_dir, *recording;
	struct fp_run *r;
	int rc, tty = isatty(1), null_fd;

	live_parse_options(argc, argv, &o);
	if (!o.http && !o.outdir && (!tty || o.no_term))
		fp_die(FP_EXIT_USAGE, "live: nothing to show: stdout is not a terminal (or "
		       "--no-term) and neither --http PORT nor -o DIR was given");
	pipeline = live_pipeline(&o);
	check_source(&o);
	make_live_outdir(&o);
	serve_dir = live_serve_dir(&o);
	/* COMMAND runs in the background process group: no terminal input. */
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd >= 0)
		o.cli.run.in_fd = null_fd;
	r = fp_run_new(&o.cli.run);
	recording = live_vars(&o, r, tty, &vw, serve_dir, &v);
	generated = generate_pipeline(r, pipeline, &vw, o.push != NULL, &v, &ww.index);
	rc = fp_run_load(r, generated, &v);
	if (rc == 0 && vw.tui)	/* the view owns the screen: messages wait */
		fp_tui_stderr_begin(fp_run_dir(r));
	if (rc == 0)
		rc = fp_run_start(r);
	if (rc == 0) {
		rc = watch_run(&o, r, &vw, &ww, recording);
	} else {
		fp_run_stop(r);
		fp_run_wait(r);
		fp_tui_stderr_end();
	}
	fp_run_free(r);
	fp_vars_free(&v);
	if (null_fd >= 0)
		close(null_fd);
	fp_cli_free(&o.cli);
	free(pipeline);
	free(generated);
	free(serve_dir);
	free(recording);
	return rc;
}
