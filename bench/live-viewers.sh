#!/bin/sh
# live-viewers.sh: the live flame graph with many viewers.
#
#	bench/live-viewers.sh [SECONDS] [VIEWERS]
#
# fp-serve --live reads the whole table of the mixed corpus (its fold
# snapshot: BENCH_CORPUS/mixed/capture.perf through fp-read | fp-fold)
# again every second, as a running capture's chain sends it, while no
# client, then 1, then VIEWERS (default 8) clients fetch /live/flamegraph
# once a second each, taking gzip, as the page does in a browser (ui/live.js:
# on each new snapshot, at most once a second; tests/helper/http-load.c),
# SECONDS (default 15) each. fp-serve's CPU over each window is read from
# /proc.
# Prints one line:
#	stacks=.. tree_bytes=.. gz_bytes=.. idle_cpu_s=.. v1_cpu_s=.. v1_requests=..
#	v1_p50_ms=.. v1_p99_ms=.. vn_cpu_s=.. vn_requests=.. vn_p50_ms=..
#	vn_p99_ms=.. viewers=N seconds=S exit=0
# Needs curl and cc. FP_BIN: the binaries (default bin/).
set -eu

. "$(dirname "$0")/env.sh"
SECS=${1:-15}
VIEWERS=${2:-8}
corpus=${BENCH_CORPUS:-$here/cache}
dir=$corpus/live-viewers
mkdir -p "$dir"
build_http_load "$dir/http-load"

# the snapshot: C begin fold, every F record, C end fold
if [ ! -s "$dir/snapshot" ] || [ -n "$(find "$corpus/mixed/capture.perf" -newer "$dir/snapshot")" ]; then
	fp-read "$corpus/mixed/capture.perf" 2>/dev/null | fp-fold --all-events |
		sed -n '/^C	begin	fold/,/^C	end	fold/p' >"$dir/snapshot.tmp"
	mv "$dir/snapshot.tmp" "$dir/snapshot"
fi
stacks=$(grep -c '^F' "$dir/snapshot")

rm -f "$dir/in.fifo" && mkfifo "$dir/in.fifo"
exec 9<>"$dir/in.fifo" # (read-write: opening it does not wait for a reader)
SERVE_STDIN=$dir/in.fifo serve_bench "$dir" "$dir/serve.out" --live live
# the chain: a snapshot a second (each a new one: the cache must follow)
(while :; do cat "$dir/snapshot" || exit 0; sleep 1; done) >&9 2>/dev/null &
feeder=$!
trap 'kill $feeder $srv 2>/dev/null' EXIT
port=${url##*:} # url is http://127.0.0.1:PORT/
port=${port%/}
path="/live/flamegraph?name=live"
i=0
until curl -sf -o "$dir/tree.json" "http://127.0.0.1:$port$path" && grep -q '"seq":[1-9]' "$dir/tree.json"; do
	i=$((i + 1))
	[ $i -lt 300 ] || { echo "live-viewers.sh: no snapshot arrived" >&2; exit 111; }
	sleep 0.1
done
tree_bytes=$(stat -c %s "$dir/tree.json")
gz_bytes=$(curl -sS -H 'Accept-Encoding: gzip' "http://127.0.0.1:$port$path" | wc -c)

c0=$(srv_cpu)
sleep "$SECS"
c1=$(srv_cpu)
echo "stacks=$stacks tree_bytes=$tree_bytes gz_bytes=$gz_bytes" \
	"idle_cpu_s=$(cpu_sub "$c1" "$c0") $(viewer_windows "$dir/http-load" "$port" "$path" "$SECS" "$VIEWERS")"
