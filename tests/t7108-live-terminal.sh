#!/bin/sh
test_description='flamepipe live on a terminal: density glyphs without colour, the hottest functions and where the files are at the end'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf
. "$TOP/tests/lib-live.sh"
need_perf_sampling 'live on a terminal'
command -v tmux >/dev/null 2>&1 || { skip_all 'live on a terminal' 'tmux is not installed'; }

# A real terminal: tmux runs live (on a private server socket) and the
# test reads the screen. ENV: extra environment for live.
SOCK=fp-t7108-$$
run_in_tmux() { # ENV
	tmux -L "$SOCK" new-session -d -x 120 -y 60 \
		"cd '$TRASH' && env $1 PATH='$PATH' flamepipe live -F 499 -g --term heatmap -o tt -- '$SPIN' 1500; echo EXITED \$?; sleep 600" &&
	wait_for "tmux -L $SOCK capture-pane -p -S -200 | grep -q \"^EXITED\"" 600 &&
	tmux -L "$SOCK" capture-pane -p -e -J -S -200 >pane &&
	tmux -L "$SOCK" kill-server
}
trap 'tmux -L "$SOCK" kill-server 2>/dev/null' EXIT

test_expect_success 'NO_COLOR: the heatmap is density glyphs, no colour escape; the end names the hottest functions and the files' '
	rm -rf tt && run_in_tmux NO_COLOR=1 &&
	grep -q "^EXITED 0" pane &&
	! grep -q "$(printf "\033")\[48;" pane &&
	grep "^ *[0-9]*ms " pane | grep -q "[.:=+*#%@-]" &&
	sed -n "/hottest by self/,/hottest by total/p" pane >self &&
	grep -q "%  *[0-9]*  $TARGET$" self &&
	sed -n "/hottest by total/,\$p" pane | grep -q "%  *[0-9]*  $TARGET$" &&
	grep -q "the recording is tt/recording.fp.gz" pane &&
	grep -q "the report is in tt/" pane
'

test_expect_success 'with colour: the same heatmap drawn with background colours' '
	rm -rf tt && run_in_tmux TERM=xterm-256color &&
	grep -q "^EXITED 0" pane &&
	grep -q "$(printf "\033")\[48;5;" pane
'

test_done
