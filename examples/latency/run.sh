#!/bin/sh
# run.sh: measure process start -> execve and start -> listen(2) of a small
# server started several times, with bpftrace and fp-latency.
#
#	examples/latency/run.sh [-n RUNS] [-i INIT_MS] [-o DIR]
#
# Builds server.c, then lets bpftrace run `server RUNS INIT_MS`, which
# forks and execs RUNS servers one after the other (default 10; each one
# "initialises" for INIT_MS, default 50, then listens), while latency.bt
# prints their fork/execve/listen/exit events, and pipes those into
# fp-latency. Writes DIR/events.txt (the raw events),
# DIR/latency.tsv (one row per interval) and DIR/report.txt (default DIR:
# out/latency). Needs root (BPF).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/examples/bpftrace-env.sh"
runs=10 init_ms=50 out=$top/out/latency
while getopts n:i:o:h opt; do
	case $opt in
	n) runs=$OPTARG ;;
	i) init_ms=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage 12 ;;
	esac
done
need_bpftrace fp-latency
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -o "$tmp/server" "$here/server.c"

# bpftrace -c starts the launcher once the probes are attached and exits
# when it ends; latency.bt watches the children of the comm "server".
# Its stderr minus the RLIMIT_MEMLOCK complaint (harmless here).
{ bpftrace -q -B none -c "$tmp/server $runs $init_ms" \
	"$here/latency.bt" server 2>&1 1>&3 | grep -v RLIMIT_MEMLOCK >&2; } 3>&1 |
	tee "$out/events.txt" |
	"$bin/fp-latency" \
		--pair exec=fork@field:child_pid,execve@pid,exit@tid \
		--pair listen=fork@field:child_pid,listen@pid,exit@tid \
		--tsv "$out/latency.tsv" | tee "$out/report.txt"
