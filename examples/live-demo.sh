#!/bin/sh
# live-demo.sh - watch FlameScope's classic demo happen live in the browser.
#
#   sudo examples/live-demo.sh          then open http://127.0.0.1:5000/
#
# Starts `flamepipe live -g --http 127.0.0.1:5000` (perf at 49 Hz on all
# CPUs, the web view, the terminal heatmap if stdout is a terminal), waits
# until samples flow, then runs the classic workload: src/clockloop.c,
# 4 runs of 2^25 clock_gettime syscalls with 10 s sleeps between them (about
# 5 s per run on a 2-vCPU VM). Open the live capture ("live") in the page
# and four bands of kernel stacks appear one after another; click a band's
# start and end cells for its flame graph (do_syscall_64 ->
# __x64_sys_clock_gettime). When the runs are done the capture goes on until
# Ctrl-C, which stops perf and writes the final report into DEMO_OUT.
#
# Environment:
#   DEMO_HTTP     [ADDR:]PORT of the web view (default 127.0.0.1:5000)
#   DEMO_COUNT    clock_gettime calls per run (default 33554432 = 2^25)
#   DEMO_RUNS     number of runs (default 4)
#   DEMO_SLEEP    seconds between runs (default 10)
#   DEMO_OUT      report directory written at the end (default: none)
#   DEMO_STOP     1: stop by itself after the last run (default: wait for Ctrl-C)
# Needs root (perf system-wide) and a built tree (make).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bin=${FP_BIN:-$here/../bin}
DEMO_HTTP=${DEMO_HTTP:-127.0.0.1:5000}
DEMO_COUNT=${DEMO_COUNT:-33554432}
DEMO_RUNS=${DEMO_RUNS:-4}
DEMO_SLEEP=${DEMO_SLEEP:-10}
DEMO_OUT=${DEMO_OUT:-}
DEMO_STOP=${DEMO_STOP:-0}

[ -x "$bin/flamepipe" ] || { echo "live-demo.sh: $bin/flamepipe missing: run make" >&2; exit 100; }
tmp=$(mktemp -d)
live=
cleanup() {
	[ -z "$live" ] || kill -INT "$live" 2>/dev/null || true
	[ -z "$live" ] || wait "$live" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cc -O2 -g -fno-omit-frame-pointer -o "$tmp/clockloop" "$here/src/clockloop.c"

# --term heatmap: this script writes on the terminal too, so the heatmap
# drawn in place, not the interactive view (which would own the screen)
set -- -g --http "$DEMO_HTTP" --exit-at-end --dir-file "$tmp/dir" --term heatmap
[ -z "$DEMO_OUT" ] || set -- "$@" -o "$DEMO_OUT"
"$bin/flamepipe" live "$@" &
live=$!

# The runner writes its FIFO dir once the stages run; perf then needs a
# moment to set up before samples flow.
i=0
while :; do
	[ -s "$tmp/dir" ] && break
	kill -0 "$live" 2>/dev/null || { echo "live-demo.sh: flamepipe live failed" >&2; live=; exit 1; }
	i=$((i + 1)); [ $i -lt 200 ] || { echo "live-demo.sh: flamepipe live did not start" >&2; exit 1; }
	sleep 0.1
done
sleep 2
echo "live-demo.sh: open http://$DEMO_HTTP/ and pick the capture 'live'" >&2

i=0
while [ "$i" -lt "$DEMO_RUNS" ]; do
	i=$((i + 1))
	echo "live-demo.sh: run $i/$DEMO_RUNS at $(date +%T)" >&2
	"$tmp/clockloop" "$DEMO_COUNT" >/dev/null
	[ "$i" -eq "$DEMO_RUNS" ] || sleep "$DEMO_SLEEP"
done

if [ "$DEMO_STOP" = 1 ]; then
	sleep 2
	exit 0	# cleanup stops the capture
fi
echo "live-demo.sh: workload done; the capture goes on: Ctrl-C stops it" >&2
wait "$live" || true
live=
