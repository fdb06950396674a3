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
 * Stopping: the capture ends at --duration (a timer started by the first
 * bytes the read stage reads: perf and bpftrace take a moment to start),
 * when COMMAND exits, or on Ctrl-C/SIGTERM (the
 * runner sends SIGTERM to perf record; perf script, then every stage,
 * drain and write their final tables). The web server stays up on the
 * ended capture until the user ends the session (Ctrl-C); with
 * --exit-at-end, or after SIGTERM, it gets SIGTERM once every stage
 * before it has finished (web_watch_cb).
 *
 * Healing: every stage after the source is restart=on-failure (the
 * pipeline files, the views added here); the summary counts from the
 * recording, and the report is rebuilt from it when a stage after the
 * recorder was restarted or no report was written (print_summary).
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
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ev.h>

#include "commands.h"
#include "live.h"
#include "fp_recording.h"
#include "fp_error.h"
#include "fp_idle.h"
#include "fp_record.h"
#include "fp_foldsnap.h"
#include "options.h"
#include "pipeline.h"
#include "pipeline_run.h"
#include "perfcheck.h"
#include "progress.h"
#include "hotfuncs.h"
#include "summary.h"
#include "tuiview.h"

#define GENERATED_NAME "live.pipeline"
#define RECORDING_NAME "recording.fp.gz" /* in -o DIR, else in the FIFO dir */
#define RECORD_STATS_NAME "record.stats" /* fp-record --stats, in the FIFO dir */
/* Without -o the recording lives in the private FIFO directory (often
 * tmpfs, so memory) for the session only: bounded unless told otherwise. */
#define TEMP_RECORDING_MAX_SIZE "64M"
#define WEB_POLL_INTERVAL 0.2   /* s between checks for the end of the capture */
#define DURATION_POLL 0.1       /* s between checks for the first bytes */
#define DURATION_START_MAX 20.0 /* s: then --duration counts anyway */
#define TEXT_MAX 8192
#define HOT_FUNCTIONS 10 /* lines of each table at the end of a terminal session */
#define LISTEN_BACKLOG 64

/* What watches the end of the capture to stop the web server. */
/* --duration: counted from the first bytes the stage named "read" reads
 * (bpftrace takes seconds to compile and attach, perf a moment to open
 * its events). Not perf's own `-- sleep S`: a restarted source unit would
 * sleep S again. */
struct duration {
	ev_timer w;
	struct fp_run *run;
	double seconds;
	int started;
	int polled;
	unsigned long long baseline; /* rchar at the first poll: the loader's reads */
	ev_tstamp since;             /* time of the first poll */
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
		fp_run_end_source(d->run); /* as perf's own end: the views stay */
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
	size_t index; /* the web stage */
	int stopped;
	int exit_at_end;      /* --exit-at-end: stop the server with the capture */
	const int *view_quit; /* the terminal view was quit: the session ends */
	const char *url;      /* for the "stays up" line */
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

