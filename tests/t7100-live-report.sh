#!/bin/sh
test_description='flamepipe live: a real perf capture through the live chain into -o DIR'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf slow
. "$TOP/tests/lib-live.sh"
# Skip only when this machine cannot sample at all.
need_perf_sampling 'live capture'

test_expect_success 'live --duration -o: the report files, with a workload started after the capture' '
	flamepipe live -g --duration 4 -o out --interval 200 --dir-file dirf 2>err &
	fp=$! &&
	# the capture is running once the first interval output appears
	wait_for "test -s out/stacks.folded" 100 &&
	"$SPIN" 1000 >/dev/null &&
	wait $fp &&
	report_complete out &&
	grep "^live-spin;.*$TARGET [0-9][0-9]*\$" out/stacks.folded &&
	grep -q "stopped after" err &&
	test ! -e "$(cat dirf)"
'

test_expect_success 'live -- COMMAND: profiles the command and ends when it exits' '
	flamepipe live -g -o out -- "$SPIN" 1000 >/dev/null 2>err &&
	report_complete out &&
	grep -q "^live-spin;.*$TARGET" out/stacks.folded
'

test_expect_success 'live -p PID --duration: only that process' '
	"$SPIN" 4000 >/dev/null &
	spin=$! &&
	test_when_finished "kill $spin" &&
	flamepipe live -g -p $spin --duration 2 -o out 2>err &&
	report_complete out &&
	grep -q "^live-spin;.*$TARGET" out/stacks.folded &&
	! grep -v "^live-spin;" out/stacks.folded
'

test_expect_success 'live without -g: single-frame stacks still name the function' '
	flamepipe live -F 99 -o out -- "$SPIN" 1000 >/dev/null 2>err &&
	grep -q "^live-spin;$TARGET [0-9]" out/stacks.folded
'

test_expect_success 'live --user nobody: perf record and fp-perfdata keep root, every other stage runs as nobody' '
	flamepipe live -g -u nobody --duration 3 -o outu --http 127.0.0.1:0 --exit-at-end >out.txt 2>err &
	fp=$! &&
	wait_for "ps -o args= --ppid $fp | grep -q \"^perf record\"" 100 &&
	wait_for "ps -o args= --ppid $fp | grep -q \"^fp-perfdata\"" 100 &&
	ps -o user=,args= --ppid $fp >users &&
	{ wait $fp || { echo "live exited $?"; cat err; false; }; } &&
	grep "^root *perf record" users &&
	grep "^root *fp-perfdata" users &&
	# and the runner'"'"'s watchdog (runner/watchdog.h), which kills nothing but
	# the stages'"'"' groups when the runner dies
	{ ! grep -v "^root *perf \|^root *fp-perfdata\|^root *flamepipe live" users | grep -v "^nobody " || { cat users; false; }; } &&
	test "$(stat -c %U outu/stacks.folded)" = nobody &&
	# kernel frames are named (fp-perfdata read kallsyms as root)
	grep -q "do_syscall_64\|entry_SYSCALL_64\|do_idle\|asm_sysvec_apic_timer_interrupt" outu/stacks.folded
'

test_expect_success 'live --source perf-script --user nobody: perf record and perf script keep root' '
	flamepipe live --source perf-script -g -u nobody --duration 3 -o outs >out.txt 2>err &
	fp=$! &&
	wait_for "ps -o args= --ppid $fp | grep -q \"^perf script\"" 100 &&
	ps -o user=,args= --ppid $fp >users &&
	{ wait $fp || { echo "live exited $?"; cat err; false; }; } &&
	grep "^root *perf record" users &&
	grep "^root *perf script" users &&
	grep -q "^nobody *fp-read" users &&
	grep -q "do_syscall_64\|entry_SYSCALL_64\|do_idle\|asm_sysvec_apic_timer_interrupt" outs/stacks.folded
'

# live_args DIR [OPTION]...: a 3-s `flamepipe live -g -o DIR` with the
# options; its stages' command lines (once fp-fold runs) into args
live_args() {
	_dir=$1
	shift
	flamepipe live -g --duration 3 -o "$_dir" "$@" >/dev/null 2>err &
	_fp=$!
	wait_for "ps -o args= --ppid $_fp | grep -q \"^fp-fold \"" 100 &&
	ps -o args= --ppid $_fp >args &&
	{ wait $_fp || { echo "live exited $?"; cat err; false; }; }
}

test_expect_success 'live -o DIR alone: fp-fold makes no timed snapshots (nothing reads them)' '
	live_args outi &&
	grep -q "^fp-fold .*--interval 0 " args &&
	report_complete outi
'

test_expect_success 'live -o DIR --http: fp-fold snapshots every 500 ms for the web view' '
	live_args outh --http 127.0.0.1:0 --exit-at-end &&
	grep -q "^fp-fold .*--interval 500 " args &&
	report_complete outh
'

test_done
