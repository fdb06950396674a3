#!/bin/sh
test_description='remote capture over ssh, cheap for the host: perf record only there, perf.data read here, files fetched over ssh by build-id'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf slow
. "$TOP/tests/lib-sshd.sh"

if [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null 2>&1; then
	test_skip 'remote capture' 'openssh-server / openssh-client is not installed'; test_done
fi
if ! perf stat -a -e cpu-clock -- true >/dev/null 2>perf.err; then
	test_skip 'remote capture' "perf_event_open refused: $(head -n 1 perf.err)"; test_done
fi
if ! unshare -m true 2>/dev/null; then
	test_skip 'remote capture' 'needs unshare -m (a mount namespace) to hide the workload here'; test_done
fi
start_sshd || { echo "Bail out! no sshd on 127.0.0.1"; exit 1; }
# the reader's own perf build-id cache, empty: names come over ssh or not
export PERF_BUILDID_DIR="$TRASH/reader-bid"

# The workload: a copy of live-spin in a directory the local reader does
# not see. The host (sshd, in this mount namespace) sees it; hidden runs a
# command in a mount namespace where a tmpfs covers that directory, so
# what it names there came over ssh.
HIDDEN=$TRASH/hidden
mkdir -p "$HIDDEN" && cp "$TOP/build/tests/live-spin" "$HIDDEN/remote-spin"
SPIN=$HIDDEN/remote-spin
hidden() { unshare -m sh -c 'mount -t tmpfs fp-hide "$0" && exec "$@"' "$HIDDEN" "$@"; }
SPIN_ID=$(readelf -n "$SPIN" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
REMOTE_OPTS=$(echo "$SSH_OPTS" | tr -s ' \t\n' ' ')
field() { sed -n "s/.*[	 ]$1=\([0-9]*\).*/\1/p" "$2" | tail -n 1; }

# Watches the processes below sshd until fp-ssh ($1) ends: every command
# line seen, into $2.
watch_host() {
	: >"$2"
	while kill -0 "$1" 2>/dev/null; do
		sshd_tree >>"$2"
		sleep 0.05	# sampling the process table, not waiting for a condition
	done
}

test_expect_success 'the hidden workload is not readable here, only on the host' '
	test -n "$SPIN_ID" &&
	hidden sh -c "test ! -e \"$SPIN\"" &&
	ssh -T -o BatchMode=yes -i "$SSHD_DIR/user_key" -p "$SSHD_PORT" \
		-o UserKnownHostsFile="$SSHD_DIR/known_hosts" -o StrictHostKeyChecking=accept-new \
		root@127.0.0.1 "test -x \"$SPIN\""
'

test_expect_success 'fp-ssh streams perf'"'"'s pipe format; the host runs perf record only, never perf script' '
	"$SPIN" 8000 >/dev/null &
	spin=$!
	fp-ssh $SSH_OPTS --duration 3 root@127.0.0.1 -F 499 -p $spin -g >cap.data 2>err &
	fp=$! &&
	watch_host $fp seen &&
	wait $fp &&
	test "$(head -c 8 cap.data)" = PERFILE2 &&
	grep -q "perf record --buildid-mmap " seen &&
	! grep -q "perf script" seen &&
	grep -q "perf record: Captured and wrote" err
'

test_expect_success 'fp-perfdata --remote names every frame as a local fp-perfdata of the same capture' '
	fp-perfdata cap.data >local.out 2>local.err &&
	hidden fp-perfdata --remote root@127.0.0.1 $REMOTE_OPTS --remote-cache "$TRASH/cache" \
		cap.data >remote.out 2>remote.err &&
	grep "^S	" local.out >local.s && grep "^S	" remote.out >remote.s &&
	test "$(wc -l <local.s)" -gt 100 &&
	grep -q flamepipe_live_spin_target remote.s &&
	test_cmp local.s remote.s
'

test_expect_success 'the workload came over ssh: counted, kept in the cache by its build-id' '
	test "$(field remote_fetched remote.out)" -ge 2 &&
	test "$(field remote_failed remote.out)" = 0 &&
	cmp "$SPIN" "$TRASH/cache/.build-id/$(echo "$SPIN_ID" | cut -c1-2)/$(echo "$SPIN_ID" | cut -c3-)/elf" &&
	ls "$TRASH"/cache/\[kernel.kallsyms\]/*/kallsyms >/dev/null
'

test_expect_success 'a second read takes the files from the cache: the kernel'"'"'s build-id and modules asked, no kallsyms sent' '
	hidden fp-perfdata --remote root@127.0.0.1 $REMOTE_OPTS --remote-cache "$TRASH/cache" \
		cap.data >again.out 2>again.err &&
	grep "^S	" again.out >again.s && test_cmp local.s again.s &&
	test "$(field remote_fetched again.out)" = 1 &&
	test "$(field remote_cached again.out)" -ge 2 &&
	echo "bytes: first $(field remote_bytes remote.out), again $(field remote_bytes again.out)" &&
	test "$(field remote_bytes again.out)" -lt 1000000
'

test_expect_success 'a file rebuilt on the host since the capture is refused: different build, said' '
	cp "$SPIN" spin.orig && rm -f "$SPIN" && cp /bin/true "$SPIN" &&	# rm: it may still run
	test_when_finished "rm -f \"$SPIN\"; cp spin.orig \"$SPIN\"" &&
	hidden fp-perfdata --remote root@127.0.0.1 $REMOTE_OPTS --remote-cache "$TRASH/cache2" \
		cap.data >changed.out 2>changed.err &&
	grep -q "remote-spin.*different build" changed.err &&
	! grep -q flamepipe_live_spin_target changed.out &&
	test "$(field remote_failed changed.out)" -ge 1
'

test_expect_success 'an unreachable host: the frames stay unnamed, ssh'"'"'s reason said, no hang' '
	hidden fp-perfdata --remote root@127.0.0.1 --ssh-arg -p --ssh-arg $((SSHD_PORT + 100)) \
		--ssh-arg -o --ssh-arg ConnectTimeout=3 --remote-cache "$TRASH/cache3" \
		cap.data >gone.out 2>gone.err &&
	grep -q "remote-spin.*ssh exited 255" gone.err &&
	# the kernel'"'"'s reason only where a sample caught the spinner in it
	{ ! perf script -i cap.data -F ip 2>/dev/null | grep -q "^ *ffffffff" ||
		grep -q "kallsyms.*ssh exited 255" gone.err; } &&
	test "$(field samples gone.out)" = "$(field samples local.out)"
'

test_expect_success 'usage errors: --ssh-arg without --remote, --remote-script without --ssh' '
	fp-perfdata --ssh-arg -v cap.data >/dev/null 2>err; test $? = 100 &&
	grep -q "go with --remote HOST" err &&
	flamepipe live --remote-script --duration 1 >/dev/null 2>err; test $? = 100 &&
	grep -q "remote-script go with --ssh HOST" err
'

# --duration 10: the workload's file is asked at its first sample and
# arrives within a second or two; its frames are named from then on
test_expect_success 'flamepipe live --ssh: frames named once the file arrives over fp-ssh'"'"'s own connection; perf record only on the host' '
	"$SPIN" 30000 >/dev/null &
	spin=$!
	test_when_finished "kill $spin 2>/dev/null"
	logins=$(sshd_logins)
	XDG_CACHE_HOME=$TRASH/xdg hidden flamepipe live --ssh root@127.0.0.1 $SSH_OPTS -F 499 -g -p $spin \
		--duration 10 --no-term -o rep >live.out 2>live.err &
	fp=$!
	watch_host $fp live.seen &&
	{ wait $fp || { echo "live exited $?"; cat live.err; false; }; } &&
	grep -q flamepipe_live_spin_target rep/stacks.folded &&
	grep -q "perf record --buildid-mmap " live.seen &&
	! grep -q "perf script" live.seen &&
	test -f "$TRASH/xdg/flamepipe/buildid/.build-id/$(echo "$SPIN_ID" | cut -c1-2)/$(echo "$SPIN_ID" | cut -c3-)/elf" &&
	echo "logins: before $logins, after $(sshd_logins)" &&
	test "$(sshd_logins)" = $((logins + 1)) &&
	wait_for "test -z \"\$(sshd_sessions)\"" 100
'

test_done
