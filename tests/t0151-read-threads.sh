#!/bin/sh
test_description='fp-read parses a mapped file on threads: the same stream, warnings and exit as one parser'
. "$(dirname "$0")/test-lib.sh"

# Chunks are 4 MiB (FP_PERFPAR_CHUNK): 13 copies of the example, without
# its perf script --header lines, make four. Each case runs --threads 1
# (the one parser) and --threads 4 and compares stdout, stderr and the
# exit code byte for byte.
zcat "$EXAMPLES"/multiproc.perf.gz | grep -v "^#" >one.perf
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do cat one.perf; done >big.perf

read_both() { # file fp-read-args...
	_f=$1; shift
	{ fp-read --threads 1 "$@" "$_f" >one.out 2>one.err; echo $? >one.rc; } &&
	{ fp-read --threads 4 "$@" "$_f" >four.out 2>four.err; echo $? >four.rc; } &&
	test_cmp one.out four.out && test_cmp one.err four.err && test_cmp one.rc four.rc
}
# The line number of big.perf's first line after 9 MB: in its third chunk.
late_line() { head -c 9000000 big.perf | wc -l; }
with_line_at() { # line text file: text inserted as line number `line`
	{ head -n $(($1 - 1)) big.perf && printf '%s\n' "$2" && sed "1,$(($1 - 1))d" big.perf; } >"$3"
}

test_expect_success 'a capture of several chunks: the same S stream' '
	read_both big.perf &&
	test "$(grep -c "^S	" four.out)" = $((13 * $(fp-read one.perf | grep -c "^S	")))
'

test_expect_success 'the stack-id stream: the same K and P records' '
	read_both big.perf --stack-ids &&
	grep -q "^K	" four.out && grep -q "^P	" four.out
'

test_expect_success 'the I record counts the whole file' '
	read_both big.perf &&
	test "$(grep "^I	read	" four.out | sed "s/.*	lines=\([0-9]*\).*/\1/")" = "$(wc -l <big.perf)"
'

test_expect_success '--time: the same samples kept' '
	t=$(sed -n "s/^.* \([0-9]*\)\.[0-9]*: .*/\1/p" one.perf | sort -n | sed -n "1p") &&
	read_both big.perf --time "$t.5,$((t + 2))" &&
	grep -q "^S	" four.out
'

test_expect_success 'a bad line in a later chunk: the same W record, at the same line' '
	n=$(late_line) &&
	with_line_at $n "this is not perf script" bad.perf &&
	read_both bad.perf &&
	grep -q "^W	read	bad.perf:$n	" four.out &&
	grep -q "^fp-read: bad.perf:$n: " four.err
'

test_expect_success 'a line longer than FP_LINE_MAX in a later chunk: skipped as by one parser' '
	n=$(late_line) &&
	long=$(awk "BEGIN { s = \"x\"; while (length(s) < 1100000) s = s s; print \"\\t\" s }") &&
	with_line_at $n "$long" long.perf &&
	read_both long.perf &&
	grep -q "^W	read	long.perf:$n	line longer than" four.out
'

test_expect_success 'a # line in a later chunk: counted as one parser counts it' '
	with_line_at $(late_line) "# a comment" comment.perf &&
	read_both comment.perf
'

test_expect_success 'perf script --header text: its events named as by one parser' '
	{ cat "$DATA"/read/header.perf && cat big.perf; } >header.perf &&
	read_both header.perf &&
	grep -q "^C	events	cpu-clock:pppH" four.out
'

test_expect_success 'perf script --header lines in every chunk: the same stream' '
	zcat "$EXAMPLES"/multiproc.perf.gz >headed.perf &&
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do cat headed.perf; done >headed13.perf &&
	read_both headed13.perf
'

test_expect_success 'the last sample without its empty line, and a last line without LF' '
	sed "\$d" big.perf >noempty.perf &&
	read_both noempty.perf &&
	printf "%s" "$(cat big.perf)" >nolf.perf &&
	read_both nolf.perf
'

test_expect_success 'CRLF text (no empty line to cut at): the same stream' '
	sed "s/\$/\r/" big.perf >crlf.perf &&
	read_both crlf.perf &&
	grep -q "^S	" four.out
'

test_expect_success 'no empty line after a chunk (perf script without -g): the rest as by one parser' '
	grep -v "^#" "$DATA"/read/no-callgraph.perf | grep . >nog.perf &&
	while [ $(wc -c <nog.perf) -lt 9000000 ]; do cat nog.perf nog.perf >nog2.perf && mv nog2.perf nog.perf; done &&
	{ cat one.perf one.perf one.perf one.perf && cat nog.perf; } >mixed.perf &&
	read_both mixed.perf &&
	test "$(grep -c "^S	" four.out)" -gt "$(grep -c . nog.perf)"
'

test_expect_success 'text that is not perf script: the same error and exit 1' '
	yes "hello there" | head -n 2000000 | sed "0~3s/.*//" >notperf.perf &&
	read_both notperf.perf &&
	test "$(cat four.rc)" = 1 &&
	grep -q "not perf script text" four.err
'

test_expect_success '--srcline text of several chunks: the same names' '
	{ cat "$DATA"/read/srcline.perf && echo; } >src.perf &&
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do cat src.perf src.perf >src2.perf && mv src2.perf src.perf; done &&
	test "$(wc -c <src.perf)" -gt 9000000 &&
	read_both src.perf --srcline &&
	grep -q "^S	" four.out
'

test_expect_success 'with --threads 3 the parsers run as threads of fp-read' '
	: fp-read is held by a reader that has not read yet &&
	: 40 chunks: more than the 4 the threads may parse ahead &&
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do cat big.perf; done >huge.perf &&
	mkfifo held &&
	{ fp-read --threads 3 huge.perf >held & echo $! >pid; } &&
	exec 9<held &&
	wait_for "test \$(ls /proc/$(cat pid)/task | wc -l) -ge 4" 100 &&
	cat <&9 >held.out && exec 9<&- &&
	wait $(cat pid) &&
	fp-read --threads 1 huge.perf >serial.out &&
	test_cmp serial.out held.out
'

test_expect_success 'SIGTERM while parsing ahead: the samples so far and the I record, exit 0' '
	rm -f held && mkfifo held &&
	{ fp-read --threads 4 huge.perf >held & echo $! >pid; } &&
	exec 9<held &&
	head -c 100000 <&9 >part.out &&
	kill -TERM $(cat pid) &&
	cat <&9 >>part.out && exec 9<&- &&
	wait $(cat pid); rc=$? &&
	test $rc = 0 &&
	tail -n 1 part.out | grep -q "^I	read	" &&
	test "$(grep -c "^S	" part.out)" = "$(tail -n 1 part.out | sed "s/.*	samples=\([0-9]*\).*/\1/")"
'

test_done
