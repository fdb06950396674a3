#!/bin/sh
test_description='remote capture over ssh, the perf script way (fp-ssh --perf-script, live --ssh --remote-script): a throwaway sshd on 127.0.0.1 is the host'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf slow
. "$TOP/tests/lib-sshd.sh"
SPIN=$TOP/build/tests/live-spin

if [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null 2>&1; then
	test_skip 'remote capture' 'openssh-server / openssh-client is not installed'; test_done
fi
if ! perf stat -a -e cpu-clock -- true >/dev/null 2>perf.err; then
	test_skip 'remote capture' "perf_event_open refused: $(head -n 1 perf.err)"; test_done
fi
start_sshd || { echo "Bail out! no sshd on 127.0.0.1"; exit 1; }

test_expect_success 'the throwaway sshd takes the throwaway key on 127.0.0.1 only' '
	ssh -T -o BatchMode=yes -i "$SSHD_DIR/user_key" -p "$SSHD_PORT" \
		-o UserKnownHostsFile="$SSHD_DIR/known_hosts" -o StrictHostKeyChecking=accept-new \
		root@127.0.0.1 echo remote-ok >out 2>err &&
	test "$(cat out)" = remote-ok &&
	grep -q "Server listening on 127.0.0.1 port $SSHD_PORT" "$SSHD_DIR/log" &&
	! grep -q "Server listening on 0.0.0.0\|Server listening on ::" "$SSHD_DIR/log"
'

test_expect_success 'fp-ssh --duration: perf script text from the host, the workload in it, perf gone after' '
	{ "$SPIN" 5000 >/dev/null & } &&
	{ fp-ssh --perf-script $SSH_OPTS --duration 2 root@127.0.0.1 -F 499 -a -g >cap.perf 2>err ||
	  { echo "fp-ssh exited $?:"; cat err; false; }; } &&
	fp-read cap.perf >s 2>rerr &&
	n=$(grep -c "^S	" s) && echo "samples=$n" && test "$n" -gt 100 &&
	grep -q flamepipe_live_spin_target s &&
	wait_for "test -z \"\$(sshd_sessions)\"" 100
'

test_expect_success 'SIGTERM to fp-ssh stops the remote perf, which writes its end: exit 0, nothing left' '
	fp-ssh --perf-script $SSH_OPTS root@127.0.0.1 -F 499 -a >cap2.perf 2>err2 &
	fp=$! &&
	wait_for "test -s cap2.perf" 100 &&
	sshd_sessions >sessions && test -s sessions &&
	perfs=$(sshd_perf_pids) && test -n "$perfs" &&
	kill -TERM $fp && wait $fp &&
	grep -q "perf record: Captured and wrote" err2 &&
	test "$(awk_count_samples cap2.perf)" -gt 0 &&
	wait_for "test -z \"\$(sshd_sessions)\"" 100 &&
	wait_for "pids_gone $perfs" 100
'

test_expect_success 'every argument reaches the remote shell quoted as given' '
	fp-ssh --perf-script $SSH_OPTS root@127.0.0.1 -F 499 -a -e "cpu-clock" -- sh -c "sleep 1; echo \"a b\" >&2" \
		>cap3.perf 2>err3 &&
	grep -q "^a b\$" err3 &&
	fp-read cap3.perf | grep "^S	" | cut -f 7 | sort -u >events &&
	test "$(cat events)" = cpu-clock
'

test_expect_success 'an unreachable host: ssh'"'"'s 255, said on stderr, no hang' '
	fp-ssh --ssh-arg -p --ssh-arg $((SSHD_PORT + 100)) --ssh-arg -o --ssh-arg ConnectTimeout=3 \
		root@127.0.0.1 -a >x 2>err4
	test $? = 255 && grep -qi "connect\|refused" err4
'

test_expect_success 'flamepipe live --ssh --remote-script: the capture reaches the live heatmap; Ctrl-C leaves no remote perf' '
	command -v curl >/dev/null 2>&1 || { echo "no curl: skipped"; return 0; }
	flamepipe live --ssh root@127.0.0.1 --remote-script $SSH_OPTS -F 499 -g --http 127.0.0.1:0 --exit-at-end --no-term \
		-o rep >live.out 2>live.err &
	fp=$! &&
	wait_for "grep -q \"listening on http\" live.err live.out 2>/dev/null" 200 &&
	url=$(sed -n "s/.*listening on \(http:[^ ]*\).*/\1/p" live.err live.out | head -n 1) &&
	echo "url=$url" &&
	wait_for "curl -sf \"\${url}heatmap/?filename=live\" | grep -q \"\\\"columns\\\":\\[0\"" 300 &&
	{ "$SPIN" 6000 >/dev/null & } &&	# sampling runs: the workload now
	wait_for "curl -sf \"\${url}flamegraph/?filename=live\" | grep -q flamepipe_live_spin_target" 300 &&
	sshd_sessions >sessions && test -s sessions &&
	perfs=$(sshd_perf_pids) && test -n "$perfs" &&
	{ end_live $fp || { echo "live exited $?"; cat live.err; false; }; } &&
	grep -q "flamepipe: live: stopped after" live.err &&
	grep -q flamepipe_live_spin_target rep/stacks.folded &&
	wait_for "test -z \"\$(sshd_sessions)\"" 100 &&
	wait_for "pids_gone $perfs" 100
'

test_expect_success 'usage errors: no host, bad --duration' '
	fp-ssh >/dev/null 2>err; test $? = 100 &&
	fp-ssh --duration x host 2>err; test $? = 100 &&
	fp-ssh --script-arg -F host 2>err; test $? = 100 && grep -q "goes with --perf-script" err
'

test_done
