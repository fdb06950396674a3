#!/bin/sh
# capture-demo.sh - regenerate examples/demo-clockloop.perf.gz
#
# Workload: src/clockloop.c (2^25 syscall(SYS_clock_gettime) calls per run,
# about 4.9 s per run on the 2-vCPU VM this was captured on).
#
# Exact commands (run as root, from anywhere):
#   cc -O2 -g -fno-omit-frame-pointer -o "$tmp/clockloop" examples/src/clockloop.c
#   perf record -F 49 -a -g -o "$tmp/perf.data" -- sleep 120 &
#   sleep 5
#   for i in 1 2 3 4; do "$tmp/clockloop" 33554432; sleep 10; done
#   wait
#   perf script -i "$tmp/perf.data" --no-inline --header | gzip -9 \
#       > examples/demo-clockloop.perf.gz
#
# Environment:
#   DEMO_SECONDS  capture length in seconds (default 120; use e.g. 70 for a
#                 quick test - 4 runs need about 5 + 4*(run+10) s)
#   DEMO_COUNT    clock_gettime calls per run (default 33554432 = 2^25)
#   DEMO_RUNS     number of runs (default 4)
#   DEMO_OUT      output file (default examples/demo-clockloop.perf.gz)
# The bundled file was produced with all defaults.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
DEMO_SECONDS=${DEMO_SECONDS:-120}
DEMO_COUNT=${DEMO_COUNT:-33554432}
DEMO_RUNS=${DEMO_RUNS:-4}
DEMO_OUT=${DEMO_OUT:-$here/demo-clockloop.perf.gz}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cc -O2 -g -fno-omit-frame-pointer -o "$tmp/clockloop" "$here/src/clockloop.c"

perf record -F 49 -a -g -o "$tmp/perf.data" -- sleep "$DEMO_SECONDS" &
perfpid=$!

sleep 5
i=0
while [ "$i" -lt "$DEMO_RUNS" ]; do
	i=$((i + 1))
	echo "run $i/$DEMO_RUNS at $(date +%T)" >&2
	"$tmp/clockloop" "$DEMO_COUNT"
	sleep 10
done

wait "$perfpid"
perf script -i "$tmp/perf.data" --no-inline --header | gzip -9 > "$DEMO_OUT"
ls -l "$DEMO_OUT" >&2
