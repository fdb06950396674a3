#!/bin/sh
# run.sh: the flamepipe benchmark (`make bench`). docs/bench.md explains it.
#
# Builds or reuses the corpus (bench/make-corpus.sh), then times every row
# BENCH_RUNS times (median) with /usr/bin/time -f '%U %S %M' and a
# nanosecond wall clock, judges each row against its target (PASS/MISS),
# and writes the table to bench/results/latest.md (and prints it).
# Stages that are not built yet are reported as "missing", never an error.
#
# Environment:
#   BENCH_RUNS      runs per row, median taken (default 3)
#   BENCH_MB        corpus size in MiB (default 512; see make-corpus.sh)
#   FP_BIN          the binaries to measure (default bin/)
#   FLAMEGRAPH_DIR  a local checkout of brendangregg/FlameGraph for the
#                   flamegraph.pl / stackcollapse-perf.pl comparison rows
#                   (never fetched by this script; "not available" if unset)
#   BENCH_RATE, BENCH_TRICKLE   trickle rate (1000/s) and sample count (5000)
#   BENCH_OUT       the results file (default bench/results/latest.md)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
FP_BIN=${FP_BIN:-$root/bin}
case $FP_BIN in /*) ;; *) FP_BIN=$root/$FP_BIN ;; esac
PATH=$FP_BIN:$PATH
export PATH
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_RATE=${BENCH_RATE:-1000}
BENCH_TRICKLE=${BENCH_TRICKLE:-5000}
BENCH_OUT=${BENCH_OUT:-$here/results/latest.md}
corpus_dir=${BENCH_CORPUS:-$here/corpus}
tmp=$here/results/tmp
TIME=/usr/bin/time
MB=1000000		# MB/s are decimal megabytes per second
MIB_KIB=1024
PER_SAMPLES=100000	# live cost is per 100,000 samples

# Targets (docs/bench.md explains where they come from).
TARGET_READ_MBS=1000		# fp-read on plain text
TARGET_READ_VS_WC=3.5		# ... and at most 3.5x the time of wc -l
TARGET_CHAIN_MBS=400		# flamepipe report, plain text
TARGET_GZ_VS_ZCAT=0.90		# flamepipe report on .gz: >= 90% of zcat speed
TARGET_RSS_MIB=64		# every stage
TARGET_RENDER_MBS=110		# 10x flamegraph.pl's 7-11 MB/s (when not measured here)
TARGET_RENDER_VS_PL=10		# ... or 10x flamegraph.pl measured here
TARGET_LIVE_PCT=5		# stage CPU vs perf script CPU, same samples
TARGET_DELAY_MS=50		# sample in -> H record out, p99

[ -x "$TIME" ] || { echo "run.sh: $TIME is missing: apt-get install time" >&2; exit 100; }

"$here/make-corpus.sh"
. "$corpus_dir/corpus.facts"
corpus=$corpus_dir/corpus.perf
corpus_gz=$corpus_dir/corpus.perf.gz
capture=$corpus_dir/capture.perf
folded=$corpus_dir/folded-100k.txt

rm -rf "$tmp"
mkdir -p "$tmp" "$(dirname "$BENCH_OUT")"
rows=$tmp/rows.tsv
: > "$rows"
notes=$tmp/notes.txt
: > "$notes"

cc -O2 -Wall -Wextra -o "$corpus_dir/trickle" "$here/trickle.c"

calc() { awk "BEGIN { print $* }"; }
note() { echo "$*" >> "$notes"; echo "  note: $*" >&2; }
have() {
	for p in "$@"; do command -v "$p" > /dev/null 2>&1 || return 1; done
}
missing_of() {
	m=
	for p in "$@"; do command -v "$p" > /dev/null 2>&1 || m="$m $p"; done
	echo "${m# }"
}

now_ns() { date +%s%N; }

# measure NAME BYTES SAMPLES CMD: runs CMD (sh -c) BENCH_RUNS times; sets
# m_wall m_cpu m_rss_kib m_exit (medians; exit of the last failing run).
measure() {
	name=$1; cmd=$4
	: > "$tmp/runs"
	m_exit=0
	i=0
	while [ "$i" -lt "$BENCH_RUNS" ]; do
		t0=$(now_ns)
		rc=0
		$TIME -f '%U %S %M' -o "$tmp/time" sh -c "$cmd" 2> "$tmp/stderr" || rc=$?
		t1=$(now_ns)
		[ "$rc" -eq 0 ] || m_exit=$rc
		tail -n 1 "$tmp/time" | awk -v w="$((t1 - t0))" '{ print w / 1e9, $1 + $2, $3 }' >> "$tmp/runs"
		i=$((i + 1))
	done
	if [ "$m_exit" -ne 0 ]; then
		echo "  $name: exit $m_exit; stderr:" >&2
		tail -n 5 "$tmp/stderr" | sed 's/^/    /' >&2
	fi
	m_wall=$(cut -d' ' -f1 "$tmp/runs" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	m_cpu=$(cut -d' ' -f2 "$tmp/runs" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	m_rss_kib=$(cut -d' ' -f3 "$tmp/runs" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
}

# row NAME INPUT BYTES SAMPLES VS_FLOOR TARGET VERDICT: one table row from
# the last measure. VS_FLOOR is "x.xx x wc -l" or similar, or "".
row() {
	mbs=$(calc "$3 / $MB / $m_wall")
	sps=$( [ "$4" -gt 0 ] && calc "$4 / $m_wall" || echo "")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$m_wall" "$mbs" "$sps" \
		"$m_cpu" "$(calc "$m_rss_kib / $MIB_KIB")" "$5" "$6" "$7" >> "$rows"
	printf '  %-38s %8.3f s %9.1f MB/s  cpu %6.2f s  rss %7.1f MiB  %s %s\n' "$1" "$m_wall" \
		"$mbs" "$m_cpu" "$(calc "$m_rss_kib / $MIB_KIB")" "$6" "$7" >&2
}

row_missing() {
	printf '%s\t%s\t\t\t\t\t\t\t%s\tmissing (%s)\n' "$1" "$2" "$3" "$4" >> "$rows"
	echo "  $1: missing ($4)" >&2
}

verdict() {	# verdict CONDITION(awk expr) -> PASS/MISS, FAILED if the run failed
	if [ "$m_exit" -ne 0 ]; then echo "FAILED (exit $m_exit)"; return; fi
	awk "BEGIN { exit !($*) }" && echo PASS || echo MISS
}

rss_verdict() {	# within the per-stage memory target
	verdict "$m_rss_kib <= $TARGET_RSS_MIB * $MIB_KIB"
}

mib() { calc "$1 / 1048576"; }

echo "run.sh: corpus $bytes bytes, $samples samples, $BENCH_RUNS runs per row" >&2
cat "$corpus" > /dev/null	# warm the page cache
cat "$corpus_gz" > /dev/null

# ---- floors ---------------------------------------------------------------
measure "cat" "$bytes" "$samples" "cat '$corpus' > /dev/null"
cat_wall=$m_wall
row "floor: cat" "corpus" "$bytes" "$samples" "" "" ""
measure "wc -l" "$bytes" "$samples" "wc -l '$corpus' > /dev/null"
wc_wall=$m_wall
row "floor: wc -l" "corpus" "$bytes" "$samples" "1.00 x wc" "" ""
measure "zcat" "$bytes" "$samples" "zcat '$corpus_gz' > /dev/null"
zcat_wall=$m_wall
row "floor: zcat" "corpus.gz (text MB/s)" "$bytes" "$samples" "1.00 x zcat" "" ""

vs_wc() { printf '%.2f x wc' "$(calc "$m_wall / $wc_wall")"; }
vs_zcat() { printf '%.2f x zcat' "$(calc "$m_wall / $zcat_wall")"; }

# ---- reader and reader-led chains --------------------------------------------
if have fp-read; then
	measure fp-read "$bytes" "$samples" "fp-read '$corpus' > /dev/null"
	row "fp-read" "corpus" "$bytes" "$samples" "$(vs_wc)" \
		">= $TARGET_READ_MBS MB/s, <= $TARGET_READ_VS_WC x wc" \
		"$(verdict "$bytes / $MB / $m_wall >= $TARGET_READ_MBS && $m_wall <= $TARGET_READ_VS_WC * $wc_wall")"
	fp_read_rss_ok=$(rss_verdict)
	[ "$fp_read_rss_ok" = PASS ] || note "fp-read peak RSS $(calc "$m_rss_kib / 1024") MiB > $TARGET_RSS_MIB MiB"
	measure fp-read-gz "$bytes" "$samples" "fp-read '$corpus_gz' > /dev/null"
	row "fp-read (.gz)" "corpus.gz (text MB/s)" "$bytes" "$samples" "$(vs_zcat)" "" ""
else
	row_missing "fp-read" "corpus" "$(vs_wc)" "fp-read"
fi

if have fp-read fp-fold; then
	measure read-fold "$bytes" "$samples" "fp-read '$corpus' | fp-fold --plain > /dev/null"
	row "fp-read | fp-fold --plain" "corpus" "$bytes" "$samples" "$(vs_wc)" "" ""
else
	row_missing "fp-read | fp-fold --plain" "corpus" "" "$(missing_of fp-read fp-fold)"
fi

if have fp-read fp-bucket; then
	measure read-bucket "$bytes" "$samples" "fp-read '$corpus' | fp-bucket > /dev/null"
	row "fp-read | fp-bucket" "corpus" "$bytes" "$samples" "$(vs_wc)" "" ""
else
	row_missing "fp-read | fp-bucket" "corpus" "" "$(missing_of fp-read fp-bucket)"
fi

# ---- each stage alone on a pre-made S stream --------------------------------
stream=$tmp/corpus.stream
if have fp-read; then
	fp-read "$corpus" > "$stream" 2> /dev/null || true
	s_bytes=$(stat -c %s "$stream")
	echo "  S stream: $s_bytes bytes ($(calc "$s_bytes / $samples") bytes/sample)" >&2
	note "S stream from fp-read: $s_bytes bytes, $(calc "int($s_bytes / $samples)") bytes/sample (perf script text: $(calc "int($bytes / $samples)"))"
	for stage in fp-bucket fp-range fp-fold; do
		if have "$stage"; then
			measure "$stage" "$s_bytes" "$samples" "$stage < '$stream' > /dev/null"
			if [ "$stage" = fp-range ]; then
				range_rss_kib=$m_rss_kib
				row "$stage (alone, S stream)" "S stream" "$s_bytes" "$samples" "" \
					"history: see note" "$( [ "$m_exit" -eq 0 ] && echo "n/a" || echo "FAILED (exit $m_exit)")"
			else
				row "$stage (alone, S stream)" "S stream" "$s_bytes" "$samples" "" \
					"RSS <= $TARGET_RSS_MIB MiB" "$(rss_verdict)"
			fi
		else
			row_missing "$stage (alone, S stream)" "S stream" "" "$stage"
		fi
	done
	# fp-range keeps every sample for replays: its memory grows with the
	# capture. Memory per sample = (RSS on the corpus - RSS on 1000 samples)
	# / samples.
	if have fp-range && [ -n "${range_rss_kib:-}" ]; then
		head -n 1001 "$stream" > "$tmp/small.stream"
		small_rss=$($TIME -f '%M' sh -c "fp-range < '$tmp/small.stream' > /dev/null" 2>&1 | tail -n 1)
		per_sample=$(calc "int(($range_rss_kib - $small_rss) * 1024 / $samples)")
		note "fp-range history: peak RSS $(calc "int($range_rss_kib / 1024)") MiB for $samples samples ($(calc "int($small_rss / 1024)") MiB for 1000): about $per_sample bytes/sample kept"
	fi
else
	for stage in fp-bucket fp-range fp-fold; do
		row_missing "$stage (alone, S stream)" "S stream" "" "fp-read (makes the S stream)"
	done
fi

# ---- the whole default chain through real FIFOs --------------------------
if have flamepipe; then
	out=$tmp/report
	measure report "$bytes" "$samples" "rm -rf '$out'; flamepipe report '$corpus' -o '$out' > /dev/null"
	chain_cpu=$m_cpu
	chain_exit=$m_exit
	row "flamepipe report (FIFO chain)" "corpus" "$bytes" "$samples" "$(vs_wc)" \
		">= $TARGET_CHAIN_MBS MB/s" "$(verdict "$bytes / $MB / $m_wall >= $TARGET_CHAIN_MBS")"
	note "flamepipe report: peak RSS of the largest process $(calc "int($m_rss_kib / 1024)") MiB; outputs: $(ls "$out" 2>/dev/null | tr '\n' ' ')"
	measure report-gz "$bytes" "$samples" "rm -rf '$out'; flamepipe report '$corpus_gz' -o '$out' > /dev/null"
	row "flamepipe report (.gz)" "corpus.gz (text MB/s)" "$bytes" "$samples" "$(vs_zcat)" \
		">= ${TARGET_GZ_VS_ZCAT} x zcat speed" "$(verdict "$zcat_wall / $m_wall >= $TARGET_GZ_VS_ZCAT")"
else
	row_missing "flamepipe report (FIFO chain)" "corpus" "" "flamepipe"
	row_missing "flamepipe report (.gz)" "corpus.gz" "" "flamepipe"
fi

# ---- renderer on a 100,000-line folded file -------------------------------
folded_bytes=$(stat -c %s "$folded")
fg_dir=${FLAMEGRAPH_DIR:-}
pl_mbs=
if [ -n "$fg_dir" ] && [ -f "$fg_dir/flamegraph.pl" ] && have perl; then
	measure flamegraph.pl "$folded_bytes" 0 "perl '$fg_dir/flamegraph.pl' '$folded' > '$tmp/pl.svg'"
	pl_mbs=$(calc "$folded_bytes / $MB / $m_wall")
	row "flamegraph.pl (comparison)" "folded, 100k lines" "$folded_bytes" 0 "" "" ""
else
	m_wall=0
	printf '%s\t%s\t\t\t\t\t\t\t\tnot available (FLAMEGRAPH_DIR)\n' "flamegraph.pl (comparison)" "folded, 100k lines" >> "$rows"
	echo "  flamegraph.pl: not available (set FLAMEGRAPH_DIR)" >&2
fi
if [ -n "$pl_mbs" ]; then
	render_target=$(calc "$TARGET_RENDER_VS_PL * $pl_mbs")
	render_target_text=">= ${TARGET_RENDER_VS_PL} x flamegraph.pl ($(printf '%.0f' "$render_target") MB/s)"
else
	render_target=$TARGET_RENDER_MBS
	render_target_text=">= $TARGET_RENDER_MBS MB/s"
fi
renderer=
if have fp-flamegraph; then
	renderer=fp-flamegraph
	render_cmd="fp-flamegraph '$folded' > '$tmp/fp.svg'"
elif have fp-render; then
	# fp-render reads the stream: the folded file as one F snapshot.
	renderer=fp-render
	awk 'BEGIN { print "C\tbegin\tfold" } { c = $NF; s = $0; sub(/ [0-9]+$/, "", s); n++; t += c; print "F\t" c "\t" s }
	     END { print "C\tend\tfold\t" n "\t" t }' "$folded" > "$tmp/folded.stream"
	render_cmd="fp-render < '$tmp/folded.stream' > '$tmp/fp.svg'"
fi
if [ -n "$renderer" ]; then
	measure "$renderer" "$folded_bytes" 0 "$render_cmd"
	row "$renderer (100k-line folded)" "folded, 100k lines" "$folded_bytes" 0 \
		"$( [ -n "$pl_mbs" ] && printf '%.1f x faster than .pl' "$(calc "$folded_bytes / $MB / $m_wall / $pl_mbs")")" \
		"$render_target_text" "$(verdict "$folded_bytes / $MB / $m_wall >= $render_target")"
	[ "$(rss_verdict)" = PASS ] || note "$renderer peak RSS $(calc "int($m_rss_kib / 1024)") MiB > $TARGET_RSS_MIB MiB"
else
	row_missing "renderer (100k-line folded)" "folded, 100k lines" "$render_target_text" "fp-flamegraph, fp-render"
fi

# stackcollapse-perf.pl vs fp-read | fp-fold on one capture (the corpus
# would take minutes in perl).
capture_bytes=$(stat -c %s "$capture")
if [ -n "$fg_dir" ] && [ -f "$fg_dir/stackcollapse-perf.pl" ] && have perl; then
	measure stackcollapse "$capture_bytes" "$capture_samples" "perl '$fg_dir/stackcollapse-perf.pl' '$capture' > /dev/null"
	row "stackcollapse-perf.pl (comparison)" "one capture" "$capture_bytes" "$capture_samples" "" "" ""
else
	printf '%s\t%s\t\t\t\t\t\t\t\tnot available (FLAMEGRAPH_DIR)\n' "stackcollapse-perf.pl (comparison)" "one capture" >> "$rows"
fi
if have fp-read fp-fold; then
	measure capture-fold "$capture_bytes" "$capture_samples" "fp-read '$capture' | fp-fold --plain > /dev/null"
	row "fp-read | fp-fold --plain" "one capture" "$capture_bytes" "$capture_samples" "" "" ""
fi

# ---- live cost: stage CPU vs perf script CPU --------------------------------
measure perf-script 0 "$perf_data_samples" "perf script -i '$corpus_dir/perf.data' --no-inline > /dev/null"
perf_cpu_per=$(calc "$m_cpu * $PER_SAMPLES / $perf_data_samples")
m_exit_perf=$m_exit
m_wall_perf=$m_wall
row "perf script (live source)" "perf.data" "$capture_bytes" "$perf_data_samples" "" "" ""
live_line=
if [ -n "${chain_cpu:-}" ] && [ "$chain_exit" -eq 0 ]; then
	chain_cpu_per=$(calc "$chain_cpu * $PER_SAMPLES / $samples")
	live_pct=$(calc "100 * $chain_cpu_per / $perf_cpu_per")
	m_exit=0
	live_line=$(printf '| live cost: all stages (flamepipe report) CPU per 100k samples vs perf script | %.3f s vs %.3f s | %.1f %% | <= %s %% | %s |' \
		"$chain_cpu_per" "$perf_cpu_per" "$live_pct" "$TARGET_LIVE_PCT" "$(verdict "$live_pct <= $TARGET_LIVE_PCT")")
else
	live_line="| live cost: all stages CPU per 100k samples vs perf script | perf script $(printf '%.3f' "$perf_cpu_per") s | - | <= $TARGET_LIVE_PCT % | missing (flamepipe report) |"
fi

# ---- latency: sample in -> heatmap cell out ------------------------------
delay_line=
if have fp-read fp-bucket; then
	echo "  trickle: $BENCH_TRICKLE samples at $BENCH_RATE/s into fp-read | fp-bucket" >&2
	t=$("$corpus_dir/trickle" "$BENCH_RATE" "$BENCH_TRICKLE" "fp-read | fp-bucket")
	echo "  $t" >&2
	med=$(echo "$t" | sed -n 's/.*median_ms=\([-0-9.]*\).*/\1/p')
	p99=$(echo "$t" | sed -n 's/.*p99_ms=\([-0-9.]*\).*/\1/p')
	m_exit=$(echo "$t" | sed -n 's/.*exit=\([0-9]*\).*/\1/p')
	delay_line="| delay: sample written -> its H record out of fp-read \\| fp-bucket ($BENCH_RATE samples/s) | median $med ms, p99 $p99 ms | $(echo "$t" | sed 's/ median_ms.*//') | p99 <= $TARGET_DELAY_MS ms | $(verdict "$p99 >= 0 && $p99 <= $TARGET_DELAY_MS") |"
