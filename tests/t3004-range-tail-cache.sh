#!/bin/sh
test_description='fp-range --history 0: the tail cache is bounded, the samples and filters unchanged'
. "$(dirname "$0")/test-lib.sh"

# 250,000 samples of 250,000 distinct tails in two comms: past the
# cache's 200,000 tails it starts again
awk 'BEGIN { printf "%%flamepipe\t1\n"
	for (i = 0; i < 250000; i++)
		printf "S\t%d%09d\t1\t1\t0\t1\tc\t%s\tuu\tmain;f%d\n", 1000 + int(i / 1000), (i % 1000) * 1000000, i % 2 ? "odd" : "even", i }' >in.S

test_expect_success 'every sample passes unchanged; unique_stacks counts since the cache started again' '
	fp-range --history 0 <in.S >out &&
	grep "^S" in.S >want && grep "^S" out | cmp - want &&
	u=$(sed -n "s/^I	range	.*unique_stacks=\([0-9]*\).*/\1/p" out) &&
	test "$u" -le 200000 && test "$u" -gt 0
'

test_expect_success 'a filter gives the same verdicts after the cache started again' '
	fp-range --history 0 --comm odd <in.S | grep -c "^S" >n &&
	test "$(cat n)" = 125000
'

test_expect_success 'with history the tails stay (replays name them)' '
	fp-range --history 300000 <in.S | sed -n "s/^I	range	.*unique_stacks=\([0-9]*\).*/\1/p" >u &&
	test "$(cat u)" = 250000
'

test_done
