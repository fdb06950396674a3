#!/bin/sh
test_description='bad input through each stage: correct output or a clear error, never a crash, hang or wrong count'
. "$(dirname "$0")/test-lib.sh"

# Inputs: tests/data/bad/ (small, committed) and big ones made here.
# docs/reliability.md lists every case with the behaviour asserted here.
BAD=$DATA/bad
# Every stage run is bounded: a hang fails the test (exit 124) instead of
# blocking the suite.
LIMIT=20

# run WANT NAME CMD...: runs CMD (stdin inherited) into NAME.out/NAME.err
# and fails unless it exits WANT (a signal or a timeout is never WANT).
run() {
	_want=$1 _name=$2
	shift 2
	timeout -k 5 $LIMIT "$@" >"$_name.out" 2>"$_name.err"
	_rc=$?
	[ $_rc -eq "$_want" ] && return 0
	echo "run: '$*' exited $_rc, expected $_want; its stderr:" >&2
	head -c 2000 "$_name.err" >&2
	return 1
}

# chain FILE [READ_RC]: fp-read | fp-bucket --rows 4 | fp-range | fp-fold
# | fp-render, each stage on the previous one's output; downstream stages
# always exit 0.
chain() {
	run "${2:-0}" read fp-read "$1" &&
	run 0 bucket fp-bucket --rows 4 <read.out &&
	run 0 range fp-range <bucket.out &&
	run 0 fold fp-fold <range.out &&
	rm -rf rout && mkdir rout &&
	run 0 render fp-render --outdir rout <fold.out
}

# stat STAGE KEY FILE: the value of KEY in STAGE's I record.
stat() {
	awk -F'\t' -v s="$1" -v k="$2" '$1 == "I" && $2 == s {
		for (i = 3; i <= NF; i++) if (index($i, k "=") == 1) v = substr($i, length(k) + 2)
	} END { print v }' "$3"
}

# Samples are neither lost nor made up between the stages: what fp-read
# wrote reaches fp-bucket, what fp-bucket counted (idle ones are dropped)
# reaches fp-fold, and the folded total is that count.
conserved() {
	n=$(grep -c '^S' read.out)
	test "$(stat read samples read.out)" = "$n" &&
	test "$(stat bucket samples bucket.out)" = "$n" &&
	c=$(stat bucket counted bucket.out) &&
	test "$(stat range passed range.out)" = "$c" &&
	test "$(stat fold samples fold.out)" = "$c" &&
	test "$(stat fold total fold.out)" = "$c" &&
	if [ -d rout ]; then
		test "$(awk -F"\t" "NR > 1 { s += \$3 } END { print s + 0 }" rout/heatmap.tsv)" = "$c" &&
		test "$(awk "{ s += \$NF } END { print s + 0 }" rout/stacks.folded)" = "$c"
	fi
}

# heat FILE: the final heatmap as "col row count" lines, replaying G (drop
# all cells) and H (set a cell) as a consumer does.
heat() {
	awk -F'\t' '$1 == "G" { delete c; base = $3 } $1 == "H" { c[$2 " " $3] = $4 }
		END { for (k in c) print k, c[k]; print "base", base }' "$1" | sort
}

# A perf sample of clockloop at time $1 (three frames, leaf first).
sample() {
	printf 'clockloop  4330 [001] %s:   20408163 cpu-clock:ppp: \n' "$1"
	printf '\tffffffff81426409 set_normalized_timespec64+0x19 ([kernel.kallsyms])\n'
	printf '\t          101829 syscall+0x19 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n'
	printf '\t           2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n'
}
FOLDED_STACK='clockloop;__libc_start_call_main;syscall;set_normalized_timespec64'

# The first N samples of the bundled capture (with its header).
demo_head() {
	zcat "$EXAMPLES/demo-clockloop.perf.gz" |
		awk -v max="$1" '!/^[#\t]/ && !/^[ ]*$/ { if (++n > max) exit } { print }'
}

