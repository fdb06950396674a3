#!/bin/sh
test_description='fp-read: every perf script -F field list that includes the time'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-read.sh"

test_expect_success 'default perf script output' '
	read_golden default
'

test_expect_success 'with --header: the same samples as without it, after a C events record naming the event' '
	read_golden header &&
	grep "^S	" out >with &&
	grep "^S	" "$D/default.expect" >without &&
	test_cmp without with &&
	sed -n 2p out >events && printf "C\tevents\tcpu-clock:pppH\n" >want && test_cmp want events
'

test_expect_success 'comm pid/tid: pid and tid apart, no period (1)' '
	read_golden pid-tid &&
	grep -q "^S	265915803000	12039	12039	0	1	cpu-clock:pppH	busy	uuu	" out
'

test_expect_success 'period without event: event is -' '
	read_golden no-event &&
	grep -q "^S	265910800000	0	0	0	5025125	-	swapper	" out
'

test_expect_success 'no dso printed: kernel addresses give k, the others x' '
	read_golden no-event &&
	grep "^S	" out | cut -f 8,9 >got &&
	printf "swapper\tkkkkkkkkkkkk\nbusy\txxx\nperf\txx\n" >expect &&
	test_cmp expect got
'

test_expect_success 'no comm: comm is ?, no cpu: cpu is -1' '
	read_golden no-comm &&
	test $(grep -c "^S	[0-9]*	[0-9]*	[0-9]*	-1	1	cpu-clock:pppH	?	" out) = 3
'

test_expect_success 'time only: pid, tid, cpu -1, period 1, event -, comm ?' '
	read_golden time-only &&
	test $(grep -c "^S	[0-9]*	-1	-1	-1	1	-	?	" out) = 3
'

test_expect_success 'recorded without -g (-G): the symbol on the event line is the stack' '
	read_golden no-callgraph &&
	grep -q "	busy	u	flamepipe_busy_spin\$" out
'

test_expect_success 'recorded without -g, default fields: period, event and frame on one line' '
	read_golden no-g-default &&
	grep -q "^S	703020564000	24726	24726	1	5025125	cpu-clock:pppH	busy	u	flamepipe_busy_spin\$" out
'

test_expect_success '-F +srcline: the source lines are skipped, not taken for frames' '
	read_golden srcline &&
	grep "^S	" out >with &&
	grep "^S	" "$D/default.expect" >without &&
	test_cmp without with &&
	grep -q "	skipped_lines=16	" out
'

test_expect_success 'several event types: cpu-clock, page-faults, a tracepoint with payload' '
	read_golden events &&
	grep "^S	" out | cut -f 7 >events &&
	printf "cpu-clock\npage-faults\nsched:sched_switch\n" >expect &&
	test_cmp expect events &&
	grep -q "	other_records=1	" out
'

test_expect_success 'a tracepoint payload that looks like an address is not a frame when frames follow' '
	printf "app 1 [000] 1.0: 1 probe:fn: dead beef=1\n\tffffffff81000000 entry+0x2 ([kernel.kallsyms])\n\n" >t.perf &&
	printf "app 1 [000] 2.0: 1 cpu-clock:  55aa0001 work+0x8 (/x/app)\n\n" >>t.perf &&
	read_fields_are 7,9,10 "probe:fn\tk\tentry\ncpu-clock\tu\twork\n"
'

test_expect_success 'times: fraction digits are scaled to ns, --ns (9 digits) is exact' '
	printf "a 1 1.5: \n\tf (/x)\n\na 1 2.000000001: \n\tf (/x)\n\na 1 3.123456: \n\tf (/x)\n" >t.perf &&
	read_fields_are 2 "1500000000\n2000000001\n3123456000\n"
'

test_expect_success 'an event line with spaces before it and no comm (right-aligned fields)' '
	printf "    0/0       265.910800: cpu-clock:pppH: \n\tffffffff821f2c2b pv_native_safe_halt+0xb ([kernel.kallsyms])\n" >t.perf &&
	fp-read t.perf | grep "^S" >out &&
	printf "S\t265910800000\t0\t0\t-1\t1\tcpu-clock:pppH\t?\tk\tpv_native_safe_halt\n" >expect &&
	test_cmp expect out
'

test_done
