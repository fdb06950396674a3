#!/bin/sh
test_description='flamepipe live: clear messages for a missing or refused perf, and usage errors'
. "$(dirname "$0")/test-lib.sh"

FLAMEPIPE=$FP_BIN/flamepipe
code_is() { # CODE COMMAND...: runs it, checks the exit code
	want=$1; shift
	"$@"; rc=$?
	test $rc = $want || { echo "exit code $rc, expected $want"; return 1; }
}

test_expect_success 'perf not installed: says so and how to install it (exit 111)' '
	code_is 111 env PATH=/nonexistent "$FLAMEPIPE" live -o out 2>err &&
	grep "live: perf is not installed" err &&
	grep -q "apt-get install linux-perf" err
'

test_expect_success 'bpftrace not installed: says so (exit 111)' '
	code_is 111 env PATH=/nonexistent "$FLAMEPIPE" live --source bpftrace -o out 2>err &&
	grep "live: bpftrace is not installed" err
'

if command -v setpriv >/dev/null 2>&1 && test_have root perf &&
   [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ] && command -v perf >/dev/null; then
	test_expect_success 'not root with perf_event_paranoid >= 1: -a is refused with advice' '
		code_is 111 setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$FLAMEPIPE" live -o /nonexistent/out 2>err &&
		grep "the kernel refuses system-wide profiling (-a): you are not root" err &&
		grep -q "perf_event_paranoid is [0-9]" err &&
		grep -q "sysctl -w kernel.perf_event_paranoid=-1" err
	'
	test_expect_success 'not root: --source bpftrace needs root' '
		if command -v bpftrace >/dev/null; then
			code_is 111 setpriv --reuid=65534 --regid=65534 --clear-groups \
				"$FLAMEPIPE" live --source bpftrace -o /nonexistent/out 2>err &&
			grep "needs root" err
		fi
	'
else
	test_skip 'not root: refused with advice' 'needs root, setpriv and perf_event_paranoid >= 1'
fi

test_expect_success 'nothing to show (stdout not a tty, no -o, no --http): usage error' '
	code_is 100 flamepipe live </dev/null >out.txt 2>err &&
	grep "nothing to show" err
'

test_expect_success 'option errors are usage errors (exit 100)' '
	code_is 100 flamepipe live -a -p 1 -o out 2>err && grep "exclude each other" err &&
	code_is 100 flamepipe live -p 1 -o out -- true 2>err && grep "exclude each other" err &&
	code_is 100 flamepipe live -p 1x -o out 2>err && grep "bad process id" err &&
	code_is 100 flamepipe live -F 0 -o out 2>err && grep "^flamepipe: -F: bad value" err &&
	code_is 100 flamepipe live --source dtrace -o out 2>err && grep "expected perf, perf-script or bpftrace" err &&
	code_is 100 flamepipe live --duration 0 -o out 2>err &&
	code_is 100 flamepipe live --rows 0 -o out 2>err &&
	code_is 100 flamepipe live --http host: -o out 2>err &&
	code_is 100 flamepipe live --http 99999 -o out 2>err &&
	code_is 100 flamepipe live --name a/b -o out 2>err
'

test_expect_success 'a pipeline file error names the file and line' '
	printf "record perf record -o - \${RECORD_ARGS}\nbad restart=sometimes cat\n" >bad.pipeline &&
	if perf stat -a -e cpu-clock -- true >/dev/null 2>&1; then
		code_is 100 flamepipe live --pipeline bad.pipeline -o out 2>err &&
		grep "bad.pipeline:2: stage .bad.: bad restart policy" err
	fi
'

test_expect_success 'help lists the options' '
	flamepipe live --help >help &&
	grep -q -- "--http \[ADDR:\]PORT" help &&
	grep -q -- "--source perf|perf-script|bpftrace" help
'

test_done
