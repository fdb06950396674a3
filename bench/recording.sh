#!/bin/sh
# recording.sh: range queries on a 1-hour live recording (issue 11).
#
#	bench/recording.sh [RUNS]
#
# Builds (or reuses) BENCH_CORPUS/recording/recording.fp.gz: 3,600 s at
# 1,000 samples/s (3.6 M samples) of generated stacks (1,000 distinct
# stacks of 8-24 frames over 10 comms, 2 CPUs) written by fp-record as
# `flamepipe live` writes it (one batch per second). Then starts fp-serve on
# that directory and asks RUNS (default 5) different 10-second ranges of it
# with curl, each once (so none is answered from fp-serve's cache), and
# prints one line:
#	wall_ms=MEDIAN max_ms=MAX samples=N bytes=FILE_BYTES range_samples=N runs=N exit=0
# bench/run.sh turns it into the row "range query on a 1-hour recording".
# Needs curl. FP_BIN: the binaries (default bin/).
set -eu

. "$(dirname "$0")/env.sh"
RUNS=${1:-5}
SECONDS_1H=3600
RATE=1000		# samples per second: 3.6 M in all
RANGE_S=10		# the query's range
BASE_NS=1000000000000	# perf time of the first sample (1000 s)
dir=${BENCH_CORPUS:-$here/cache}/recording
rec=$dir/recording.fp.gz
facts=$dir/recording.facts

if [ ! -s "$facts" ] || [ "${BENCH_REBUILD:-0}" = 1 ]; then
	mkdir -p "$dir"
	rm -f "$rec" "$facts"
	echo "recording.sh: generating $((SECONDS_1H * RATE)) samples into $rec" >&2
	awk -v n=$((SECONDS_1H * RATE)) -v step=$((1000000000 / RATE)) -v base=$BASE_NS 'BEGIN {
		srand(11)
		for (s = 0; s < 1000; s++) {
			d = 8 + int(rand() * 17); st = "main"; k = "u"
			for (f = 1; f < d; f++) { st = st ";fn_" int(rand() * 200); k = k (f > d - 3 && rand() < 0.5 ? "k" : "u") }
			stack[s] = st; kinds[s] = k
		}
		for (i = 0; i < n; i++) {
			s = int(rand() * 1000); c = s % 10
			printf "S\t%.0f\t%d\t%d\t%d\t1\tcpu-clock\tapp%d\t%s\t%s\n", base + i * step,
				1000 + c, 1000 + c + i % 3, i % 2, c, kinds[s], stack[s]
		}
	}' | fp-record --output "$rec" >/dev/null
	echo "samples=$((SECONDS_1H * RATE))" > "$facts"
fi
samples=$(sed -n 's/^samples=//p' "$facts")

serve_bench "$dir" "$dir/serve.out"

rc=0
: > "$dir/times"
i=0
while [ $i -lt "$RUNS" ]; do
	from=$((SECONDS_1H / 2 + i * 37))
	t=$(curl -sS -o "$dir/fg.json" -w '%{http_code} %{time_total}' \
		"${url}flamegraph/?filename=recording.fp.gz&start=$from&end=$((from + RANGE_S))") || rc=1
	[ "${t%% *}" = 200 ] || rc=1
	echo "${t#* }" >> "$dir/times"
	i=$((i + 1))
done
# the last answer's total: every sample of the range (10 s x RATE)
n=$(tr -c '0-9:,"v' ' ' < "$dir/fg.json" | grep -o '"v":[0-9]*' | cut -d: -f2 | awk '{ s += $1 } END { print s + 0 }')
med=$(sort -g "$dir/times" | awk '{ v[NR] = $1 } END { printf "%.1f", 1000 * v[int((NR + 1) / 2)] }')
max=$(sort -g "$dir/times" | tail -n 1 | awk '{ printf "%.1f", 1000 * $1 }')
echo "wall_ms=$med max_ms=$max samples=$samples bytes=$(stat -c %s "$rec") range_samples=$n runs=$RUNS exit=$rc"
