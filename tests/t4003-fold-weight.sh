#!/bin/sh
test_description='fp-fold --weight samples|period'
. "$(dirname "$0")/test-lib.sh"
D=$DATA/fold

test_expect_success 'the default weight counts each sample once' '
	test_golden "$D/weight.samples.folded" fp-fold --plain "$D/weight.S"
'

test_expect_success '--weight samples is the default' '
	test_golden "$D/weight.samples.folded" fp-fold --plain --weight samples "$D/weight.S"
'

test_expect_success '--weight period sums periods in 64 bits; a period of 0 counts 1' '
	fp-fold --plain --weight period "$D/weight.S" >out &&
	test_cmp "$D/weight.period.folded" out &&
	grep -qx "big;huge 3000000000000000000" out &&
	grep -qx "app;main;work 3000001" out
'

test_expect_success 'counts saturate at 2^64-1 instead of wrapping' '
	printf "S\t1\t1\t1\t0\t%s\tcpu-clock\tx\tu\tf\n" \
		18446744073709551615 18446744073709551615 >in &&
	fp-fold --plain --weight period in >out &&
	echo "x;f 18446744073709551615" >expect &&
	test_cmp expect out
'

test_expect_success 'a bad --weight is a usage error (exit 100)' '
	{ fp-fold --weight bytes </dev/null 2>err; test $? = 100; } &&
	grep -q "want samples or period" err
'

test_done
