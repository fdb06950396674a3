#!/bin/sh
# run.sh: the flamepipe benchmark (`make bench`). docs/bench.md explains it.
#
# Builds or reuses the corpus (bench/make-corpus.sh, cached in bench/cache/),
# then times every row BENCH_RUNS times and takes medians, with bench/rtime
# (wall clock, CPU = user + system of every process, peak RSS of the largest
# process). Chains are timed with rtime around each stage as well, so every
# stage's CPU and peak RSS inside the running chain is reported. Each row is
# judged against its target (met / missed) and the table is written to
# bench/results/latest.md (and printed). A stage that is not built yet is
# reported as "missing", never an error.
#
# Environment:
#   BENCH_RUNS      runs per row, median taken (default 5; 3 with BENCH_QUICK)
#   BENCH_QUICK=1   a 64 MiB corpus in bench/cache/quick/ (a quick look)
#   BENCH_MB        corpus size in MiB (default 512; see make-corpus.sh)
#   FP_BIN          the binaries to measure (default bin/)
#   FLAMEGRAPH_DIR  a local copy of brendangregg/FlameGraph for the
#                   flamegraph.pl / stackcollapse-perf.pl comparison rows
#                   (never fetched by this script; without it the rows quote
#                   the issue's figures)
#   BENCH_RATE, BENCH_TRICKLE   live trickle: samples/s (default 1000) and
#                   how many (default 5000)
#   BENCH_OUT       the results file (default bench/results/latest.md)
#   BENCH_WEB_S     seconds of the web load row (default 60; 10 with BENCH_QUICK)
#   BENCH_ONLY=perfdata  only the floors and the perf.data rows (issue 10:
#                   perf script, hotspot-perfparser, fp-perfdata, report,
#                   the live whole cost)
#   BENCH_ONLY=chain  only the floors, fp-read and the text chain rows
#   BENCH_LIVE_LOOPS  the live whole cost's steady-state run: passes of the
#                   capture (default 4; 1 leaves that run out)
#   BENCH_LIVE_RATE, BENCH_LIVE_RUNS  the live whole cost row: samples/s
#                   (default 10000) and runs (default 3; each lasts as long
#                   as the capture at that rate)
#   BENCH_ONLY=dwarf     only the floors and the --call-graph dwarf rows
#                   (bench/dwarf-rows.sh)
#   BENCH_SSH_S, BENCH_SSH_HZ, BENCH_SSH_SCOPE  the live --ssh row: seconds
#                   (default 5), Hz (4999), system or spin (bench/ssh-remote.sh,
#                   which runs alone too)
set -eu

. "$(dirname "$0")/env.sh"
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	BENCH_RUNS=${BENCH_RUNS:-3}
	corpus_dir=${BENCH_CORPUS:-$here/cache/quick}
else
	corpus_dir=${BENCH_CORPUS:-$here/cache}
fi
BENCH_RUNS=${BENCH_RUNS:-5}
BENCH_RATE=${BENCH_RATE:-1000}
BENCH_TRICKLE=${BENCH_TRICKLE:-5000}
BENCH_OUT=${BENCH_OUT:-$here/results/latest.md}
export BENCH_CORPUS=$corpus_dir
tmp=$corpus_dir/tmp
MB=1000000		# MB/s are decimal megabytes per second
PER_SAMPLES=100000	# live cost is per 100,000 samples

# Targets (issue 5; docs/bench.md explains them).
TARGET_READ_MBS=1000		# fp-read on plain text
TARGET_READ_VS_WC=3.5		# ... and at most 3.5x the time of wc -l
TARGET_CHAIN_MBS=400		# flamepipe report, plain text
TARGET_TEXT_MBS=1000		# ... issue 10: the text chain at 1 GB/s
TARGET_GZ_VS_ZCAT=0.90		# flamepipe report on .gz: >= 90% of zcat speed
TARGET_RSS_MIB=64		# every stage (fp-range: history, see below)
TARGET_HIST_BYTES=32		# fp-range: bytes per sample kept, besides stacks
HIST_TOLERANCE=1.05		# RSS growth vs that: page/allocator rounding
PL_MBS_QUOTED_LO=7		# flamegraph.pl's rate quoted in the issue (MB/s)
PL_MBS_QUOTED_HI=11
SC_MBS_QUOTED="16-19"		# stackcollapse-perf.pl, quoted in the issue
TARGET_RENDER_VS_PL=10		# renderer >= 10x flamegraph.pl
TARGET_LIVE_PCT=5		# stage CPU vs perf script CPU, same samples
TARGET_LIVE_CORE_PCT=5		# issue 10: live whole cost at 10 k samples/s, % of one core
LIVE_RATE=${BENCH_LIVE_RATE:-10000}	# samples/s of the live whole cost row
LIVE_TICK_MS=1			# ... one write per ms (perf --no-buffering wakes often)
LIVE_RUNS=${BENCH_LIVE_RUNS:-3}	# runs of that row (each lasts the capture)
LIVE_LOOPS=${BENCH_LIVE_LOOPS:-4}	# ... and of the steady-state run: the capture replayed
				# this many times, time-shifted (pdreplay LOOPS)
TARGET_DELAY_MS=50		# sample in -> H record out of fp-bucket
WEB_SLOW=64			# web load row: slowloris clients (trickling headers)
WEB_NORMAL=50			# ... and concurrent normal clients, loopback only
WEB_TRICKLE_MS=1000		# one header line per slow client per second
TARGET_REPORT_VS_SCRIPT=5	# flamepipe report perf.data vs perf script > /dev/null
TARGET_PD_VS_HOTSPOT=3		# fp-perfdata vs hotspot-perfparser, same perf.data
HOTSPOT_PARSER=${BENCH_HOTSPOT:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}	# BENCH_HOTSPOT=none: row skipped
BENCH_PKGS="hotspot"		# bench-only packages (hotspot-perfparser's row)

# Bench-only packages, installed when missing and we are root (the build's
# and the tests' are in tools/install-deps.sh).
for p in $BENCH_PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" &&
	   [ "$(id -u)" = 0 ]; then
		echo "run.sh: installing $p (bench only)" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$p" \
			>/dev/null 2>&1 || echo "run.sh: could not install $p" >&2
	fi
done

"$here/make-corpus.sh"
. "$corpus_dir/corpus.facts"
corpus=$corpus_dir/corpus.perf
corpus_gz=$corpus_dir/corpus.perf.gz
capture=$corpus_dir/capture.perf
folded=$corpus_dir/folded.txt

rm -rf "$tmp"
mkdir -p "$tmp" "$(dirname "$BENCH_OUT")"
rows=$tmp/rows.tsv
: > "$rows"
notes=$tmp/notes.txt
: > "$notes"

rtime=$corpus_dir/rtime
cc -O2 -Wall -Wextra -o "$rtime" "$here/rtime.c"
cpuprobe=$corpus_dir/cpuprobe
cc -O2 -Wall -Wextra -pthread -o "$cpuprobe" "$here/cpuprobe.c"
probes=$tmp/probes	# every probe of the run, for the header
: > "$probes"
cc -O2 -Wall -Wextra -o "$corpus_dir/trickle" "$here/trickle.c"
build_http_load "$corpus_dir/http-load"

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
fmtn() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }	# 1234567 -> 1,234,567
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "") }'; }
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" "$2"; }	# field KEY FILE
kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }	# kv LINE KEY: of KEY=VALUE words

# st NAME: the prefix that times one stage of a chain into $tmp/st.NAME.
st() { echo "'$rtime' -o '$tmp/st.$1'"; }

