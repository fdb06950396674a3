#!/bin/sh
test_description='fp-perfdata: events perf lost are said, not only counted'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

# perf writes to a pipe that is read until the workload starts (perf's
# header and its synthesized records of every process come first), then
# not until the workload is over: perf blocks on its write, its one-page
# ring buffers fill, and the kernel counts what it drops; perf writes
# LOST records when it reads on.
stalled_reader() {
	exec 3<&0 # (dash gives an asynchronous list /dev/null, even with <&0)
	cat <&3 &
	_cat=$!
	wait_for "test -e workload.started" 600 &&
		kill -STOP $_cat &&
		wait_for "test -e workload.done" 600
	kill -CONT $_cat
	wait $_cat
}

test_expect_success 'a capture whose reader stalled has LOST records' '
	perf record -q -B -m 1 -c 1 -e sched:sched_switch -a -g -o - -- \
		sh -c ": >workload.started; for i in \$(seq 300); do /bin/true; done; : >workload.done" \
		2>record.err | stalled_reader >lost.data &&
	fp-perfdata lost.data >out 2>err &&
	grep "^I	read	" out | tr "\t" "\n" >info &&
	grep -E "^(samples|lost_)" info | sed "s/^/# /" &&
	awk -F = "\$1 == \"lost_events\" { exit !(\$2 > 0) }" info
'

test_expect_success 'each LOST record is a note with its count and the count so far' '
	grep "^W	read	lost.data	perf lost [0-9]* events here (its buffer was full; [0-9]* lost so far)" out >said &&
	test -s said &&
	grep -q "^fp-perfdata: lost.data: perf lost [0-9]* events here" err
'

test_expect_success 'the notes add up to the I record'"'"'s count, or say they were cut' '
	total=$(awk -F = "\$1 == \"lost_events\" { print \$2 }" info) &&
	records=$(awk -F = "\$1 == \"lost_records\" { print \$2 }" info) &&
	last=$(sed -n "\$s/.*; \([0-9]*\) lost so far.*/\1/p" said) &&
	if test "$(wc -l <said)" = "$records"
	then
		test "$last" = "$total"
	else # past ten notes: counted, and said to be
		grep -q "more .note. warnings not shown" out
	fi
'

test_expect_success 'the samples perf kept are written, each as it is' '
	fp-perfdata -q --off-cpu off lost.data >raw &&
	kept=$(awk -F = "\$1 == \"samples\" { print \$2 }" info) &&
	test "$(grep -c "^S	" raw)" = "$kept" &&
	test "$kept" -gt 0
'

test_done
