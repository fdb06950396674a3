#!/bin/sh
test_description='fp-range: half-open time ranges on the heatmap axis'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-stream.sh"

sample_times() { awk -F '\t' '$1 == "S" { print $2 }'; }

# Column 0 starts at 100 s (G); samples on and around the bounds 1 s and 2 s.
input() {
	printf "G\t50\t100\n"
	s 100500000000; s 100999999999; s 101000000000; s 101500000000
	s 101999999999; s 102000000000; s 102000000001; s 103000000000
}

test_expect_success 'a sample at FROM is kept, a sample at TO is not' '
	input | fp-range --from 1 --to 2 | sample_times >out &&
	printf "%s\n" 101000000000 101500000000 101999999999 >expect &&
	test_cmp expect out
'

test_expect_success 'open ends: only --from, only --to, neither' '
	input | fp-range --from 2 | sample_times >out &&
	printf "%s\n" 102000000000 102000000001 103000000000 >expect && test_cmp expect out &&
	input | fp-range --to 1 | sample_times >out &&
	printf "%s\n" 100500000000 100999999999 >expect && test_cmp expect out &&
	input | fp-range | sample_times >out && test "$(wc -l <out)" = 8
'

test_expect_success 'fractional bounds to the nanosecond' '
	input | fp-range --from 0.999999999 --to 1.999999999 | sample_times >out &&
	printf "%s\n" 100999999999 101000000000 101500000000 >expect &&
	test_cmp expect out
'

test_expect_success 'without a G record the axis starts at floor(first sample)' '
	{ s 7300000000; s 8100000000; s 9000000000; } | fp-range --from 1 --to 2 | sample_times >out &&
	echo 8100000000 >expect && test_cmp expect out
'

test_expect_success 'a G record sets the axis even when samples start later' '
	{ printf "G\t50\t5\n"; s 7300000000; s 8100000000; } | fp-range --from 2 --to 3 | sample_times >out &&
	echo 7300000000 >expect && test_cmp expect out
'

test_expect_success 'a new G while a range is set re-sends the selection on the new axis' '
	{ printf "G\t50\t10\n"; s 11500000000; s 12500000000; printf "G\t50\t9\n"; s 9100000000; } |
	fp-range --from 2 --to 3 >out &&
	printf "%s\n" "C	range	2	3" "C	filter	clear" "G	50	10" "S	12500000000	1	1	0	1	cpu-clock:ppp	app	u	main" \
		"G	50	9" "C	reset" "S	11500000000	1	1	0	1	cpu-clock:ppp	app	u	main" \
		"C	range	2	3" "C	filter	clear" "C	flush" >expect &&
	grep -v "^I" out >got && test_cmp expect got
'

test_expect_success 'disjoint ranges [0,a) [a,b) [b,-) of a real capture add up to the total' '
	fp-read "$EXAMPLES/demo-clockloop.perf.gz" | fp-bucket >in &&
	total=$(grep -c "^S" in) &&
	n1=$(fp-range --to 3.3 <in | grep -c "^S") &&
	n2=$(fp-range --from 3.3 --to 17.02 <in | grep -c "^S") &&
	n3=$(fp-range --from 17.02 <in | grep -c "^S") &&
	echo "$n1 + $n2 + $n3 = $total" &&
	test $n1 -gt 0 && test $n2 -gt 0 && test $n3 -gt 0 &&
	test $((n1 + n2 + n3)) = $total
'

test_expect_success 'bad bounds are usage errors (exit 100)' '
	{ fp-range --from 1.5x </dev/null 2>err; test $? = 100; } && grep -q "from" err &&
	{ fp-range --to -1 </dev/null 2>err; test $? = 100; } &&
	{ fp-range --from 3 --to 2 </dev/null 2>err; test $? = 100; } &&
	{ fp-range --from 1.0000000001 </dev/null 2>err; test $? = 100; }
'

test_done
