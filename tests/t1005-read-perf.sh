#!/bin/sh
test_description='fp-read on a real perf capture made here: the workload function and its busy seconds'
. "$(dirname "$0")/test-lib.sh"
test_tags perf
BUSY=$TOP/build/tests/busy-phases

# perf's timestamps on CLOCK_MONOTONIC (-k), so they can be compared with
# the seconds busy-phases reports: busy, idle, busy (about 3.5 s in all).
capture() {
	perf record --no-bpf-event -k CLOCK_MONOTONIC -g -F 999 -o - -- "$BUSY" 101 phases \
		2>record.err >perf.data &&
	perf script -i - <perf.data >cap.perf 2>script.err &&
	test -s cap.perf
}

need_capture 'real capture' capture

test_expect_success 'every sample of the capture is read' '
	fp-read cap.perf >s &&
	n=$(grep -c "^S	" s) &&
	raw=$(awk_count_samples cap.perf) &&
	echo "S=$n raw=$raw" &&
	test "$n" -gt 100 && test "$n" = "$raw" &&
	grep -q "^I	read	.*	samples=$n	.*	bad_lines=0	" s
'

test_expect_success 'the workload function is in the folded stacks, under its comm' '
	fp-read cap.perf | fp-fold >out &&
	grep "^F	" out | grep "	busy-phases;.*fp_read_test_hot_loop" >hot &&
	total=$(awk -F "	" "{ t += \$2 } END { print t + 0 }" hot) &&
	echo "fp_read_test_hot_loop: $total samples" &&
	test "$total" -gt 100
'

test_expect_success 'its busy seconds are the hot columns of the heatmap, the idle one is cold' '
	fp-read cap.perf | fp-bucket --rows 10 >h &&
	base=$(awk -F "	" "\$1 == \"G\" { b = \$3 } END { print b }" h) &&
	awk -F "	" -v base="$base" "
		\$1 == \"G\" { delete cell }
		\$1 == \"H\" { cell[\$2 \" \" \$3] = \$4 }
		END { for (k in cell) { split(k, a, \" \"); col[a[1] + base] += cell[k] }
		      for (s in col) print s, col[s] }" h | sort -n >columns &&
	cat phases columns &&
	awk "NR == FNR { kind[\$2] = \$1; next }
	     { n[\$1] = \$2 }
	     END { for (s in kind) {
			c = n[s] + 0
			if (kind[s] == \"busy\" && c < 30) { print \"busy second \" s \" has \" c; bad = 1 }
			if (kind[s] == \"idle\" && c > 5) { print \"idle second \" s \" has \" c; bad = 1 }
		   }
		   exit bad }" phases columns
'

test_expect_success 'the workload samples fall in the busy seconds only' '
	fp-read cap.perf |
	awk -F "	" "\$1 == \"S\" && \$10 ~ /fp_read_test_hot_loop/ { print int(\$2 / 1000000000) }" |
	sort -n | uniq -c >hot-seconds &&
	cat hot-seconds &&
	awk "\$1 == \"busy\" { print \$2 }" phases >busy &&
	awk "{ print \$2 }" hot-seconds >got &&
	test_cmp busy got
'

test_done