# ---- empty and header-only -------------------------------------------

test_expect_success 'empty file: no samples, empty tables, exit 0 everywhere' '
	chain "$BAD/empty.perf" &&
	test "$(stat read lines read.out)" = 0 &&
	test "$(stat read samples read.out)" = 0 &&
	! grep -q "^[GHW]" bucket.out &&
	grep -qx "C	end	fold	0	0" fold.out &&
	test ! -s read.err && test ! -s fold.err
'

test_expect_success 'header only (perf script --header, no samples): lines counted, no samples, no warnings' '
	chain "$BAD/header-only.perf" &&
	test "$(stat read lines read.out)" = 29 &&
	test "$(stat read samples read.out)" = 0 &&
	test "$(stat read bad_lines read.out)" = 0 &&
	! grep -q "^W" read.out && test ! -s read.err &&
	grep -qx "C	end	fold	0	0" fold.out
'

# ---- truncated input ---------------------------------------------------

# (issue 14 #7: the cut line "put_time" was read as a frame it is not.)
test_expect_success 'truncated mid-stack: every sample kept, the cut frame line dropped with a W' '
	chain "$BAD/truncated-stack.perf" &&
	test "$(stat read samples read.out)" = "$(awk_count_samples "$BAD/truncated-stack.perf")" &&
	test "$(stat read samples read.out)" = 4 &&
	grep "^S" read.out | tail -n 1 | grep -q "	_copy_to_user\$" &&
	grep -q "^W	read	.*truncated-stack.perf:[0-9]*	the input ends in the middle of a frame line" read.out &&
	conserved
'

test_expect_success 'truncated gzip: exit 1 naming file and line, the samples before the damage kept' '
	chain "$BAD/truncated.perf.gz" 1 &&
	grep -q "^fp-read: .*truncated.perf.gz:4749: truncated gzip data" read.err &&
	test "$(stat read lines read.out)" = 4750 &&
	test "$(stat read samples read.out)" = "$(awk_count_samples "$BAD/truncated.perf.gz" 2>/dev/null)" &&
	conserved
'

# ---- not perf script at all -------------------------------------------

test_expect_success 'binary garbage: exit 1 naming file and line 1, stops early, nothing counted' '
	chain "$BAD/garbage.bin" 1 &&
	grep -Eq "^fp-read: .*garbage.bin(:1:| line 1:).*expected a perf script event line" read.err &&
	grep -q "^W	read	.*garbage.bin:1	expected a perf script" read.out &&
	test "$(stat read samples read.out)" = 0 &&
	test "$(stat read lines read.out)" -le 10 &&
	grep -qx "C	end	fold	0	0" fold.out
'

test_expect_success 'binary garbage as a stream: fp-bucket, fp-range, fp-fold pass it on, fp-render ignores it, exit 0' '
	for s in fp-bucket fp-range fp-fold; do
		run 0 $s $s <"$BAD/garbage.bin" || return 1
		grep -q "^I	" $s.out || return 1
	done &&
	rm -rf rout && mkdir rout && run 0 render fp-render --outdir rout <"$BAD/garbage.bin" &&
	test -f rout/index.html && test ! -s rout/stacks.folded
'

# ---- line ends and bytes ------------------------------------------------

test_expect_success 'CRLF line ends: the same records as the LF file' '
	demo_head 300 >lf.perf &&
	sed "s/\$/\r/" lf.perf >crlf.perf &&
	cr=$(printf "\r") && test $(grep -c "$cr\$" crlf.perf) -gt 300 &&
	chain lf.perf && grep "^[SGH]" read.out >lf.S && grep "^[GH]" bucket.out >lf.H &&
	mv fold.out lf.fold &&
	chain crlf.perf && grep "^[SGH]" read.out >crlf.S && grep "^[GH]" bucket.out >crlf.H &&
	test "$(stat read samples read.out)" = 300 &&
	test_cmp lf.S crlf.S && test_cmp lf.H crlf.H &&
	grep "^F" lf.fold >lf.F && grep "^F" fold.out >crlf.F && test_cmp lf.F crlf.F
