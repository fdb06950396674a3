#!/bin/sh
test_description='fp-fold reports bad input and carries on'
. "$(dirname "$0")/test-lib.sh"

good() { printf "S\t1\t1\t1\t0\t1\tcpu-clock\tapp\tu\tf\n"; }

test_expect_success 'a malformed S record gives a W record and a stderr line, and is skipped' '
	{ good; printf "S\t1\t1\t1\t0\t1\tcpu-clock\tapp\tuu\tf\n"; printf "S\tnot\ta\tsample\n";
	  printf "S\t1\tx\t1\t0\t1\tcpu-clock\tapp\tu\tf\n"; good; } >in &&
	fp-fold in >out 2>err &&
	grep "^W" out >got &&
	printf "%s\n" \
		"W	fold	in:2	malformed S record skipped: kinds must have one character per frame" \
		"W	fold	in:3	malformed S record skipped: want 10 or 11 TAB-separated fields (S time_ns pid tid cpu period event comm kinds stack [cgroup])" \
		"W	fold	in:4	malformed S record skipped: time_ns and period must be unsigned decimal, pid, tid and cpu decimal" >expect &&
	test_cmp expect got &&
	grep -qx "fp-fold: in:2: malformed S record skipped: kinds must have one character per frame" err &&
	test $(wc -l <err) = 3 &&
	grep -qx "F	2	app;f" out &&
	grep -qx "I	fold	samples=2	stacks=1	total=2	dropped_event=0	bad_samples=3	resets=0" out
'

test_expect_success 'with --plain the warnings go to stderr only' '
	fp-fold --plain in >out 2>err &&
	echo "app;f 2" >expect &&
	test_cmp expect out &&
	grep -qxF "fp-fold: warning: in:3: malformed S record skipped: want 10 or 11 TAB-separated fields (S time_ns pid tid cpu period event comm kinds stack [cgroup])" err
'

test_expect_success 'a line longer than 1 MiB is skipped with a warning' '
	{ good; awk "BEGIN { printf \"S\t1\t1\t1\t0\t1\tcpu-clock\tapp\tu\t\"; for (i = 0; i < 1100000; i++) printf \"x\"; printf \"\n\" }"; good; } >in &&
	fp-fold in >out 2>err &&
	grep -qx "W	fold	in:2	line longer than 1048576 bytes skipped" out &&
	grep -qx "F	2	app;f" out &&
	fp-fold --plain in >out 2>err &&
	echo "app;f 2" >expect && test_cmp expect out &&
	grep -q "in:2: line longer than 1048576 bytes skipped" err
'

test_expect_success 'a stack of 1 MiB minus a little folds whole' '
	awk "BEGIN { printf \"S\t1\t1\t1\t0\t1\tcpu-clock\tapp\tu\t\"; for (i = 0; i < 1040000; i++) printf \"y\"; printf \"\n\" }" >in &&
	fp-fold --plain in >out &&
	test $(wc -c <out) = $((4 + 1040000 + 3))
'

test_expect_success 'an unknown option is a usage error (exit 100)' '
	{ fp-fold --frobnicate </dev/null 2>err; test $? = 100; } &&
	grep -q "usage: fp-fold" err
'

test_expect_success 'a bad --interval is a usage error (exit 100)' '
	{ fp-fold --interval soon </dev/null 2>err; test $? = 100; } &&
	grep -q "interval" err
'

test_expect_success 'a missing input file is a system error (exit 111)' '
	{ fp-fold no-such-file 2>err; test $? = 111; } &&
	grep -q "^fp-fold: open no-such-file: " err
'

test_done
