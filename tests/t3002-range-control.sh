#!/bin/sh
test_description='fp-range: changing range and filters through the control FIFO'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-stream.sh"

# The samples: column 0 is 10 s; one sample per half second.
samples() {
	printf "G\t50\t10\n"
	s 10000000000 1 app; s 10500000000 2 gzip; s 11000000000 1 app
	s 11500000000 2 gzip; s 12000000000 1 app; s 12500000000 2 gzip
}
# batch N: the Nth block "C reset ... C flush" of out, without the S times'
# other fields.
batch() { awk -F '\t' -v want="$1" '$1 == "C" && $2 == "reset" { n++ } n == want { print ($1 == "S" ? "S " $2 : $0) } $1 == "C" && $2 == "flush" && n == want { exit }' out; }

test_expect_success 'range 1 2: C reset, the matching history, C range, C filter, C flush' '
	start_range &&
	samples >&9 &&
	wait_for "test \$(grep -c \"^S\" out) = 6" 50 &&
	echo "range 1 2" >ctl &&
	wait_for "grep -q \"^C	flush\" out" 50 &&
	batch 1 >got &&
	printf "%s\n" "C	reset" "S 11000000000" "S 11500000000" "C	range	1	2" "C	filter	clear" "C	flush" >expect &&
	test_cmp expect got &&
	stop_range
'

test_expect_success 'samples arriving after a change are filtered by the new selection' '
	start_range &&
	samples >&9 &&
	wait_for "test \$(grep -c \"^S\" out) = 6" 50 &&
	echo "range 0.5 -" >ctl &&
	wait_for "grep -q \"^C	flush\" out" 50 &&
	echo "comm gzip" >ctl &&
	wait_for "test \$(grep -c \"^C	flush\" out) = 2" 50 &&
	s 13000000000 1 app >&9 && s 13500000000 2 gzip >&9 &&
	stop_range &&
	sed -n "/^C	flush/,\$p" out | tail -n +2 | awk -F "\t" "\$1 == \"S\" { print \$2 }" | tail -n 1 >got &&
	echo 13500000000 >expect && test_cmp expect got &&
	batch 2 >got &&
	printf "%s\n" "C	reset" "S 10500000000" "S 11500000000" "S 12500000000" \
		"C	range	0.5	-" "C	filter	comm gzip" "C	flush" >expect &&
	test_cmp expect got
'

test_expect_success 'commands written together are applied together with one replay' '
	start_range &&
	samples >&9 &&
	wait_for "test \$(grep -c \"^S\" out) = 6" 50 &&
	printf "pid 1,2\ncpu 0\nexclude ^gzip\ninclude main\n" >ctl &&
	wait_for "grep -q \"^C	flush\" out" 50 &&
	stop_range &&
	test "$(grep -c "^C	reset" out)" = 1 &&
	batch 1 | grep "^C	filter" >got &&
	printf "%s\n" "C	filter	pid 1,2" "C	filter	cpu 0" "C	filter	include main" "C	filter	exclude ^gzip" >expect &&
	test_cmp expect got
'

test_expect_success 'a bad control line gives a W record and a warning; fp-range carries on' '
	start_range &&
	samples >&9 &&
	wait_for "test \$(grep -c \"^S\" out) = 6" 50 &&
	echo "rnage 1 2" >ctl &&
	wait_for "grep -q \"^W\" out" 50 &&
	echo "include (" >ctl &&
	wait_for "test \$(grep -c \"^W\" out) = 2" 50 &&
	echo "range 2 -" >ctl &&
	wait_for "grep -q \"^C	flush\" out" 50 &&
	stop_range &&
	grep "^W" out >got &&
	printf "%s\n" "W	range	ctl:1	unknown command (expected range, pid, tid, cpu, comm, event, include, exclude, container, clear or replay): \"rnage 1 2\"" >expect &&
	head -n 1 got | test_cmp expect - &&
	grep -q "^W	range	ctl:2	bad regex: .*\"include (\"\$" got &&
	grep -q "^fp-range: warning: ctl:1: unknown command" err &&
	batch 1 >got &&
	printf "%s\n" "C	reset" "S 12000000000" "S 12500000000" "C	range	2	-" "C	filter	clear" "C	flush" >expect &&
	test_cmp expect got
'

test_expect_success 'clear turns everything off; replay and SIGHUP re-send unchanged' '
	start_range --pid 2 --from 1 &&
	samples >&9 &&
	wait_for "test \$(grep -c \"^S\" out) = 2" 50 &&
	echo replay >ctl &&
	wait_for "grep -q \"^C	flush\" out" 50 &&
	kill -HUP $pid &&
	wait_for "test \$(grep -c \"^C	flush\" out) = 2" 50 &&
	echo clear >ctl &&
	wait_for "test \$(grep -c \"^C	flush\" out) = 3" 50 &&
	stop_range &&
	batch 1 >b1 && batch 2 >b2 && test_cmp b1 b2 &&
	printf "%s\n" "C	reset" "S 11500000000" "S 12500000000" "C	range	1	-" "C	filter	pid 2" "C	flush" >expect &&
	test_cmp expect b1 &&
	test "$(batch 3 | grep -c "^S")" = 6 &&
	grep -q "	replays=3	replayed=10	" out
'

test_expect_success 'the control FIFO it created is removed at exit; an existing FIFO is kept' '
	start_range && stop_range && ! test -e ctl &&
	mkfifo ctl2 &&
	fp-range --control ctl2 </dev/null >out && test -p ctl2
'

test_expect_success 'a control path that is not a FIFO is refused (exit 100)' '
	echo x >notfifo &&
	{ fp-range --control notfifo </dev/null >out 2>err; test $? = 100; } &&
	grep -q "not a FIFO" err
'

test_done
