#!/bin/sh
test_description='fp-bucket in a stream: pass-through, coalesced H records, live updates, bad input'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-stream.sh"
D=$DATA/bucket


# stream.S: header, comment, W, I, an unknown tag, a blank line, F, C range,
# C flush, a malformed S, stray H and G records: all passed on unchanged and
# in order; the cells changed so far are written just before C flush.
test_expect_success 'every non-S record passes unchanged and in order (golden)' '
	fp-bucket <"$D/stream.S" >out 2>err &&
	test_cmp "$D/stream.expect" out &&
	grep -q "^fp-bucket: stdin:12: malformed S record" err
'

test_expect_success 'a batch run writes one H per changed cell, not one per sample' '
	awk "BEGIN { for (i = 0; i < 5000; i++) printf \"S\t%.0f\t1\t1\t0\t1\tc\tapp\tu\tmain\n\", 7000000000 + (i % 100) * 10000000 }" >in &&
	fp-bucket <in >out &&
	test "$(grep -c "^H" out)" = 50 &&
	grep -q "^H	0	0	100\$" out
'

test_expect_success 'a live stream gets its H records while the input is still open' '
	mkfifo in.fifo || exit 1
	fp-bucket <in.fifo >live.out &
	pid=$!
	exec 9>in.fifo &&
	test_when_finished "exec 9>&-; kill $pid 2>/dev/null" &&
	s 5000000000 >&9 && s 5000000001 >&9 &&
	wait_for "grep -q \"^H	0	0	2\" live.out" 50 &&
	s 5500000000 >&9 &&
	wait_for "grep -q \"^H	0	25	1\" live.out" 50 &&
	exec 9>&- && wait $pid &&
	grep -q "^I	bucket	samples=3	counted=3" live.out
'

test_expect_success 'CRLF input: the CR is not kept and the sample is counted' '
	printf "S\t1500000000\t1\t1\t0\t1\tc\tapp\tu\tmain\r\n" | fp-bucket >out &&
	grep -q "^H	0	25	1\$" out && ! grep -q "$(printf "\r")" out
'

test_expect_success 'an unsupported stream version is refused (exit 100)' '
	printf "%%flamepipe\t2\n" | { fp-bucket >out 2>err; test $? = 100; } &&
	grep -q "unsupported stream version" err
'

test_expect_success 'empty input: just the I record' '
	fp-bucket </dev/null >out &&
	echo "I	bucket	samples=0	counted=0	idle=0	cells=0	columns=0	overflow=0	bad=0" >expect &&
	test_cmp expect out
'

test_expect_success '--name sets the stage name of W and I records' '
	printf "S\tbad\n" | fp-bucket --name heat >out 2>/dev/null &&
	grep -q "^W	heat	stdin:1	" out && grep -q "^I	heat	samples=0" out
'

test_done
