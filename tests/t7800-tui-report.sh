#!/bin/sh
test_description='flamepipe report --tui: fp-tui on a real capture, driven in tmux'
. "$(dirname "$0")/test-lib.sh"
test_tags tmux
. "$TOP/tests/lib-tui.sh"
. "$TOP/tests/lib-events.sh"
CAPTURE=$EXAMPLES/multiproc.perf.gz

# The report in the view, the whole capture counted.
start_report() { # [ENV=VALUE]
	tui_start &&
	tui_stty stty.before &&
	tui_run "$* flamepipe report $CAPTURE --tui; echo exit=\$? >rc" &&
	tui_wait "range all: 2390 samples"
}

# The shell has the terminal back, in the mode it had.
restored() {
	wait_for tui_at_prompt 100 && wait_for "test -s rc" 100 &&
	tui_stty stty.after && test_cmp stty.before stty.after
}

test_expect_success 'keys select a range; the tree root counts what report --from/--to counts' '
	test_when_finished tui_stop &&
	start_report &&
	# second 1 at its start, Enter; two seconds on, up to the end of the second, Enter
	tui_keys l Enter l l k k k k k k k k k k k k Enter &&
	tui_wait "range 1\.\.4 s:" &&
	tui_range >range && read from to shown <range &&
	test "$(tui_root_total)" = "$shown" &&
	flamepipe report "$CAPTURE" --from "$from" --to "$to" -o rep -q &&
	test "$(folded_total rep/stacks.folded)" = "$shown" &&
	test "$shown" -gt 0 && test "$shown" -lt 2390 &&
	# Esc: the whole capture again
	tui_keys Escape && tui_wait "range all: 2390 samples" &&
	test "$(tui_root_total)" = 2390 &&
	tui_keys q && restored && grep -q "exit=0" rc
'

test_expect_success 'a range of one cell: the tree counts that cell alone' '
	test_when_finished tui_stop &&
	start_report &&
	tui_keys l l Enter Enter &&
	tui_wait "range 2\.\." &&
	tui_range >range && read from to shown <range &&
	flamepipe report "$CAPTURE" --from "$from" --to "$to" -o rep -q &&
	test "$(folded_total rep/stacks.folded)" = "$shown" &&
	test "$(tui_root_total)" = "$shown" &&
	tui_keys q && restored
'

test_expect_success 'the tree opens and closes; bottom-up and functions name the hottest leaf' '
	test_when_finished tui_stop &&
	start_report &&
	tui_keys Tab j &&
	tui_wait "+ mp-sort-merge" && tui_keys l && tui_wait "start_thread" &&
	tui_keys h && wait_for "! tui_has start_thread" &&
	tui_keys b && tui_wait "\[Bottom-up\]" &&
	tui_screen | grep -q "+ compare_keys" &&
	tui_keys F && tui_wait "\[Functions\]" &&
	tui_screen | grep "compare_keys" | head -n 1 >fn &&
	grep -q "^ *[0-9.]*% *[0-9.]*% *[0-9]* *[0-9]*  compare_keys" fn &&
	tui_keys q && restored
'

test_expect_success 'search: / finds a frame deep in the tree and opens the path to it' '
	test_when_finished tui_stop &&
	start_report &&
	! tui_has "emit_literal" &&
	tui_keys / && tui_tmux send-keys -t t -l emit_lit && tui_keys Enter &&
	tui_wait "\* *[0-9.]*% .*emit_literal" &&
	tui_keys q && restored
'

test_expect_success '? shows the keys; any key closes the help' '
	test_when_finished tui_stop &&
	start_report &&
	tui_keys ? && tui_wait "fp-tui keys" && tui_wait "quit (the terminal is restored)" &&
	tui_keys j && wait_for "! tui_has \"fp-tui keys\"" &&
	tui_keys q && restored
'

test_expect_success 'the terminal is restored after Ctrl-C' '
	test_when_finished tui_stop &&
	start_report &&
	tui_keys C-c && restored && grep -q "exit=0" rc
'

test_expect_success 'the terminal is restored after SIGTERM to flamepipe' '
	test_when_finished tui_stop &&
	tui_start && tui_stty stty.before &&
	tui_run "sh -c '"'"'echo \$\$ >pid; exec flamepipe report $CAPTURE --tui'"'"'; echo exit=\$? >rc" &&
	tui_wait "range all: 2390 samples" &&
	kill -TERM "$(cat pid)" &&
	# at once: not after the 5 s drain of the runner: the view waits for no input end
	wait_for tui_at_prompt 40 && restored
