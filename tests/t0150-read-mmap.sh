#!/bin/sh
test_description='fp-read maps a regular file (FP_PUMP_MMAP): same output as reading the same bytes from a pipe'
. "$(dirname "$0")/test-lib.sh"

# The mapped path has its own line loop; these inputs exercise its edges.
# W records name the input (file:line): made neutral before comparing.
read_as() { # out-file fp-read-args...
	_o=$1; shift
	fp-read "$@" 2>/dev/null | sed "s/^W	read	[^	]*:\([0-9]*\)	/W	read	INPUT:\1	/" >"$_o"
}
same_as_pipe() { # file
	read_as file.out "$1" && cat "$1" | read_as pipe.out - && test_cmp pipe.out file.out
}

zcat "$EXAMPLES"/multiproc.perf.gz >multi.perf
# A line longer than FP_LINE_MAX (1 MiB): skipped with a warning, its
# sample dropped, on both paths.
long_line() { awk 'BEGIN { s = "x"; while (length(s) < 1100000) s = s s; print "\t" s }'; }

test_expect_success 'a real capture' '
	same_as_pipe multi.perf
'

test_expect_success 'a last line without LF' '
	printf "%s" "$(cat multi.perf)" >nolf.perf &&
	same_as_pipe nolf.perf
'

test_expect_success 'a too long frame line in the middle of a sample' '
	{ head -n 3 multi.perf && long_line && sed 1,3d multi.perf; } >long.perf &&
	same_as_pipe long.perf &&
	grep -q "^W	read	INPUT:4	" file.out
'

test_expect_success 'a too long last line without LF' '
	{ cat multi.perf && long_line | tr -d "\n"; } >longend.perf &&
	same_as_pipe longend.perf
'

test_expect_success 'an empty file and a file of one LF' '
	: >empty.perf && fp-read empty.perf >empty.out &&
	cat empty.perf | fp-read - >empty-pipe.out && test_cmp empty-pipe.out empty.out &&
	echo >lf.perf && same_as_pipe lf.perf
'

# At least 48 MB, so fp-read is held by backpressure with most of it
# unread, also when threads parse 3 chunks (12 MiB) ahead.
shrinks_while_read() { # fp-read-args...
	while [ "$(wc -c <big.perf)" -lt 48000000 ]; do cat multi.perf >>big.perf; done &&
	rm -f started truncated rc &&
	{ { fp-read "$@" big.perf 2>err; echo $? >rc; } |
	  { head -c 1 >/dev/null; touch started; wait_for "test -e truncated" 100; cat >/dev/null; } & } &&
	wait_for "test -e started" 100 &&
	truncate -s 1000 big.perf && touch truncated &&
	wait_for "test -s rc" 100 &&
	test "$(cat rc)" = 111 &&
	grep "fp-read: the input file shrank while it was being read" err
}

test_expect_success 'a mapped file that shrinks while being read: exit 111 and a message, no crash' '
	: >big.perf &&
	shrinks_while_read --threads 1
'

test_expect_success 'the same while threads parse it ahead' '
	: >big.perf &&
	shrinks_while_read --threads 2
'

test_expect_success 'a gzip file is inflated, not mapped' '
	gzip -c multi.perf >multi.perf.gz &&
	read_as gz.out multi.perf.gz && read_as plain.out multi.perf &&
	test_cmp plain.out gz.out
'

test_done
