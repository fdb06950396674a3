#!/bin/sh
test_description='fp-record retention: --max-size and --keep drop the oldest seconds, and readers say so'
. "$(dirname "$0")/test-lib.sh"
DEMO=$EXAMPLES/demo-clockloop.perf.gz

fp-read -q "$DEMO" >demo.S || exit 1
grep "^S" demo.S >demo.samples

# disk use of a file in bytes (allocated blocks, not its apparent size)
disk() { echo $(( $(stat -c "%b * %B" "$1") )); }
blk() { stat -f -c %S "$1"; }

# 600 s at 200 samples/s, each stack different enough not to compress away
awk 'BEGIN { for (i = 0; i < 120000; i++)
	printf "S\t%.0f\t%d\t%d\t%d\t1\tcpu-clock\tapp%d\tuu\tmain;f%d\n",
		1000000000000 + i * 5000000, 100 + i % 7, 100 + i % 7, i % 2, i % 7, (i * 7919) % 100003 }' >long.S

test_expect_success 'the chain sees every sample whatever retention drops from the recording' '
	rm -f r.gz && fp-record --output r.gz --max-size 8k <demo.S | grep -c "^S" >n &&
	test "$(cat n)" = "$(wc -l <demo.samples)"
'

test_expect_success '--max-size keeps the disk use of the recording within the limit' '
	rm -f r.gz && fp-record --output r.gz --max-size 64k <long.S >/dev/null &&
	used=$(disk r.gz) &&
	test "$used" -le $((65536 + $(blk r.gz))) &&
	test "$(stat -c %s r.gz)" -gt $((10 * 65536))	# it grew well past the limit
'

test_expect_success '--max-size keeps the newest samples, exactly, and the oldest are gone' '
	rm -f r.gz && fp-record --output r.gz --max-size 8k <demo.S >/dev/null &&
	fp-read -q r.gz | grep "^S" >kept &&
	n=$(wc -l <kept) && test "$n" -gt 100 &&
	tail -n "$n" demo.samples | cmp - kept
'

test_expect_success 'the disk use stays within the limit while the recording grows' '
	mkfifo in.fifo || exit 1
	rm -f g.gz && fp-record --output g.gz --max-size 32k --flush-interval 20 <in.fifo >/dev/null &
	pid=$!
	exec 9>in.fifo &&
	test_when_finished "exec 9>&-; kill $pid 2>/dev/null" &&
	for part in 1 2 3 4; do
		sed -n "$(( (part - 1) * 30000 + 1 )),$(( part * 30000 ))p" long.S >&9 &&
		wait_for "fp-read --index g.gz 2>/dev/null | tail -n 1 | awk \"{ exit !(\\\$4 >= $(( 1000000000000 + (part * 30000 - 1) * 5000000 - 1000000000 ))) }\"" 100 &&
		test "$(disk g.gz)" -le $((32768 + $(blk g.gz))) || exit 1
	done
	exec 9>&- && wait $pid
'

# The oldest batches go before the newest is written: at no moment does
# the recording hold more than the limit, so a file system with just that
# room takes it (in the other order each write needed a batch more).
test_expect_success 'a file system with room for --max-size alone holds a recording that never stops' '
	test_have root || { echo "skipped: mounting a tmpfs needs root"; return 0; }
	mkdir small && mount -t tmpfs -o size=36k fp-rec small &&
	test_when_finished "umount \"$PWD/small\"" &&
	fp-record --output small/r.gz --max-size 32k <long.S >/dev/null 2>err &&
	cat err && ! grep -q "cannot write" err &&
	test "$(stat -c %s small/r.gz)" -gt $((10 * 36864)) &&
	fp-read -q small/r.gz | grep "^S" >kept &&
	n=$(wc -l <kept) && test "$n" -gt 1000 &&
	tail -n "$n" long.S | cmp - kept
'

test_expect_success '--keep DURATION keeps the newest DURATION of samples' '
	rm -f k.gz && fp-record --output k.gz --keep 10s <demo.S >/dev/null &&
	fp-read --index k.gz | grep -v "^#" >ix &&
	first=$(head -n 1 ix | cut -d" " -f3) last=$(tail -n 1 ix | cut -d" " -f4) &&
	test $((last - first)) -ge 9000000000 && test $((last - first)) -le 11000000000 &&
	fp-read -q k.gz | grep "^S" >kept &&
	tail -n "$(wc -l <kept)" demo.samples | cmp - kept &&
	rm -f m.gz && fp-record --output m.gz --keep 1m <long.S >/dev/null &&
	fp-read --index m.gz | grep -v "^#" | wc -l >nb &&
	test "$(cat nb)" -ge 60 && test "$(cat nb)" -le 61
'

test_expect_success 'reading a trimmed recording says which window was kept, and the report shows it' '
	rm -f r.gz && fp-record --output r.gz --keep 20 <demo.S >/dev/null &&
	fp-read r.gz >out 2>err &&
	grep -q "^W	read	r.gz	retention: the recording keeps 2[0-9][0-9]\.[0-9]*\.\.275\.820 s (perf time) of a capture that began at 155\.840 s: the [0-9]* oldest samples were dropped" out &&
	grep -q "retention" err &&
	dropped=$(( $(wc -l <demo.samples) - $(grep -c "^S" out) )) &&
	grep -q "retention_dropped=$dropped	" out &&
	flamepipe report -q r.gz -o rep &&
	grep -q "retention: the recording keeps" rep/index.html
'

test_expect_success 'fp-record says what it kept in its I record and its --stats file' '
	rm -f r.gz && fp-record --output r.gz --keep 20 --stats st <demo.S | tail -n 1 >i &&
	grep -q "^I	record	recorded=6439	batches=121	.*retention_dropped=[1-9]" i &&
	grep -q "^recorded=6439\$" st && grep -q "^kept_samples=" st &&
	grep -q "^idle=5445\$" st &&
	test "$(grep "^kept_samples=" st | cut -d= -f2)" = "$(fp-read -q r.gz | grep -c "^S")"
'

test_done
