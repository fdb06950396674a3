#!/bin/sh
test_description='flamepipe run/report: the progress line on stderr (bytes, MB/s, samples) when it is a terminal, or with --progress'
. "$(dirname "$0")/test-lib.sh"

T=30
H=$TOP/build/tests
# About 1 s of work: 4 MB through a stage that passes 4 MB/s.
awk 'BEGIN { for (i = 0; i < 40000; i++)
	printf "S\t%d\t1\t1\t0\t1\tcpu-clock\tload\tuu\tmain;work_function_number_%d\n", 1000000000 + i * 1000000, i % 50 }' >in.S
cat >slow.pipeline <<EOP
src   cat \${INPUT}
slow  $H/slow-reader 16384 4000
sink  cat
EOP
progress_lines() { tr '\r' '\n' <"$1" | grep "MB/s"; }

test_expect_success '--progress with a file input: position of the size, percent, MB/s' '
	timeout $T flamepipe run slow.pipeline --input in.S --progress >out 2>err &&
	progress_lines err | grep -E "^flamepipe: run: [0-9.]+ of [0-9.]+ MB \([0-9]+%\), [0-9.]+ MB/s" &&
	cmp in.S out
'

test_expect_success '--progress with stdin: the bytes the first stage read' '
	timeout $T flamepipe run slow.pipeline --progress <in.S >out 2>err &&
	progress_lines err | grep -E "^flamepipe: run: src read [0-9.]+ MB, [0-9.]+ MB/s" &&
	cmp in.S out
'

test_expect_success 'no progress line when stderr is not a terminal (the default)' '
	timeout $T flamepipe run slow.pipeline --input in.S >out 2>err &&
	! progress_lines err
'

test_expect_success 'a progress line by default on a terminal (script gives a pty), cleared at the end' '
	command -v script >/dev/null || { echo "no script(1)"; exit 0; }
	timeout $T script -qec "flamepipe run $TRASH/slow.pipeline --input $TRASH/in.S >$TRASH/out" /dev/null >tty.log &&
	progress_lines tty.log | grep "run: .* MB/s" &&
	grep -q "$(printf "\r\033\\[K")" tty.log &&
	cmp in.S out
'

test_expect_success 'report --progress: the line with the samples fp-read counted, then the summary' '
	zcat "$EXAMPLES/demo-clockloop.perf.gz" >demo.perf &&
	sed "s|^read .*|read  fp-read \${INPUT}\nslow  $H/slow-reader 8192 4000|" "$EXAMPLES/default.pipeline" >slow-report.pipeline &&
	timeout $T flamepipe report demo.perf -o out.d --progress --pipeline slow-report.pipeline 2>err &&
	progress_lines err | grep -E "^flamepipe: report: [0-9.]+ of [0-9.]+ MB \([0-9]+%\), [0-9.]+ MB/s, [0-9]+ samples" &&
	# the count fp-read reports: never more than the samples in the file
	n=$(progress_lines err | sed -n "s/.*, \([0-9]*\) samples.*/\1/p" | tail -n 1) &&
	test "$n" -gt 0 && test "$n" -le "$(awk_count_samples demo.perf)" &&
	grep "flamepipe: report: demo.perf: [0-9]* samples in [0-9]* stacks" err
'
test_done
