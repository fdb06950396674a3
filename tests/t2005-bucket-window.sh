#!/bin/sh
test_description='fp-bucket --window-columns: a bounded heatmap in memory over hours'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-stream.sh"

# secs N PER: N seconds of PER samples each, in time order (a live capture)
secs() {
	awk -v n="$1" -v per="$2" 'BEGIN {
		for (i = 0; i < n * per; i++)
			printf "S\t%.0f\t1\t1\t0\t1\tcpu-clock:ppp\tapp\tu\tmain\n", 1e9 + i * 1e9 / per
	}'
}

test_expect_success 'in time order, the heatmap downstream is the same with a window' '
	secs 40 20 >in &&
	fp-bucket <in | cells >whole &&
	fp-bucket --window-columns 5 <in >out &&
	cells <out >windowed &&
	test_cmp whole windowed &&
	test "$(grep -c "^S" out)" = 800 && ! grep -q "^W" out
'

test_expect_success 'past the window, the oldest columns leave memory: window_dropped= in I' '
	secs 40 20 | fp-bucket --window-columns 5 >out &&
	grep -q "^I	bucket	samples=800	counted=800	idle=0	cells=[0-9]*	columns=40	overflow=0	bad=0	window_dropped=35	late=0\$" out
'

# Column 1 s left memory when the 7th second came (window 5): a sample of
# it that comes after cannot add to the count already sent, so it is not
# counted (its cell keeps its value downstream), passed on, told once.
test_expect_success 'a sample older than the window: passed on, not counted, one W, late= in I' '
	{ secs 10 1; s 1500000000; s 1600000000; s 10500000000; } |
	fp-bucket --window-columns 5 >out 2>err &&
	test "$(grep -c "^S" out)" = 13 &&
	test "$(grep -c "^W" out)" = 1 && grep -q "window-columns 5" err &&
	grep -q "^I	bucket	samples=13	counted=11	idle=0	.*	window_dropped=5	late=2\$" out &&
	cells <out >got && grep -q "^0 0 1\$" got && grep -q "^9 25 1\$" got
'

test_expect_success 'once columns left memory, an earlier sample moves no column 0 (no new G)' '
	{ secs 10 1; s 500000000; } | fp-bucket --window-columns 3 >out &&
	test "$(grep -c "^G" out)" = 1 && grep -q "late=1\$" out
'

test_expect_success 'C reset starts again: the window and its floor with it' '
	{ secs 10 1; printf "C\treset\n"; s 1500000000; } |
	fp-bucket --window-columns 3 >out &&
	grep -q "late=0\$" out && cells <out >got && printf "0 25 1\n" >expect && test_cmp expect got
'

test_expect_success 'without --window-columns, the I record has no window fields' '
	secs 3 1 | fp-bucket >out &&
	grep -q "^I	bucket	samples=3	counted=3	idle=0	cells=3	columns=3	overflow=0	bad=0\$" out
'

test_expect_success '--window-columns 0 or not a number: usage error (exit 100)' '
	{ fp-bucket --window-columns 0 </dev/null 2>err; test $? = 100; } &&
	grep -q "window-columns" err &&
	{ fp-bucket --window-columns x </dev/null 2>err; test $? = 100; }
'

# 30,000 seconds (8.3 hours) at 500 rows: 30,000 columns of 4.5 kB, 135 MB
# held without a window; with 60 columns, the memory of 60.
test_expect_success 'memory: 8 hours of columns in the RSS of the window alone' '
	secs 30000 1 >long &&
	/usr/bin/time -f %M -o kb fp-bucket --rows 500 --window-columns 60 <long >out &&
	grep -q "columns=30000	overflow=0	bad=0	window_dropped=29940	late=0\$" out &&
	limit=20000 && { [ -z "${FP_ASAN:-}" ] || limit=400000; } &&
	echo "peak RSS $(cat kb) kB" && test "$(cat kb)" -lt $limit &&
	/usr/bin/time -f %M -o kb2 fp-bucket --rows 500 <long >/dev/null &&
	echo "without the window: $(cat kb2) kB" && test "$(cat kb2)" -gt 100000
'

test_done