'

test_expect_success 'NUL bytes inside lines become spaces; every sample counted' '
	chain "$BAD/nul-bytes.perf" &&
	test "$(stat read samples read.out)" = 3 &&
	grep "^S	100200000000" read.out >mid &&
	printf "S\t100200000000\t4330\t4330\t1\t20408163\tcpu-clock:ppp\tclock loop\tuk\tsys call;set_normalized timespec64\n" >expect &&
	test_cmp expect mid &&
	! grep -q "$(printf "\t")\$" mid &&
	conserved
'

# ---- over-long lines (FP_LINE_MAX = 1 MiB, LF included) -----------------

# A sample at $1 whose only frame symbol is $2 bytes of "a".
long_sample() {
	printf 'clockloop  4330 [001] %s:   20408163 cpu-clock:ppp: \n\t          101829 ' "$1"
	head -c "$2" /dev/zero | tr "\0" a
	printf ' (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n'
}
FRAME_FIXED=57	# tab, address column, the space, " (dso)" and LF

test_expect_success 'a frame line over 1 MiB is skipped with a warning naming it; its sample is dropped and counted' '
	{ sample 100.100000; long_sample 100.200000 1048576; sample 100.300000; } >long.perf &&
	chain long.perf &&
	grep -q "^W	read	long.perf:7	line longer than 1048576 bytes skipped" read.out &&
	grep -q "long.perf:7: line longer than 1048576 bytes" read.err &&
	test "$(stat read samples read.out)" = 2 &&
	test "$(stat read too_long_lines read.out)" = 1 &&
	test "$(stat read dropped_samples read.out)" = 1 &&
	conserved
'

test_expect_success 'a frame line of exactly 1 MiB is read, but its record would not fit: dropped with a warning' '
	{ sample 100.100000; long_sample 100.200000 $((1048576 - FRAME_FIXED)); sample 100.300000; } >max.perf &&
	test $(sed -n 7p max.perf | wc -c) = 1048576 &&
	chain max.perf &&
	test "$(stat read too_long_lines read.out)" = 0 &&
	grep -q "^W	read	max.perf:[0-9]*	sample ending here needs a record longer than 1048576 bytes: dropped" read.out &&
	test "$(stat read samples read.out)" = 2 &&
	test "$(stat read dropped_samples read.out)" = 1 &&
	conserved
'

test_expect_success 'a frame of 1,000,000 bytes fits: counted and folded whole' '
	{ sample 100.100000; long_sample 100.200000 1000000; } >big.perf &&
	chain big.perf &&
	test "$(stat read samples read.out)" = 2 &&
	! grep -q "^W" read.out bucket.out range.out fold.out &&
	grep "^F" fold.out | awk -F"\t" "length(\$3) > 1000000 { n++ } END { exit n != 1 }" &&
	conserved
'

test_expect_success 'a stream line over 1 MiB: fp-bucket, fp-range, fp-fold, fp-render skip it with a warning and go on' '
	{ printf "S\t1000\t1\t1\t0\t1\tcpu-clock\tc\tu\t"; head -c 1048576 /dev/zero | tr "\0" a
	  printf "\nS\t2000000000\t1\t1\t0\t1\tcpu-clock\tc\tu\tmain\n"; } >long.S &&
	for s in fp-bucket fp-range fp-fold; do
		run 0 $s $s <long.S || return 1
		grep -q "^W	.*stdin:1	line longer than 1048576 bytes skipped" $s.out || return 1
	done &&
	rm -rf rout && mkdir rout && fp-fold <long.S >long.F &&
	run 0 render fp-render --outdir rout <long.F &&
	grep -qx "c;main 1" rout/stacks.folded &&
	rm -rf rout && mkdir rout &&
	run 0 render fp-render --outdir rout <long.S &&
	grep -q "stdin:1: line longer than 1048576 bytes skipped" render.err &&
	test "$(stat bucket samples fp-bucket.out)" = 1 &&
	test "$(stat range passed fp-range.out)" = 1 &&
	grep -qx "F	1	c;main" fp-fold.out
