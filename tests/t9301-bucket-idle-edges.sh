#!/bin/sh
test_description='fp-bucket: only idle samples, out of order (issue 14 #6)'
. "$(dirname "$0")/test-lib.sh"

# An idle sample (pid 0, empty stack) at TIME ns.
idle() { printf "S\t%s\t0\t0\t0\t1\tcpu-clock\tswapper\t\t\n" "$1"; }

# Column 0 moves back with no column counted yet: the re-send of "every
# cell" has none. The sanitizer build reported qsort(NULL, 0) here and
# exited 1 (tests run it with halt_on_error).
test_expect_success 'idle samples only, the second earlier: G twice, no H, exit 0' '
	{ idle 5000000000; idle 3000000000; } | fp-bucket >out 2>err &&
	test ! -s err &&
	printf "G\t50\t5\nG\t50\t3\n" >expect && grep "^[GH]" out >got && test_cmp expect got &&
	grep -q "^I	bucket	samples=2	counted=0	idle=2	cells=0	columns=0	overflow=0	bad=0\$" out
'

test_expect_success 'then a busy sample: counted on the moved axis' '
	{ idle 5000000000; idle 3000000000; printf "S\t4500000000\t7\t7\t0\t1\tcpu-clock\tapp\tu\tmain\n"; } |
		fp-bucket >out 2>err &&
	test ! -s err && grep -qx "H	1	25	1" out
'

test_done
