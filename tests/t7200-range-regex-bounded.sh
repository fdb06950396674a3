#!/bin/sh
test_description='fp-range: a stack regex costs milliseconds whatever the pattern (PCRE2 with a match limit), and SIGTERM always ends the stage'
. "$(dirname "$0")/test-lib.sh"

# One sample whose stack is FRAMES frames "f" (folded: "f;f;...;f").
# The strings double until long enough: appending one frame at a time
# copies the whole string each time in mawk (12 s for 150,000 frames).
deep_sample() { # FRAMES
	awk -v n="$1" 'BEGIN {
		k = "u"; s = "f;"
		while (length(k) < n) { k = k k; s = s s }
		printf "S\t1000000000\t1\t1\t0\t1\tev\tf\t%s\t%s\n", substr(k, 1, n), substr(s, 1, 2 * n - 1)
	}'
}
deep_sample 150000 >deep.S &&
# 3000 ordinary stacks of 40 distinct frames
awk 'BEGIN { for (i = 0; i < 3000; i++) {
	k = ""; s = "";
	for (j = 0; j < 40; j++) { k = k "u"; s = s (j ? ";" : "") "func_" i "_" j }
	printf "S\t%d\t1\t1\t0\t1\tev\tcomm\t%s\t%s\n", 1000000000 + i * 1000, k, s } }' >many.S

test_expect_success '(f;)*x on a 150,000-frame stack is answered at once' '
	# glibc regexec: quadratic, ~90 s here, deaf to SIGTERM meanwhile
	timeout 10 fp-range --include "(f;)*x" <deep.S >out 2>err &&
	grep -q "^I	range	seen=1	passed=0	" out
'

test_expect_success 'a pattern quadratic at every start position hits the match limit: W record, exit 100, fast' '
	{ timeout 10 fp-range --include "(f;)*[xy]" <deep.S >out 2>err; test $? = 100; } &&
	grep -q "^W	range	stdin:1	include regex: no answer within the match limit (100000 + 16 steps per byte) on a 300001-byte stack$" out &&
	grep -q "^fp-range: stdin:1: include regex: no answer within the match limit" err
'

test_expect_success '(.*;)*zzz on ordinary stacks costs about what a plain regex costs' '
	timeout 10 fp-range --include "(.*;)*zzz" <many.S >out &&
	grep -q "^I	range	seen=3000	passed=0	.*regex_runs=3000$" out &&
	timeout 10 fp-range --exclude "(.*;)*zzz" <many.S >out &&
	test "$(grep -c "^S" out)" = 3000
'

test_expect_success 'a filter set through the control FIFO that hits the limit is removed, the stage keeps running' '
	mkfifo ctl && rm -f out err &&
	# the filter comes once the sample is through, the input ends once the
	# filter is removed (fp-range writes what it has when it waits for input)
	{ cat deep.S; wait_for "grep -qs \"^S	\" out" 100 &&
	  echo "include (f;)*[xy]" >ctl && wait_for "grep -qs \"^C	filter	clear\" out" 100; } |
		timeout 30 fp-range --control ctl >out 2>err &&
	grep -q "^W	range	stdin:1	include regex: no answer within the match limit.*: filter removed$" out &&
	grep -q "^C	filter	clear$" out &&
	grep -q "^C	flush$" out &&
	grep -q "^S	1000000000	1	1	0	1	ev	f	" out &&
	grep -q "^I	range	seen=1	passed=1	" out
'

test_expect_success 'SIGTERM while the stage waits for input after a costly filter: it ends at once' '
	# a fresh out: the previous test left an S record in it (the shell
	# opens >out only once a writer opened the FIFO)
	rm -f out err && mkfifo in || return 1
	fp-range --exclude "(f;)*x" <in >out 2>err &
	pid=$!
	{ cat deep.S; sleep 30; } >in &
	feeder=$!
	test_when_finished "kill $feeder 2>/dev/null"
	# the sample was filtered and written: fp-range now waits for input
	wait_for "grep -q \"^S	1000000000	\" out" 100 &&
	kill -TERM $pid &&
	wait_for "! kill -0 $pid 2>/dev/null" 50 &&
	{ grep -q "^I	range	seen=1	passed=1	" out ||
	  { echo "no final record:"; cut -c1-120 out; cat err; false; }; }
'

test_expect_success 'SIGTERM in the middle of a long filtering run: the stage ends within seconds, final record written' '
	# 100,000 unique stacks, each ~0.3 ms of legal backtracking (under the limit)
	awk "BEGIN { for (i = 0; i < 100000; i++)
		printf \"S\t%d\t1\t1\t0\t1\tev\tc%d\tuuuuuuuuuuuuu\tf;f;f;f;f;f;f;f;f;f;f;f;f\n\", 1000000000 + i, i }" >slow.S && rm -f out err || return 1
	fp-range --include "(f;|f;)*[xy]" <slow.S >out 2>err &
	pid=$!
	sleep 1 &&
	kill -TERM $pid &&
	wait_for "! kill -0 $pid 2>/dev/null" 50 &&
	grep -q "^I	range	seen=" out &&
	seen=$(sed -n "s/^I	range	seen=\([0-9]*\).*/\1/p" out) &&
	test "$seen" -lt 100000
'

test_done
