#!/bin/sh
test_description='fp-latency puts out-of-order events back in time order within a window'
. "$(dirname "$0")/test-lib.sh"

# The end (cpu 1) is read before its start (cpu 0), as bpftrace can print
# events from two per-CPU buffers.
reversed() { printf "%s\n" "2000 1 1 e" "1000 1 1 s" "3000000000 1 1 other"; }

test_expect_success 'an end read before its start pairs within the default 1 s window' '
	reversed >in &&
	fp-latency --pair p=s,e in >out &&
	grep -qx "p	1	1000	1000	1000	0	0	0	0" out &&
	grep -q " late=0 " out
'

test_expect_success 'with --window 0 the same input is an unmatched end, an open start, and late' '
	reversed >in &&
	fp-latency --window 0 --pair p=s,e in >out &&
	grep -qx "p	0	-	-	-	1	0	0	1" out &&
	grep -q " late=1 " out
'

# "late" (fp-latency.c, docs/fp-latency.md) means older than an event
# already paired: only such an event can be mis-paired. An event that comes
# after the window but is not older than anything paired pairs exactly.
test_expect_success 'an event past the window but newer than all paired events pairs exactly, not late' '
	printf "%s\n" "1000 1 1 s" "5000000000 1 1 s" "2000 1 1 e" >in &&
	fp-latency --window 1s --pair p=s,e in >out &&
	grep -q " late=0 " out &&
	grep -qx "p	1	1000	1000	1000	1	0	0	0" out
'

test_expect_success 'an event older than one already paired is paired anyway and counted late' '
	# s@1000 and e@3000 pair (2000 ns) once s@5 s is read; e@2000 then
	# comes too late: its start is gone, so it is an unmatched end.
	printf "%s\n" "1000 1 1 s" "3000 1 1 e" "5000000000 1 1 s" "2000 1 1 e" >in &&
	fp-latency --window 1s --pair p=s,e in >out &&
	grep -q " late=1 " out &&
	grep -qx "p	1	2000	2000	2000	1	0	0	1" out
'

test_expect_success 'equal timestamps keep input order (start before end)' '
	printf "%s\n" "7 1 1 s" "7 1 1 e" "7 1 1 s" "9 1 1 e" >in &&
	fp-latency --pair p=s,e --tsv rows.tsv in >out &&
	printf "%s\n" "pair	key	start_ns	end_ns	latency_ns" "p	1	7	7	0" "p	1	7	9	2" >expect &&
	test_cmp expect rows.tsv
'

test_expect_success 'a shuffled stream gives the same intervals as the sorted one' '
	awk "BEGIN { for (i = 0; i < 500; i++) { t = i * 1000; print t, 1, i % 7, \"s\"; print t + 10 * (i % 7) + 5, 1, i % 7, \"e\" } }" >sorted &&
	sort -n sorted | fp-latency --pair p=s,e --tsv a.tsv >a &&
	# reverse each block of 8 lines: events up to 8 lines out of order
	awk "{ b[NR % 8] = \$0 } NR % 8 == 0 { for (i = 7; i >= 0; i--) print b[i] }" sorted >shuffled &&
	test $(wc -l <shuffled) = 1000 &&
	fp-latency --pair p=s,e --tsv b.tsv shuffled >b &&
	sort a.tsv >a.sorted && sort b.tsv >b.sorted && test_cmp a.sorted b.sorted &&
	grep -qx "p	500	35	5	65	0	0	0	0" b
'

test_expect_success '--window takes ns, us, ms and s and rejects junk' '
	printf "%s\n" "1 1 1 s" "2 1 1 e" >in &&
	for w in 0 500ns 20us 5ms 2s 3; do fp-latency --window $w --pair p=s,e in >/dev/null || return 1; done &&
	test_must_fail fp-latency --window 5min --pair p=s,e in 2>err &&
	grep -q "window 5min: expected a duration" err
'

test_done