	if (o->source == SRC_SSH) { /* perf runs on the host: only ssh is needed here */
		require_program("ssh", bindir,
				"live: --ssh: ssh is not installed (or not in $PATH): "
				"install it (Debian: apt-get install openssh-client)");
		return;
	}
	if (o->source == SRC_BPFTRACE) {
		require_program(
			"bpftrace", bindir,
			"live: bpftrace is not installed (or not in "
			"$PATH): install it (Debian/Ubuntu: apt-get install bpftrace) or use "
			"--source perf");
		if (geteuid() != 0)
			fp_die(FP_EXIT_SYS, "live: --source bpftrace needs root (BPF programs): "
					    "run it with sudo, or use --source perf");
		return;
	}
	require_program("perf", bindir,
			"live: perf is not installed (or not in $PATH): install "
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
		fp_die(FP_EXIT_USAGE,
		       "live: --source bpftrace: '%s': bpftrace -c splits the "
		       "command at blanks, so an argument cannot contain one",
		       word);
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

/* --off-cpu: on-CPU samples at -F HZ (the first event, so the heatmap
 * shows them first), every switch-out with its stack, every recorded
 * wakeup, and switch-in records of the recorded tasks (a per-task capture
 * sees no other task's switch-out, which is when they switch in).
 * perf's -F would sample the tracepoints at HZ too: the frequency is the
 * cpu-clock event's own term. fp-perfdata turns the scheduler events into
 * the timed events offcpu and wakeup (docs/fp-perfdata.md, "Off-CPU"). */
static void offcpu_vars(const struct live_opts *o, struct fp_vars *v)
{
	char ev[64];

	const char *why = fp_perf_tracepoint_problem("sched", "sched_switch");
	if (why)
		fp_die(FP_EXIT_USAGE, "live: --off-cpu: cannot record sched:sched_switch: %s", why);
	snprintf(ev, sizeof ev, "cpu-clock/freq=%s,name=cpu-clock/", o->hz);
	fp_vars_append(v, "RECORD_ARGS", "-e");
	fp_vars_append(v, "RECORD_ARGS", ev);
	fp_vars_append(v, "RECORD_ARGS", "-e");
	fp_vars_append(v, "RECORD_ARGS", "sched:sched_switch");
	/* sched_waking is taken in the waker's context (fp-perfdata.c,
	 * offcpu_setup); sched_wakeup only on kernels before 4.3 */
	if (!fp_perf_tracepoint_problem("sched", "sched_waking")) {
		fp_vars_append(v, "RECORD_ARGS", "-e");
		fp_vars_append(v, "RECORD_ARGS", "sched:sched_waking");
	} else if (!fp_perf_tracepoint_problem("sched", "sched_wakeup")) {
		fp_vars_append(v, "RECORD_ARGS", "-e");
		fp_vars_append(v, "RECORD_ARGS", "sched:sched_wakeup");
	}
	fp_vars_append(v, "RECORD_ARGS", "--switch-events");
	fp_vars_append(v, "READ_ARGS", "--off-cpu");
	fp_vars_append(v, "READ_ARGS", "on");
}

/* perf record -a or -p and its reader restart as one unit (unit=source,
 * runner/unit.c) when one dies: a COMMAND would run again, so a capture of
 * one is not restarted. */
static int source_restartable(const struct live_opts *o)
{
	return (o->source == SRC_PERF || o->source == SRC_PERF_SCRIPT) && !o->command;
}

static void source_vars(const struct live_opts *o, struct fp_vars *v)
{
	if (o->off_cpu && o->source != SRC_PERF)
		fp_die(FP_EXIT_USAGE, "live: --off-cpu: needs --source perf (fp-perfdata turns "
				      "the scheduler's events into off-CPU time)");
	fp_vars_set(v, "HZ", o->hz);
	fp_vars_list(v, "RECORD_ARGS");
	fp_vars_list(v, "SCRIPT_ARGS");
	fp_vars_list(v, "SOURCE_SETTINGS");
	if (source_restartable(o)) {
		fp_vars_append(v, "SOURCE_SETTINGS", "restart=on-failure");
		fp_vars_append(v, "SOURCE_SETTINGS", "unit=source");
	}
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
			fp_die(FP_EXIT_USAGE,
			       "live: examples/bpftrace/profile.bt not found next "
			       "to %s (give it with -D BT_PROGRAM=FILE)",
			       fp_run_bindir());
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
	if (o->off_cpu) {
		offcpu_vars(o, v);
	} else {
		fp_vars_append(v, "RECORD_ARGS", "-F");
		fp_vars_append(v, "RECORD_ARGS", o->hz);
	}
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
		fp_die(FP_EXIT_USAGE, "live: --container: %s",
		       o->source != SRC_PERF
			       ? "needs --source perf (only fp-perfdata reads the samples' cgroups)"
			       : "this kernel or perf cannot record cgroups (perf record "
				 "--all-cgroups: "
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
 * so it is its own list, WORKLOAD: COMMAND, or nothing: --duration is a
 * timer of the runner (watch_run), which a restarted perf would not reset
 * as its own `-- sleep S` would. */
static void workload_vars(const struct live_opts *o, struct fp_vars *v)
{
	fp_vars_list(v, "WORKLOAD");
	if (o->source == SRC_SSH && !o->command && o->duration > 0) {
		char buf[64]; /* fp-ssh ends the remote capture itself */

		snprintf(buf, sizeof buf, "%.3f", o->duration);
		fp_vars_append(v, "SSH_ARGS", "--duration");
		fp_vars_append(v, "SSH_ARGS", buf);
		return;
	}
	if (o->source == SRC_BPFTRACE || !o->command)
		return;
	fp_vars_append(v, "WORKLOAD", "--");
	for (char **a = o->command; *a; a++)
		fp_vars_append(v, "WORKLOAD", *a);
}

static int has_baseline(const struct live_opts *o);

/* ---- the views -------------------------------------------------------------- */

struct views {
	int render, tui, web; /* which stages to append */
};

/* RENDER_VIEW_ARGS for the render stage; which stages to append. */
static void pick_views(const struct live_opts *o, struct fp_run *r, int tty, struct views *vw,
		       struct fp_vars *v)
{
	/* --alert: the alert lines are the terminal's output (a terminal
	 * view owns the screen: it would draw over them or hold them) */
	int term = tty && !o->no_term && !o->alert;

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
		if (vw->web) /* fp-serve comes next */
			fp_vars_append(v, "TUI_ARGS", "--passthrough");
		if (o->off_cpu && !vw->web && !has_baseline(o)) {
			/* its E key: the off-CPU samples beside the counted
			 * event, never added to it (as the report's chain;
			 * fp-serve and fp-baseline count what they get) */
			fp_vars_append(v, "BUCKET_ARGS", "--pass-timed");
			fp_vars_append(v, "FOLD_ARGS", "--timed-apart");
		}
		if (o->baseline) { /* its d key: the differential against it */
			fp_vars_append(v, "TUI_ARGS", "--baseline");
			fp_vars_append(v, "TUI_ARGS", o->baseline);
		}
		fp_tui_vars(r, v); /* its messages log and quit file */
	}
	/* Nobody reads fp-fold's timed snapshots: fp-serve and fp-baseline do,
	 * and fp-render with --interval; not fp-tui (its trees are of the D
	 * and R samples) nor fp-render writing -o DIR's files once, at the end
	 * (from the last snapshot, full). Those made every 500 ms cost fp-fold
	 * and fp-render a tenth of the live chain's CPU. */
	if (!vw->web && !o->interval && !has_baseline(o) && !o->alert)
		fp_vars_set(v, "FOLD_INTERVAL", "0");
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
	if (vw->render && (vw->web || vw->tui)) /* fp-tui or fp-serve comes next */
		fp_vars_append(v, "RENDER_VIEW_ARGS", "--passthrough");
}

/* ---- the baseline ------------------------------------------------------------- */

static int has_baseline(const struct live_opts *o)
{
	return o->baseline || o->baseline_from;
}

/* BASELINE_ARGS for fp-baseline, and fp-fold's --pass-samples (its D and R
 * records are what fp-baseline counts). The last stage of a chain with no
 * view: it writes no records (--discard), only its lines. */
static void baseline_vars(const struct live_opts *o, const struct views *vw, struct fp_vars *v)
{
	static const struct {
		const char *opt;
		size_t off;
	} map[] = {
		{ "--baseline", offsetof(struct live_opts, baseline) },
		{ "--from", offsetof(struct live_opts, baseline_from) },
		{ "--to", offsetof(struct live_opts, baseline_to) },
		{ "--alert", offsetof(struct live_opts, alert) },
		{ "--by", offsetof(struct live_opts, alert_by) },
	};

	fp_vars_list(v, "BASELINE_ARGS");
	if (!has_baseline(o))
		return;
	for (size_t i = 0; i < sizeof map / sizeof *map; i++) {
		const char *val = *(const char *const *)((const char *)o + map[i].off);

		if (val) {
			fp_vars_append(v, "BASELINE_ARGS", map[i].opt);
			fp_vars_append(v, "BASELINE_ARGS", val);
		}
	}
	if (!vw->render && !vw->web && !vw->tui)
		fp_vars_append(v, "BASELINE_ARGS", "--discard");
	if (vw->tui) /* fp-tui reads the R records too: fp-baseline passes them on */
		fp_vars_append(v, "BASELINE_ARGS", FP_FOLDSNAP_PASS_SAMPLES_OPTION);
	else /* (fp-tui's view asked fp-fold for them already) */
		fp_vars_append(v, "FOLD_ARGS", FP_FOLDSNAP_PASS_SAMPLES_OPTION);
}

/* The pipeline file's text followed by the view stages, written to
 * DIR/live.pipeline, with --push's stage right after the stage named
 * "read" (before fp-range: a selection on the web page does not change what
 * is pushed). Returns the path. */
static char *write_generated(const char *dir, const char *file, const struct views *vw, int push,
			     int baseline)
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
		if (push && !pushed && !strncmp(line, "read", 4) &&
		    (line[4] == ' ' || line[4] == '\t')) {
			fprintf(f, "%spush fp-push ${PUSH_ARGS}\n", last_nl ? "" : "\n");
			pushed = last_nl = 1;
		}
	}
	if (push && !pushed)
		fp_die(FP_EXIT_USAGE, "live: --push: %s has no stage named read to push after",
		       file);
	if (!last_nl)
		fputc('\n', f);
	/* after fp-fold (--pass-samples: its D and R records), before the views */
	if (baseline)
		fprintf(f, "baseline fp-baseline ${BASELINE_ARGS}\n");
	fprintf(f, "# views added by flamepipe live\n");
	/* a view that dies is restarted, never the end of the capture: one
	 * that keeps failing fast is given up and bypassed (the capture and
	 * the recording go on); the web view serves the socket live bound
	 * (fd FP_RUN_PASS_FD), so a restarted one answers on the same port */
	if (vw->render)
		fprintf(f, "render restart=on-failure give-up=bypass fp-render ${RENDER_VIEW_ARGS} "
			   "${RENDER_ARGS}\n");
	if (vw->tui)
		fprintf(f, "%s fp-tui ${TUI_ARGS}\n", FP_TUI_STAGE);
	if (vw->web)
		fprintf(f,
			"web restart=on-failure give-up=bypass fp-serve --live ${LIVE_NAME} "
			"--recording ${RECORDING} "
			"--listen-fd %d --dir ${SERVE_DIR} ${SERVE_ARGS}\n",
			FP_RUN_PASS_FD);
	if (ferror(in) || fclose(f) != 0)
		fp_die_sys(FP_EXIT_SYS, "live: cannot write %s", out);
	fclose(in);
	return out;
}

/* Once every stage before the web server has finished, the capture is
 * over. The page stays up and explorable (ranges, filters and compare
 * read the recording) until the user ends the session: a second Ctrl-C
 * (the runner then sends SIGTERM to every stage). With --exit-at-end,
 * when the session was stopped with SIGTERM (a service manager), or when
 * the user quit the terminal view (fp-tui's q), the server is stopped now
 * (it exits 0 on SIGTERM). fp-serve is the last
 * stage, so nothing after it is cut short. */
static void web_watch_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct web_watch *ww = w->data;
	pid_t pid;

