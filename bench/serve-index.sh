#!/bin/sh
# serve-index.sh: range queries on a served 600-s capture (issue 23).
#
#	bench/serve-index.sh [QUERIES]
#
# Builds (or reuses) BENCH_CORPUS/serve-index/long.perf: 600 s of perf
# script text at 500 samples/s (300,000 samples, 5,000 distinct stacks,
# tests/mk-long-capture.sh, ~58 MB). Starts fp-serve on that directory
# (a private index directory), times the first open (/heatmap/: the
# conversion into the index and the heatmap), then sends QUERIES (default
# 200) /flamegraph/ range queries at once, each a random 2-20 s range
# (bench/rangeq.c, a C client), twice with different ranges. Prints:
#	open_ms=.. requests=N ok=K p50_ms=.. p99_ms=.. max_ms=.. bytes=.. samples=.. index_bytes=.. exit=0
# (the second burst's figures). bench/run.sh turns it into the rows
# "served capture: first open" and "served capture: N concurrent range
# queries". Needs curl and cc. FP_BIN: the binaries (default bin/).
set -eu

. "$(dirname "$0")/env.sh"
QUERIES=${1:-200}
SECS=600
RATE=500
STACKS=5000
dir=${BENCH_CORPUS:-$here/cache}/serve-index
cap=$dir/long.perf
# BENCH_SERVE_CAPTURE=FILE BENCH_SERVE_SECS=S: a real capture instead
# (its ranges within its S seconds), e.g. make-corpus.sh's mixed one
if [ -n "${BENCH_SERVE_CAPTURE:-}" ]; then
	cap=$BENCH_SERVE_CAPTURE
	SECS=${BENCH_SERVE_SECS:?BENCH_SERVE_SECS, seconds of the capture}
	RATE=$(( $(LC_ALL=C grep -c "^[^ 	]" "$cap") / SECS ))
fi

mkdir -p "$dir"
if [ -z "${BENCH_SERVE_CAPTURE:-}" ] && { [ ! -s "$cap" ] || [ "${BENCH_REBUILD:-0}" = 1 ]; }; then
	echo "serve-index.sh: generating $((SECS * RATE)) samples into $cap" >&2
	sh "$root/tests/mk-long-capture.sh" $SECS $RATE $STACKS >"$cap.tmp"
	mv "$cap.tmp" "$cap"
fi
cc -O2 -Wall -Wextra -o "$dir/rangeq" "$here/rangeq.c" -lpthread

mkdir -p "$dir/index" "$dir/serve"
rm -f "$dir/serve/long.perf"
ln "$cap" "$dir/serve/long.perf" 2>/dev/null || cp "$cap" "$dir/serve/long.perf"
rm -rf "$dir/index"
serve_bench "$dir/serve" "$dir/serve.out" --cache-dir "$dir/index"
port=${url##*:}	# for rangeq: url is http://127.0.0.1:PORT/
port=${port%/}

rc=0
t=$(curl -sS -o "$dir/heatmap.json" -w '%{http_code} %{time_total}' \
	"${url}heatmap/?filename=long.perf") || rc=1
[ "${t%% *}" = 200 ] || rc=1
open_ms=$(echo "${t#* }" | awk '{ printf "%.0f", $1 * 1000 }')
"$dir/rangeq" "$port" long.perf "$QUERIES" $SECS 1 >"$dir/burst1" || rc=1
line=$("$dir/rangeq" "$port" long.perf "$QUERIES" $SECS 2) || rc=1
echo "open_ms=$open_ms $line bytes=$(stat -c %s "$cap") samples=$((SECS * RATE)) index_bytes=$(du -cb "$dir"/index/*.fpr | tail -n 1 | cut -f1) first_burst=\"$(cat "$dir/burst1")\" exit=$rc"
