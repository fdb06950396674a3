#!/bin/sh
test_description='fp-range: the sample history behind replays'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-stream.sh"

batch_samples() { awk '/^C	reset/ { n++ } n == '"${2:-1}"' && /^S/ { print } /^C	flush/ && n == '"${2:-1}"' { exit }' "$1"; }

test_expect_success 'replayed samples are byte-identical to the input lines (real capture)' '
	fp-read "$EXAMPLES/demo-clockloop.perf.gz" | fp-bucket --keep-idle >in &&
	total=$(grep -c "^S" in) &&
	start_range &&
	cat in >&9 &&
	wait_for "test \$(grep -c \"^S\" out) = $total" 100 &&
	echo "range 3.3 17.02" >ctl &&
	wait_for "grep -q \"^C	flush\" out" 100 &&
	echo clear >ctl &&
	wait_for "test \$(grep -c \"^C	flush\" out) = 2" 100 &&
	stop_range &&
	fp-range --from 3.3 --to 17.02 <in | grep "^S" >expect &&
	batch_samples out 1 >got && test_cmp expect got &&
	grep "^S" in >expect &&
	batch_samples out 2 >got && test_cmp expect got
'

test_expect_success '--history N keeps the newest N samples; one W record says so' '
	start_range --history 3 &&
	{ s 1000000000; s 1100000000; s 1200000000; s 1300000000; s 1400000000; } >&9 &&
	wait_for "test \$(grep -c \"^S\" out) = 5" 50 &&
	echo replay >ctl &&
	wait_for "grep -q \"^C	flush\" out" 50 &&
	stop_range &&
	test "$(grep -c "^W" out)" = 1 &&
	grep -q "^W	range	stdin:4	history full (3 samples): oldest samples dropped" out &&
	batch_samples out | cut -f 2 >got &&
	printf "%s\n" 1200000000 1300000000 1400000000 >expect && test_cmp expect got &&
	grep -q "	history=3	unique_stacks=1	history_dropped=2	" out
'

test_expect_success '--history 0: a change resets downstream and applies to new samples only' '
	start_range --history 0 &&
	s 1000000000 >&9 &&
	wait_for "grep -q \"^S\" out" 50 &&
	echo "range 0.5 -" >ctl &&
	wait_for "grep -q \"^C	flush\" out" 50 &&
	s 1200000000 >&9 && s 1700000000 >&9 &&
	stop_range &&
	grep -v "^I" out | cut -f 1,2 >got &&
	printf "%s\n" "S	1000000000" "C	reset" "C	range" "C	filter" "C	flush" "S	1700000000" >expect &&
	test_cmp expect got
'

test_expect_success 'an upstream C reset empties the history (upstream re-sends)' '
	{ s 1000000000; printf "C\treset\n"; s 1500000000; } | fp-range >out &&
	grep -q "^I	range	seen=2	passed=2	history=1	" out
'

test_expect_success 'a bad --history is a usage error (exit 100)' '
	{ fp-range --history lots </dev/null 2>err; test $? = 100; } && grep -q "history" err
'

test_done