	for (size_t i = 0; i < ww->index; i++)
		if (fp_run_stage_pid(ww->run, i) > 0)
			return;
	pid = fp_run_stage_pid(ww->run, ww->index);
	if (pid > 0 && !ww->stopped &&
	    (ww->exit_at_end || fp_run_stop_signal(ww->run) == SIGTERM ||
	     (ww->view_quit && *ww->view_quit))) {
		ww->stopped = 1;
		kill(pid, SIGTERM);
	} else if (pid > 0) {
		fprintf(stderr,
			"%s: live: the capture has ended; the web view stays up at %s "
			"(ranges, filters and compare read the recording): Ctrl-C ends the "
			"session\n",
			fp_prog(), ww->url ? ww->url : "its address");
	}
	ev_timer_stop(loop, w);
}

/* ---- summary ------------------------------------------------------------------ */

/* What the recording at path holds: samples written to it over its life
 * (retention's included: the last batch's samples_before + samples), and
 * the damage a reader skips. 0 with an empty or missing file. */
static uint64_t recording_total(const char *path, struct fp_rec_skips *skips, uint64_t *batches)
{
	struct fp_rec_index ix = { 0 };
	uint64_t total = 0, seq = 0;

	if (batches)
		*batches = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (skips)
		memset(skips, 0, sizeof *skips);
	if (fd < 0)
		return 0;
	if (fp_rec_scan(fd, &ix) == 0) {
		for (size_t i = 0; i < ix.n; i++)
			if (ix.m[i].seq >= seq) {
				seq = ix.m[i].seq;
				total = ix.m[i].samples_before + ix.m[i].samples;
				if (batches)
					*batches = seq + 1;
			}
		if (skips)
			*skips = ix.skips;
	}
	fp_rec_index_free(&ix);
	close(fd);
	return total;
}

