#!/bin/sh
test_description='fp-perfdata: a --call-graph dwarf recording in pipe format unwinds as the same recording in file format'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

pd_c_program deep.c 'mid(5)' <<'CC'
__attribute__((noinline)) void leaf(void) { for (int i = 0; i < 50000; i++) sink += i; }
__attribute__((noinline, noclone)) void mid(int n) { if (n) { mid(n - 1); sink++; } else leaf(); }
CC

test_expect_success 'setup: one dwarf recording in pipe format, and the same as a file (perf inject)' '
	pd_build deep.c &&
	pd_record_pipe $PD_DWARF -- ./deep
'

test_expect_success 'pipe format from a pipe equals the file format, record for record' '
	pd_pipe_equals_file 20 &&
	grep -q ";main;mid;mid;mid;mid;mid;leaf\$" a
'

test_expect_success 'the unwinding counters are the same both ways' '
	grep "^I	" from-pipe.s | tr "\t" "\n" | grep "^unw" >c &&
	grep "^I	" from-file.s | tr "\t" "\n" | grep "^unw" >d &&
	test_cmp d c && grep -q "^unwound=[1-9]" c
'

test_expect_success 'pipe format agrees with perf script -i - --no-inline | fp-read (folded agreement >= 0.99)' '
	pd_compare pipe.data 0.99
'

test_done
