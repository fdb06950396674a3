#!/bin/sh
# make-corpus.sh: record (or reuse) the benchmark corpora in bench/cache/
# (gitignored; BENCH_QUICK=1 uses bench/cache/quick/ with short captures).
#
# Every corpus is one real capture of a load, recorded here, never a copy
# of another or data shaped to the code (the loads are in bench/loads/):
#   mixed      bench/loads/mixed.sh: gcc building flamepipe, python3, perl,
#              a C++ service, deep recursion, a C service with syscalls,
#              sort and gzip through pipes, all at once, BENCH_CAPTURE_S
#              seconds. The main corpus.
#   recursion  bench/loads/deep.c: 60..120-level recursion, nearly every
#              stack new (BENCH_SMALL_S seconds)
#   cxx        bench/loads/cxxload.cc: templates in an anonymous namespace,
#              std::function, lambdas, std::map: long demangled names
#   idle       bench/loads/idle.c: four threads waking 200 times a second;
#              the rest of the capture is the idle task
# Each is `perf record -F 4999 -a -g` (so whatever else runs on the host is
# in it too) and `perf script --no-inline`. For each NAME: NAME/perf.data,
# NAME/capture.perf, NAME/capture.perf.gz, NAME/capture.folded and
# NAME.facts. The main rows read the mixed capture through hard links:
# corpus.perf(.gz), capture.perf, perf.data, and folded.txt, its folded
# stacks (every unique stack once: the renderer's input).
#
# The corpora are cached: if corpus.facts exists and was made with the
# same settings, nothing is done. BENCH_REBUILD=1 forces a rebuild.
#
# Environment: BENCH_CAPTURE_S (40; 8 with BENCH_QUICK=1), BENCH_SMALL_S
#              (10; 3), BENCH_GZIP_LEVEL (1), BENCH_CORPUS (bench/cache, or
#              bench/cache/quick), BENCH_FREQ (perf record -F, 4999).
# Needs root (perf record -a), perf, cc, c++, gzip, python3, perl.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	BENCH_CAPTURE_S=${BENCH_CAPTURE_S:-8}
	BENCH_SMALL_S=${BENCH_SMALL_S:-3}
	BENCH_CORPUS=${BENCH_CORPUS:-$here/cache/quick}
fi
BENCH_CAPTURE_S=${BENCH_CAPTURE_S:-40}
BENCH_SMALL_S=${BENCH_SMALL_S:-10}
BENCH_GZIP_LEVEL=${BENCH_GZIP_LEVEL:-1}
BENCH_CORPUS=${BENCH_CORPUS:-$here/cache}
PERF_FREQ=${BENCH_FREQ:-4999}	# high: deep stacks at 5 kHz per CPU
CORPORA="mixed recursion cxx idle"

dir=$BENCH_CORPUS
facts=$dir/corpus.facts

if [ "${BENCH_REBUILD:-0}" != 1 ] && [ -f "$facts" ] &&
   grep -qx "corpora=\"$CORPORA\"" "$facts" &&
   grep -qx "perf_freq=$PERF_FREQ" "$facts" &&
   grep -qx "capture_seconds=$BENCH_CAPTURE_S" "$facts" &&
   grep -qx "small_seconds=$BENCH_SMALL_S" "$facts" &&
   [ -f "$dir/corpus.perf" ] && [ -f "$dir/corpus.perf.gz" ] && [ -f "$dir/folded.txt" ]; then
	echo "make-corpus: reusing $dir (BENCH_REBUILD=1 to rebuild)" >&2
	exit 0
fi

mkdir -p "$dir/bin"
rm -f "$facts"

echo "make-corpus: compiling the loads" >&2
cc -O2 -fno-omit-frame-pointer -pthread -o "$dir/bin/load" "$here/loads/load.c"
cc -O2 -fno-omit-frame-pointer -o "$dir/bin/deep" "$here/loads/deep.c"
c++ -O2 -fno-omit-frame-pointer -o "$dir/bin/cxxload" "$here/loads/cxxload.cc"
cc -O2 -fno-omit-frame-pointer -pthread -o "$dir/bin/idle" "$here/loads/idle.c"