/* Idle samples (fifo/fp_idle.h) in the batches numbered from_seq on: a
 * restarted recorder counts only its own, so the session's are counted
 * from the file. */
static uint64_t recording_idle(const char *path, uint64_t from_seq)
{
	struct fp_rec_index ix = { 0 };
	char *buf = NULL, err[256];
	size_t cap = 0;
	uint64_t idle = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (fp_rec_scan(fd, &ix) == 0)
		for (size_t i = 0; i < ix.n; i++) {
			ssize_t n = ix.m[i].seq < from_seq
					    ? -1
					    : fp_rec_read_member(fd, &ix.m[i], &buf, &cap, err,
								 sizeof err);

			for (char *p = buf, *end = buf + (n > 0 ? n : 0); p < end;) {
				char *lf = memchr(p, '\n', (size_t)(end - p));
				size_t len = (size_t)((lf ? lf : end) - p);
				struct fp_sample smp;

				size_t rlen = len;

				if (fp_record_tag(p, &rlen) == FP_REC_SAMPLE &&
				    fp_sample_parse(p, rlen, &smp) == 0 && fp_sample_is_idle(&smp))
					idle++;
				p += len + 1;
			}
		}
	free(buf);
	fp_rec_index_free(&ix);
	close(fd);
	return idle;
}

