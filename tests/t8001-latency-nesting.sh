#!/bin/sh
test_description='fp-latency: a second start for the same key nests (a stack per key)'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'nested starts close innermost first (LIFO)' '
	printf "%s\n" "100 1 1 enter" "200 1 1 enter" "250 1 1 exit" "400 1 1 exit" >in &&
	fp-latency --pair call=enter,exit --tsv rows.tsv in >out &&
	printf "%s\n" "pair	key	start_ns	end_ns	latency_ns" \
		"call	1	200	250	50" "call	1	100	400	300" >expect &&
	test_cmp expect rows.tsv &&
	grep -qx "call	2	175	50	300	0	0	0	0" out
'

test_expect_success 'a start whose end was lost stays open and is reported at EOF' '
	printf "%s\n" "100 1 1 s" "200 1 1 s" "260 1 1 e" >in &&
	fp-latency --pair p=s,e --tsv rows.tsv in >out &&
	grep -qx "p	1	60	60	60	1	0	0	0" out &&
	grep -qx "p	1	200	260	60" rows.tsv
'

test_expect_success 'more than 16 nested starts push the oldest out, counted as replaced' '
	for i in $(seq 1 20); do echo "$i 1 1 s"; done >in &&
	echo "100 1 1 e" >>in &&
	fp-latency --pair p=s,e --tsv rows.tsv in >out &&
	# 20 starts: 4 replaced, 16 kept, 1 closed (the newest), 15 open
	grep -qx "p	1	80	80	80	15	4	0	0" out &&
	grep -qx "p	1	20	100	80" rows.tsv
'

test_expect_success 'stacks are per key: nesting on one tid does not touch another' '
	printf "%s\n" "100 1 1 s" "110 1 2 s" "120 1 1 s" "130 1 2 e" "150 1 1 e" "190 1 1 e" >in &&
	fp-latency --pair p=s,e --tsv rows.tsv in >out &&
	printf "%s\n" "pair	key	start_ns	end_ns	latency_ns" \
		"p	2	110	130	20" "p	1	120	150	30" "p	1	100	190	90" >expect &&
	test_cmp expect rows.tsv
'

test_done
