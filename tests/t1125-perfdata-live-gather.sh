#!/bin/sh
test_description='fp-perfdata --live, which waits 10 ms after a small read to gather what perf trickles: samples still reach the output while perf records, none dropped'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

test_expect_success 'samples of a live perf record reach the output while perf still records; none lost' '
	rm -f perf.done &&
	{ perf record --no-bpf-event --no-buffering -q -o - -F 999 -g -- "$TOP/build/tests/busy" 3000 t 4000 \
		2>rec.err | tee stream.data | fp-perfdata --live -q >out; touch perf.done; } &
	wait_for "grep -q \"^S	\" out" 100 &&
	test ! -e perf.done &&
	echo "first samples out while perf records" &&
	wait &&
	grep "^I	read	" out | tail -n 1 | tr "\t" "\n" | grep -x "dropped=0" &&
	fp-perfdata -q stream.data | grep -c "^S	" >want &&
	grep -c "^S	" out >got && test_cmp want got
'

test_done
