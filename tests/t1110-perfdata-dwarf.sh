#!/bin/sh
test_description='fp-perfdata on a --call-graph dwarf capture: user stacks unwound with libdwfl, as perf script shows them'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

pd_inline_program inl.c

test_expect_success 'setup: a dwarf capture of a small C program with inlined functions' '
	pd_build inl.c &&
	pd_record_dwarf dw.data ./inl
'

test_expect_success 'dwarf: user stacks unwound as perf script does (folded agreement >= 0.99)' '
	pd_compare dw.data 0.99
'

test_expect_success 'the unwound stack reaches from _start down to the sampled function; I counts the unwound samples' '
	fp-perfdata dw.data >out &&
	grep -q "	_start;__libc_start_main[^;]*;__libc_start_call_main;main;outer\$" out &&
	n=$(grep -c "^S	" out) && test "$n" -gt 0 &&
	grep -q "^I	read	.*	unwound=$n	unwind_incomplete=0	" out
'

test_done
