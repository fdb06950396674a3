#!/bin/sh
test_description='flamepipe live: SIGINT/SIGTERM mid-capture leave no perf, no FIFO, a complete report'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf

if ! command -v perf >/dev/null 2>&1; then
	test_skip 'live stop' 'perf is not installed'; test_done
fi
if ! perf stat -a -e cpu-clock -- true >/dev/null 2>perf.err; then
	test_skip 'live stop' "perf_event_open refused: $(head -n 1 perf.err)"; test_done
fi

report_complete() { # DIR
	for f in index.html heatmap.svg flame.svg heatmap.tsv heatmap.json stacks.folded; do
		test -s "$1/$f" || { echo "missing $1/$f"; return 1; }
	done
	tail -c 200 "$1/index.html" | grep -q "</html>" &&
	python3 -m json.tool "$1/heatmap.json" >/dev/null &&
	# no temporary file of an interrupted write left behind
	! ls -A "$1" | grep "^\."
}

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
	test $(echo $perfs | wc -w) = "${PERFS:-1}" &&
	dir=$(cat dirf) && test -d "$dir" && test -n "$(find "$dir" -type p)" &&
	kill -$sig $fp &&
	{ wait $fp || { echo "live exited $?"; cat err; false; }; } &&
	for p in $children; do
		if kill -0 $p 2>/dev/null; then echo "pid $p is still there"; ps -p $p; return 1; fi
	done &&
	test ! -e "$dir" &&
	report_complete out &&
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
