#!/bin/sh
test_description='fp-tui over ssh: report --tui in an ssh -t session on 127.0.0.1, driven in tmux'
. "$(dirname "$0")/test-lib.sh"
test_tags root tmux
command -v /usr/sbin/sshd >/dev/null 2>&1 || skip_all 'ssh session' 'sshd is not installed (openssh-server)'
. "$TOP/tests/lib-sshd.sh"
. "$TOP/tests/lib-tui.sh"
CAPTURE=$EXAMPLES/multiproc.perf.gz

test_expect_success 'over ssh at 80x24: keys select a range, q ends the session cleanly' '
	test_when_finished tui_stop &&
	start_sshd &&
	tui_start && tui_stty stty.before &&
	tui_run "ssh -t -i $SSHD_DIR/user_key -p $SSHD_PORT -o UserKnownHostsFile=$SSHD_DIR/known_hosts -o StrictHostKeyChecking=accept-new root@127.0.0.1 \"cd $PWD && PATH=$PATH flamepipe report $CAPTURE --tui\"; echo exit=\$? >rc" &&
	tui_wait "range all: 2390 samples" 300 &&
	tui_keys l Enter l l k k k k k k k k k k k k Enter &&
	tui_wait "range 1\.\.4 s: 1194 samples" &&
	test "$(tui_root_total)" = 1194 &&
	tui_keys q &&
	wait_for tui_at_prompt 200 && wait_for "test -s rc" 100 &&
	grep -q "exit=0" rc &&
	tui_stty stty.after && test_cmp stty.before stty.after
'

test_done
