#!/bin/sh
test_description='flamepipe live: the page outlives the capture, a port in use stops it first, its files are private'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf
. "$TOP/tests/lib-live.sh"
. "$TOP/tests/lib-serve.sh"
need_perf_sampling 'live session life'

# URL of the web view from live's stdout (fp-serve's line)
live_url() { sed -n 's|^fp-serve: listening on \(http://[^ ]*\)/$|\1|p' out.txt; }

test_expect_success 'a port in use: one line naming it, exit 111 before perf starts, no file written' '
	python3 -c "
import socket, subprocess, sys
s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(1)
port = s.getsockname()[1]
r = subprocess.run([\"flamepipe\", \"live\", \"-F\", \"99\", \"--duration\", \"5\",
                    \"--http\", \"127.0.0.1:%d\" % port, \"-o\", \"busy\"],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
open(\"err\", \"w\").write(r.stderr); open(\"port\", \"w\").write(str(port))
sys.exit(r.returncode)
" ; test $? = 111 &&
	test "$(wc -l <err)" = 1 &&
	grep -q "port $(cat port): Address already in use" err &&
	! grep -q "perf record" err &&
	test ! -e busy
'

test_expect_success '-o DIR is 0700 and every file in it 0600 under umask 022' '
	(umask 022 && flamepipe live -F 99 --duration 2 --no-term -o priv >out.txt 2>err) &&
	test "$(stat -c %a priv)" = 700 &&
	test -s priv/recording.fp.gz && test -s priv/stacks.folded &&
	test -z "$(find priv -type f ! -perm 600)"
'

test_expect_success 'after --duration the web view stays up: heatmap, a range and the page answer; Ctrl-C exits 0' '
	flamepipe live -F 199 -g --duration 2 --http 127.0.0.1:0 --no-term --dir-file dirf -o kept >out.txt 2>err &
	fp=$! &&
	test_when_finished "kill $fp 2>/dev/null" &&
	wait_for "grep -q \"the capture has ended; the web view stays up\" err" 300 &&
	# not a stop: no drain deadline will end the page 15 s later
	flamepipe ctl dirf status | grep -q "^runner	.*state=running" &&
	URL=$(live_url) && test -n "$URL" &&
	grep -q "^fp-serve: the live capture.s page: $URL/#/profile?file=live$" out.txt &&
	test "$(get "/heatmap/?filename=live")" = 200 &&
	total=$(jq .samples body) && test "$total" -gt 0 &&
	test "$(get "/flamegraph/?filename=live&start=0&end=1")" = 200 &&
	test "$(get "/")" = 200 &&
	kill -0 $fp &&
	kill -INT $fp && wait $fp
'

test_expect_success 'Ctrl-C once stops the capture and the page stays; again ends the session' '
	flamepipe live -F 199 --http 127.0.0.1:0 --no-term --dir-file dirf2 -o twice >out.txt 2>err &
	fp=$! &&
	test_when_finished "kill $fp 2>/dev/null" &&
	wait_for "test -s twice/recording.fp.gz" 300 &&
	kill -INT $fp &&
	wait_for "grep -q \"the capture has ended; the web view stays up\" err" 300 &&
	! pgrep -P $fp -x perf &&
	grep -q "SIGINT: ending the capture (the views stay; again ends the session)" err &&
	flamepipe ctl dirf2 status | grep -q "^runner	.*state=running" &&
	URL=$(live_url) && test "$(get "/heatmap/?filename=live")" = 200 &&
	kill -INT $fp && wait $fp &&
	grep -q "stopped after" err
'

test_expect_success '--exit-at-end: the session ends with the capture (for scripts)' '
	flamepipe live -F 99 --duration 2 --http 127.0.0.1:0 --exit-at-end --no-term >out.txt 2>err &&
	grep -q "listening on" out.txt &&
	! grep -q "stays up" err
'

test_done