/* What the recording held before this session (-o DIR again: appended to). */
struct rec_start {
	uint64_t samples, batches;
};

/* The counts of the session: what the source read (the recorder's copy of
 * its last I record), and what the recording holds, read from the file
 * itself: a recorder or a source that died leaves no stale number. */
struct session_counts {
	struct fp_record_stats rs;
	uint64_t read, recorded; /* this session's */
	int read_stale;          /* the source's last count was older */
	struct fp_rec_skips damage;
};

static void session_counts(struct fp_run *r, const char *recording, const struct rec_start *before,
			   struct session_counts *c)
{
	uint64_t total = recording_total(recording, &c->damage, NULL);

	fp_record_stats_read(fp_run_dir(r), RECORD_STATS_NAME, &c->rs);
	if (c->rs.appended_to > before->samples) /* the last recorder was a restart */
		c->rs.idle = recording_idle(recording, before->batches);
	c->recorded = total > before->samples ? total - before->samples : 0;
	c->read = c->rs.read;
	c->read_stale = c->read < c->recorded + c->rs.unresolved;
	if (c->read_stale)
		c->read = c->recorded + c->rs.unresolved;
}

/* 1 if a stage after the recorder was restarted: its table (fp-fold's
 * counts) started again, so the report is rebuilt from the recording. */
static int analysis_restarted(struct fp_run *r)
{
	size_t n = fp_run_stage_count(r), i = 0;

	while (i < n && strcmp(fp_run_stage_name(r, i), "recorder"))
		i++;
	for (i++; i < n; i++)
		if (fp_run_stage_starts(r, i) > 1)
			return 1;
	return 0;
}

/* "; view NAME (PROG) given up after N fast failures ..." for each view
 * the runner gave up on (give-up=bypass), into buf. */
static void views_given_up(struct fp_run *r, char *buf, size_t len)
{
	size_t n = fp_run_stage_count(r), used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		const char *g = fp_run_stage_bypassed(r, i);
		int m;

		if (!g)
			continue;
		m = snprintf(buf + used, len - used,
			     "; view %s (capture and recording went on "
			     "without it)",
			     g);
		if (m < 0)
			break;
		used += (size_t)m;
	}
}

/* Why the run is incomplete, into buf: the source (every stage before the
 * recorder: perf and its reader) of a COMMAND is not restarted, and one of
 * -a or -p is given up after its fast failures, so its failure ended the
 * capture; any other failure is "a stage failed". */
static void incomplete_why(const struct live_opts *o, struct fp_run *r, char *buf, size_t len)
{
	long failed = fp_run_failed_stage(r);
	size_t n = fp_run_stage_count(r), rec = 0;

	while (rec < n && strcmp(fp_run_stage_name(r, rec), "recorder"))
		rec++;
	if (failed >= 0 && (size_t)failed < rec && rec < n)
		snprintf(buf, len,
			 " (incomplete: the source stage '%s' failed and %s, so the capture "
			 "ended there; the recording and the report hold what was read until then)",
			 fp_run_stage_name(r, (size_t)failed),
			 source_restartable(o) ? "the source was given up after its fast failures"
					       : "the source of a COMMAND is not restarted (it "
						 "would run the COMMAND again)");
	else
		snprintf(buf, len, " (incomplete: a stage failed)");
}

/* `flamepipe report -q RECORDING -o DIR`: the report of everything the
 * recording holds, when the chain's own could not be trusted. 0 if it
 * succeeded. */
