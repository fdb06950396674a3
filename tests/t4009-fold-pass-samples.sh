#!/bin/sh
test_description='fp-fold --pass-samples: folded S records go on, after C fold-options'
. "$(dirname "$0")/test-lib.sh"

mk_input () {
	printf '%%flamepipe\t1\n'
	printf 'S\t1000\t1\t1\t0\t1\tcycles\tfoo bar\tku\tk1;u1\n'
	printf 'S\t2000\t1\t1\t0\t1\tinstr\tfoo\tu\tu2\n'
	printf 'S\t3000\t1\t1\t0\t1\tcycles\tfoo\tkx\tk1\n'
	printf 'S\t4000\t7\t8\t0\t5\tcycles\tfoo\tu\tu3\n'
	printf 'G\t50\t0\n'
}

test_expect_success 'the default passes no S record on' '
	mk_input >in &&
	fp-fold in >out &&
	! grep "^S" out && ! grep "fold-options" out
'

test_expect_success 'folded samples are passed on unchanged, in order; dropped and bad ones are not' '
	fp-fold --pass-samples in >out 2>err &&
	grep "^S" out >got &&
	grep "^S" in | sed -n "1p;4p" >expect &&
	test_cmp expect got
'

test_expect_success 'C fold-options comes once, before the first sample' '
	grep -n "" out | grep -E "^[0-9]+:(C	fold-options|S)" | head -1 >first &&
	grep -q "fold-options	root=comm	kernel=0	jit=0	event-root=0	weight=samples" first &&
	test "$(grep -c fold-options out)" = 1
'

test_expect_success 'fold-options names the folding options' '
	fp-fold --pass-samples --tid --all --weight period in >out 2>err &&
	grep -qx "C	fold-options	root=tid	kernel=1	jit=1	event-root=0	weight=period" out
'

test_expect_success 'the snapshot is the same with and without --pass-samples' '
	fp-fold in 2>/dev/null | grep -v "^W" >a &&
	fp-fold --pass-samples in 2>/dev/null | grep -v "^[SW]" | grep -v fold-options >b &&
	test_cmp a b
'

test_expect_success '--pass-samples with --plain is a usage error (exit 100)' '
	{ fp-fold --pass-samples --plain </dev/null 2>err; test $? = 100; } &&
	grep -q "exclude each other" err
'

test_done
