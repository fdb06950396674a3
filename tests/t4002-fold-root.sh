#!/bin/sh
test_description='fp-fold root frame: comm, --pid, --tid'
. "$(dirname "$0")/test-lib.sh"
D=$DATA/fold

test_expect_success 'the root frame is the comm with spaces changed to _' '
	test_golden "$D/root.comm.folded" fp-fold --plain "$D/root.S"
'

test_expect_success '--pid makes it comm-PID, comm-? when the pid is unknown' '
	fp-fold --plain --pid "$D/root.S" >out &&
	test_cmp "$D/root.pid.folded" out &&
	grep -qx "V8_WorkerThread-?;run 1" out
'

test_expect_success '--tid makes it comm-PID/TID' '
	fp-fold --plain --tid "$D/root.S" >out &&
	test_cmp "$D/root.tid.folded" out &&
	grep -qx "my_prog-10/11;main 1" out
'

test_expect_success '--tid wins over --pid whatever their order' '
	fp-fold --plain --tid --pid "$D/root.S" >out1 &&
	fp-fold --plain --pid --tid "$D/root.S" >out2 &&
	test_cmp "$D/root.tid.folded" out1 &&
	test_cmp "$D/root.tid.folded" out2
'

test_expect_success 'an exited task (:-1 -1) folds under comm :-1, one stack for all' '
	grep -qx ":-1-?/?;native_safe_halt 1" out1
'

test_done