static int report_from_recording(const char *recording, const char *outdir)
{
	char *self = fp_find_program("flamepipe", fp_run_bindir());
	int status = -1;
	pid_t pid;

	if (!self)
		return -1;
	pid = fork();
	if (pid == 0) {
		execl(self, "flamepipe", "report", "-q", recording, "-o", outdir, (char *)NULL);
		_exit(127);
	}
	free(self);
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The final line: what perf gave, what the chain dropped or lost, what
 * the report and the recording hold. */
static void print_summary(const struct live_opts *o, struct fp_run *r, const char *recording,
			  const struct rec_start *before, double elapsed, int rc, int term)
{
	uint64_t samples, stacks;
	struct session_counts c;
	char counts[640] = "", rec[PATH_MAX + 256] = "", report[PATH_MAX + 192] = "";
	char damage[256] = "", views[512], why[320] = "", restarts[192] = "";
	unsigned n_restarts;
	double gap;
	unsigned long long gap_bytes;
	int rebuilt = 0;

	session_counts(r, recording, before, &c);
	if (c.rs.ok || c.recorded) {
		uint64_t all = c.read + c.rs.dropped;
		uint64_t chain_lost = c.read > c.recorded + c.rs.unresolved
					      ? c.read - c.recorded - c.rs.unresolved
					      : 0;

		snprintf(counts, sizeof counts,
			 ": %s%" PRIu64 " samples read, %" PRIu64 " dropped "
			 "(%.1f%%), %" PRIu64 " lost by perf, %" PRIu64 " idle",
			 c.read_stale ? "at least " : "", c.read, c.rs.dropped,
			 all ? 100.0 * (double)c.rs.dropped / (double)all : 0.0, c.rs.lost,
			 c.rs.idle);
		if (chain_lost || c.rs.unresolved)
			snprintf(counts + strlen(counts), sizeof counts - strlen(counts),
				 ", %" PRIu64 " lost in the chain (a stage restarted: see above)",
				 chain_lost + c.rs.unresolved);
		if (o->outdir) {
			c.rs.recorded = c.recorded + before->samples;
			fp_recording_summary(rec, sizeof rec, &c.rs, recording);
		}
	}
	if (c.damage.regions || c.damage.members)
		fp_rec_skips_describe(&c.damage, damage, sizeof damage);
	views_given_up(r, views, sizeof views);
	fp_run_unit_stats(r, &n_restarts, &gap, &gap_bytes);
	if (n_restarts)
		snprintf(restarts, sizeof restarts,
			 "; the source (perf and its reader) was restarted %u time%s: no capture "
			 "for %.1f s, %llu bytes of perf's stream dropped",
			 n_restarts, n_restarts == 1 ? "" : "s", gap, gap_bytes);
	if (rc)
		incomplete_why(o, r, why, sizeof why);
	if (o->outdir && c.recorded &&
	    (fp_folded_totals(o->outdir, &samples, &stacks) < 0 || analysis_restarted(r)))
		rebuilt = report_from_recording(recording, o->outdir) == 0;
	if (o->outdir) {
		if (fp_folded_totals(o->outdir, &samples, &stacks) == 0)
			snprintf(report, sizeof report,
				 "; %" PRIu64 " samples in %" PRIu64 " stacks -> %s/%s", samples,
				 stacks, o->outdir,
				 rebuilt ? " (rebuilt from the recording: a view or fp-fold had "
					   "restarted "
					   "or failed)"
					 : "");
		else
			snprintf(report, sizeof report, "; no %s/%s (a stage failed?)", o->outdir,
				 FP_FOLDED_NAME);
	}
	if (term && c.recorded) {
		fprintf(stderr, "%s: live: hottest functions of the capture (idle left out):\n",
			fp_prog());
		fp_print_hot_functions(stderr, recording, HOT_FUNCTIONS);
	}
	fprintf(stderr, "%s: live: stopped after %.1f s%s%s%s%s%s%s%s%s\n", fp_prog(), elapsed,
		counts, report, rec, damage[0] ? "; " : "", damage, restarts, views,
		rc && !rebuilt ? why : "");
	if (term && o->outdir)
		fprintf(stderr,
			"%s: live: the recording is %s (fp-read, flamepipe report and "
			"fp-serve read it); the report is in %s/\n",
			fp_prog(), recording, o->outdir);
	else if (term)
		fprintf(stderr,
			"%s: live: nothing was kept (the recording was a session file): "
			"-o DIR keeps the recording and a report\n",
			fp_prog());
}

/* "http://ADDR:PORT/" of the bound socket fd into buf. */
static void listen_url(int fd, char *buf, size_t n)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char ip[INET6_ADDRSTRLEN] = "?";

	buf[0] = '\0';
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return;
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
		snprintf(buf, n, "http://%s:%u/", ip, ntohs(a->sin_port));
	} else if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
		snprintf(buf, n, "http://[%s]:%u/", ip, ntohs(a->sin6_port));
	}
}

/* --http [ADDR:]PORT, bound here before anything runs: a port in use is
 * one line and exit 111 before perf starts and before any file is
 * written; the socket is handed to every start of the web stage (a
 * restarted fp-serve answers on the same port). Returns the socket (close
 * on exec: the runner gives it to that stage alone). */
