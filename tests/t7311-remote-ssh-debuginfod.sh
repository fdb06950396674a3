#!/bin/sh
test_description='fp-perfdata --remote: a file the host cannot send comes by build-id from a debuginfod server (the host'"'"'s own, DEBUGINFOD_URLS), the next row of the lookup order'
. "$(dirname "$0")/lib-debuginfod.sh"
di_own_network "$0" "$@"
. "$(dirname "$0")/test-lib.sh"
test_tags root perf
di_need_network
if ! perf stat -e cpu-clock -- true >/dev/null 2>perf.err; then
	test_skip 'remote capture' "perf_event_open refused: $(head -n 1 perf.err)"; test_done
fi
unset DEBUGINFOD_URLS
# the reader's own perf build-id cache, empty: names come from a server or not
export PERF_BUILDID_DIR="$TRASH/reader-bid"
export DEBUGINFOD_CACHE_PATH="$TRASH/dicache"

# The workload, hidden from the reader as in t7310; the "host" is a port
# where nothing listens, so every fetch over ssh fails.
HIDDEN=$TRASH/hidden
mkdir -p "$HIDDEN" served && cp "$TOP/build/tests/live-spin" "$HIDDEN/remote-spin" &&
	cp "$HIDDEN/remote-spin" served/
SPIN_ID=$(readelf -n "$HIDDEN/remote-spin" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
hidden() { unshare -m sh -c 'mount -t tmpfs fp-hide "$0" && exec "$@"' "$HIDDEN" "$@"; }
NO_HOST="--ssh-arg -p --ssh-arg 9 --ssh-arg -o --ssh-arg ConnectTimeout=3"

test_expect_success 'a capture as fp-ssh streams it (perf record --buildid-mmap --no-buildid-cache -o -)' '
	perf record -q --buildid-mmap --no-buildid-cache -o - -F 499 -g -- "$HIDDEN/remote-spin" 1500 >cap.data 2>rec.err &&
	test "$(head -c 8 cap.data)" = PERFILE2
'

test_expect_success 'without a server: the host unreachable, the workload unnamed, both reasons said' '
	hidden fp-perfdata --remote root@127.0.0.1 $NO_HOST --remote-cache c1 cap.data >none.out 2>none.err &&
	! grep -q flamepipe_live_spin_target none.out &&
	grep -q "remote-spin.*the remote host: ssh exited 255" none.err
'

test_expect_success 'with DEBUGINFOD_URLS: the workload named from the server by its build-id' '
	di_start served &&
	test_when_finished di_stop &&
	wait_for "di_serves $SPIN_ID executable" 300 &&
	DEBUGINFOD_URLS=$DI_URL hidden fp-perfdata --remote root@127.0.0.1 $NO_HOST --remote-cache c2 \
		cap.data >di.out 2>di.err &&
	grep -q flamepipe_live_spin_target di.out &&
	grep -q "debuginfod_found=[1-9]" di.out &&
	grep -q "remote_failed=[1-9]" di.out
'

test_done
