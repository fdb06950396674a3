#!/bin/sh
test_description='fp-perfdata on a --call-graph dwarf capture: user stacks unwound with libdwfl, as perf script shows them'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

pd_c_program inl.c 'outer()' <<'CC'
static inline __attribute__((always_inline)) void inner(int n) { for (int i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void outer(void) { inner(100000); }
CC

test_expect_success 'setup: a dwarf capture of a small C program with inlined functions' '
	cc -O2 -g -o inl inl.c &&
	pd_record dw.data --call-graph dwarf -F 499 -- ./inl
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
