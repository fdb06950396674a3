#!/bin/sh
test_description='fp-record over hours: no per-batch memory without retention, the kept ones with it'
. "$(dirname "$0")/test-lib.sh"

# 200,000 one-sample seconds: 200,000 batches, 55 hours of a live capture
# at the default --flush-interval. The recorder used to hold 72 bytes of
# index per batch (14 MB here, a growth of 250 KiB an hour).
awk 'BEGIN { for (i = 0; i < 200000; i++)
	printf "S\t%.0f\t1\t1\t0\t1\tcpu-clock\tapp\tu\tmain\n", 1e9 + i * 1e9 }' >long

limit=8000 && { [ -z "${FP_ASAN:-}" ] || limit=400000; }

test_expect_success 'without --keep or --max-size, 200,000 batches in the memory of none' '
	/usr/bin/time -f %M -o kb fp-record --output r.fp.gz <long >out &&
	echo "peak RSS $(cat kb) kB" && test "$(cat kb)" -lt $limit &&
	grep -q "^I	record	recorded=200000	batches=200000	.*	kept_batches=200000	kept_samples=200000	.*	kept_from_ns=1000000000	kept_to_ns=200000000000000	retention_dropped=0	" out
'

test_expect_success 'the totals hold across a restart that appends (no index to rebuild)' '
	head -n 10 long | fp-record --output a.fp.gz >/dev/null &&
	sed -n 11,20p long | fp-record --output a.fp.gz >out &&
	grep -q "recorded=20	batches=20	.*	kept_batches=20	kept_samples=20	.*	kept_from_ns=1000000000	kept_to_ns=20000000000	.*	appended_to=10	" out
'

# --keep 1h keeps 3,601 batches of the 200,000: their 32 bytes each, the
# rest dropped from the file and from memory alike.
test_expect_success 'with --keep, memory holds the kept batches only' '
	/usr/bin/time -f %M -o kb fp-record --output k.fp.gz --keep 1h <long >out &&
	echo "peak RSS $(cat kb) kB" && test "$(cat kb)" -lt $limit &&
	grep -q "kept_batches=3601	kept_samples=3601	.*	kept_from_ns=196400000000000	kept_to_ns=200000000000000	retention_dropped=196399	" out
'

test_done
