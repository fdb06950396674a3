/* live.h: `flamepipe live`'s options (live_opts.c), used by live.c. */
#ifndef FP_LIVE_H
#define FP_LIVE_H

#include "options.h"

/* perf record | fp-perfdata (the default), perf record | perf script |
 * fp-read (--source perf-script), bpftrace, or perf over ssh (--ssh). */
enum source { SRC_PERF, SRC_PERF_SCRIPT, SRC_BPFTRACE, SRC_SSH };

struct live_opts {
	struct fp_cli cli; /* the shared options: -o, --rows, --pipeline, -D/-A, ... */
	const char *hz, *pid, *call_graph, *http, *outdir, *name, *serve_dir;
	const char *interval;
	const char *max_size, *keep; /* retention of the recording */
	const char *ssh_host;        /* --ssh: perf runs there (fp-ssh) */
	const char *push;            /* --push URL: fp-push after fp-read */
	const char *container;       /* --container NAME|REGEX: fp-range's filter */
	/* --baseline FILE, --baseline-from/-to S, --alert PCT, --alert-by:
	 * fp-baseline after fp-fold (docs/fp-baseline.md) */
	const char *baseline, *baseline_from, *baseline_to, *alert, *alert_by;
	int push_opts, ssh_opts; /* --app/--label/--push-interval, --ssh-arg seen */
	int remote_script;       /* --ssh: perf script on the host (the old way) */
	double duration;         /* 0: until Ctrl-C or COMMAND ends */
	enum source source;
	int all_cpus, callgraph, keep_serving, no_term, quiet;
	int exit_at_end;  /* --exit-at-end: the web view ends with the capture */
	int term_heatmap; /* --term heatmap: fp-render --term, not fp-tui */
	int off_cpu;      /* --off-cpu: scheduler events too (docs/live.md) */
	char **command;   /* NULL-terminated, or NULL */
};

/* Parses live's command line (its own options and the shared ones of
 * options.h) into o; dies with FP_EXIT_USAGE and a message. */
void live_parse_options(int argc, char **argv, struct live_opts *o);

#endif
