#!/bin/sh
test_description='a skipped over-long line is counted in the I statistics, not only warned about (issue 14 #7)'
. "$(dirname "$0")/test-lib.sh"

# Two S records, the second over FP_LINE_MAX (1 MiB): each stage skips it
# with a W; its I record said samples=1 as if the input had one sample.
test_expect_success 'fp-bucket, fp-range, fp-fold: too_long=1 in I, a W each, exit 0' '
	{ printf "S\t1000000000\t7\t7\t0\t1\tcpu-clock\tapp\tu\tmain\n" &&
	  printf "S\t1000000000\t7\t7\t0\t1\tcpu-clock\tapp\tu\t" && head -c 1100000 /dev/zero | tr "\0" x && echo; } >long.S &&
	fp-bucket <long.S >b.out 2>b.err && fp-range <long.S >r.out 2>r.err && fp-fold <long.S >f.out 2>f.err &&
	grep -q "^I	bucket	.*	bad=0	too_long=1\$" b.out &&
	grep -q "^I	range	.*	regex_runs=0	too_long=1\$" r.out &&
	grep -q "^I	fold	samples=1	.*	resets=0	too_long=1\$" f.out &&
	for s in b r f; do grep -q "^W	.*	stdin:2	line longer than 1048576 bytes skipped" $s.out || return 1; done
'

test_expect_success 'no over-long line: no too_long key (the I records stay as they were)' '
	head -1 long.S | fp-fold >f1.out &&
	grep -q "^I	fold	samples=1	stacks=1	total=1	dropped_event=0	bad_samples=0	resets=0\$" f1.out
'

test_expect_success 'through the chain: the page lists the stages that skipped a line' '
	fp-bucket <long.S 2>/dev/null | fp-range 2>/dev/null | fp-fold --pass-samples 2>/dev/null |
		fp-render --outdir o 2>/dev/null &&
	grep -q "too_long=1" o/index.html
'

test_done