static int live_listen(const char *http)
{
	char host[256] = "127.0.0.1";
	const char *port = http, *colon = strrchr(http, ':');
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE },
			*res;
	int fd, one = 1, rc;

	if (http[0] == '[' && colon && colon[-1] == ']' &&
	    (size_t)(colon - http - 2) < sizeof host) {
		memcpy(host, http + 1, (size_t)(colon - http - 2));
		host[colon - http - 2] = '\0';
		port = colon + 1;
	} else if (colon && (size_t)(colon - http) < sizeof host) {
		memcpy(host, http, (size_t)(colon - http));
		host[colon - http] = '\0';
		port = colon + 1;
	}
	if ((rc = getaddrinfo(host, port, &hints, &res)) != 0)
		fp_die(FP_EXIT_USAGE, "live: --http %s: cannot resolve %s: %s", http, host,
		       gai_strerror(rc));
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (res->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	}
	if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) < 0 ||
	    listen(fd, LISTEN_BACKLOG) < 0) {
		int e = errno;

		fp_die(FP_EXIT_SYS, "live: --http %s: cannot listen on %s port %s: %s%s", http,
		       host, port, strerror(e),
		       e == EADDRINUSE ? " (another program listens there: give "
					 "another port, or 0 for a free one); nothing was started"
				       : "");
	}
	freeaddrinfo(res);
	return fd;
}

/* RECORDING (fp-record's file) and RECORDING_ARGS (retention). Returns
 * the path. */
static char *recording_vars(const struct live_opts *o, struct fp_run *r, struct fp_vars *v)
{
	char path[PATH_MAX];
	const char *max = o->max_size ? o->max_size : o->outdir ? NULL : TEMP_RECORDING_MAX_SIZE;

	snprintf(path, sizeof path, "%s/%s", o->outdir ? o->outdir : fp_run_dir(r), RECORDING_NAME);
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
	const char *rel = o->source == SRC_BPFTRACE ? "live-bpftrace.pipeline"
			  : o->source == SRC_SSH    ? (o->remote_script ? "live-ssh-script.pipeline"
									: "live-ssh.pipeline")
			  : o->source == SRC_PERF_SCRIPT ? "live.pipeline"
							 : "live-perfdata.pipeline";
	char *pipeline;

	if (o->cli.pipeline)
		return fp_xstrdup(o->cli.pipeline);
	if (!(pipeline = fp_find_data_file(rel)))
		fp_die(FP_EXIT_USAGE,
		       "live: %s not found next to %s (give one with "
		       "--pipeline FILE)",
		       rel, fp_run_bindir());
	return pipeline;
}

/* -o DIR: made if missing, 0700 (with --user as root, given to that
 * user: the renderer writes there as that user). A system-wide capture
 * names every process and function: its files are for its owner only, as
 * perf keeps perf.data (cmd_live sets umask 077, so every file the chain
 * writes is 0600). */
