# shellcheck shell=sh
# tests/lib-tui.sh: driving fp-tui in a real terminal (t78xx): a private
# tmux server (its own socket, so nothing of the user's tmux is touched)
# with one 80x24 window running sh in the test's directory, the prompt
# "tui-test$ ". Source after test-lib.sh; the script is tagged tmux.
#
#	tui_start           the server and its shell (kill it: tui_stop); removes
#	                    ./rc and ./pid, where the tests' commands leave their
#	                    exit code and process id
#	tui_run CMD         types CMD and Enter
#	tui_keys KEY...     tmux send-keys (Enter, Tab, Escape, C-c, l, ...)
#	tui_screen          the screen as text (capture-pane -p)
#	tui_wait TEXT [N]   waits (N x 0.1 s, default 100) until TEXT is on the screen
#	tui_at_prompt       the screen's last non-blank line is the prompt
#	                    (the TUI is gone, the shell has the terminal back)
#	tui_stty FILE       `stty -a` of the window's terminal into FILE
#	tui_root_total      the call tree's root row's sample count
#	tui_range           the status line's range, "FROM TO COUNT"
TUI_SOCK=
TUI_PROMPT='tui-test$ '

tui_tmux() { tmux -L "$TUI_SOCK" "$@"; }
tui_start() {
	rm -f rc pid	# what the previous test's command left (the scripts share a directory)
	TUI_SOCK=fptui.$$.$(date +%s%N)	# a server of its own for each test
	tui_tmux -f /dev/null new-session -d -x 80 -y 24 -s t \
		"cd '$PWD' && exec env PS1='$TUI_PROMPT' ENV= sh -i" &&
	wait_for tui_at_prompt 100
}
tui_stop() { tui_tmux kill-server 2>/dev/null || true; }
tui_run() { tui_tmux send-keys -t t -l "$1" && tui_tmux send-keys -t t Enter; }
tui_keys() { tui_tmux send-keys -t t "$@"; }
tui_screen() { tui_tmux capture-pane -p -t t; }
tui_has() { tui_screen | grep -q -- "$1"; }
tui_wait() { wait_for "tui_has '$1'" "${2:-100}" || { tui_screen; false; }; }
tui_at_prompt() {
	# (capture-pane drops the blanks that end a line)
	test "$(tui_screen | grep -v '^ *$' | tail -n 1)" = "${TUI_PROMPT% }"
}
tui_stty() {
	rm -f "$1" && tui_run "stty -a >$1.tmp && mv $1.tmp $1" && wait_for "test -s $1" 100
}
tui_root_total() {
	tui_screen | awk '$4 == "-" && $5 == "all" && $6 == "(the" { print $3; exit }'
}
tui_range() {
	tui_screen | sed -n '1s/.* range \([0-9.]*\)\.\.\([0-9.]*\) s: \([0-9]*\) samples.*/\1 \2 \3/p'
}
