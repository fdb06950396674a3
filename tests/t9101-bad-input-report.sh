#!/bin/sh
test_description='bad input through flamepipe report: complete outputs or a clear error, counts that agree'
. "$(dirname "$0")/test-lib.sh"

# The same inputs as t9100, through the whole default pipeline.
# (t6002 covers report on a missing file, truncated gzip, garbage, a 1 MiB
# line and an empty file from the runner's side.)
BAD=$DATA/bad
LIMIT=30
OUTPUTS="flame.svg heatmap.json heatmap.svg heatmap.tsv index.html stacks.folded"

if ! command -v fp-render >/dev/null 2>&1; then
	test_skip 'report variants' 'bin/fp-render is not built'
	test_done
fi

# report WANT FILE: flamepipe report FILE -o out, exit WANT, bounded.
report() {
	rm -rf out
	timeout -k 5 $LIMIT flamepipe report "$2" -o out >report.out 2>report.err
	_rc=$?
	[ $_rc -eq "$1" ] && return 0
	echo "report $2: exit $_rc, expected $1" >&2
	cat report.err >&2
	return 1
}

# Every output exists, and the heatmap, the folded file and the summary
# line count the same samples ($1).
complete() {
	for f in $OUTPUTS; do test -f out/$f || { echo "missing out/$f" >&2; return 1; }; done &&
	test -s out/index.html && test -s out/flame.svg && test -s out/heatmap.svg &&
	heat=$(awk -F"\t" "NR > 1 { s += \$3 } END { print s + 0 }" out/heatmap.tsv) &&
	folded=$(awk "{ s += \$NF } END { print s + 0 }" out/stacks.folded) &&
	echo "heatmap $heat folded $folded expected $1" &&
	test "$heat" = "$1" && test "$folded" = "$1" &&
	grep -q "^flamepipe: report: .*: $1 samples in " report.err
}

test_expect_success 'empty file and header only: exit 0, complete empty outputs' '
	report 0 "$BAD/empty.perf" && complete 0 &&
	report 0 "$BAD/header-only.perf" && complete 0
'

test_expect_success 'truncated mid-stack: exit 0, all 4 samples' '
	report 0 "$BAD/truncated-stack.perf" && complete 4
'

test_expect_success 'truncated gzip: exit 1, file and line named, outputs marked incomplete' '
	report 1 "$BAD/truncated.perf.gz" &&
	grep -q "truncated.perf.gz:4749: truncated gzip data" report.err &&
	grep -q "(incomplete: a stage failed)" report.err &&
	n=$(fp-read "$BAD/truncated.perf.gz" 2>/dev/null | fp-bucket | grep "^I	bucket	" | sed "s/.*	counted=\([0-9]*\).*/\1/") &&
	complete $n
'

test_expect_success 'binary garbage: exit 1 naming file and line 1' '
	report 1 "$BAD/garbage.bin" &&
	grep -Eq "garbage.bin(:1:| line 1:)" report.err &&
	complete 0
'

test_expect_success 'CRLF: the same outputs as LF' '
	zcat "$EXAMPLES/demo-clockloop.perf.gz" | head -n 5000 >lf.perf &&
	sed "s/\$/\r/" lf.perf >crlf.perf &&
	report 0 lf.perf && mv out lf &&
	report 0 crlf.perf &&
	test_cmp lf/stacks.folded out/stacks.folded &&
	test_cmp lf/heatmap.tsv out/heatmap.tsv
'

test_expect_success 'NUL bytes and lost-event lines: exit 0, every sample counted' '
	report 0 "$BAD/nul-bytes.perf" && complete 3 &&
	grep -q "^clock_loop;sys call;set_normalized timespec64 1\$" out/stacks.folded &&
	report 0 "$BAD/lost-events.perf" && complete 3
'

test_expect_success 'a frame line over 1 MiB: warning naming file:line, that sample dropped, the rest counted' '
	{ cat "$BAD/single.perf"
	  printf "clockloop  4330 [001] 160.8:   20408163 cpu-clock:ppp: \n\t          101829 "
	  head -c 1048576 /dev/zero | tr "\0" a
	  printf " (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n"; } >long.perf &&
	report 0 long.perf &&
	grep -q "long.perf:7: line longer than 1048576 bytes skipped" report.err &&
	complete 1
'

test_expect_success 'out-of-order timestamps: the heatmap has every sample in its cell' '
	report 0 "$BAD/out-of-order.perf" && complete 5 &&
	awk -F"\t" "NR > 1 && \$3 > 0 { print \$1, \$2, \$3 }" out/heatmap.tsv >got &&
	printf "%s\n" "0 980 1" "2 240 1" "2 740 1" "4 500 1" "6 0 1" >expect &&
	test_cmp expect got
'

test_expect_success 'a sample exactly on a whole second, last: its own column, row 0' '
	report 0 "$BAD/whole-second-last.perf" && complete 3 &&
	awk -F"\t" "NR > 1 && \$3 > 0 { print \$1, \$2, \$3 }" out/heatmap.tsv >got &&
	printf "%s\n" "0 240 1" "0 740 1" "1 0 1" >expect &&
	test_cmp expect got
'

test_expect_success 'single sample and far-future times: exit 0, exact counts' '
	report 0 "$BAD/single.perf" && complete 1 &&
	report 0 "$BAD/far-future.perf" && complete 2 &&
	grep -q "\"base_sec\":9000000000" out/heatmap.json
'

test_expect_success 'times beyond 64-bit ns: the bad lines named, the good samples counted' '
	report 0 "$BAD/time-overflow.perf" &&
	grep -q "time-overflow.perf:6: " report.err &&
	complete 2
'

# A gap of 9e9 s: fp-render bounds the heatmap's columns and says which
# cells it skipped (they stay in the flame graph); it never allocates for
# the gap.
RSS_MAX_KB=65536
[ -n "${FP_ASAN:-}" ] && RSS_MAX_KB=524288
test_expect_success "huge gaps: bounded memory (< $RSS_MAX_KB KiB for the runner and every stage), cut cells warned about" '
	report 0 "$BAD/huge-gap.perf" &&
	grep -q "^fp-render: warning: .*column past the heatmap" report.err &&
	test "$(awk "{ s += \$NF } END { print s }" out/stacks.folded)" = 2 &&
	awk -v n=3000 "NR == 1 { sub(/160\\.697175/, \"%.0f.5\"); head = \$0; next } { rest = rest \$0 \"\\n\" }
		END { for (i = 0; i < n; i++) { printf head \"\\n\", 100 + i * 3000000; printf \"%s\", rest } }" \
		"$BAD/single.perf" >gaps.perf &&
	test $(grep -c "^clockloop" gaps.perf) = 3000 &&
	rm -rf out &&
	"$HELPERS/maxrss" rss timeout $LIMIT flamepipe report gaps.perf -o out 2>report.err &&
	echo "peak RSS $(cat rss) KiB" &&
	test "$(cat rss)" -lt $RSS_MAX_KB &&
	test "$(awk "{ s += \$NF } END { print s }" out/stacks.folded)" = 3000
'

test_expect_success 'a missing file: exit 111 naming it, no output directory' '
	report 111 nosuch.perf &&
	grep -q "^flamepipe: report: cannot read nosuch.perf: No such file or directory" report.err &&
	test ! -e out
'

test_expect_success 'a directory: exit 100 naming it, no output directory' '
	mkdir adir &&
	report 100 adir &&
	grep -q "^flamepipe: report: adir is a directory" report.err &&
	test ! -e out
'

test_done
