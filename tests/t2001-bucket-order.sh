#!/bin/sh
test_description='fp-bucket: out-of-order samples, far-future times, bounded columns, reset'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-stream.sh"
D=$DATA/bucket

# order.S: a sample a little before column 0, then one two seconds before
# it, each followed by C flush: a new G, then every non-empty cell again
# with its new column (written by hand in order.expect).
test_expect_success 'an earlier sample moves column 0: new G, every cell re-sent (golden)' '
	test_golden "$D/order.expect" fp-bucket <"$D/order.S"
'

# Each C flush makes fp-bucket write its cells before the next earlier
# sample moves column 0, so the stream holds H lines at old columns (0 0,
# 0 5, 5 0) that a consumer must drop on G: one that kept them would end
# with 8 cells, not 5.
test_expect_success 'a consumer that drops cells on G ends with the right heatmap' '
	{ s 20000000000; s 21000000000; printf "C\tflush\n"; s 15100000000
	  printf "C\tflush\n"; s 15000000000; s 14999999999; } | fp-bucket >stream &&
	awk -F "\t" "\$1 == \"H\" { h = 1 } \$1 == \"G\" && h { g++ } END { exit g != 2 }" stream &&
	cells <stream >out &&
	printf "%s\n" "0 49 1" "1 0 1" "1 5 1" "6 0 1" "7 0 1" >expect &&
	test_cmp expect out
'

test_expect_success 'several rebases before a flush re-send the cells once' '
	{ s 50000000000; s 40000000000; s 30000000000; s 20000000000; } | fp-bucket >out &&
	grep -c "^G" out >n.G && echo 4 >expect && test_cmp expect n.G &&
	grep -c "^H" out >n.H && echo 4 >expect && test_cmp expect n.H
'

test_expect_success 'a far-future timestamp costs one column, not a gap (small RSS, fast)' '
	{ s 1000000000; s 9000000000000000000; s 2000000000; } >in &&
	/usr/bin/time -f %M -o kb fp-bucket --rows 1000 <in >out &&
	cells <out >got &&
	printf "%s\n" "0 0 1" "1 0 1" "8999999999 0 1" >expect &&
	test_cmp expect got &&
	limit=20000 && { [ -z "${FP_ASAN:-}" ] || limit=400000; } &&
	echo "peak RSS $(cat kb) kB" && test "$(cat kb)" -lt $limit
'

test_expect_success 'columns beyond --max-columns: passed on, not counted, one W, overflow= in I' '
	{ s 1000000000; s 2000000000; s 3000000000; s 4000000000; s 3500000000; } |
	fp-bucket --max-columns 2 >out 2>err &&
	test "$(grep -c "^W" out)" = 1 && grep -q "max-columns" err &&
	test "$(grep -c "^S" out)" = 5 &&
	grep -q "^I	bucket	samples=5	counted=2	idle=0	cells=2	columns=2	overflow=3	bad=0\$" out
'

test_expect_success 'C reset empties the heatmap on the same axis (G again) and passes on' '
	{ s 5000000000; printf "C\treset\n"; s 6000000000; } | fp-bucket >out &&
	grep -v "^S" out >got &&
	printf "%s\n" "G	50	5" "G	50	5" "C	reset" "H	1	0	1" \
		"I	bucket-event	samples=2	counted=1	event=cpu-clock:ppp" \
		"I	bucket	samples=2	counted=2	idle=0	cells=1	columns=1	overflow=0	bad=0" >expect &&
	test_cmp expect got
'

test_done
