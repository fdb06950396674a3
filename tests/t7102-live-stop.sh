#!/bin/sh
test_description='flamepipe live: SIGINT/SIGTERM mid-capture leave no perf, no FIFO, a complete report'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf
. "$TOP/tests/lib-live.sh"
need_perf_sampling 'live stop'

# Starts a capture, waits until it runs, notes its perf processes and FIFO
# dir, sends the signal, and checks what is left. Extra args go to live.
stop_with() { # SIGNAL [live args]
	sig=$1; shift
	rm -rf out dirf || return 1
	flamepipe live -g -o out --interval 200 --dir-file dirf "$@" >out.txt 2>err &
	fp=$!
	wait_for "test -s out/stacks.folded" 100 &&
	children=$(pgrep -P $fp) &&
	perfs=$(pgrep -P $fp -x perf) &&
	# perf record (and perf script with --source perf-script)
	test "$(echo $perfs | wc -w)" = "${PERFS:-1}" &&
	dir=$(cat dirf) && test -d "$dir" && test -n "$(find "$dir" -type p)" &&
	kill -$sig $fp &&
	{ wait $fp || { echo "live exited $?"; cat err; false; }; } &&
	for p in $children; do
		if kill -0 $p 2>/dev/null; then echo "pid $p is still there"; ps -p $p; return 1; fi
	done &&
	test ! -e "$dir" &&
	report_complete out &&
	# no temporary file of an interrupted write left behind
	no_temp_files out &&
	fp-read -q out/recording.fp.gz | grep -q "^S" &&
	grep -q "$sig: stopping" err
}

test_expect_success 'SIGINT mid-capture: exit 0, no perf left, no FIFO dir, complete report' '
	stop_with INT
'

test_expect_success 'SIGTERM mid-capture: the same' '
	stop_with TERM
'

test_expect_success 'SIGTERM with the web view running: the server goes too' '
	stop_with TERM --http 127.0.0.1:0 &&
	grep -q "listening on" out.txt
'

test_expect_success 'SIGINT with --source perf-script (perf record and perf script): the same' '
	PERFS=2 stop_with INT --source perf-script
'

test_expect_success 'SIGINT right after the start: still clean' '
	rm -rf out dirf &&
	{ flamepipe live -g -o out --dir-file dirf >out.txt 2>err & } &&
	fp=$! &&
	wait_for "test -s dirf" 100 &&
	dir=$(cat dirf) &&
	kill -INT $fp &&
	wait $fp;
	test $? -le 2 &&
	test ! -e "$dir" &&
	! pgrep -P $fp
'

test_done
