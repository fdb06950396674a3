#!/bin/sh
test_description='flamepipe report: the summary takes stacks.folded totals from fp-render, else counts the file'
. "$(dirname "$0")/test-lib.sh"
test_tags strace

CAP=$EXAMPLES/demo-clockloop.perf.gz

# SAMPLES STACKS of DIR/stacks.folded: the sum of the last fields, lines
file_totals() { awk '{ s += $NF; n++ } END { print s + 0, n + 0 }' "$1/stacks.folded"; }
summary_totals() { sed -n 's/.*: \([0-9]*\) samples in \([0-9]*\) stacks, .*/\1 \2/p' "$1"; }

# LeakSanitizer cannot run under ptrace: the ASan suite's runner would
# fail at its exit for that alone (leaks are the other tests' to find).
traced() { ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 strace -o trace -e trace=open,openat "$@"; }

test_expect_success 'the summary gives the totals fp-render wrote; the runner does not read stacks.folded again' '
	traced flamepipe report "$CAP" -o out 2>err &&
	cat err &&
	test "$(summary_totals err)" = "$(file_totals out)" &&
	test "$(file_totals out | cut -d" " -f1)" -gt 0 &&
	! grep "stacks.folded" trace
'

test_expect_success 'fp-render writing elsewhere than -o: the summary counts the file in -o' '
	sed "s|fp-render --outdir \${OUTDIR}|fp-render --outdir other|" \
		"$EXAMPLES/default.pipeline" >other.pipeline &&
	grep -q "outdir other" other.pipeline &&
	mkdir out2 && printf "a;b 5\na;c 7\n" >out2/stacks.folded &&
	flamepipe report "$CAP" -o out2 --pipeline other.pipeline 2>err &&
	grep "report: .*: 12 samples in 2 stacks, " err &&
	test -s other/stacks.folded
'

test_expect_success 'stacks.folded written by another program: the summary counts the file' '
	sed "s|^render .*|render  sh -c '\''fp-fold --plain >\"\$1/stacks.folded\"'\'' sh \${OUTDIR}|" \
		"$EXAMPLES/default.pipeline" | sed "/^fold /d" >plain.pipeline &&
	grep -q "^render  sh" plain.pipeline &&
	flamepipe report "$CAP" -o out3 --pipeline plain.pipeline 2>err &&
	cat err &&
	test "$(summary_totals err)" = "$(file_totals out3)" &&
	test "$(file_totals out3)" = "$(file_totals out)"
'

test_done
