#!/bin/sh
# offcpu.sh: what `flamepipe live --off-cpu` costs (issue 26, item 2).
#
#	bench/offcpu.sh [RUNS]
#
# A fixed workload that switches contexts as fast as it can: `perf bench
# sched pipe -l LOOPS` (two tasks passing a token through pipes: two
# blocking switches a loop, the worst case for scheduler tracepoints).
# It runs RUNS times (default 3) each way:
#	alone            the workload only
#	live             flamepipe live -g -F HZ --no-term -o DIR -- workload
#	live --off-cpu   the same with --off-cpu (cpu-clock, sched_switch,
#	                 sched_waking, switch events)
# and prints one line of medians (CPU = user + system of perf, every stage,
# the runner and the workload, bench/rtime; wall of the whole run):
#	alone_cpu= alone_wall= live_cpu= live_wall= off_cpu= off_wall=
#	off_intervals= off_dropped= loops= runs= exit=0
# bench/run.sh turns it into the row "off-CPU cost". FP_BIN: the binaries
# (default bin/). Needs perf with sched tracepoints (else exit=2).
set -eu

. "$(dirname "$0")/env.sh"
RUNS=${1:-3}
LOOPS=${BENCH_OFFCPU_LOOPS:-50000}
HZ=99
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rtime=$tmp/rtime
cc -O2 -o "$rtime" "$here/rtime.c"

if ! perf record -q -e sched:sched_switch -g --switch-events -o "$tmp/probe.data" -- true \
	> "$tmp/probe.log" 2>&1; then
	echo "offcpu.sh: perf cannot record sched:sched_switch: $(head -n 1 "$tmp/probe.log")" >&2
	echo "exit=2"
	exit 0
fi

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p; s/^$1=\([0-9.]*\).*/\1/p" "$2" | head -n 1; }

# one NAME COMMAND...: runs it under rtime, appends cpu and wall to NAME.cpu/.wall
one() {
	_n=$1; shift
	"$rtime" -o "$tmp/t" "$@" > "$tmp/$_n.out" 2> "$tmp/$_n.err" || {
		echo "offcpu.sh: $_n failed: $(tail -n 1 "$tmp/$_n.err")" >&2; echo "exit=1"; exit 0; }
	field cpu "$tmp/t" >> "$tmp/$_n.cpu"
	field wall "$tmp/t" >> "$tmp/$_n.wall"
}

for i in $(seq "$RUNS"); do
	one alone perf bench sched pipe -l "$LOOPS"
	rm -rf "$tmp/on"
	one live flamepipe live -g -F "$HZ" --no-term -o "$tmp/on" -- perf bench sched pipe -l "$LOOPS"
	rm -rf "$tmp/off"
	one off flamepipe live --off-cpu -g -F "$HZ" --no-term -o "$tmp/off" -- \
		perf bench sched pipe -l "$LOOPS"
done
# what the off-CPU run turned into blocked intervals, and dropped
fp-read -q "$tmp/off/recording.fp.gz" | awk -F '\t' '$1 == "S" && $7 == "offcpu"' | wc -l > "$tmp/pieces"
dropped=$(sed -n 's/.*live: stopped.* read, \([0-9]*\) dropped.*/\1/p' "$tmp/off.err" | tail -n 1)
echo "alone_cpu=$(median < "$tmp/alone.cpu") alone_wall=$(median < "$tmp/alone.wall")" \
	"live_cpu=$(median < "$tmp/live.cpu") live_wall=$(median < "$tmp/live.wall")" \
	"off_cpu=$(median < "$tmp/off.cpu") off_wall=$(median < "$tmp/off.wall")" \
	"off_samples=$(cat "$tmp/pieces") off_dropped=${dropped:-?} loops=$LOOPS runs=$RUNS exit=0"
