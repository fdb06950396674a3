#!/bin/sh
test_description='flamepipe live on a terminal: fp-tui while perf records, driven in tmux'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf tmux slow
. "$TOP/tests/lib-live.sh"
. "$TOP/tests/lib-tui.sh"
need_perf_sampling 'live capture'

# The shell has the terminal back, in the mode it had, and live said how
# the capture went.
restored() {
	wait_for tui_at_prompt 200 && wait_for "test -s rc" 100 &&
	tui_stty stty.after && test_cmp stty.before stty.after &&
	tui_has "flamepipe: live: stopped after"
}

# A workload that notes when it starts (its first instruction is date),
# then burns CPU in $TARGET for MS milliseconds.
workload() { # MS
	echo "sh -c 'date +%s.%N >t0; exec $SPIN $1 >/dev/null'"
}

test_expect_success 'the workload shows in the live tree within 1 s of its start' '
	test_when_finished tui_stop &&
	tui_start && tui_stty stty.before &&
	tui_run "flamepipe live -F 99 -g -- $(workload 4000); echo exit=\$? >rc" &&
	wait_for "tui_has $TARGET" 200 && t1=$(date +%s.%N) &&
	t0=$(cat t0) &&
	elapsed=$(echo "$t0 $t1" | awk "{ printf \"%.2f\", \$2 - \$1 }") &&
	echo "$TARGET shown $elapsed s after the workload started" >latency &&
	# a machine busier than its cores (the tests share it) gets 5 s
	bound=$(awk -v n="$(nproc)" "{ print (\$1 > n) ? 5 : 1 }" /proc/loadavg) &&
	awk -v e="$elapsed" -v b="$bound" "BEGIN { exit !(e <= b) }" &&
	tui_has "flamepipe live  live" &&
	# the capture ends with the workload; the view stays until q
	tui_wait "live, ended" 200 &&
	test ! -s rc &&
	tui_keys q && restored && grep -q "exit=0" rc
'
# the measured time, in the TAP output
test -f latency && say "# $(cat latency)"

test_expect_success 'a range picked while the capture runs: its tree counts its cells' '
	test_when_finished tui_stop &&
	tui_start && tui_stty stty.before &&
	tui_run "flamepipe live -F 99 -g -- $(workload 4000); echo exit=\$? >rc" &&
	wait_for "tui_has $TARGET" 200 &&
	# the newest second, its whole height: Enter at the bottom, Enter at the top
	tui_keys j j j j j j j j j j Enter k k k k k k k k k k Enter &&
	tui_wait " range [0-9.]*\.\.[0-9.]* s: " &&
	tui_range >range && read from to shown <range &&
	test "$(tui_root_total)" = "$shown" && test "$shown" -gt 0 &&
	tui_keys q && restored
'

test_expect_success 'with -o and --http: q leaves a complete report; M shows the web view URL' '
	test_when_finished tui_stop &&
	tui_start && tui_stty stty.before &&
	tui_run "flamepipe live -F 99 -g -o out --http 127.0.0.1:0 --dir-file dirf -- $(workload 60000); echo exit=\$? >rc" &&
	wait_for "tui_has $TARGET" 200 &&
	# fp-tui takes any snapshot form: fp-fold writes deltas for fp-render and
	# fp-serve, which heal after a restart (fifo/PROTOCOL.md)
	runner=$(ps -eo ppid=,args= | awk -v d="$(cat dirf)" "\$2 == \"fp-tui\" && index(\$0, d) { print \$1 }") &&
	ps -o args= --ppid "$runner" | grep "^fp-fold .*--delta-snapshots" &&
	tui_keys M && tui_wait "fp-serve: listening on http://127.0.0.1:" &&
	url=$(tui_screen | grep -o "http://127.0.0.1:[0-9]*/" | head -n 1) &&
	curl -sf "${url}heatmap/?filename=live" >heat.json &&
	jq -e ".columns | length > 0" heat.json &&
	tui_keys x q && restored && grep -q "exit=0" rc &&
	report_complete out &&
	grep -q "^live-spin;.*$TARGET" out/stacks.folded &&
	! tui_has "exited with code 141"
'

test_expect_success 'Ctrl-C stops the live capture and gives the terminal back' '
	test_when_finished tui_stop &&
	tui_start && tui_stty stty.before &&
	tui_run "flamepipe live -F 99 -g -- $(workload 60000); echo exit=\$? >rc" &&
	wait_for "tui_has $TARGET" 200 &&
	tui_keys C-c && restored && grep -q "exit=0" rc
'

test_expect_success 'SIGTERM to flamepipe stops the live capture and gives the terminal back' '
	test_when_finished tui_stop &&
	tui_start && tui_stty stty.before &&
	printf "echo \$\$ >pid\nexec flamepipe live -F 99 -g -- %s\n" "$(workload 60000)" >live.sh &&
	tui_run "sh live.sh; echo exit=\$? >rc" &&
	wait_for "tui_has $TARGET" 200 &&
	kill -TERM "$(cat pid)" &&
	# at once: not after the 15 s drain of the runner: the view waits for no input end
	wait_for tui_at_prompt 80 && restored
'

test_expect_success 'live --term heatmap: the heatmap drawing of before, no fp-tui' '
	test_when_finished tui_stop &&
	tui_start && tui_stty stty.before &&
	tui_run "flamepipe live -F 99 --term heatmap -- $(workload 3000); echo exit=\$? >rc" &&
	tui_wait "flamepipe heatmap" 200 &&
	wait_for "test -s rc" 200 && grep -q "exit=0" rc
'

test_done
