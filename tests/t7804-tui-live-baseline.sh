#!/bin/sh
test_description='flamepipe live --baseline on a terminal: fp-tui shows the differential (d) live'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf tmux slow
. "$TOP/tests/lib-live.sh"
. "$TOP/tests/lib-tui.sh"
need_perf_sampling 'live capture'

# (the workload's output goes to /dev/null inside it: flamepipe's own
# stdout must stay the terminal for the view to start)
# A baseline in which the workload's function never ran: against it,
# $TARGET grows by its whole share of the live samples.
test_expect_success 'live --baseline without --alert: d lists the workload function as grown' '
	test_when_finished tui_stop &&
	printf "other;idle_loop 1000\nother;poll_wait 500\n" >base.folded &&
	tui_start &&
	tui_run "flamepipe live -F 99 -g --baseline base.folded -- sh -c '"'"'exec $SPIN 60000 >/dev/null'"'"'; echo exit=\$? >rc" &&
	wait_for "tui_has $TARGET" 200 &&
	tui_keys d && tui_wait "diff vs baseline" &&
	wait_for "tui_screen | grep -q \"^ *+[0-9.]* *[0-9.]*% *0.00%  $TARGET\$\"" 200 &&
	# what the baseline had and the capture has not: shrunk to 0 now
	tui_screen | grep -q "^ *-[0-9.]* *0.00% *[0-9.]*%  idle_loop$" &&
	tui_keys q && wait_for tui_at_prompt 200 && wait_for "test -s rc" 100 &&
	grep -q "exit=0" rc
'

test_done