'

# ---- side-band lines ------------------------------------------------------

test_expect_success 'lost-event lines (PERF_RECORD_LOST, _LOST_SAMPLES) are counted, not samples, not bad' '
	chain "$BAD/lost-events.perf" &&
	test "$(stat read samples read.out)" = 3 &&
	test "$(stat read lost_events read.out)" = 35 &&
	test "$(stat read lost_records read.out)" = 3 &&
	test "$(stat read bad_lines read.out)" = 0 &&
	conserved
'

test_expect_success 'fp-latency counts lost-event lines as lost_events, not bad lines' '
	run 0 lat fp-latency --pair p=a,b "$BAD/lost-events.perf" &&
	grep -q "^# fp-latency final: .* bad_lines=0 .* lost_events=35\$" lat.out &&
	printf "%s\n" "10 1 1 a" "Lost 12 events" "30 1 1 b" >ev.txt &&
	run 0 lat fp-latency --pair p=a,b ev.txt &&
	grep -q " lost_events=12\$" lat.out &&
	grep -qx "p	1	20	20	20	0	0	0	0" lat.out
'

# ---- time ------------------------------------------------------------------

test_expect_success 'out-of-order timestamps: geometry re-sent, every sample in its own cell' '
	chain "$BAD/out-of-order.perf" &&
	test $(grep -c "^G" bucket.out) = 3 &&
	heat bucket.out >got &&
	printf "%s\n" "0 3 1" "2 1 1" "2 3 1" "4 2 1" "6 0 1" "base 101" | sort >expect &&
	test_cmp expect got &&
	conserved
'

test_expect_success 'a sample exactly on a whole second, last: the next column, row 0, and inside [1,2)' '
	chain "$BAD/whole-second-last.perf" &&
	heat bucket.out >got &&
	printf "%s\n" "0 1 1" "0 3 1" "1 0 1" "base 100" | sort >expect &&
	test_cmp expect got &&
	run 0 r12 fp-range --from 1 --to 2 <bucket.out && fp-fold <r12.out >f12 &&
	grep -qx "C	end	fold	1	1" f12 &&
	run 0 r01 fp-range --from 0 --to 1 <bucket.out && fp-fold <r01.out >f01 &&
	grep -qx "C	end	fold	1	2" f01
'

test_expect_success 'a single-sample file: one cell, one folded stack' '
	chain "$BAD/single.perf" &&
	heat bucket.out >got &&
	printf "%s\n" "0 2 1" "base 160" >expect &&
	test_cmp expect got &&
	grep -qx "F	1	$FOLDED_STACK" fold.out &&
	grep -qx "C	end	fold	1	1" fold.out
'

test_expect_success 'timestamps far in the future (9e9 s): exact base second and cells' '
	chain "$BAD/far-future.perf" &&
	heat bucket.out >got &&
	printf "%s\n" "0 1 1" "1 2 1" "base 9000000000" | sort >expect &&
	test_cmp expect got &&
	conserved
'

test_expect_success 'a huge gap (100 s to 9e9 s): two columns, not nine billion' '
	chain "$BAD/huge-gap.perf" &&
	heat bucket.out >got &&
	printf "%s\n" "0 2 1" "8999999900 1 1" "base 100" | sort >expect &&
	test_cmp expect got &&
	test "$(stat bucket columns bucket.out)" = 2
'