# fold_capture FILE: its folded stacks, sorted, counted independently of
# flamepipe (stackcollapse-perf.pl's main rules: comm as root, root first,
# +0x.. offsets removed, [unknown] -> [dso basename]).
fold_capture() {
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
END { flush(); for (s in n) print s " " n[s] }' "$1" |
# perf prints frames leaf first; reverse them (keeping the comm as root).
awk '{
	count = $NF; line = $0; sub(/ [0-9]+$/, "", line)
	k = split(line, f, ";")
	out = f[1]
	for (i = k; i >= 2; i--) out = out ";" f[i]
	print out " " count
}' | LC_ALL=C sort
}

# capture NAME SECONDS CMD...: one system-wide capture while CMD runs, as
# perf.data, perf script text (plain and gzip), folded stacks and facts.
capture() {
	name=$1 secs=$2
	shift 2
	mkdir -p "$dir/$name"
	echo "make-corpus: $name: perf record -F $PERF_FREQ -a -g for ${secs}s" >&2
	perf record -q -F "$PERF_FREQ" -a -g -o "$dir/$name/perf.data" -- "$@" >&2
	perf script -i "$dir/$name/perf.data" --no-inline > "$dir/$name/capture.perf.tmp" 2>/dev/null
	mv "$dir/$name/capture.perf.tmp" "$dir/$name/capture.perf"
	gzip -"$BENCH_GZIP_LEVEL" -c "$dir/$name/capture.perf" > "$dir/$name/capture.perf.gz"
	fold_capture "$dir/$name/capture.perf" > "$dir/$name/capture.folded"
	cat > "$dir/$name.facts" <<EOF
bytes=$(stat -c %s "$dir/$name/capture.perf")
lines=$(wc -l < "$dir/$name/capture.perf")
samples=$(awk '{ n += $NF } END { print n + 0 }' "$dir/$name/capture.folded")
unique_stacks=$(wc -l < "$dir/$name/capture.folded")
seconds=$secs
EOF
}

capture mixed "$BENCH_CAPTURE_S" "$here/loads/mixed.sh" "$BENCH_CAPTURE_S" "$dir/bin"
capture recursion "$BENCH_SMALL_S" "$dir/bin/deep" "$BENCH_SMALL_S"
capture cxx "$BENCH_SMALL_S" "$dir/bin/cxxload" "$BENCH_SMALL_S"
capture idle "$BENCH_SMALL_S" "$dir/bin/idle" "$BENCH_SMALL_S"

# The main rows read the mixed capture under these names.
for f in corpus.perf:capture.perf corpus.perf.gz:capture.perf.gz capture.perf:capture.perf \
	 perf.data:perf.data capture.folded:capture.folded folded.txt:capture.folded; do
	rm -f "$dir/${f%%:*}"
	ln "$dir/mixed/${f#*:}" "$dir/${f%%:*}"
done

. "$dir/mixed.facts"
perf_data_samples=$(perf report -i "$dir/perf.data" --stats 2>/dev/null |
	awk '/SAMPLE events:/ { print $3; exit }')
cat > "$facts" <<EOF
corpora="$CORPORA"
bytes=$bytes
lines=$lines
samples=$samples
unique_stacks=$unique_stacks
copies=1
capture_bytes=$bytes
capture_samples=$samples
capture_seconds=$BENCH_CAPTURE_S
small_seconds=$BENCH_SMALL_S
perf_freq=$PERF_FREQ
perf_data_samples=${perf_data_samples:-$samples}
gz_bytes=$(stat -c %s "$dir/corpus.perf.gz")
gzip_level=$BENCH_GZIP_LEVEL
folded_lines=$(wc -l < "$dir/folded.txt")
folded_bytes=$(stat -c %s "$dir/folded.txt")
EOF
echo "make-corpus: done" >&2
cat "$facts"
