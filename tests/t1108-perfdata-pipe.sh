#!/bin/sh
test_description='fp-perfdata reads perf pipe format (perf record -o -): equal to the file format, live'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

test_expect_success 'setup: one recording in pipe format, and the same as a file (perf inject)' '
	pd_record_pipe -g -F 999 -- "$BUSY" 400 t 8000
'

test_expect_success 'pipe format from a pipe equals the file format, record for record' '
	pd_pipe_equals_file 100
'

test_expect_success 'pipe format saved in a file reads the same as from a pipe' '
	fp-perfdata pipe.data | grep "^S	" >c &&
	test_cmp a c
'

test_expect_success 'pipe format agrees with perf script -i - | fp-read' '
	perf script -i - <pipe.data 2>script.err | fp-read -q >want.s &&
	grep "^S	" want.s | wc -l >n.want && wc -l <a >n.got && test_cmp n.want n.got &&
	pd_folded want.s >want.fold && pd_folded from-pipe.s >got.fold &&
	test_cmp want.fold got.fold
'

test_expect_success 'live: perf record --no-buffering -o - | fp-perfdata delivers samples while perf runs' '
	mkfifo live.fifo &&
	{ perf record -q --no-bpf-event --no-buffering -F 999 -g -o - -- "$BUSY" 3000 live.t 6000 >live.fifo 2>live.err & } &&
	recorder=$! &&
	{ fp-perfdata live.fifo >live.s 2>live.perr & } &&
	reader=$! &&
	test_when_finished "kill $reader $recorder 2>/dev/null" &&
	wait_for "grep -q \"^S	\" live.s" 100 &&
	echo "first sample out; the workload has not ended: $(test -s live.t && echo no || echo yes)" &&
	test ! -s live.t &&
	wait $reader &&
	n=$(grep -c "^S	" live.s) && echo "$n samples" &&
	test -s live.t && test "$n" -gt 500 &&
	grep -q "^I	read	.*	samples=$n	" live.s
'

test_done