'

test_expect_success 'the terminal is restored after fp-tui dies of SIGSEGV' '
	test_when_finished tui_stop &&
	tui_start && tui_stty stty.before &&
	tui_run "sh -c '"'"'echo \$\$ >pid; exec flamepipe report $CAPTURE --tui'"'"'; echo exit=\$? >rc" &&
	tui_wait "range all: 2390 samples" &&
	tui=$(ps -o pid=,args= --ppid "$(cat pid)" | awk "\$2 == \"fp-tui\" { print \$1 }") &&
	test -n "$tui" && kill -SEGV "$tui" &&
	restored &&
	# the view died: the report says a stage failed
	! grep -q "exit=0" rc
'

test_expect_success 'NO_COLOR: cell levels are distinct characters; with colour, distinct colours' '
	test_when_finished tui_stop &&
	start_report NO_COLOR=1 &&
	tui_screen | sed -n "2,10p" | cut -c8- >heat &&
	# at least three levels of the ramp " .:-=+*#%@" among the cells
	test "$(tr -cd ".:=+*#%@-" <heat | fold -w1 | sort -u | wc -l)" -ge 3 &&
	tui_tmux capture-pane -p -e -t t | sed -n "2,10p" >heat.esc &&
	! grep -q "48;5;" heat.esc &&
	tui_keys q && restored &&
	rm -f rc && tui_run "flamepipe report $CAPTURE --tui; echo exit=\$? >rc" &&
	tui_wait "range all: 2390 samples" &&
	# with colour: the levels are background colours, three at least
	tui_tmux capture-pane -p -e -t t | sed -n "2,10p" >heat.esc &&
	test "$(grep -o "48;5;[0-9]*" heat.esc | sort -u | wc -l)" -ge 3 &&
	tui_keys q && restored
'

test_expect_success 'report --tui -o DIR: the view and the report files' '
	test_when_finished tui_stop &&
	tui_start && tui_stty stty.before &&
	tui_run "flamepipe report $CAPTURE --tui -o out; echo exit=\$? >rc" &&
	tui_wait "range all: 2390 samples" &&
	wait_for "test -s out/stacks.folded" &&
	tui_keys q && restored && grep -q "exit=0" rc &&
	test "$(folded_total out/stacks.folded)" = 2390
'

test_expect_success '--max-samples: the oldest samples go, and the screen says how many' '
	test_when_finished tui_stop &&
	tui_start && tui_stty stty.before &&
	tui_run "fp-read $CAPTURE | fp-bucket | fp-fold --pass-samples | fp-tui --max-samples 100; echo exit=\$? >rc" &&
	tui_wait "range all: 100 samples" &&
	tui_has "the oldest 2290 samples were let go" &&
	test "$(tui_root_total)" = 100 &&
	tui_keys q && restored && grep -q "exit=0" rc
'

test_expect_success 'fp-tui folds S records itself: the same tree as fp-fold --pass-samples gives' '
	test_when_finished tui_stop &&
	tui_start && tui_stty stty.before &&
	tui_run "fp-read $CAPTURE | fp-bucket | fp-tui; echo exit=\$? >rc" &&
	tui_wait "range all: 2390 samples" &&
	tui_keys Tab j l && tui_wait "- mp-sort-merge" &&
	tui_screen | grep -q "607   - mp-sort-merge" &&
	tui_keys q && restored
'

test_expect_success 'in a background job the view does not take the terminal from the shell' '
	test_when_finished tui_stop &&
	tui_start && tui_stty stty.before &&
	tui_run "flamepipe report $CAPTURE --tui 2>bg.err & wait \$!; echo exit=\$? >rc" &&
	wait_for "test -s rc" 200 && grep -q "exit=2" rc &&
	grep -q "^fp-tui: /dev/tty belongs to another job: run it in the foreground" bg.err &&
	wait_for tui_at_prompt 100 &&
	tui_stty stty.after && test_cmp stty.before stty.after
'

test_expect_success 'fp-tui without a terminal: a clear error and exit 100' '
	fp-read "$CAPTURE" | fp-bucket | fp-fold --pass-samples | { setsid fp-tui 2>err; echo $? >rc2; } &&
	test "$(cat rc2)" = 100 &&
	grep -q "^fp-tui: open /dev/tty: .*fp-tui draws on a terminal" err
'

test_done