static void make_live_outdir(const struct live_opts *o)
{
	const char *user = o->cli.run.user;

	if (!o->outdir)
		return;
	if (mkdir(o->outdir, 0700) == 0) {
		struct passwd *pw = user && geteuid() == 0 ? getpwnam(user) : NULL;

		if (pw && chown(o->outdir, pw->pw_uid, pw->pw_gid) < 0)
			fp_die_sys(FP_EXIT_SYS, "live: cannot give %s to --user %s", o->outdir,
				   user);
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
	baseline_vars(o, vw, v);
	source_vars(o, v);
	workload_vars(o, v);
	recording = recording_vars(o, r, v);
	fp_vars_set(v, "LIVE_NAME", o->name);
	fp_vars_set(v, "HTTP", o->http ? o->http : "");
	fp_vars_set(v, "SERVE_DIR", serve_dir ? serve_dir : ".");
	fp_vars_list(v, "SERVE_ARGS");
	fp_vars_list(v, "TERM_ARGS");
	fp_cli_vars(&o->cli, v);
	fp_cli_no_range(v, 0); /* (the views select ranges of the recording) */
	return recording;
}

/* Checks the user's pipeline file (errors are reported against it, not
 * the generated one) and writes the generated file with the views; its
 * path. *web_index: where the web stage will be. */
static char *generate_pipeline(struct fp_run *r, const char *pipeline, const struct views *vw,
			       int push, int baseline, const struct fp_vars *v, size_t *web_index)
{
	char err[FP_PIPELINE_ERR_MAX];
	struct fp_pipeline pl;

	if (fp_pipeline_parse_file(pipeline, v, &pl, err, sizeof err) < 0 ||
	    fp_pipeline_resolve(&pl, fp_run_bindir(), err, sizeof err) < 0)
		fp_die(FP_EXIT_USAGE, "%s", err);
	*web_index = pl.n + (size_t)vw->render + (size_t)vw->tui + (size_t)(push != 0) +
		     (size_t)(baseline != 0);
	fp_pipeline_free(&pl);
	return write_generated(fp_run_dir(r), pipeline, vw, push, baseline);
}

static void print_banner(const struct live_opts *o)
{
	fprintf(stderr, "%s: live: %s%s at %s Hz%s%s%s%s; Ctrl-C stops and %s\n", fp_prog(),
		o->source == SRC_BPFTRACE ? "bpftrace" : "perf record",
		o->source == SRC_SSH ? " over ssh" : "", o->hz,
		o->pid       ? " on pid "
		: o->command ? " on a command"
			     : " on all CPUs",
		o->pid ? o->pid : "",
		o->callgraph || o->source == SRC_BPFTRACE ? " with stacks" : "",
		o->off_cpu ? ", and every context switch (off-CPU time: event offcpu)" : "",
		o->outdir ? "writes the report" : "ends");
	/* fp-serve prints its own "listening on URL" line. */
	if (o->http)
		fprintf(stderr, "%s: live: the web view lists this capture as '%s'\n", fp_prog(),
			o->name);
}

/* Waits for the started pipeline with the --duration timer (bpftrace) and
 * the web server's stop watch; prints the summary. The exit code. */
static int watch_run(const struct live_opts *o, struct fp_run *r, const struct views *vw,
		     struct web_watch *ww, const char *recording, const struct rec_start *before,
		     int term)
{
	struct ev_loop *loop = fp_run_loop(r);
	struct duration dur = { .run = r, .seconds = o->duration };
	struct fp_tui_watch tw = { 0 };
	int timed = o->duration > 0 &&
		    (o->source == SRC_BPFTRACE || (o->source != SRC_SSH && !o->command));
	ev_tstamp start = ev_now(loop);
	int rc;

	if (!o->quiet)
		print_banner(o);
	if (timed) {
		ev_timer_init(&dur.w, duration_cb, DURATION_POLL, DURATION_POLL);
		dur.w.data = &dur;
		ev_timer_start(loop, &dur.w);
	}
	if (vw->tui) /* quitting the view ends the capture */
		fp_tui_watch_start(&tw, r);
	if (vw->web) {
		ww->run = r;
		ww->exit_at_end = o->exit_at_end;
		ww->view_quit = vw->tui ? &tw.stopped : NULL; /* q in fp-tui ends it all */
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
	fp_tui_stderr_end(); /* what the stages said, then the summary */
	ev_now_update(loop);
	if (!o->quiet)
		print_summary(o, r, recording, before, ev_now(loop) - start, rc, term);
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
	int rc, tty = isatty(1), null_fd, listen_fd = -1;
	char url[128] = "";
	struct rec_start before;

	live_parse_options(argc, argv, &o);
	if (!o.http && !o.outdir && (!tty || o.no_term) && !has_baseline(&o))
		fp_die(FP_EXIT_USAGE,
		       "live: nothing to show: stdout is not a terminal (or "
		       "--no-term) and neither --http PORT, -o DIR nor --baseline was given");
	/* private by default: what the chain writes (the recording, the
	 * report, -o DIR itself) is its owner's alone */
	umask(077);
	pipeline = live_pipeline(&o);
	check_source(&o);
	if (o.http) { /* before any file is written and before perf starts */
		listen_fd = live_listen(o.http);
		listen_url(listen_fd, url, sizeof url);
		ww.url = url;
	}
	make_live_outdir(&o);
	serve_dir = live_serve_dir(&o);
	/* COMMAND runs in the background process group: no terminal input. */
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd >= 0)
		o.cli.run.in_fd = null_fd;
	o.cli.run.pass_fd = listen_fd;
	o.cli.run.pass_fd_stage = "web";
	r = fp_run_new(&o.cli.run);
	recording = live_vars(&o, r, tty, &vw, serve_dir, &v);
	/* the page outlives the capture: Ctrl-C once ends the capture only */
	fp_run_first_signal_ends_source(r, vw.web && !o.exit_at_end);
	/* -o DIR again: appended to */
	before.samples = recording_total(recording, NULL, &before.batches);
	generated = generate_pipeline(r, pipeline, &vw, o.push != NULL, has_baseline(&o), &v,
				      &ww.index);
	rc = fp_run_load(r, generated, &v);
	if (rc == 0 && vw.tui) /* the view owns the screen: messages wait */
		fp_tui_stderr_begin(fp_run_dir(r));
	if (rc == 0)
		rc = fp_run_start(r);
	if (rc == 0) {
		rc = watch_run(&o, r, &vw, &ww, recording, &before, tty && !o.no_term);
	} else {
		fp_run_stop(r);
		fp_run_wait(r);
		fp_tui_stderr_end();
	}
	fp_run_free(r);
	fp_vars_free(&v);
	if (null_fd >= 0)
		close(null_fd);
	if (listen_fd >= 0)
		close(listen_fd);
	fp_cli_free(&o.cli);
	free(pipeline);
	free(generated);
	free(serve_dir);
	free(recording);
	return rc;
}
