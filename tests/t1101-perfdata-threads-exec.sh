#!/bin/sh
test_description='fp-perfdata: a process with threads that execs under another name'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

test_expect_success 'threads and the exec rename: same samples, seconds and stacks' '
	ln -s "$TOP/build/tests/pd-threads" renamed-prog &&
	pd_record thr.data -g -F 999 -- "$TOP/build/tests/pd-threads" 600 ./renamed-prog &&
	pd_compare thr.data
'

test_expect_success 'samples before the exec carry the old comm, after it the new one' '
	fp-perfdata thr.data >s &&
	awk -F "\t" "\$1 == \"S\" { print \$8 }" s | uniq >comms &&
	cat comms &&
	grep -qx pd-threads comms && grep -qx renamed-prog comms &&
	test "$(head -n 1 comms)" = pd-threads
'

test_expect_success 'the threads are told apart: three tids in each image' '
	awk -F "\t" "\$1 == \"S\" && \$8 == \"pd-threads\" { print \$4 }" s | sort -u >tids &&
	test "$(wc -l <tids)" = 3 &&
	awk -F "\t" "\$1 == \"S\" && \$10 ~ /spin_until/ { print \$3 }" s | sort -u >pids &&
	test "$(wc -l <pids)" = 1
'

test_done
