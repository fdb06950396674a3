#!/bin/sh
test_description='fp-fold --pass-samples: each folded stack once (D), each folded sample (R) naming it'
. "$(dirname "$0")/test-lib.sh"

mk_input () {
	printf '%%flamepipe\t1\n'
	printf 'S\t1000\t1\t1\t0\t1\tcycles\tfoo bar\tku\tk1;u1\n'
	printf 'S\t2000\t1\t1\t0\t1\tinstr\tfoo\tu\tu2\n'
	printf 'S\t3000\t1\t1\t0\t1\tcycles\tfoo\tkx\tk1\n'
	printf 'S\t4000\t7\t8\t0\t5\tcycles\tfoo\tu\tu3\n'
	printf 'S\t5000\t7\t9\t2\t0\tcycles\tfoo bar\tku\tk1;u1\n'
	printf 'G\t50\t0\n'
}

test_expect_success 'the default passes no S, D or R record on' '
	mk_input >in &&
	fp-fold in >out &&
	! grep "^[SDR]	" out
'

test_expect_success 'folded samples go on as R records, in order; dropped and bad ones do not' '
	fp-fold --pass-samples in >out 2>err &&
	! grep "^S" out &&
	grep "^R" out | cut -f 3- >got &&
	printf "%s\n" "1000	1	1	0	1	1	cycles	foo bar" "4000	7	8	0	5	1	cycles	foo" \
		"5000	7	9	2	0	1	cycles	foo bar" >expect &&
	test_cmp expect got
'

test_expect_success 'a D record defines each stack once, before its first R, with a kind per frame' '
	grep "^[DR]" out | cut -f 1-4 >got &&
	printf "%s\n" "D	0	-ku	foo_bar;k1;u1" "R	0	1000	1" "D	1	-u	foo;u3" "R	1	4000	7" \
		"R	0	5000	7" >expect &&
	test_cmp expect got
'

test_expect_success 'the folding options shape the D records, the weight the R counts' '
	fp-fold --pass-samples --tid --all --weight period in >out2 2>err &&
	grep -qx "D	0	-ku	foo_bar-1/1;k1_\\[k\\];u1" out2 &&
	grep "^R" out2 | cut -f 8 >counts &&
	printf "1\n5\n1\n" >expect &&
	test_cmp expect counts
'

test_expect_success 'the snapshot is the same with and without --pass-samples' '
	fp-fold in 2>/dev/null | grep -v "^W" >a &&
	fp-fold --pass-samples in 2>/dev/null | grep -v "^[DRW]" >b &&
	test_cmp a b
'

test_expect_success 'C reset keeps the ids: a stack is never defined twice, its counts start again' '
	{ mk_input && printf "C\treset\n" && grep "^S	1000" in; } >in2 &&
	fp-fold --pass-samples in2 >out3 2>err &&
	test "$(grep -c "^D" out3)" = 2 &&
	test "$(grep "^R" out3 | tail -n 1 | cut -f 2)" = 0 &&
	grep -qx "F	1	foo_bar;k1;u1" out3 && grep -qx "C	end	fold	1	1" out3
'

test_expect_success '--pass-samples with --plain is a usage error (exit 100)' '
	{ fp-fold --pass-samples --plain </dev/null 2>err; test $? = 100; } &&
	grep -q "exclude each other" err
'

test_done