# measure NAME CMD: runs CMD (sh -c) BENCH_RUNS times; sets m_wall m_cpu
# m_rss_kib (medians) and m_exit (the exit of the last failing run). Stages
# timed with st() get medians in $tmp/stage.<NAME>.{cpu,rss}. Before each
# run the CPU probe (bench/cpuprobe.c) times fixed work on every CPU:
# m_probe is its median, ms (how fast the host ran around this row).
measure() {
	name=$1; cmd=$2
	: > "$tmp/runs"
	: > "$tmp/row_probes"
	rm -f "$tmp"/st.* "$tmp"/stage.*
	m_exit=0
	i=0
	while [ "$i" -lt "$BENCH_RUNS" ]; do
		rc=0
		"$cpuprobe" | sed -n 's/^probe_ms=//p' | tee -a "$probes" >> "$tmp/row_probes"
		"$rtime" -o "$tmp/time" sh -c "$cmd" 2> "$tmp/stderr" || rc=$?
		[ "$rc" -eq 0 ] || m_exit=$rc
		echo "$(field wall "$tmp/time") $(field cpu "$tmp/time") $(field maxrss_kib "$tmp/time")" >> "$tmp/runs"
		for f in "$tmp"/st.*; do
			[ -f "$f" ] || continue
			s=${f##*/st.}
			field cpu "$f" >> "$tmp/stage.$s.cpus"
			field maxrss_kib "$f" >> "$tmp/stage.$s.rsss"
			rm -f "$f"
		done
		i=$((i + 1))
	done
	if [ "$m_exit" -ne 0 ]; then
		echo "  $name: exit $m_exit; stderr:" >&2
		tail -n 5 "$tmp/stderr" | sed 's/^/    /' >&2
	fi
	m_wall=$(cut -d' ' -f1 "$tmp/runs" | median)
	m_cpu=$(cut -d' ' -f2 "$tmp/runs" | median)
	m_rss_kib=$(cut -d' ' -f3 "$tmp/runs" | median)
	m_probe=$(median < "$tmp/row_probes")
	for f in "$tmp"/stage.*.cpus; do
		[ -f "$f" ] || continue
		s=${f%.cpus}
		median < "$f" > "$s.cpu"
		median < "$s.rsss" > "$s.rss"
	done
}

# row NAME INPUT BYTES SAMPLES VS_FLOOR TARGET VERDICT: a table row from the
# last measure.
row() {
	mbs=$(calc "$3 / $MB / $m_wall")
	sps=$( [ "$4" -gt 0 ] && calc "$4 / $m_wall" || echo "")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$m_wall" "$mbs" "$sps" \
		"$m_cpu" "$(calc "$m_rss_kib / 1024")" "$5" "$6" "$7" >> "$rows"
	printf '  %-44s %8.3f s %8.1f MB/s  cpu %6.2f s  rss %6.1f MiB  probe %s ms  %s %s\n' \
		"$1" "$m_wall" "$mbs" "$m_cpu" "$(calc "$m_rss_kib / 1024")" "$m_probe" "$6" "$7" >&2
}

# stage_rows STAGE... : one indented row per stage timed inside the last
# chain: its CPU, its share of the chain's CPU and its peak RSS. MB/s is the
# chain's input divided by the stage's CPU time (how fast it would go alone).
stage_rows() {
	bytes_in=$1; samples_in=$2; shift 2
	for s in "$@"; do
		[ -f "$tmp/stage.$s.cpu" ] || continue
		c=$(cat "$tmp/stage.$s.cpu")
		r=$(cat "$tmp/stage.$s.rss")
		rss_ok=$( [ "$r" -le $((TARGET_RSS_MIB * 1024)) ] && echo met || echo missed)
		target="RSS <= $TARGET_RSS_MIB MiB"
		if [ "$s" = range ]; then
			target="history: see notes"
			rss_ok="see notes"
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "· $s (in the chain)" \
			"$(printf '%.0f%% of chain CPU' "$(calc "100 * $c / $m_cpu")")" "" \
			"$(calc "$bytes_in / $MB / ($c > 0 ? $c : 1e-9)")" \
			"$(calc "$samples_in / ($c > 0 ? $c : 1e-9)")" "$c" "$(calc "$r / 1024")" \
			"" "$target" "$rss_ok" >> "$rows"
		printf '      %-10s cpu %6.2f s  rss %6.1f MiB\n' "$s" "$c" "$(calc "$r / 1024")" >&2
	done
}

# The same pipeline file with every stage wrapped in rtime (for the
# per-stage breakdown of a chain).
stage_wrap() {	# stage_wrap PIPELINE [ids] > PIPELINE: rtime before each program
	# With "ids" the read stage gets --stack-ids itself, and a fold stage
	# with --pass-samples --snapshot-ids: behind rtime the runner cannot
	# tell their programs, so it would not negotiate them.
	awk -v rt="$rtime" -v dir="$tmp" -v ids="${2:-}" '
	/^[ \t]*(#|$)/ { print; next }
	{
		out = $1; i = 2
		while (i <= NF && $i ~ /=/) { out = out " " $i; i++ }
		out = out " " rt " -o " dir "/st." $1 " " $i
		if (ids == "ids" && $1 == "read") out = out " --stack-ids"
		if (ids == "ids" && $1 == "fold" && / --pass-samples/) out = out " --snapshot-ids"
		for (i++; i <= NF; i++) out = out " " $i
		print out
	}' "$1"
}

row_missing() {
	printf '%s\t%s\t\t\t\t\t\t\t%s\tmissing (%s)\n' "$1" "$2" "$3" "$4" >> "$rows"
	echo "  $1: missing ($4)" >&2
}

verdict() {	# verdict CONDITION(awk expr) -> met/missed, FAILED if the run failed
	if [ "$m_exit" -ne 0 ]; then echo "FAILED (exit $m_exit)"; return; fi
	awk "BEGIN { exit !($*) }" && echo met || echo missed
}

rss_verdict() { verdict "$m_rss_kib <= $TARGET_RSS_MIB * 1024"; }

echo "run.sh: corpus $bytes bytes, $samples samples, $BENCH_RUNS runs per row" >&2

# The page cache holds a file in the folios it came in, and reading or
# mapping it costs per folio: a capture perf script has just written
# (4 KiB writes) sits in small folios, one read back from disk in 2 MiB
# ones, and wc -l and fp-read take up to 2x as long on the first
# (docs/bench.md, "The corpus's page cache"). The cached corpus was in
# either state by its history (DAMON pages out a file not read for a
# minute; read again, it comes back huge), so runs differed by 20-30 %
# for no change of code. Every text row reads a copy written as perf
# script writes (written_copy): the user's case right after a capture,
# and the same in every run. One row reads the corpus read back from
# disk (read_back), the other state.
written_copy() { dd if="$1" of="$2" bs=4k status=none; }
read_back() { dd if="$1" iflag=nocache count=0 status=none; cat "$1" > /dev/null; }
corpus_file=$corpus
corpus=$tmp/corpus.perf
written_copy "$corpus_file" "$corpus"
# the same capture by its other name (make-corpus.sh links them): its copy too
[ "$(stat -Lc %d:%i "$capture")" != "$(stat -Lc %d:%i "$corpus_file")" ] || capture=$corpus
cat "$corpus_gz" > /dev/null	# warm the page cache

# How busy the rest of the host was: its share of all CPUs in one second
# while this script waits (a test suite or a build alongside moves every
# row by 10 % or more; docs/bench.md). Dirty pages other jobs left are
# written out first, not during the rows.
cpu_busy_pct() {
	{ head -n 1 /proc/stat; sleep 1; head -n 1 /proc/stat; } | awk '
		{ idle = $5 + $6; all = 0; for (i = 2; i <= NF; i++) all += $i }
		NR == 1 { idle0 = idle; all0 = all }
		NR == 2 { printf "%.0f", (all > all0 ? 100 * (1 - (idle - idle0) / (all - all0)) : 0) }'
}
sync
busy_before=$(cpu_busy_pct)
echo "run.sh: the host's CPUs were ${busy_before} % busy before the rows" >&2

# ---- floors ---------------------------------------------------------------
measure cat "cat '$corpus' > /dev/null"
row "floor: cat" "mixed" "$bytes" "$samples" "" "" ""
measure "wc -l" "wc -l '$corpus' > /dev/null"
wc_wall=$m_wall
wc_cpu=$m_cpu
row "floor: wc -l" "mixed" "$bytes" "$samples" "1.00 x wc time" "" ""
measure zcat "zcat '$corpus_gz' > /dev/null"
zcat_wall=$m_wall
row "floor: zcat" "mixed .gz (MB/s of text)" "$bytes" "$samples" "1.00 x zcat speed" "" ""

vs_wc() { printf '%.2f x wc time; probe %s ms' "$(calc "$m_wall / $wc_wall")" "$m_probe"; }
vs_zcat() { printf '%.2f x zcat speed' "$(calc "$zcat_wall / $m_wall")"; }

only_perfdata=$( [ "${BENCH_ONLY:-}" = perfdata ] || [ "${BENCH_ONLY:-}" = dwarf ] && echo 1 || echo 0 )
only_chain=$( [ "${BENCH_ONLY:-}" = chain ] && echo 1 || echo 0 )
only_dwarf=$( [ "${BENCH_ONLY:-}" = dwarf ] && echo 1 || echo 0 )
if [ "$only_perfdata" = 0 ]; then
# ---- the reader alone -------------------------------------------------------
if have fp-read; then
	measure fp-read "fp-read '$corpus' > /dev/null"
	row "fp-read" "mixed" "$bytes" "$samples" "$(vs_wc)" \
		">= $TARGET_READ_MBS MB/s, <= $TARGET_READ_VS_WC x wc" \
		"$(verdict "$bytes / $MB / $m_wall >= $TARGET_READ_MBS && $m_wall <= $TARGET_READ_VS_WC * $wc_wall")"
	[ "$(rss_verdict)" = met ] || note "fp-read peak RSS $(calc "$m_rss_kib / 1024") MiB > $TARGET_RSS_MIB MiB"
	measure fp-read-gz "fp-read '$corpus_gz' > /dev/null"
	row "fp-read (.gz)" "mixed .gz (MB/s of text)" "$bytes" "$samples" "$(vs_zcat)" "" ""
else
	row_missing "fp-read" "corpus" ">= $TARGET_READ_MBS MB/s" "fp-read"
fi

# ---- read -> fold: shell pipes, every stage timed --------------------------
chain4="$(st read) fp-read '$corpus' | $(st bucket) fp-bucket | $(st range) fp-range | $(st fold) fp-fold > /dev/null"
if have fp-read fp-bucket fp-range fp-fold; then
	measure read-fold "$chain4"
	row "read | bucket | range | fold (pipes)" "mixed" "$bytes" "$samples" "$(vs_wc)" "" ""
	stage_rows "$bytes" "$samples" read bucket range fold
	fold4_cpu=$m_cpu
	measure read-fold-gz "$(echo "$chain4" | sed "s|'$corpus'|'$corpus_gz'|")"
	row "read | bucket | range | fold (pipes, .gz)" "mixed .gz (MB/s of text)" "$bytes" "$samples" "$(vs_zcat)" "" ""
else
	row_missing "read | bucket | range | fold" "corpus" "" "$(missing_of fp-read fp-bucket fp-range fp-fold)"
fi

# ---- the whole default chain through real FIFOs ---------------------------
# The same pipeline file with every stage wrapped in rtime (for the
# per-stage breakdown), and one without fp-render while it is not built.
default_pipeline=$root/examples/default.pipeline
out=$tmp/report
if have flamepipe fp-read fp-bucket fp-range fp-fold fp-render; then
	chain_name="flamepipe report (FIFOs)"
	report="flamepipe report -q"
	stage_wrap "$default_pipeline" ids > "$tmp/timed.pipeline"
	stage_wrap "$default_pipeline" > "$tmp/timed-plain.pipeline"
	stage_names="read bucket range fold render"
else
	chain_name="flamepipe report, read..fold (FIFOs; no fp-render yet)"
	grep -v '^render[[:space:]]' "$default_pipeline" > "$tmp/norender.pipeline"
	report="flamepipe report -q --pipeline '$tmp/norender.pipeline'"
	stage_wrap "$tmp/norender.pipeline" > "$tmp/timed.pipeline"
	stage_names="read bucket range fold"
	note "bin/fp-render is not built: the report rows run the default pipeline without its render stage (fold's output goes to /dev/null)"
fi
if have flamepipe fp-read fp-bucket fp-range fp-fold; then
	measure report "rm -rf '$out'; $report '$corpus' -o '$out' > /dev/null"
	chain_cpu=$m_cpu
	chain_exit=$m_exit
	chain_wall=$m_wall
	row "$chain_name, stack-id stream (negotiated)" "mixed" "$bytes" "$samples" "$(vs_wc)" \
		">= $TARGET_CHAIN_MBS MB/s; >= $TARGET_TEXT_MBS MB/s (issue 10)" \
		"$(verdict "$bytes / $MB / $m_wall >= $TARGET_CHAIN_MBS")$(verdict "$bytes / $MB / $m_wall >= $TARGET_TEXT_MBS" | sed 's/^/; /')"
	[ -d "$out" ] && note "flamepipe report wrote: $(ls "$out" | tr '\n' ' ')"
	measure report-timed "rm -rf '$out'; flamepipe report -q --pipeline '$tmp/timed.pipeline' '$corpus' -o '$out' > /dev/null"
	echo "    (per-stage breakdown: the same chain with rtime around each stage, $(printf '%.3f' "$m_wall") s)" >&2
	stage_rows "$bytes" "$samples" $stage_names
	# The same chain on plain S records (the runner's negotiation off):
	# what the stack-id stream (K/P, fifo/PROTOCOL.md) saves, same run.
	measure report-plain "rm -rf '$out'; FLAMEPIPE_STACK_IDS=0 $report '$corpus' -o '$out' > /dev/null"
	row "$chain_name, plain S stream (FLAMEPIPE_STACK_IDS=0)" "mixed" "$bytes" "$samples" \
		"$(vs_wc); stack ids $(printf '%.2f' "$(calc "$m_wall / $chain_wall")") x faster" \
		">= $TARGET_TEXT_MBS MB/s (issue 10)" "$(verdict "$bytes / $MB / $m_wall >= $TARGET_TEXT_MBS")"
	measure report-plain-timed "rm -rf '$out'; flamepipe report -q --pipeline '$tmp/timed-plain.pipeline' '$corpus' -o '$out' > /dev/null"
	stage_rows "$bytes" "$samples" $stage_names
	measure report-gz "rm -rf '$out'; $report '$corpus_gz' -o '$out' > /dev/null"
	row "$chain_name, .gz" "mixed .gz (MB/s of text)" "$bytes" "$samples" "$(vs_zcat)" \
		">= $(calc "$TARGET_GZ_VS_ZCAT * 100")% of zcat" "$(verdict "$zcat_wall / $m_wall >= $TARGET_GZ_VS_ZCAT")"
	# the other page-cache state: the capture read back from disk
	read_back "$corpus_file"
	measure wc-read-back "wc -l '$corpus_file' > /dev/null"
	wc_back=$m_wall
	row "floor: wc -l, read back from disk" "mixed" "$bytes" "$samples" \
		"$(printf '%.2f x wc time (as written)' "$(calc "$m_wall / $wc_wall")")" "" ""
	measure report-read-back "rm -rf '$out'; $report '$corpus_file' -o '$out' > /dev/null"
	row "$chain_name, capture read back from disk" "mixed" "$bytes" "$samples" \
		"$(printf '%.2f x its wc time' "$(calc "$m_wall / $wc_back")")" "" ""
else
	row_missing "flamepipe report (FIFOs)" "corpus" ">= $TARGET_CHAIN_MBS MB/s" "$(missing_of flamepipe fp-read fp-bucket fp-range fp-fold)"
fi

# ---- every corpus: the reader and the text chain --------------------------
# The same two rows on each real capture (make-corpus.sh), each against
# wc -l on the same file in the same run: what users' data costs, not one
# load's.
if have flamepipe fp-read; then
	for c in recursion cxx idle mixed; do
		[ -f "$corpus_dir/$c.facts" ] || continue
		# shellcheck disable=SC1090  # the corpus facts, written by make-corpus.sh
		(. "$corpus_dir/$c.facts"; echo "$bytes $samples $unique_stacks") > "$tmp/c.facts"
		read -r c_bytes c_samples c_unique < "$tmp/c.facts"
		c_file=$tmp/$c.perf	# as perf script left it (written_copy)
		if [ "$c" = mixed ]; then
			ln "$corpus" "$c_file"
		else
			written_copy "$corpus_dir/$c/capture.perf" "$c_file"
		fi
		label="$c ($(fmtn "$c_unique") unique stacks)"
		measure "wc-$c" "wc -l '$c_file' > /dev/null"
		c_wc=$m_wall
		row "floor: wc -l" "$label" "$c_bytes" "$c_samples" "1.00 x wc time" "" ""
		measure "fp-read-$c" "fp-read '$c_file' > /dev/null"
		row "fp-read" "$label" "$c_bytes" "$c_samples" \
			"$(printf '%.2f x wc time' "$(calc "$m_wall / $c_wc")")" \
			"$( [ "$c" = mixed ] && echo ">= $TARGET_READ_MBS MB/s")" \
			"$( [ "$c" = mixed ] && verdict "$c_bytes / $MB / $m_wall >= $TARGET_READ_MBS")"
		measure "report-$c" "rm -rf '$out'; $report '$c_file' -o '$out' > /dev/null"
		row "$chain_name" "$label" "$c_bytes" "$c_samples" \
			"$(printf '%.2f x wc time' "$(calc "$m_wall / $c_wc")")" \
			"$( [ "$c" = mixed ] && echo ">= $TARGET_TEXT_MBS MB/s")" \
			"$( [ "$c" = mixed ] && verdict "$c_bytes / $MB / $m_wall >= $TARGET_TEXT_MBS")"
		rm -f "$c_file"
	done
fi

if [ "$only_chain" = 0 ]; then
# ---- each stage alone on a pre-made S stream -------------------------------
stream=$tmp/corpus.stream
if have fp-read; then
	fp-read "$corpus" > "$stream" 2> /dev/null || true
	s_bytes=$(stat -c %s "$stream")
	note "S stream from fp-read: $s_bytes bytes, $(calc "int($s_bytes / $samples)") bytes/sample (perf script text: $(calc "int($bytes / $samples)"))"
	ids_bytes=$(fp-read --stack-ids "$corpus" 2> /dev/null | wc -c)
	note "stack-id stream from fp-read --stack-ids: $ids_bytes bytes, $(calc "int($ids_bytes / $samples)") bytes/sample ($(printf '%.1f' "$(calc "100 * $ids_bytes / $s_bytes")") % of the S stream)"
	for stage in fp-bucket fp-range fp-fold; do
		if have "$stage"; then
			measure "$stage" "$stage < '$stream' > /dev/null"
			if [ "$stage" = fp-range ]; then
				range_rss_kib=$m_rss_kib
				target="history: see notes"
				v=$( [ "$m_exit" -eq 0 ] && echo "see notes" || echo "FAILED (exit $m_exit)")
			else
				target="RSS <= $TARGET_RSS_MIB MiB"
				v=$(rss_verdict)
			fi
			row "$stage alone" "S stream" "$s_bytes" "$samples" "" "$target" "$v"
		else
			row_missing "$stage alone" "S stream" "" "$stage"
		fi
	done
	# fp-range keeps every sample for replays: HISTORY_ENTRY_BYTES per
	# sample plus each unique tail (event, comm, kinds, stack) once. Check
	# the measured growth against that: RSS on the corpus minus RSS on
	# one copy of the capture, over the samples in between (the later
	# copies repeat the same stacks, so only the per-sample cost grows).
	if have fp-range && [ -n "${range_rss_kib:-}" ] && [ "$copies" -lt 2 ]; then
		note "fp-range history: the corpus is one copy of the capture, so the cost per sample cannot be told from the unique stacks here (peak RSS $(calc "int($range_rss_kib / 1024)") MiB for $samples samples)"
	elif have fp-range && [ -n "${range_rss_kib:-}" ]; then
		head -n "$((capture_samples + 1))" "$stream" > "$tmp/one.stream"
		"$rtime" -o "$tmp/time" sh -c "fp-range < '$tmp/one.stream' > /dev/null"
		one_rss=$(field maxrss_kib "$tmp/time")
		per_sample=$(calc "($range_rss_kib - $one_rss) * 1024 / ($samples - $capture_samples)")
		# The entry is HISTORY_ENTRY_BYTES by construction (a _Static_assert
		# in fp-range.c); RSS growth also holds page and allocator rounding,
		# so the measurement confirms it within HIST_TOLERANCE.
		hist_ok=$(awk "BEGIN { exit !($per_sample <= $TARGET_HIST_BYTES * $HIST_TOLERANCE) }" && echo met || echo missed)
		note "fp-range history: peak RSS $(calc "int($range_rss_kib / 1024)") MiB for $samples samples, $(calc "int($one_rss / 1024)") MiB for the first $capture_samples (same $unique_stacks unique stacks): $(printf '%.1f' "$per_sample") bytes of RSS per further sample; an entry is 32 bytes by construction (struct history_entry), the rest is page and allocator rounding (target <= $TARGET_HIST_BYTES plus the unique stacks: $hist_ok)"
	fi
else
	for stage in fp-bucket fp-range fp-fold; do
		row_missing "$stage alone" "S stream" "" "fp-read (makes the S stream)"
	done
fi

# ---- renderer on the mixed capture's folded stacks ------------------------
folded_bytes=$(stat -c %s "$folded")
fg_dir=${FLAMEGRAPH_DIR:-}
pl_mbs=
if [ -n "$fg_dir" ] && [ -f "$fg_dir/flamegraph.pl" ] && have perl; then
	runs_saved=$BENCH_RUNS
	BENCH_RUNS=1	# tens of seconds of perl: once is enough for a comparison
	measure flamegraph.pl "perl '$fg_dir/flamegraph.pl' '$folded' > '$tmp/pl.svg'"
	BENCH_RUNS=$runs_saved
	pl_mbs=$(calc "$folded_bytes / $MB / $m_wall")
	row "flamegraph.pl (comparison, 1 run)" "folded, $folded_lines lines (mixed)" "$folded_bytes" 0 "" "" ""
	render_target=$(calc "$TARGET_RENDER_VS_PL * $pl_mbs")
	render_target_text=">= ${TARGET_RENDER_VS_PL} x flamegraph.pl here ($(printf '%.0f' "$render_target") MB/s)"
else
	printf '%s\t%s\t\t%s\t\t\t\t\t\tnot run here: FLAMEGRAPH_DIR unset (issue figure)\n' \
		"flamegraph.pl (issue's figure)" "folded" "$PL_MBS_QUOTED_LO-$PL_MBS_QUOTED_HI" >> "$rows"
	render_target=$((TARGET_RENDER_VS_PL * PL_MBS_QUOTED_HI))
	render_target_text=">= ${TARGET_RENDER_VS_PL} x flamegraph.pl's quoted $PL_MBS_QUOTED_HI MB/s"
fi
render_row() {	# render_row NAME CMD
	measure "$1" "$2"
	row "$1 (the mixed capture folded)" "folded, $folded_lines lines (mixed)" "$folded_bytes" 0 \
		"$( [ -n "$pl_mbs" ] && printf '%.1f x flamegraph.pl' "$(calc "$folded_bytes / $MB / $m_wall / $pl_mbs")")" \
		"$render_target_text" "$(verdict "$folded_bytes / $MB / $m_wall >= $render_target")"
	[ "$(rss_verdict)" = met ] || note "$1 peak RSS $(calc "int($m_rss_kib / 1024)") MiB > $TARGET_RSS_MIB MiB on the mixed capture folded"
}
if have fp-flamegraph; then
	render_row fp-flamegraph "fp-flamegraph '$folded' > '$tmp/fp.svg'"
else
	row_missing "fp-flamegraph (the mixed capture folded)" "folded, $folded_lines lines (mixed)" "$render_target_text" "fp-flamegraph"
fi
if have fp-render; then
	# fp-render reads the stream: the folded file as one F snapshot.
	awk 'BEGIN { print "%flamepipe\t1"; print "C\tbegin\tfold" }
	     { c = $NF; s = $0; sub(/ [0-9]+$/, "", s); n++; t += c; print "F\t" c "\t" s }
	     END { print "C\tend\tfold\t" n "\t" t }' "$folded" > "$tmp/folded.stream"
	render_row fp-render "rm -rf '$tmp/render'; fp-render --outdir '$tmp/render' < '$tmp/folded.stream' > /dev/null"
fi

# Tiny inputs, bounded outputs (issue 14 #5, #6): memory and output follow
# the input, not the numbers in it. Each row's verdict is its bound.
if have fp-render; then
	printf 'G\t1000\t0\nH\t0\t5\t1\nH\t99900\t5\t1\n' > "$tmp/two.heat"
	measure tiny-span "rm -rf '$tmp/two'; fp-render --outdir '$tmp/two' < '$tmp/two.heat' 2>/dev/null"
	tsv_bytes=$(stat -c %s "$tmp/two/heatmap.tsv" 2>/dev/null || echo 0)
	row "fp-render: 2 cells 99,900 s apart, 1000 rows" "3 records" 48 2 \
		"heatmap.tsv $tsv_bytes B (was 1.1 GB)" "RSS <= 30 MiB, tsv <= 100 kB" \
		"$(verdict "$m_rss_kib <= 30 * 1024 && $tsv_bytes <= 100000")"
	awk 'BEGIN { for (i = 0; i < 20000; i++) printf "G\t%d\t%d\nH\t99999\t0\t1\n", 50 + i % 2, i }' > "$tmp/gh.heat"
	gh_bytes=$(stat -c %s "$tmp/gh.heat")
	measure gh-pairs "rm -rf '$tmp/gh'; fp-render --outdir '$tmp/gh' --format folded < '$tmp/gh.heat'"
	row "fp-render: 20,000 G/H pairs, changing geometry" "G/H records" "$gh_bytes" 0 \
		"(was > 20 s: quadratic)" "<= 1 s" "$(verdict "$m_wall <= 1")"
fi
if have fp-latency; then
	awk 'BEGIN { for (i = 1; i <= 1000000; i++) printf "%.0f 1 %d open\n", i * 1000000, i }' > "$tmp/starts.ev"
	ev_bytes=$(stat -c %s "$tmp/starts.ev")
	measure latency-open "fp-latency --pair p=open,close < '$tmp/starts.ev' > /dev/null 2>&1"
	row "fp-latency: 10^6 starts never ended (default --max-open)" "event text" "$ev_bytes" 1000000 \
		"(was 726 MB)" "RSS <= 200 MiB" "$(verdict "$m_rss_kib <= 200 * 1024")"
	measure latency-open-1k "fp-latency --max-open 1000 --pair p=open,close < '$tmp/starts.ev' > /dev/null 2>&1"
	row "fp-latency: the same, --max-open 1000" "event text" "$ev_bytes" 1000000 \
		"" "RSS <= 30 MiB" "$(verdict "$m_rss_kib <= 30 * 1024")"
fi

# stackcollapse-perf.pl vs fp-read | fp-fold on one capture (the corpus
# would take minutes in perl).
capture_bytes=$(stat -c %s "$capture")
if [ -n "$fg_dir" ] && [ -f "$fg_dir/stackcollapse-perf.pl" ] && have perl; then
	runs_saved=$BENCH_RUNS
	BENCH_RUNS=1
	measure stackcollapse "perl '$fg_dir/stackcollapse-perf.pl' '$capture' > /dev/null"
	BENCH_RUNS=$runs_saved
	row "stackcollapse-perf.pl (comparison, 1 run)" "one capture" "$capture_bytes" "$capture_samples" "" "" ""
else
	printf '%s\t%s\t\t%s\t\t\t\t\t\tnot run here: FLAMEGRAPH_DIR unset (issue figure)\n' \
		"stackcollapse-perf.pl (issue's figure)" "perf script text" "$SC_MBS_QUOTED" >> "$rows"
fi
if have fp-read fp-fold; then
	measure capture-fold "fp-read '$capture' | fp-fold --plain > /dev/null"
	row "fp-read | fp-fold --plain" "one capture" "$capture_bytes" "$capture_samples" "" "" ""
fi

fi	# BENCH_ONLY=chain

fi	# BENCH_ONLY

pd_lines=
live_whole_line=
if [ "$only_chain" = 0 ] && [ "$only_dwarf" = 0 ]; then
# ---- live cost: stage CPU vs perf script CPU --------------------------------
capture_bytes=$(stat -c %s "$capture")
pdata=$corpus_dir/perf.data
pdata_bytes=$(stat -c %s "$pdata")
measure perf-script "perf script -i '$pdata' --no-inline > /dev/null 2>&1"
perf_cpu_per=$(calc "$m_cpu * $PER_SAMPLES / $perf_data_samples")
script_wall=$m_wall
script_cpu=$m_cpu
row "perf script (the live source)" "perf.data -> one capture" "$capture_bytes" "$perf_data_samples" "" "" ""

# ---- perf.data read directly (issue 10) ---------------------------------------
# The same perf.data through perf script, KDAB hotspot's parser, fp-perfdata
# and flamepipe report (MB/s: of perf.data). fp-perfdata's and report's RSS
# must follow mappings and unique frames, not samples (notes: per sample).
if [ -x "$HOTSPOT_PARSER" ]; then
	measure hotspot "'$HOTSPOT_PARSER' --input '$pdata' --output '$tmp/hotspot.out' > /dev/null 2>&1"
	hotspot_wall=$m_wall
	row "hotspot-perfparser (comparison)" "perf.data" "$pdata_bytes" "$perf_data_samples" "" "" ""
else
	hotspot_wall=
	row_missing "hotspot-perfparser (comparison)" "perf.data" "" "apt-get install hotspot"
fi
if have fp-perfdata; then
	measure fp-perfdata "fp-perfdata '$pdata' > /dev/null 2>'$tmp/fp-perfdata.err'"
	pd_wall=$m_wall
	pd_cpu=$m_cpu
	pd_rss=$m_rss_kib
	if [ -n "$hotspot_wall" ]; then
		ratio=$(calc "$hotspot_wall / $pd_wall")
		row "fp-perfdata > /dev/null" "perf.data" "$pdata_bytes" "$perf_data_samples" \
			"$(printf '%.2f x hotspot speed, %.2f x perf script' "$ratio" "$(calc "$script_wall / $pd_wall")")" \
			">= $TARGET_PD_VS_HOTSPOT x hotspot-perfparser" "$(verdict "$ratio >= $TARGET_PD_VS_HOTSPOT")"
	else
		row "fp-perfdata > /dev/null" "perf.data" "$pdata_bytes" "$perf_data_samples" \
			"$(printf '%.2f x perf script' "$(calc "$script_wall / $pd_wall")")" "" ""
	fi
	note "fp-perfdata peak RSS $(calc "$pd_rss / 1024") MiB for $perf_data_samples samples of $pdata_bytes bytes of perf.data (the file is mapped, its pages dropped as its records are read; its tables follow mappings and unique frames)"
	per=$(calc "$pd_cpu * $PER_SAMPLES / $perf_data_samples")
	pd_lines="$pd_lines$(printf '| live cost: fp-perfdata (the default live source) | %.3f s vs %.3f s per 100k samples | %.1f %% of perf script | - | - |' \
		"$per" "$perf_cpu_per" "$(calc "100 * $per / $perf_cpu_per")")
"
else
	row_missing "fp-perfdata > /dev/null" "perf.data" "" "$(missing_of fp-perfdata)"
fi
if have flamepipe fp-perfdata; then
	measure report-perfdata "rm -rf '$tmp/report-pd'; flamepipe report -q '$pdata' -o '$tmp/report-pd' > /dev/null 2>&1"
	ratio=$(calc "$script_wall / $m_wall")
	pd_report_wall=$m_wall
	pd_report_cpu=$m_cpu
	row "flamepipe report perf.data (stack-id stream, negotiated)" "perf.data" "$pdata_bytes" "$perf_data_samples" \
		"$(printf '%.2f x perf script speed' "$ratio")" \
		">= $TARGET_REPORT_VS_SCRIPT x perf script" "$(verdict "$ratio >= $TARGET_REPORT_VS_SCRIPT")"
	stage_wrap "$root/examples/perfdata.pipeline" ids > "$tmp/timed-pd.pipeline"
	measure report-perfdata-timed "rm -rf '$tmp/report-pd'; flamepipe report -q --pipeline '$tmp/timed-pd.pipeline' '$pdata' -o '$tmp/report-pd' > /dev/null 2>&1"
	stage_rows "$pdata_bytes" "$perf_data_samples" read bucket range fold render
	measure report-perfdata-plain "rm -rf '$tmp/report-pd'; FLAMEPIPE_STACK_IDS=0 flamepipe report -q '$pdata' -o '$tmp/report-pd' > /dev/null 2>&1"
	row "flamepipe report perf.data, plain S stream (FLAMEPIPE_STACK_IDS=0)" "perf.data" "$pdata_bytes" "$perf_data_samples" \
		"$(printf '%.2f x perf script speed' "$(calc "$script_wall / $m_wall")")" \
		">= $TARGET_REPORT_VS_SCRIPT x perf script" "$(verdict "$script_wall / $m_wall >= $TARGET_REPORT_VS_SCRIPT")"
	measure report-perfdata-ftext "rm -rf '$tmp/report-pd'; FLAMEPIPE_SNAPSHOT_IDS=0 flamepipe report -q '$pdata' -o '$tmp/report-pd' > /dev/null 2>&1"
	row "flamepipe report perf.data, F snapshots (FLAMEPIPE_SNAPSHOT_IDS=0)" "perf.data" "$pdata_bytes" "$perf_data_samples" \
		"$(printf '%.2f x perf script speed; snapshots by id %.2f x faster' "$(calc "$script_wall / $m_wall")" "$(calc "$m_wall / $pd_report_wall")")" \
		">= $TARGET_REPORT_VS_SCRIPT x perf script" "$(verdict "$script_wall / $m_wall >= $TARGET_REPORT_VS_SCRIPT")"
	m_wall=$pd_report_wall
	m_cpu=$pd_report_cpu
	per=$(calc "$m_cpu * $PER_SAMPLES / $perf_data_samples")
	pd_lines="$pd_lines$(printf '| live cost: fp-perfdata and the whole chain (flamepipe report perf.data, batch) | %.3f s per 100k samples | %.1f %% of perf script alone | - | - |' \
		"$per" "$(calc "100 * $per / $perf_cpu_per")")
"
fi
fi	# BENCH_ONLY=chain, BENCH_ONLY=dwarf

# ---- --call-graph dwarf perf.data (issue 10) ----------------------------------
[ "$only_chain" = 1 ] || . "$here/dwarf-rows.sh"

live_lines=
live_cost() {	# live_cost WHAT CPU_S SAMPLES
	per=$(calc "$2 * $PER_SAMPLES / $3")
	pct=$(calc "100 * $per / $perf_cpu_per")
	m_exit=0
	live_lines="$live_lines$(printf '| live cost: %s | %.3f s vs %.3f s per 100k samples | %.1f %% of perf script | <= %s %% | %s |' \
		"$1" "$per" "$perf_cpu_per" "$pct" "$TARGET_LIVE_PCT" "$(verdict "$pct <= $TARGET_LIVE_PCT")")
"
}
if [ "$only_chain" = 1 ]; then
	:	# no perf script row to compare with
elif [ -n "${chain_cpu:-}" ] && [ "$chain_exit" -eq 0 ]; then
	live_cost "CPU of every stage (and the runner) in \`$chain_name\`, batch" "$chain_cpu" "$samples"
elif [ -n "${fold4_cpu:-}" ]; then
	live_cost "CPU of read \\| bucket \\| range \\| fold, batch" "$fold4_cpu" "$samples"
fi

# ---- live: a trickle of samples at a steady rate ----------------------------
# Delay: from a sample's write() into fp-read to the read() of the H record
# of its cell out of fp-bucket. Cost: CPU of the chain at that rate.
delay_line=
trickle() {	# trickle RATE COUNT CMD -> sets t_line
	echo "  trickle: $2 samples at $1/s into $3" >&2
	t_line=$("$corpus_dir/trickle" "$1" "$2" "$3")
	echo "    $t_line" >&2
}
tget() { echo "$t_line" | sed -n "s/.*$1=\([-0-9.]*\).*/\1/p"; }
if [ "$only_perfdata$only_chain" = 00 ] && have fp-read fp-bucket; then
	trickle "$BENCH_RATE" "$BENCH_TRICKLE" "fp-read | fp-bucket"
	m_exit=$(tget exit)
	delay_line="| delay: sample written -> its H record out of fp-read \\| fp-bucket ($BENCH_RATE samples/s) | median $(tget median_ms) ms, p99 $(tget p99_ms) ms, max $(tget max_ms) ms | $(tget delivered) of $(tget samples) samples | p99 <= $TARGET_DELAY_MS ms | $(verdict "$(tget p99_ms) >= 0 && $(tget p99_ms) <= $TARGET_DELAY_MS") |"
else
	delay_line="| delay: sample written -> its H record out of fp-bucket | - | - | p99 <= $TARGET_DELAY_MS ms | missing ($(missing_of fp-read fp-bucket)) |"
fi
if [ "$only_perfdata$only_chain" = 00 ] && have fp-read fp-bucket fp-range fp-fold; then
	# BENCH_RATE, and the rate of the corpus' capture (-F 4999 on every CPU).
	# fp-fold writes into a pipe (the trickle), as into fp-render's FIFO in
	# the real chain.
	for rate in "$BENCH_RATE" "$((perf_freq * $(nproc)))"; do
		trickle "$rate" "$BENCH_TRICKLE" "fp-read | fp-bucket | fp-range | fp-fold"
		live_cost "CPU of read \\| bucket \\| range \\| fold fed $rate samples/s (trickle, 40-frame stacks)" "$(tget cpu_s)" "$(tget samples)"
	done
fi

if [ "$only_chain" = 0 ] && [ "$only_dwarf" = 0 ]; then
# ---- live whole cost: flamepipe live fed perf's pipe format at a rate ------
# The issue's measure: CPU of fp-perfdata, every stage and the runner per
# wall second, as % of one core, perf record's own aside. bench/pdreplay
# writes the capture's perf.data (converted to perf's pipe format by perf
# inject) at LIVE_RATE samples/s, one write per LIVE_TICK_MS, in place of
# perf record in examples/live-perfdata.pipeline, with the default views of
# `flamepipe live -o DIR` (the recording, the report files). rtime around
# the replayer gives its CPU, which is taken out.
live_whole_line=
if have flamepipe fp-perfdata fp-record fp-bucket fp-range fp-fold fp-render &&
   perf inject -i "$pdata" -o - > "$tmp/pipe.data" 2> /dev/null; then
	cc -O2 -Wall -Wextra -o "$corpus_dir/pdreplay" "$here/pdreplay.c"
	live_s=$(calc "$perf_data_samples / $LIVE_RATE")
	sed "s|^record .*|record  '$rtime' -o '$tmp/st.replay' '$corpus_dir/pdreplay' $LIVE_RATE $LIVE_TICK_MS '$tmp/pipe.data'|" \
		"$root/examples/live-perfdata.pipeline" > "$tmp/live-replay.pipeline"
	runs_saved=$BENCH_RUNS
	BENCH_RUNS=$LIVE_RUNS	# each run lasts the capture's length
	measure live-whole "rm -rf '$tmp/live'; flamepipe live -q --no-term --pipeline '$tmp/live-replay.pipeline' -o '$tmp/live' > /dev/null 2>&1"
	replay_cpu=$(cat "$tmp/stage.replay.cpu" 2>/dev/null || echo 0)
	live_cpu=$(calc "$m_cpu - $replay_cpu")
	live_wall=$m_wall
	live_pct=$(calc "100 * $live_cpu / $live_wall")
	live_n=$(awk '{ n += $NF } END { print n + 0 }' "$tmp/live/stacks.folded" 2>/dev/null || echo 0)
	# every sample the batch report of the same perf.data counted
	batch_n=$(awk '{ n += $NF } END { print n + 0 }' "$tmp/report-pd/stacks.folded" 2>/dev/null || echo -1)
	live_whole_line="| live whole cost: \`flamepipe live -o DIR\` fed $(fmtn "$LIVE_RATE") samples/s of perf's pipe format (bench/pdreplay, a write per $LIVE_TICK_MS ms): CPU of fp-perfdata, every stage and the runner per wall second, one pass of the capture (startup included) | $(printf '%.2f' "$live_pct") % of one core | $(printf '%.3f' "$live_cpu") CPU s over $(printf '%.2f' "$live_wall") s (the replayer's $(printf '%.3f' "$replay_cpu") s aside); $(fmtn "$live_n") samples in the flame graph, as in the batch report ($(fmtn "$batch_n")) | <= $TARGET_LIVE_CORE_PCT % of one core | $(verdict "$live_pct <= $TARGET_LIVE_CORE_PCT && $live_n == $batch_n") |"
	# steady state: the same chain fed LIVE_LOOPS passes (time-shifted); the
	# cost per further wall second is the difference of the two runs over
	# the difference of their walls, the startup what the one pass spent
	# beyond that rate
	if [ "$LIVE_LOOPS" -gt 1 ]; then
		sed "s|^record .*|record  '$rtime' -o '$tmp/st.replay' '$corpus_dir/pdreplay' $LIVE_RATE $LIVE_TICK_MS '$tmp/pipe.data' $LIVE_LOOPS|" \
			"$root/examples/live-perfdata.pipeline" > "$tmp/live-loop.pipeline"
		measure live-steady "rm -rf '$tmp/live'; flamepipe live -q --no-term --pipeline '$tmp/live-loop.pipeline' -o '$tmp/live' > /dev/null 2>&1"
		loop_replay=$(cat "$tmp/stage.replay.cpu" 2>/dev/null || echo 0)
		loop_cpu=$(calc "$m_cpu - $loop_replay")
		loop_n=$(awk '{ n += $NF } END { print n + 0 }' "$tmp/live/stacks.folded" 2>/dev/null || echo 0)
		loop_want=$(calc "$batch_n * $LIVE_LOOPS")
		steady_pct=$(calc "100 * ($loop_cpu - $live_cpu) / ($m_wall - $live_wall)")
		startup_s=$(calc "$live_cpu - $steady_pct / 100 * $live_wall")
		live_whole_line="$live_whole_line
| live whole cost, steady state: the same, the capture replayed $LIVE_LOOPS times (pdreplay LOOPS, times shifted); CPU per further wall second = (CPU of this run - CPU of the one pass) / (wall of this run - wall of the one pass) | $(printf '%.2f' "$steady_pct") % of one core | $(printf '%.3f' "$loop_cpu") CPU s over $(printf '%.2f' "$m_wall") s (the replayer's $(printf '%.3f' "$loop_replay") s aside); one-time startup $(printf '%.3f' "$startup_s") CPU s (symbol tables, kallsyms, stage start); $(fmtn "$loop_n") samples in the flame graph, $LIVE_LOOPS x the batch report's ($(fmtn "$loop_want")) | <= $TARGET_LIVE_CORE_PCT % of one core | $(verdict "$steady_pct <= $TARGET_LIVE_CORE_PCT && $loop_n == $loop_want") |"
	fi
	# the same one pass with the web view (--http, no viewer): fp-fold's
	# delta snapshots every 500 ms (off for -o alone: nothing reads them)
	# and fp-serve
	if have fp-serve; then
		measure live-web "rm -rf '$tmp/live'; flamepipe live -q --no-term --http 127.0.0.1:0 --exit-at-end --pipeline '$tmp/live-replay.pipeline' -o '$tmp/live' > /dev/null 2>&1"
		web_replay=$(cat "$tmp/stage.replay.cpu" 2>/dev/null || echo 0)
		web_cpu=$(calc "$m_cpu - $web_replay")
		web_n=$(awk '{ n += $NF } END { print n + 0 }' "$tmp/live/stacks.folded" 2>/dev/null || echo 0)
		live_whole_line="$live_whole_line
| live whole cost with the web view: the same one pass, \`flamepipe live --http -o DIR\` (fp-fold's delta snapshots every 500 ms, fp-serve; no viewer) | $(printf '%.2f' "$(calc "100 * $web_cpu / $m_wall")") % of one core | $(printf '%.3f' "$web_cpu") CPU s over $(printf '%.2f' "$m_wall") s (the replayer's $(printf '%.3f' "$web_replay") s aside); $(fmtn "$web_n") samples in the flame graph | measured | $(verdict "$web_n == $batch_n") |"
	fi
	BENCH_RUNS=$runs_saved
else
	live_whole_line="| live whole cost at $(fmtn "$LIVE_RATE") samples/s | - | - | <= $TARGET_LIVE_CORE_PCT % of one core | missing ($(missing_of flamepipe fp-perfdata fp-record fp-bucket fp-range fp-fold fp-render) or perf inject) |"
fi

fi	# BENCH_ONLY=chain

web_row=
viewers_row=
served_row=
ssh_row=
offcpu_row=
if [ "$only_perfdata$only_chain" = 00 ]; then
# ---- live recording: a 10-s range query on a 1-hour recording (issue 11) -----
TARGET_RANGE_MS=300
if have fp-read fp-record fp-bucket fp-range fp-fold fp-serve && command -v curl >/dev/null 2>&1; then
	r_line=$("$here/recording.sh" "$BENCH_RUNS") || r_line="exit=1"
	echo "    $r_line" >&2
	rget() { kv "$r_line" "$1"; }
	m_exit=$(rget exit)
	r_ms=$(rget wall_ms)
	printf '%s\t%s\t%s\t\t%s\t\t\t%s\t%s\t%s\n' \
		"range query on a 1-hour recording (fp-serve /flamegraph/, a 10 s range, uncached)" \
		"recording.fp.gz: $(fmtn "$(rget samples)") samples, $(fmtn "$(rget bytes)") bytes" \
		"$(calc "${r_ms:-0} / 1000")" "$(calc "$(rget range_samples) / (${r_ms:-1} / 1000)")" \
		"max $(rget max_ms) ms of $(rget runs)" "<= $TARGET_RANGE_MS ms" \
		"$(verdict "${r_ms:-1e9} <= $TARGET_RANGE_MS && $(rget range_samples) == 10000")" >> "$rows"
else
	row_missing "range query on a 1-hour recording" "recording.fp.gz" "<= $TARGET_RANGE_MS ms" \
		"$(missing_of fp-read fp-record fp-bucket fp-range fp-fold fp-serve) or curl"
fi

# ---- off-CPU: what flamepipe live --off-cpu costs (issue 26) ----------------
# bench/offcpu.sh, runnable alone: a context-switch-bound workload (perf
# bench sched pipe) alone, under flamepipe live -g, and under live --off-cpu;
# CPU of perf, the chain, the runner and the workload. Informational: the
# cost follows the switch rate, which this workload makes as high as it goes.
offcpu_row=
if have flamepipe fp-perfdata fp-read && command -v perf >/dev/null 2>&1; then
	o_line=$("$here/offcpu.sh" "$BENCH_RUNS") || o_line="exit=1"
	echo "    $o_line" >&2
	oget() { kv "$o_line" "$1"; }
	if [ "$(oget exit)" = 0 ]; then
		offcpu_row="| off-CPU cost (bench/offcpu.sh): CPU of perf, every stage, the runner and the workload for \`perf bench sched pipe -l $(oget loops)\` (two blocking switches a loop) | --off-cpu $(printf '%.2f' "$(oget off_cpu)") s, plain live $(printf '%.2f' "$(oget live_cpu)") s, alone $(printf '%.2f' "$(oget alone_cpu)") s | wall $(printf '%.2f' "$(oget off_wall)") / $(printf '%.2f' "$(oget live_wall)") / $(printf '%.2f' "$(oget alone_wall)") s; $(fmtn "$(oget off_samples)") offcpu samples, $(oget off_dropped) dropped | measured (worst case: a switch per 5 us) | - |"
	else
		offcpu_row="| off-CPU cost (bench/offcpu.sh) | - | - | measured | not run: $o_line |"
	fi
else
	offcpu_row="| off-CPU cost (bench/offcpu.sh) | - | - | measured | missing ($(missing_of flamepipe fp-perfdata fp-read) or perf) |"
fi

# ---- a served capture: its index, then 200 concurrent range queries (issue 23)
TARGET_SERVE_P99_MS=1000
if have fp-read fp-record fp-bucket fp-fold fp-serve && command -v curl >/dev/null 2>&1; then
	s_line=$("$here/serve-index.sh" 200) || s_line="exit=1"
	echo "    $s_line" >&2
	# first_burst="..." holds the first burst's own requests= p99_ms= ...
	s_first=$(echo "$s_line" | sed -n 's/.*first_burst="\([^"]*\)".*/\1/p')
	s_main=$(echo "$s_line" | sed 's/ first_burst="[^"]*"//')
	sget() { kv "$s_main" "$1"; }
	fget() { kv "$s_first" "$1"; }
	m_exit=$(sget exit)
	s_input="long.perf: $(fmtn "$(sget samples)") samples, 600 s, $(fmtn "$(sget bytes)") bytes of perf script text (tests/mk-long-capture.sh)"
	printf '%s\t%s\t%s\t%s\t\t\t\t%s\t%s\t%s\n' \
		"served capture: first open (fp-serve /heatmap/: conversion into its index, $(fmtn "$(sget index_bytes)") bytes, and the heatmap)" \
		"$s_input" "$(calc "$(sget open_ms) / 1000")" \
		"$(calc "$(sget bytes) / $MB / ($(sget open_ms) / 1000)")" \
		"" "once per capture and file version" "$(verdict 1)" >> "$rows"
	printf '%s\t%s\t%s\t\t\t\t\t%s\t%s\t%s\n' \
		"served capture: 200 concurrent /flamegraph/ range queries (random 2-20 s, after the first open; bench/rangeq.c)" \
		"$s_input" "$(calc "$(sget p99_ms) / 1000")" \
		"p99 $(sget p99_ms) ms, median $(sget p50_ms), max $(sget max_ms); $(sget ok) of $(sget requests) answered 200 (the first burst, other ranges: p99 $(fget p99_ms) ms, $(fget ok) of $(fget requests))" \
		"p99 <= $TARGET_SERVE_P99_MS ms, every one answered" \
		"$(verdict "$(sget p99_ms) <= $TARGET_SERVE_P99_MS && $(sget ok) == $(sget requests) && $(fget p99_ms) <= $TARGET_SERVE_P99_MS && $(fget ok) == $(fget requests)")" >> "$rows"
else
	row_missing "served capture: 200 concurrent range queries" "long.perf" \
		"p99 <= $TARGET_SERVE_P99_MS ms" "$(missing_of fp-read fp-record fp-bucket fp-fold fp-serve) or curl"
fi

# ---- live --ssh: the remote host's CPU per sample (issue 25 item 4) --------
# bench/ssh-remote.sh: a throwaway sshd on 127.0.0.1 is the host; its CPU
# (the daemon's and its reaped children's) per sample, perf record only
# (fp-ssh | fp-perfdata --remote) against perf record | perf script there.
if have fp-ssh fp-perfdata fp-read && [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null 2>&1; then
	h_line=$("$here/ssh-remote.sh" "$BENCH_RUNS") || h_line="exit=1"
	echo "    $h_line" >&2
	hget() { kv "$h_line" "$1"; }
	m_exit=$(hget exit)
	ssh_row="| live --ssh: the remote host's CPU per sample (bench/ssh-remote.sh, -a -g at ${BENCH_SSH_HZ:-4999} Hz; the difference of a ${BENCH_SSH_S:-5} s and a 3x longer capture) | $(hget perfdata_us) µs (perf record only) vs $(hget script_us) µs (perf record \\| perf script): $(hget ratio)x | fixed per capture $(hget perfdata_fixed_s) / $(hget script_fixed_s) s; the short capture whole: $(hget perfdata_all_us) / $(hget script_all_us) µs a sample, $(hget perfdata_samples) / $(hget script_samples) samples (medians of $(hget runs)) | less than the perf script path | $(verdict "$(hget exit) == 0 && $(hget perfdata_us) < $(hget script_us)") |"
else
	ssh_row="| live --ssh: the remote host's CPU per sample | - | - | less than the perf script path | missing ($(missing_of fp-ssh fp-perfdata fp-read) or openssh) |"
fi

# ---- the web server under slow clients --------------------------------------
# WEB_SLOW connections trickling a header line each WEB_TRICKLE_MS while
# WEB_NORMAL clients fetch a (cached) heatmap back to back, for BENCH_WEB_S
# seconds on 127.0.0.1 (tests/helper/http-load.c). Every normal request must
# be answered 200; the latency percentiles are over all of them.
if [ "${BENCH_QUICK:-0}" = 1 ]; then BENCH_WEB_S=${BENCH_WEB_S:-10}; fi
BENCH_WEB_S=${BENCH_WEB_S:-60}
web_what="web: $WEB_SLOW slow clients + $WEB_NORMAL normal, ${BENCH_WEB_S} s, loopback"
if have fp-serve fp-read fp-bucket; then
	mkdir -p "$tmp/web"
	cp "$root/examples/multiproc.perf.gz" "$tmp/web/"
	fp-serve --dir "$tmp/web" --listen 127.0.0.1:0 > "$tmp/web.out" 2> "$tmp/web.err" &
	web_pid=$!
	i=0
	while ! grep -qs "listening on" "$tmp/web.out" && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	web_port=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$tmp/web.out")
	web_path="/heatmap/?filename=multiproc.perf.gz"
	web_line=$("$corpus_dir/http-load" "$web_port" "$web_path" 1 1 1 2>&1 || true)	# warm the cache
	m_exit=0
	web_line=$("$corpus_dir/http-load" "$web_port" "$web_path" "$WEB_SLOW" "$WEB_NORMAL" \
		"$BENCH_WEB_S" "$WEB_TRICKLE_MS" 2>&1) || m_exit=$?
	kill "$web_pid" 2>/dev/null || true
	wait "$web_pid" 2>/dev/null || true
	echo "    $web_line" >&2
	wfield() { echo "$web_line" | sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
	web_row="| $web_what | p99 $(wfield p99_ms) ms (median $(wfield p50_ms), max $(wfield max_ms)) | $(wfield requests) normal requests, $(wfield failures) failed; $(wfield slow_reconnects) slow reconnects | every normal request answered | $(verdict "$(wfield requests) > 0 && $(wfield failures) == 0") |"
else
	web_row="| $web_what | - | - | every normal request answered | missing ($(missing_of fp-serve fp-read fp-bucket)) |"
fi

# ---- the live flame graph with many viewers -----------------------------------
# bench/live-viewers.sh: fp-serve --live fed the mixed corpus's whole table
# as a new snapshot each second; its CPU with 1, then VIEWERS viewers that
# ask for the tree once a second each, as the page does.
TARGET_VIEWERS_RATIO=1.5
viewers_n=8
if have fp-serve fp-read fp-fold && command -v curl >/dev/null 2>&1 &&
   [ -f "$corpus_dir/mixed/capture.perf" ]; then
	v_line=$("$here/live-viewers.sh" 15 "$viewers_n") || v_line="exit=1"
	echo "    $v_line" >&2
	vget() { kv "$v_line" "$1"; }
	m_exit=$(vget exit)
	m_exit=${m_exit:-1}
	[ "$m_exit" = 0 ] || v_line="stacks=0 tree_bytes=0 gz_bytes=0 idle_cpu_s=0 v1_cpu_s=0 vn_cpu_s=0 seconds=1 exit=$m_exit"
	v_secs=$(vget seconds)
	v1_pct=$(calc "100 * $(vget v1_cpu_s) / $v_secs")
	vn_pct=$(calc "100 * $(vget vn_cpu_s) / $v_secs")
	viewers_row="| live flame graph, $viewers_n viewers (bench/live-viewers.sh): fp-serve fed the mixed corpus's whole table ($(fmtn "$(vget stacks)") stacks: a $(fmtn "$(vget tree_bytes)")-byte tree, $(fmtn "$(vget gz_bytes)") gzipped) as a new snapshot each second; each viewer asks /live/flamegraph once a second, with gzip, for ${v_secs} s | fp-serve $(printf '%.1f' "$vn_pct") % of a core with $viewers_n viewers, $(printf '%.1f' "$v1_pct") % with 1 | $viewers_n viewers: $(vget vn_requests) answers, p50 $(vget vn_p50_ms) ms, p99 $(vget vn_p99_ms) ms; 1 viewer: $(vget v1_requests), p99 $(vget v1_p99_ms) ms; reading the snapshots alone $(printf "%.1f" "$(calc "100 * $(vget idle_cpu_s) / $v_secs")") % | $viewers_n viewers <= $TARGET_VIEWERS_RATIO x the CPU of 1 | $(verdict "$(vget exit) == 0 && $vn_pct <= $TARGET_VIEWERS_RATIO * $v1_pct")"
	viewers_row="$viewers_row |"
else
	viewers_row="| live flame graph, $viewers_n viewers | - | - | $viewers_n viewers <= $TARGET_VIEWERS_RATIO x the CPU of 1 | missing ($(missing_of fp-serve fp-read fp-fold), curl or the mixed corpus) |"
fi

# ---- a served capture's flame graph with many viewers -------------------------
# bench/served-viewers.sh: fp-serve serving the mixed corpus; after its
# first open, 1 then VIEWERS clients ask the whole capture's /flamegraph/
# once a second each (gzip), as pages opening on it do.
TARGET_SERVED_CORE_PCT=25
if have fp-serve fp-read fp-bucket fp-fold && command -v curl >/dev/null 2>&1 &&
   [ -f "$corpus_dir/mixed/capture.perf" ]; then
	w_line=$("$here/served-viewers.sh" 15 "$viewers_n") || w_line="exit=1"
	echo "    $w_line" >&2
	wget_() { kv "$w_line" "$1"; }
	m_exit=$(wget_ exit)
	m_exit=${m_exit:-1}
	[ "$m_exit" = 0 ] || w_line="stacks=0 tree_bytes=0 gz_bytes=0 v1_cpu_s=0 vn_cpu_s=0 vn_requests=0 vn_p99_ms=0 seconds=1 exit=$m_exit"
	w_secs=$(wget_ seconds)
	w1_pct=$(calc "100 * $(wget_ v1_cpu_s) / $w_secs")
	wn_pct=$(calc "100 * $(wget_ vn_cpu_s) / $w_secs")
	w_want=$((viewers_n * w_secs))
	served_row="| served capture's flame graph, $viewers_n viewers (bench/served-viewers.sh): fp-serve serving the mixed corpus ($(fmtn "$(wget_ stacks)") stacks: a $(fmtn "$(wget_ tree_bytes)")-byte tree, $(fmtn "$(wget_ gz_bytes)") gzipped); after its first open ($(wget_ open_ms) ms) and the tree made once ($(wget_ made_ms) ms), each viewer asks the whole capture's /flamegraph/ once a second, with gzip, for ${w_secs} s | fp-serve $(printf '%.1f' "$wn_pct") % of a core with $viewers_n viewers, $(printf '%.1f' "$w1_pct") % with 1 | $viewers_n viewers: $(wget_ vn_requests) answers of $w_want, p50 $(wget_ vn_p50_ms) ms, p99 $(wget_ vn_p99_ms) ms; 1 viewer: $(wget_ v1_requests), p99 $(wget_ v1_p99_ms) ms | <= $TARGET_SERVED_CORE_PCT % of a core, p99 <= $TARGET_SERVE_P99_MS ms, every second's answer | $(verdict "$(wget_ exit) == 0 && $wn_pct <= $TARGET_SERVED_CORE_PCT && $(wget_ vn_p99_ms) <= $TARGET_SERVE_P99_MS && $(wget_ vn_requests) >= $w_want - $viewers_n") |"
else
	served_row="| served capture's flame graph, $viewers_n viewers | - | - | <= $TARGET_SERVED_CORE_PCT % of a core | missing ($(missing_of fp-serve fp-read fp-bucket fp-fold), curl or the mixed corpus) |"
fi

fi	# BENCH_ONLY

# ---- the results file -----------------------------------------------------
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
mem=$(free -h | awk '/^Mem:/ { print $2 }')
compiler=$(cc --version | head -n 1)
{
	echo "# flamepipe benchmark results"
	echo
	echo "Machine: $(nproc) CPUs ($model), $mem RAM, kernel $(uname -r), $compiler;"
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'); the CPUs ${busy_before} % busy (other processes) in the second before the"
	echo "rows, $(cpu_busy_pct) % after them; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
	echo "Commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'); medians of $BENCH_RUNS runs (\`make bench\`, bench/run.sh)."
	echo "CPU probe (bench/cpuprobe.c: fixed work on every CPU at once, before each timed run; the"
	echo "host's speed, as \"probe N ms\" beside the chain rows): median $(median < "$probes") ms, best"
	echo "$(sort -g "$probes" | head -n 1) ms, worst $(sort -g "$probes" | tail -n 1) ms over the run's $(wc -l < "$probes") probes."
	echo
	echo "Corpora (bench/make-corpus.sh): each one real \`perf record -F $perf_freq -a -g\` capture of a load"
	echo "in bench/loads/, as \`perf script --no-inline\` text; the input column names the one a row read."
	echo "mixed (the main rows): ${capture_seconds} s of bench/loads/mixed.sh, $(fmtn "$bytes") bytes, $(fmtn "$lines") lines,"
	echo "$(fmtn "$samples") samples, $(fmtn "$unique_stacks") unique stacks; gzip -$gzip_level: $(fmtn "$gz_bytes") bytes."
	for c in recursion cxx idle; do
		[ -f "$corpus_dir/$c.facts" ] || continue
		# shellcheck disable=SC1090
		(. "$corpus_dir/$c.facts"; echo "$c: ${seconds} s, $(fmtn "$bytes") bytes, $(fmtn "$samples") samples, $(fmtn "$unique_stacks") unique stacks.")
	done
	echo "Renderer input: the mixed capture's $(fmtn "$folded_lines") folded stacks, $(fmtn "$folded_bytes") bytes."
	echo
	echo "| benchmark | input | wall s | MB/s | samples/s | CPU s | peak RSS MiB | vs floor | target | result |"
	echo "|---|---|--:|--:|--:|--:|--:|--:|---|---|"
	awk -F '\t' '
	function num(v, fmt) { return v == "" ? "" : (v ~ /^[0-9.e+-]+$/ ? sprintf(fmt, v) : v) }
	{
		for (i = 1; i <= NF; i++) gsub(/\|/, "\\|", $i)	# a | inside a cell
		sps = $5 == "" ? "" : ($5 >= 1e6 ? sprintf("%.2f M", $5 / 1e6) : sprintf("%.0f k", $5 / 1e3))
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2,
			num($3, "%.3f"), num($4, "%.0f"), sps, num($6, "%.2f"), num($7, "%.1f"), $8, $9, $10
	}' "$rows"
	echo
	echo "Rows marked · are the stages of the chain above them, each timed inside the running chain"
	echo "(MB/s and samples/s there: the chain's input over that stage's CPU seconds)."
	echo
	echo "| measure | value | detail | target | result |"
	echo "|---|---|---|---|---|"
	printf '%s' "$live_lines"
	printf '%s' "$pd_lines"
	echo "$live_whole_line"
	echo "$delay_line"
	echo "$web_row"
	echo "$viewers_row"
	echo "$served_row"
	echo "$ssh_row"
	[ -z "$offcpu_row" ] || echo "$offcpu_row"
	if [ -s "$notes" ]; then
		echo
		echo "Notes:"
		echo
		sed 's/^/- /' "$notes"
	fi
} > "$BENCH_OUT"
echo >&2
cat "$BENCH_OUT"
