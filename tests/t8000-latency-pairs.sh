#!/bin/sh
test_description='fp-latency pairs start and end events per key'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'interleaved keys pair by tid and give the golden report' '
	fp-latency --pair io=open,close "$DATA/latency/pairs.events" >out &&
	test_cmp "$DATA/latency/pairs.report" out
'

test_expect_success '--tsv writes a header and one row per interval, in pairing order' '
	fp-latency --pair io=open,close --tsv rows.tsv "$DATA/latency/pairs.events" >/dev/null &&
	test_cmp "$DATA/latency/pairs.tsv" rows.tsv
'

test_expect_success 'the summary row has count, integer average (rounded), min and max in ns' '
	printf "%s\n" "0 1 1 s" "1 1 1 e" "10 1 1 s" "12 1 1 e" >in &&
	fp-latency --pair p=s,e in >out &&
	# (1 + 2) / 2 = 1.5 rounds to 2
	grep -qx "p	2	2	1	2	0	0	0	0" out &&
	printf "%s\n" "0 1 1 s" "1 1 1 e" "10 1 1 s" "11 1 1 e" "20 1 1 s" "22 1 1 e" >in &&
	fp-latency --pair p=s,e in >out &&
	# 4 / 3 = 1.33 rounds to 1
	grep -qx "p	3	1	1	2	0	0	0	0" out
'

test_expect_success 'several pairs share one input and keep separate tables' '
	printf "%s\n" "100 1 1 fork" "150 1 1 exec" "400 1 1 listen" >in &&
	fp-latency --pair exec=fork,exec --pair listen=fork,listen in >out &&
	grep -qx "exec	1	50	50	50	0	0	0	0" out &&
	grep -qx "listen	1	300	300	300	0	0	0	0" out &&
	grep -qx "@exec_ns:" out && grep -qx "@listen_ns:" out
'

test_expect_success 'a start and end at the same time is a 0 ns interval in the [0] bucket' '
	printf "%s\n" "5 1 1 s" "5 1 1 e" >in &&
	fp-latency --pair p=s,e in >out &&
	grep -qx "p	1	0	0	0	0	0	0	0" out &&
	grep -q "^\[0\]  *1 |@" out
'

test_expect_success 'a pair that never closes reports - for avg, min and max' '
	printf "%s\n" "5 1 1 s" >in &&
	fp-latency --pair p=s,e in >out &&
	grep -qx "p	0	-	-	-	1	0	0	0" out &&
	grep -qx "@p_ns: (no intervals)" out
'

test_expect_success 'events of other names are ignored, not counted as events' '
	printf "%s\n" "1 1 1 other" "2 1 1 s" "3 1 1 e" >in &&
	fp-latency --pair p=s,e in >out &&
	grep -q "^# fp-latency final: lines=3 events=2 bad_lines=0 " out
'

test_done