test_expect_success 'timestamps beyond 64-bit nanoseconds: bad lines named by file and line, never wrapped' '
	chain "$BAD/time-overflow.perf" &&
	grep -q "^W	read	.*time-overflow.perf:6	" read.out &&
	grep -q "^W	read	.*time-overflow.perf:11	" read.out &&
	test "$(stat read samples read.out)" = 2 &&
	test "$(stat read bad_lines read.out)" = 2 &&
	heat bucket.out >got &&
	printf "%s\n" "0 2 1" "1 2 1" "base 100" | sort >expect &&
	test_cmp expect got
'

# Peak memory on a capture that spreads 3000 samples over 9e9 seconds:
# every stage keeps only the columns that have samples.
RSS_MAX_KB=65536
[ -n "${FP_ASAN:-}" ] && RSS_MAX_KB=524288	# ASan shadow memory and quarantine
test_expect_success "huge gaps everywhere: each stage stays under $RSS_MAX_KB KiB peak RSS" '
	awk "BEGIN { for (i = 0; i < 3000; i++) printf \"%.0f\\n\", 100 + i * 3000000 }" |
	while read t; do sample $t.500000; done >gaps.perf &&
	"$HELPERS/maxrss" read.rss fp-read gaps.perf >read.out &&
	"$HELPERS/maxrss" bucket.rss fp-bucket <read.out >bucket.out &&
	"$HELPERS/maxrss" range.rss fp-range <bucket.out >range.out &&
	"$HELPERS/maxrss" fold.rss fp-fold <range.out >fold.out &&
	rm -rf rout gout && mkdir gout && "$HELPERS/maxrss" render.rss fp-render --outdir gout <fold.out 2>render.err &&
	test "$(stat bucket columns bucket.out)" = 3000 &&
	conserved &&
	for s in read bucket range fold render; do
		echo "$s: $(cat $s.rss) KiB"
		test "$(cat $s.rss)" -lt $RSS_MAX_KB || return 1
	done
'

# ---- files that are not there or not files --------------------------------

test_expect_success 'a missing file: exit 111 naming it, from every stage that opens files' '
	run 111 read fp-read nosuch.perf && grep -q "^fp-read: .*nosuch.perf.*No such file" read.err &&
	run 111 fold fp-fold nosuch.perf && grep -q "^fp-fold: .*nosuch.perf.*No such file" fold.err &&
	run 111 lat fp-latency --pair p=a,b nosuch.perf && grep -q "^fp-latency: .*nosuch.perf.*No such file" lat.err &&
	run 111 bt fp-bpftrace nosuch.perf && grep -q "^fp-bpftrace: .*nosuch.perf.*No such file" bt.err
'

test_expect_success 'a directory as input: exit 111 naming it, no output but the header' '
	mkdir adir &&
	run 111 read fp-read adir && grep -q "^fp-read: .*adir.*Is a directory" read.err &&
	run 111 lat fp-latency --pair p=a,b adir && grep -q "^fp-latency: .*adir.*Is a directory" lat.err &&
	run 111 bt fp-bpftrace adir && grep -q "^fp-bpftrace: .*adir.*Is a directory" bt.err &&
	run 111 bucket fp-bucket <adir && grep -q "^fp-bucket: .*Is a directory" bucket.err
'

# ---- the bpftrace and latency stages on the same inputs ---------------------

test_expect_success 'fp-bpftrace and fp-latency survive every bad input with the documented exit code' '
	for f in "$BAD"/*; do
		want=0
		case $f in *.gz) want=1 ;; esac
		run $want bt fp-bpftrace "$f" || return 1
		run $want lat fp-latency --pair p=a,b "$f" || return 1
		grep -q "^# fp-latency final: " lat.out || return 1
	done
'

test_expect_success 'fp-latency: binary garbage lines are counted as bad, with warnings naming file and line' '
	run 0 lat fp-latency --pair p=a,b "$BAD/garbage.bin" &&
	grep -q "^fp-latency: warning: .*garbage.bin:1: not an event line" lat.err &&
	bad=$(sed -n "s/.* bad_lines=\([0-9]*\) .*/\1/p" lat.out) &&
	test "$bad" -gt 0
'

test_done
