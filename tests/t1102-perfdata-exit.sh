#!/bin/sh
test_description='fp-perfdata: processes that start and exit during a capture'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

test_expect_success 'a process exiting mid-capture: same samples, seconds and stacks' '
	# the process tree of the workload (perf follows its children): other
	# processes of a loaded machine add naming differences that are not
	# under test here (t1100 is the system-wide comparison)
	pd_record exit.data -g -F 999 -- sh -c "
		\"$BUSY\" 300 t1 1000 & \"$BUSY\" 200 t2 1000; wait
		for i in 1 2 3 4 5; do \"$BUSY\" 50 t3 500; done
		sleep 0.3" &&
	pd_compare exit.data
'

test_expect_success 'each short-lived process keeps its own comm and maps' '
	fp-perfdata exit.data >s &&
	awk -F "\t" "\$1 == \"S\" && \$10 ~ /fp_busy_spin_marker/ { print \$3 }" s | sort -u >pids &&
	test "$(wc -l <pids)" -ge 5
'

test_done
