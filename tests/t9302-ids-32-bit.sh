#!/bin/sh
test_description='pid, tid and cpu >= 2^31: one rule in every stage (issue 14 #6)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-render.sh"

# S record with pid PID, tid TID, cpu CPU.
s() { printf "S\t1000000000\t%s\t%s\t%s\t1\tcpu-clock\tapp\tu\tmain\n" "$1" "$2" "$3"; }

# The heatmap (fp-bucket) counted such a sample, fp-range dropped it: the
# flame graph had one sample fewer than the heatmap.
test_expect_success 'S with pid, tid or cpu >= 2^31: dropped alike by fp-bucket, fp-range, fp-fold' '
	{ s 4294967296 7 0; s 7 4294967297 0; s 7 7 4294967296; s 7 7 2147483648; s -2 7 0;
	  s 7 7 1; s 2147483647 2147483647 2147483647; } >ids.S &&
	fp-bucket <ids.S 2>bucket.err | fp-range 2>range.err | fp-fold >out 2>fold.err &&
	grep -q "^I	bucket	samples=2	counted=2	.*bad=5\$" out &&
	grep -qx "F	2	app;main" out &&
	test "$(grep -c "malformed S record" bucket.err)" = 5 &&
	test ! -s range.err &&
	fp-fold <ids.S >fold.out 2>fold.err &&
	grep -q "bad_samples=5" fold.out &&
	test "$(grep -c "pid, tid and cpu must be -1 .. 2147483647" fold.err)" = 5
'

test_expect_success 'fp-read: a pid, tid or cpu perf printed >= 2^31 becomes -1 (unknown)' '
	printf "app 4294967296/4294967297 [4294967296] 1.000000: 1 cpu-clock: \n\tffff main+0x1 (/bin/app)\n\n" >big.perf &&
	fp-read big.perf >out &&
	grep -q "^S	1000000000	-1	-1	-1	1	cpu-clock	app	u	main\$" out
'

test_expect_success 'report: heatmap total = flame graph total with such ids' '
	printf "app 4294967296/4294967297 [000] 1.000000: 1 cpu-clock: \n\tffff main+0x1 (/bin/app)\n\napp 7/7 [4294967296] 1.100000: 1 cpu-clock: \n\tffff main+0x1 (/bin/app)\n\n" >two.perf &&
	flamepipe report -q two.perf -o o &&
	test "$(awk -F "\t" "NR > 1 { t += \$3 } END { print t }" o/heatmap.tsv)" = 2 &&
	test "$(folded_total o/stacks.folded)" = 2
'

test_done
