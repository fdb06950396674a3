#!/bin/sh
# served-viewers.sh: a served capture's flame graph with many viewers.
#
#	bench/served-viewers.sh [SECONDS] [VIEWERS]
#
# fp-serve serves the mixed corpus (BENCH_CORPUS/mixed/capture.perf: a
# system-wide capture of a mixed load, 85,857 unique stacks). After its
# first open (the index, the heatmap, then the whole capture's tree, made
# once: its Server-Timing ms), 1, then VIEWERS (default 8) clients ask
# /flamegraph/ of the whole capture once a second each, taking gzip, as
# pages opening on it do, SECONDS (default 15) each. fp-serve's CPU over
# each window is read from /proc.
# Prints one line:
#	stacks=.. tree_bytes=.. gz_bytes=.. open_ms=.. made_ms=.. v1_cpu_s=..
#	v1_requests=.. v1_p50_ms=.. v1_p99_ms=.. vn_cpu_s=.. vn_requests=..
#	vn_p50_ms=.. vn_p99_ms=.. viewers=N seconds=S exit=0
# Needs curl and cc. FP_BIN: the binaries (default bin/).
set -eu

. "$(dirname "$0")/env.sh"
SECS=${1:-15}
VIEWERS=${2:-8}
corpus=${BENCH_CORPUS:-$here/cache}
dir=$corpus/served-viewers
rm -rf "$dir"
mkdir -p "$dir/srv"
build_http_load "$dir/http-load"
ln "$corpus/mixed/capture.perf" "$dir/srv/mixed.perf" 2>/dev/null ||
	cp "$corpus/mixed/capture.perf" "$dir/srv/mixed.perf"
stacks=$(awk -F= '$1 == "unique_stacks" { print $2 }' "$corpus/mixed.facts")

serve_bench "$dir/srv" "$dir/serve.out" --cache-dir "$dir/index"
port=${url##*:} # url is http://127.0.0.1:PORT/
port=${port%/}
path="/flamegraph/?filename=mixed.perf"
ms() { date +%s%3N; }

t0=$(ms)
curl -sf -o /dev/null "http://127.0.0.1:$port/heatmap/?filename=mixed.perf"
t1=$(ms)
curl -sf -H 'Accept-Encoding: gzip' -D "$dir/made.hdr" -o "$dir/tree.gz" "http://127.0.0.1:$port$path"
made_ms=$(tr -d '\r' <"$dir/made.hdr" | sed -n 's/^[Ss]erver-[Tt]iming: tree;desc="made";dur=//p')
gz_bytes=$(stat -c %s "$dir/tree.gz")
tree_bytes=$(gzip -dc "$dir/tree.gz" | wc -c)

echo "stacks=$stacks tree_bytes=$tree_bytes gz_bytes=$gz_bytes" \
	"open_ms=$((t1 - t0)) made_ms=${made_ms:-0}" \
	"$(viewer_windows "$dir/http-load" "$port" "$path" "$SECS" "$VIEWERS")"
rm -rf "$dir/srv" "$dir/index"
