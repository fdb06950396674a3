#!/bin/sh
test_description='fp-perfdata on a --call-graph dwarf capture: says it does not unwind user stacks'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

cat >inl.c <<'CC'
#include <time.h>
static volatile unsigned long sink;
static inline __attribute__((always_inline)) void inner(int n) { for (int i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void outer(void) { inner(100000); }
int main(void) { time_t end = time(0) + 1; while (time(0) <= end) outer(); return 0; }
CC

test_expect_success 'setup: a dwarf capture of a small C program with inlined functions' '
	cc -O2 -g -o inl inl.c &&
	pd_record dw.data --call-graph dwarf -F 499 -- ./inl
'

test_expect_success 'every sample is there, in its second; the missing unwinding is said and counted' '
	perf script -i dw.data 2>/dev/null | fp-read -q >want.s &&
	fp-perfdata dw.data >got.s 2>err &&
	test "$(grep -c "^S	" want.s)" = "$(grep -c "^S	" got.s)" &&
	pd_per_second want.s >a && pd_per_second got.s >b && test_cmp a b &&
	grep -q "recorded with --call-graph dwarf: user stacks are not unwound" err &&
	n=$(grep -c "^S	" got.s) &&
	grep -q "^I	read	.*	dwarf_not_unwound=$n	" got.s
'

test_expect_failure 'dwarf: user stacks unwound as perf script does (folded agreement >= 0.99)' '
	pd_compare dw.data 0.99
'

test_done
