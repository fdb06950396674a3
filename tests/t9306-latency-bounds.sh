#!/bin/sh
test_description='fp-latency: memory bounded by --max-open and --max-pending (issue 14 #6)'
. "$(dirname "$0")/test-lib.sh"

# RSS limits in kB (ASan adds its shadow memory and quarantine).
big=250000 small=30000
[ -z "${FP_ASAN:-}" ] || { big=900000 small=400000; }

# 10^6 starts of distinct keys that never end, 1 ms apart (the reorder
# window stays small): each one an open key. main took 726 MB.
test_expect_success '10^6 unmatched starts: the default bound keeps RSS small, the rest counted' '
	awk "BEGIN { for (i = 1; i <= 1000000; i++) printf \"%.0f 1 %d open\n\", i * 1000000, i }" >starts.ev &&
	/usr/bin/time -f %M -o kb fp-latency --pair p=open,close <starts.ev >out 2>err &&
	echo "peak RSS $(cat kb) kB" && test "$(cat kb)" -lt $big &&
	grep -q "^# fp-latency final: .* dropped_starts=900000 early=0 lost_events=0\$" out &&
	grep -q "^p	0	-	-	-	100000	0	0	0\$" out &&
	test "$(grep -c "max-open" err)" = 1
'

test_expect_success '--max-open 1000: RSS tiny, 999,000 starts dropped and counted' '
	/usr/bin/time -f %M -o kb fp-latency --max-open 1000 --pair p=open,close <starts.ev >out 2>err &&
	echo "peak RSS $(cat kb) kB" && test "$(cat kb)" -lt $small &&
	grep -q " dropped_starts=999000 " out && grep -q "^p	0	-	-	-	1000	" out
'

# The same events 1 ns apart: all inside the 1 s reorder window.
test_expect_success '--max-pending 1000: the window holds 1000 events, the oldest are paired early' '
	awk "BEGIN { for (i = 1; i <= 200000; i++) printf \"%d 1 1 %s\n\", i, i % 2 ? \"open\" : \"close\" }" >pairs.ev &&
	/usr/bin/time -f %M -o kb fp-latency --max-pending 1000 --pair p=open,close <pairs.ev >out 2>err &&
	echo "peak RSS $(cat kb) kB" && test "$(cat kb)" -lt $small &&
	grep -q " early=199000 " out && grep -q "^p	100000	1	1	1	0	" out &&
	grep -q "max-pending" err
'

test_expect_success 'the bounds are checked options' '
	{ fp-latency --max-open 0 --pair p=a,b </dev/null 2>err; test $? = 100; } &&
	grep -q "max-open 0: expected a count" err &&
	{ fp-latency --max-pending x --pair p=a,b </dev/null 2>/dev/null; test $? = 100; }
'

test_done
