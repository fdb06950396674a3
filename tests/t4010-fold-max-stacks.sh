#!/bin/sh
test_description='fp-fold --max-stacks: the table stays bounded, the totals stay exact'
. "$(dirname "$0")/test-lib.sh"

# 1000 samples of 1000 distinct stacks, in two comms
awk 'BEGIN { printf "%%flamepipe\t1\n"
	for (i = 0; i < 1000; i++)
		printf "S\t%d\t1\t1\t0\t1\tc\t%s\tuu\tmain;f%d\n", 1000000000 + i, i % 2 ? "odd" : "even", i }' >in.S

test_expect_success 'past N distinct stacks new ones are counted under COMM;[more distinct stacks ...]' '
	fp-fold --plain --max-stacks 100 <in.S >f 2>err &&
	test "$(wc -l <f)" = 102 &&
	test "$(awk "{ n += \$NF } END { print n }" f)" = 1000 &&
	grep -q "^even;\[more distinct stacks than --max-stacks\] 450$" f &&
	grep -q "^odd;\[more distinct stacks than --max-stacks\] 450$" f &&
	test "$(grep -c "more than 100 distinct stacks" err)" = 1
'

test_expect_success 'a stack already in the table goes on being counted as itself' '
	{ cat in.S; grep "	main;f7$" in.S; } | fp-fold --plain --max-stacks 100 >f 2>/dev/null &&
	grep -q "^odd;main;f7 2$" f
'

test_expect_success 'the I record counts the overflowed samples; without the option nothing is bounded' '
	fp-fold --max-stacks 100 <in.S 2>/dev/null | grep -q "^I	fold	.*overflow_samples=900" &&
	test "$(fp-fold --plain <in.S | wc -l)" = 1000
'

test_done
