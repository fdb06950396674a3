#!/bin/sh
test_description='a capture cut or corrupted at many places: never a crash or hang, counts always agree'
. "$(dirname "$0")/test-lib.sh"

# Deterministic: the cut points and corruptions come from a fixed LCG, so
# a failure names an offset that reproduces.
SAMPLES=150
CUTS=20
FLIPS=24
LIMIT=20

stat() {
	awk -F'\t' -v s="$1" -v k="$2" '$1 == "I" && $2 == s {
		for (i = 3; i <= NF; i++) if (index($i, k "=") == 1) v = substr($i, length(k) + 2)
	} END { print v }' "$3"
}

# offsets N MAX SEED: N pseudo-random offsets in [1, MAX).
offsets() {
	awk -v n="$1" -v max="$2" -v x="$3" 'BEGIN {
		for (i = 0; i < n; i++) { x = (x * 1103515245 + 12345) % 2147483648; print 1 + x % (max - 1) } }'
}

# chain_ok FILE READ_RC...: fp-read (exit one of READ_RC) | fp-bucket |
# fp-range | fp-fold, each bounded; samples conserved downstream.
chain_ok() {
	_f=$1
	shift
	timeout $LIMIT fp-read "$_f" >read.out 2>read.err
	_rc=$?
	_okrc=1
	for _want in "$@"; do [ $_rc -eq $_want ] && _okrc=0; done
	[ $_okrc -eq 0 ] || { echo "fp-read $_f: exit $_rc" >&2; tail -n 3 read.err >&2; return 1; }
	timeout $LIMIT fp-bucket <read.out >bucket.out 2>/dev/null &&
	timeout $LIMIT fp-range <bucket.out >range.out 2>/dev/null &&
	timeout $LIMIT fp-fold <range.out >fold.out 2>/dev/null || { echo "$_f: a downstream stage failed" >&2; return 1; }
	n=$(grep -c "^S" read.out)
	c=$(stat bucket counted bucket.out)
	test "$(stat read samples read.out)" = "$n" &&
	test "$(stat bucket samples bucket.out)" = "$n" &&
	test "$(stat fold total fold.out)" = "$c" || { echo "$_f: counts differ" >&2; return 1; }
}

# cut_counts WANT: every sample header up to the cut was counted, except
# an event line cut before its time's colon: that one is a bad line,
# named (the last line), never a sample with a wrong time.
cut_counts() {
	got=$(stat read samples read.out) bad=$(stat read bad_lines read.out)
	[ "$got" = "$1" ] && [ "$bad" = 0 ] && return 0
	if [ "$bad" = 1 ] && [ $((got + 1)) = "$1" ] &&
		grep -q "^W	read	.*:$(stat read lines read.out)	expected a perf script event line" read.out; then
		return 0
	fi
	echo "$got samples and $bad bad lines, awk counts $1 sample headers" >&2
	return 1
}

test_expect_success 'setup: the first 150 samples of the demo capture' '
	zcat "$EXAMPLES/demo-clockloop.perf.gz" |
		awk -v max=$SAMPLES "!/^[#\t]/ && !/^[ ]*\$/ { if (++n > max) exit } { print }" >cap.perf &&
	gzip -9 -n -c cap.perf >cap.perf.gz &&
	test "$(awk_count_samples cap.perf)" = $SAMPLES
'

test_expect_success "cut at $CUTS places: exit 0, every sample up to the cut counted" '
	size=$(wc -c <cap.perf) &&
	for off in $(offsets $CUTS $size 7); do
		head -c $off cap.perf >cut.perf
		chain_ok cut.perf 0 || { echo "cut at $off" >&2; return 1; }
		want=$(awk_count_samples cut.perf)
		cut_counts "$want" || { echo "cut at $off" >&2; return 1; }
	done
'

test_expect_success "gzip cut at $CUTS places: exit 1 naming file and line, the samples before the cut counted" '
	size=$(wc -c <cap.perf.gz) &&
	for off in $(offsets $CUTS $size 11); do
		head -c $off cap.perf.gz >cut.perf.gz
		chain_ok cut.perf.gz 1 || { echo "gzip cut at $off" >&2; return 1; }
		grep -q "cut.perf.gz:[0-9]*: .*gzip" read.err || { echo "gzip cut at $off: no file:line" >&2; cat read.err >&2; return 1; }
		want=$(zcat cut.perf.gz 2>/dev/null | awk "!/^\t/ && !/^#/ && !/^[ ]*\$/ { n++ } END { print n + 0 }")
		cut_counts "$want" || { echo "gzip cut at $off" >&2; return 1; }
	done
'

# One byte replaced by NUL, LF, TAB, CR, ";", a space, 0xff or a digit.
test_expect_success "one byte corrupted at $FLIPS places: no crash, no hang, counts agree" '
	size=$(wc -c <cap.perf) &&
	i=0 &&
	for off in $(offsets $FLIPS $size 13); do
		i=$((i + 1))
		case $((i % 8)) in
		0) b="\000" ;; 1) b="\n" ;; 2) b="\t" ;; 3) b="\r" ;;
		4) b=";" ;; 5) b=" " ;; 6) b="\377" ;; 7) b="7" ;;
		esac
		{ head -c $((off - 1)) cap.perf; printf "$b"; tail -c +$((off + 1)) cap.perf; } >flip.perf
		test $(wc -c <flip.perf) = $size || return 1
		chain_ok flip.perf 0 1 || { echo "byte $off set to $b" >&2; return 1; }
	done
'

test_done
