#!/bin/sh
test_description='flamepipe live --source bpftrace: a live bpftrace profile shows a busy function'
. "$(dirname "$0")/test-lib.sh"
test_tags root bpftrace slow
. "$TOP/tests/lib-live.sh"
need_bpftrace 'live bpftrace'

test_expect_success 'live --source bpftrace --duration -o: the workload started after the capture is in the stacks and the heatmap' '
	flamepipe live --source bpftrace --duration 5 -o out --interval 200 --dir-file dirf 2>err &
	fp=$! &&
	wait_for "test -s out/stacks.folded" 300 &&
	# it stays until the end: bpftrace names user frames from /proc/PID/maps
	# when it prints a sample, which may be late on a busy machine
	{ "$SPIN" 2000 60000 >/dev/null & } &&
	spin=$! &&
	test_when_finished "kill $spin" &&
	wait $fp &&
	{ grep "^live-spin;.*$TARGET [0-9][0-9]*\$" out/stacks.folded ||
	  { echo "no $TARGET; live-spin stacks:"; grep "^live-spin" out/stacks.folded; cat err; false; }; } &&
	test -s out/index.html &&
	# the capture covers several seconds of the heatmap
	test "$(cut -f1 out/heatmap.tsv | sort -u | wc -l)" -ge 3 &&
	test ! -e "$(cat dirf)"
'

test_expect_success 'live --source bpftrace -- COMMAND: ends when the command exits' '
	# the command lingers 4 s after it spins: bpftrace names user frames
	# from /proc/PID/maps when it prints a sample, which on a loaded machine
	# comes late (with the default 0.5 s, 2 of 3 loaded runs had no TARGET)
	flamepipe live --source bpftrace -o out2 -- "$SPIN" 2000 4000 >/dev/null 2>err &&
	{ grep -q "^live-spin;.*$TARGET" out2/stacks.folded ||
	  { echo "no $TARGET; live-spin stacks:"; grep "^live-spin" out2/stacks.folded; cat err; false; }; }
'

test_expect_success 'live --source bpftrace -p PID: only that process is kept' '
	"$SPIN" 8000 >/dev/null &
	spin=$! &&
	test_when_finished "kill $spin" &&
	flamepipe live --source bpftrace -p $spin --duration 3 -o out3 2>err &&
	grep -q "^live-spin;.*$TARGET" out3/stacks.folded &&
	! grep -v "^live-spin;" out3/stacks.folded
'

test_done
