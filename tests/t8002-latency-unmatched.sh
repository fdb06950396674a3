#!/bin/sh
test_description='fp-latency counts unmatched starts and ends, never drops them silently'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'an end without a start is an unmatched end' '
	printf "%s\n" "100 1 1 e" "200 1 1 s" "300 1 1 e" "400 1 2 e" >in &&
	fp-latency --pair p=s,e in >out &&
	grep -qx "p	1	100	100	100	0	0	0	2" out
'

test_expect_success 'starts still open at EOF are reported as open, per pair' '
	printf "%s\n" "100 1 1 s" "100 1 2 s" "100 1 3 s" "150 1 3 e" >in &&
	fp-latency --pair p=s,e --pair q=s,x in >out &&
	grep -qx "p	1	50	50	50	2	0	0	0" out &&
	grep -qx "q	0	-	-	-	3	0	0	0" out
'

test_expect_success 'a cancel event discards the open starts of its key, counted as cancelled' '
	printf "%s\n" "100 1 1 s" "110 1 1 s" "120 1 2 s" "200 1 1 gone" "210 1 1 e" "300 1 2 e" >in &&
	fp-latency --pair p=s,e,gone in >out &&
	# tid 1: two starts cancelled, its end is unmatched; tid 2 pairs
	grep -qx "p	1	180	180	180	0	0	2	1" out
'

test_expect_success 'a cancel for a key with nothing open changes nothing' '
	printf "%s\n" "100 1 1 gone" "110 1 1 s" "150 1 1 e" >in &&
	fp-latency --pair p=s,e,gone in >out &&
	grep -qx "p	1	40	40	40	0	0	0	0" out
'

test_expect_success 'open, replaced, cancelled and unmatched add up with the intervals' '
	{ for i in $(seq 1 18); do echo "$i 1 1 s"; done
	  echo "50 1 1 e"; echo "60 1 2 s"; echo "70 1 2 gone"; echo "80 1 3 e"; } >in &&
	fp-latency --pair p=s,e,gone in >out &&
	grep -qx "p	1	32	32	32	15	2	1	1" out
'

test_done