else
	delay_line="| delay: sample written -> its H record out of fp-read \\| fp-bucket | - | - | p99 <= $TARGET_DELAY_MS ms | missing ($(missing_of fp-read fp-bucket)) |"
fi

# ---- the results file -----------------------------------------------------
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
mem=$(free -h | awk '/^Mem:/ { print $2 }')
{
	echo "# flamepipe benchmark results"
	echo
	echo "Machine: $(nproc) CPUs ($model), $mem RAM, kernel $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')."
	echo "Commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'); medians of $BENCH_RUNS runs."
	echo
	echo "Corpus: $(printf "%'d" "$bytes") bytes of \`perf script --no-inline\` text, $(printf "%'d" "$lines") lines,"
	echo "$(printf "%'d" "$samples") samples, $(printf "%'d" "$unique_stacks") unique stacks ($copies time-shifted copies of one"
	echo "${capture_seconds}s \`perf record -F $perf_freq -a -g\` capture of bench/load.c); gzip -$gzip_level: $(printf "%'d" "$gz_bytes") bytes."
	echo "Renderer input: $(printf "%'d" "$folded_lines") folded lines, $(printf "%'d" "$folded_bytes") bytes."
	echo
	echo "| benchmark | input | wall s | MB/s | samples/s | CPU s | peak RSS MiB | vs floor | target | result |"
	echo "|---|---|--:|--:|--:|--:|--:|--:|---|---|"
	awk -F '\t' '
	function num(v, fmt) { return v == "" ? "" : sprintf(fmt, v) }
	{
		sps = $5 == "" ? "" : ($5 >= 1e6 ? sprintf("%.2f M", $5 / 1e6) : sprintf("%.0f k", $5 / 1e3))
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2,
			num($3, "%.3f"), num($4, "%.0f"), sps, num($6, "%.2f"), num($7, "%.1f"), $8, $9, $10
	}' "$rows"
	echo
	echo "| measure | value | detail | target | result |"
	echo "|---|---|---|---|---|"
	echo "$live_line"
	echo "$delay_line"
	if [ -s "$notes" ]; then
		echo
		echo "Notes:"
		echo
		sed 's/^/- /' "$notes"
	fi
} > "$BENCH_OUT"
echo >&2
cat "$BENCH_OUT"
