#!/bin/sh
# make-corpus.sh: build (or reuse) the benchmark corpus in bench/cache/
# (gitignored; BENCH_QUICK=1 uses bench/cache/quick/ with a 64 MiB corpus).
#
# Recipe:
#   1. compile bench/load.c (-O2 -fno-omit-frame-pointer): 3 processes x 2
#      threads recursing 20..60 levels through named noinline functions,
#      half of the leaves in system calls (kernel frames);
#   2. perf record -F 4999 -a -g -- load $BENCH_CAPTURE_S  -> perf.data
#      perf script --no-inline                            -> capture.perf
#   3. bench/timeshift.c (compiled here) repeats capture.perf with every copy's
#      timestamps moved forward by whole seconds, until the corpus is at
#      least $BENCH_MB MiB                                 -> corpus.perf
#   4. gzip -$BENCH_GZIP_LEVEL                              -> corpus.perf.gz
#   5. a 100,000-line folded file for the renderer, made from the capture's
#      stacks (each unique stack, then variants with one frame renamed)
#                                                          -> folded-100k.txt
#   6. facts (bytes, lines, samples, unique stacks)        -> corpus.facts
#
# The corpus is cached: if corpus.facts exists and was made with the same
# BENCH_MB, nothing is done. BENCH_REBUILD=1 forces a rebuild.
#
# Environment: BENCH_MB (512; 64 with BENCH_QUICK=1), BENCH_CAPTURE_S (12; 3),
#              BENCH_GZIP_LEVEL (1), BENCH_CORPUS (bench/cache, or
#              bench/cache/quick), BENCH_FOLDED_LINES (100000),
#              BENCH_FREQ (perf record -F, 4999).
# Needs root (perf record -a), perf, cc, gzip.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	BENCH_MB=${BENCH_MB:-64}
	BENCH_CAPTURE_S=${BENCH_CAPTURE_S:-3}	# a few copies even in 64 MiB
	BENCH_CORPUS=${BENCH_CORPUS:-$here/cache/quick}
fi
BENCH_MB=${BENCH_MB:-512}
BENCH_CAPTURE_S=${BENCH_CAPTURE_S:-12}
BENCH_GZIP_LEVEL=${BENCH_GZIP_LEVEL:-1}
BENCH_CORPUS=${BENCH_CORPUS:-$here/cache}
BENCH_FOLDED_LINES=${BENCH_FOLDED_LINES:-100000}
PERF_FREQ=${BENCH_FREQ:-4999}	# high: deep stacks at 5 kHz per CPU
MIB=1048576

dir=$BENCH_CORPUS
facts=$dir/corpus.facts

if [ "${BENCH_REBUILD:-0}" != 1 ] && [ -f "$facts" ] &&
   grep -qx "corpus_mb_wanted=$BENCH_MB" "$facts" &&
   grep -qx "perf_freq=$PERF_FREQ" "$facts" &&
   grep -qx "capture_seconds=$BENCH_CAPTURE_S" "$facts" &&
   [ -f "$dir/corpus.perf" ] && [ -f "$dir/corpus.perf.gz" ] && [ -f "$dir/folded-100k.txt" ]; then
	echo "make-corpus: reusing $dir (BENCH_REBUILD=1 to rebuild)" >&2
	exit 0
fi

mkdir -p "$dir"
rm -f "$facts"

echo "make-corpus: compiling load and timeshift" >&2
cc -O2 -fno-omit-frame-pointer -pthread -o "$dir/load" "$here/load.c"
cc -O2 -o "$dir/timeshift" "$here/timeshift.c"

if [ "${BENCH_RECAPTURE:-1}" = 1 ] || [ ! -s "$dir/capture.perf" ]; then
	echo "make-corpus: perf record -F $PERF_FREQ -a -g for ${BENCH_CAPTURE_S}s" >&2
	perf record -q -F "$PERF_FREQ" -a -g -o "$dir/perf.data" -- "$dir/load" "$BENCH_CAPTURE_S" >&2
	perf script -i "$dir/perf.data" --no-inline > "$dir/capture.perf.tmp" 2>/dev/null
	mv "$dir/capture.perf.tmp" "$dir/capture.perf"
fi

capture_bytes=$(stat -c %s "$dir/capture.perf")
want_bytes=$((BENCH_MB * MIB))
copies=$(( (want_bytes + capture_bytes - 1) / capture_bytes ))
echo "make-corpus: capture.perf is $capture_bytes bytes; $copies time-shifted copies" >&2
"$dir/timeshift" "$copies" < "$dir/capture.perf" > "$dir/corpus.perf.tmp" 2> "$dir/timeshift.out"
mv "$dir/corpus.perf.tmp" "$dir/corpus.perf"

