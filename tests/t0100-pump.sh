#!/bin/sh
test_description='the fifo/ line pump: pass-through, backpressure, FIFOs'
. "$(dirname "$0")/test-lib.sh"
H=$TOP/${FP_BUILD:-build}/tests
[ -n "${FP_ASAN:-}" ] && H=$TOP/build-asan/tests

make_input() { # lines of varied length, 40 MB: "I " and I % 200 x's
	awk 'BEGIN { x = "x"; while (length(x) < 200) x = x x
		for (i = 0; i < 400000; i++) printf "%d %s\n", i, substr(x, 1, i % 200) }'
}

test_expect_success 'lines pass through unchanged' '
	make_input >in &&
	"$H/pump-cat" <in >out &&
	cmp in out
'

test_expect_success 'a slow reader loses nothing and the writer memory stays bounded' '
	"$H/pump-cat" <in 2>err | "$H/slow-reader" 65536 2000 >out &
	wait_for "pgrep -f \"^$H/pump-cat\$\" >/dev/null" 50 &&
	pid=$(pgrep -f "^$H/pump-cat\$" | head -n1) &&
	hwm=0 &&
	while kill -0 $pid 2>/dev/null; do
		h=$(awk "/VmHWM/ { print \$2 }" /proc/$pid/status 2>/dev/null) &&
		[ -n "$h" ] && hwm=$h; sleep 0.2
	done &&
	wait &&
	cmp in out &&
	echo "peak RSS ${hwm} kB" &&
	test "$hwm" -lt 65536
'

test_expect_success 'gzip input through a pipe equals the plain text' '
	gzip -c in | "$H/pump-cat" gz >out &&
	cmp in out
'

test_expect_success 'a reader that goes away ends the writer quietly (exit 141)' '
	{ "$H/pump-cat" <in; echo $? >rc; } | head -n 1 >/dev/null &&
	test "$(cat rc)" = 141
'

test_expect_success 'SIGTERM ends input at a line boundary and flushes what was read' '
	mkfifo f || exit 1
	"$H/pump-cat" <f >term.out &
	pid=$!
	exec 9>f &&
	printf "one\ntwo\npart" >&9 &&
	wait_for "test -s term.out" 50 &&
	kill -TERM $pid
	wait $pid; rc=$?
	exec 9>&-
	printf "one\ntwo\n" >expect &&
	test_cmp expect term.out && test $rc = 0
'

test_expect_success 'a FIFO reader opened with a kept write end survives writers that come and go' '
	mkfifo g || exit 1
	"$H/fifo-reader" g >fr.out &
	pid=$!
	test_when_finished "kill $pid 2>/dev/null" &&
	# the reader holds the FIFO open twice: its read end and the kept write end
	wait_for "test \$(ls -l /proc/$pid/fd 2>/dev/null | grep -c \" -> $TRASH/g\$\") -ge 2" 50 &&
	for i in 1 2 3; do echo "writer $i" >g; done &&
	wait_for "test \$(wc -l <fr.out) -ge 3" 50 || exit 1
	kill -TERM $pid; wait $pid
	printf "writer 1\nwriter 2\nwriter 3\n" >expect &&
	test_cmp expect fr.out
'
test_done
