#!/bin/sh
test_description='fp-latency updates live: snapshots on SIGUSR1 and every --interval, a final report on SIGTERM or EOF'
. "$(dirname "$0")/test-lib.sh"

# Events come through a FIFO held open by the test, as from a running
# bpftrace; the report must not wait for the end of the input.
start_latency() {
	rm -f in.fifo out err pid && mkfifo in.fifo &&
	{ fp-latency "$@" in.fifo >out 2>err & echo $! >pid; } &&
	# read-write: the open never blocks, even if fp-latency failed to start
	exec 3<>in.fifo
}
stop_writer() { exec 3>&-; }
# SIGUSR1 kills a process that has not installed its handler yet: wait
# until /proc shows it caught (SigCgt bit 10 = signal 10).
usr1_ready() {
	_cgt=$(awk "/^SigCgt:/ { print \$2 }" /proc/"$(cat pid)"/status 2>/dev/null) &&
	test -n "$_cgt" && test $(( 0x$_cgt & 0x200 )) -ne 0
}
usr1_ignored() {
	_ign=$(awk "/^SigIgn:/ { print \$2 }" /proc/"$(cat pid)"/status 2>/dev/null) &&
	test -n "$_ign" && test $(( 0x$_ign & 0x200 )) -ne 0
}

test_expect_success 'SIGUSR1 writes a snapshot while the input is still open' '
	test_when_finished "stop_writer; kill \$(cat pid) 2>/dev/null" &&
	start_latency --window 0 --pair p=s,e &&
	printf "%s\n" "100 1 1 s" "350 1 1 e" >&3 &&
	wait_for usr1_ready 50 &&
	wait_for "grep -q \"lines=2 \" out || { kill -USR1 \$(cat pid); false; }" 50 &&
	grep -q "^# fp-latency snapshot: " out &&
	grep -qx "p	1	250	250	250	0	0	0	0" out &&
	printf "%s\n" "400 1 1 s" >&3 &&
	stop_writer &&
	wait $(cat pid) &&
	grep -q "^# fp-latency final: lines=3 " out &&
	tail -n 6 out | grep -qx "p	1	250	250	250	1	0	0	0"
'

test_expect_success '--interval writes snapshots on its own' '
	test_when_finished "stop_writer; kill \$(cat pid) 2>/dev/null" &&
	start_latency --interval 100ms --window 0 --pair p=s,e &&
	printf "%s\n" "100 1 1 s" "600 1 1 e" >&3 &&
	wait_for "test \$(grep -c \"^# fp-latency snapshot: .*events=2 \" out) -ge 2" 50 &&
	grep -qx "p	1	500	500	500	0	0	0	0" out
'

test_expect_success 'SIGTERM ends the input: pending events are paired, the final report written, exit 0' '
	test_when_finished "stop_writer; kill \$(cat pid) 2>/dev/null" &&
	start_latency --pair p=s,e &&
	# the default 1 s window holds these back until the end
	printf "%s\n" "100 1 1 s" "700 1 1 e" >&3 &&
	wait_for usr1_ready 50 &&
	wait_for "test -s out || { kill -USR1 \$(cat pid); false; }" 50 &&
	grep -q " pending=2\$\| pending=2 " out &&
	kill -TERM $(cat pid) &&
	wait $(cat pid) &&
	grep -q "^# fp-latency final: .* pending=0 " out &&
	tail -n 6 out | grep -qx "p	1	600	600	600	0	0	0	0"
'

test_expect_success 'a SIGUSR1 before the input is open does not kill it' '
	rm -f in.fifo out pid && mkfifo in.fifo &&
	{ fp-latency --pair p=s,e in.fifo >out 2>err & echo $! >pid; } &&
	# blocked in open(2) until a writer comes: no handler yet, SIGUSR1
	# ignored (SigIgn bit 10) once fp-latency runs
	wait_for usr1_ignored 50 &&
	kill -USR1 $(cat pid) &&
	timeout 10 sh -c "printf \"%s\\n\" \"1 1 1 s\" \"4 1 1 e\" >in.fifo" &&
	wait $(cat pid) &&
	grep -qx "p	1	3	3	3	0	0	0	0" out
'

test_done