echo "make-corpus: gzip -$BENCH_GZIP_LEVEL" >&2
gzip -"$BENCH_GZIP_LEVEL" -c "$dir/corpus.perf" > "$dir/corpus.perf.gz.tmp"
mv "$dir/corpus.perf.gz.tmp" "$dir/corpus.perf.gz"

# Folded stacks of the capture (stackcollapse-perf.pl's main rules: comm as
# root, root first, +0x.. offsets removed, [unknown] -> [dso basename]),
# then the renderer's input: every unique stack once, then variants with
# one frame renamed, until BENCH_FOLDED_LINES distinct lines.
echo "make-corpus: folded stacks" >&2
awk '
function flush() {
	if (have) { n[stack]++; have = 0 }
}
/^#/ { next }
/^$/ { flush(); next }
/^\t/ {
	line = $0; sub(/^[ \t]+[0-9a-f]+ /, "", line)
	dso = line; sub(/^.* \(/, "", dso); sub(/\)$/, "", dso)
	sym = line; sub(/ \([^(]*\)$/, "", sym); sub(/\+0x[0-9a-f]+$/, "", sym)
	if (sym == "[unknown]" && dso != "[unknown]" && dso != "unknown") { b = dso; sub(/.*\//, "", b); sym = "[" b "]" }
	gsub(/;/, ":", sym)
	stack = stack ";" sym
	next
}
{
	flush()
	comm = $0; sub(/^ +/, "", comm)
	sub(/ +-?[0-9]+(\/-?[0-9]+)? +\[[0-9]+\] .*$/, "", comm)
	gsub(/ /, "_", comm)
	stack = comm; have = 1
	frames = ""
}
END { flush(); for (s in n) print s " " n[s] }' "$dir/capture.perf" > "$dir/capture.folded.tmp"
# perf prints frames leaf first; reverse them (keeping the comm as root).
awk '{
	count = $NF; line = $0; sub(/ [0-9]+$/, "", line)
	k = split(line, f, ";")
	out = f[1]
	for (i = k; i >= 2; i--) out = out ";" f[i]
	print out " " count
}' "$dir/capture.folded.tmp" | LC_ALL=C sort > "$dir/capture.folded"
rm -f "$dir/capture.folded.tmp"

awk -v want="$BENCH_FOLDED_LINES" '
{ count[NR] = $NF; line = $0; sub(/ [0-9]+$/, "", line); st[NR] = line }
END {
	u = NR
	for (j = 0; j < want; j++) {
		s = st[j % u + 1]; v = int(j / u)
		if (v > 0) {
			k = split(s, f, ";")
			if (k > 2) {
				p = 2 + (v * 7) % (k - 1)
				f[p] = f[p] "_v" v
				s = f[1]; for (i = 2; i <= k; i++) s = s ";" f[i]
			} else s = s ";variant_" v
		}
		print s " " (count[j % u + 1] + (j * 37) % 1000)
	}
}' "$dir/capture.folded" | LC_ALL=C sort > "$dir/folded-100k.txt"

# Facts.
lines=$(wc -l < "$dir/corpus.perf")
bytes=$(stat -c %s "$dir/corpus.perf")
gz_bytes=$(stat -c %s "$dir/corpus.perf.gz")
capture_samples=$(sed -n 's/.*samples=\([0-9]*\).*/\1/p' "$dir/timeshift.out")
unique_stacks=$(wc -l < "$dir/capture.folded")
folded_bytes=$(stat -c %s "$dir/folded-100k.txt")
folded_lines=$(wc -l < "$dir/folded-100k.txt")
perf_data_samples=$(perf report -i "$dir/perf.data" --stats 2>/dev/null |
	awk '/SAMPLE events:/ { print $3; exit }')
cat > "$facts" <<EOF
corpus_mb_wanted=$BENCH_MB
bytes=$bytes
lines=$lines
samples=$((capture_samples * copies))
unique_stacks=$unique_stacks
copies=$copies
capture_bytes=$capture_bytes
capture_samples=$capture_samples
capture_seconds=$BENCH_CAPTURE_S
perf_freq=$PERF_FREQ
perf_data_samples=${perf_data_samples:-$capture_samples}
gz_bytes=$gz_bytes
gzip_level=$BENCH_GZIP_LEVEL
folded_lines=$folded_lines
folded_bytes=$folded_bytes
EOF
echo "make-corpus: done" >&2
cat "$facts"
