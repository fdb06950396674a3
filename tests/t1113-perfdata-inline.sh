#!/bin/sh
test_description='fp-perfdata --inline: inlined functions as perf script --inline shows them (libdw)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

pd_inline_program inl.c

test_expect_success 'setup: a C program with two levels of inlined functions, recorded with dwarf and with frame pointers' '
	pd_build inl.c &&
	pd_record_dwarf dw.data ./inl &&
	pd_record fp.data -g -F 499 -- ./inl
'

test_expect_success '--inline agrees with perf script --inline: same samples and seconds, folded agreement >= 0.99' '
	PD_SCRIPT_OPTS=--inline PD_PERFDATA_OPTS=--inline pd_compare dw.data 0.99
'

test_expect_success 'the inlined functions are frames of kind i under the function they were inlined into' '
	fp-perfdata --inline dw.data >out &&
	grep -q "	u[ui]uuuii	_start;__libc_start_main[^;]*;__libc_start_call_main;main;outer;middle;inner\$" out &&
	fp-fold --all --plain <out >folded &&
	grep -q ";outer;middle_\[i\];inner_\[i\] " folded
'

test_expect_success 'without --inline the same recording has no inlined frames (perf script --no-inline)' '
	fp-perfdata dw.data >plain &&
	! grep -q "	[uk]*i[uki]*	" plain &&
	grep -q ";main;outer\$" plain
'

test_expect_success 'a frame-pointer callchain gets no inlined frames, as perf 6.1 shows it' '
	PD_SCRIPT_OPTS=--inline PD_PERFDATA_OPTS=--inline pd_compare fp.data 0.99 &&
	fp-perfdata --inline fp.data >fpout && ! grep -q "	[uk]*i[uki]*	" fpout
'

test_expect_success 'a C++ dwarf capture: inlined template methods agree with perf script --inline' '
	if ! command -v g++ >/dev/null 2>&1; then echo "no g++: skipped"; exit 0; fi &&
	pd_cxx_program cx.cc 600 </dev/null &&
	pd_build cx.cc &&
	pd_record_dwarf cx.data ./cx &&
	PD_SCRIPT_OPTS=--inline PD_PERFDATA_OPTS=--inline pd_compare cx.data 0.99 &&
	fp-perfdata --inline cx.data | grep -q ";ns::Box<double>::spin;ns::Box<double>::step\$"
'

test_done
