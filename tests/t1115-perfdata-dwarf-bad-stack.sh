#!/bin/sh
test_description='fp-perfdata --call-graph dwarf: damaged and short user stack copies are counted in I, never a crash or a hang'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf
MANGLE=$TOP/build/tests/pd-stack-mangle
# A bound for one fp-perfdata run (ASan included): a hang fails the test.
RUN_LIMIT=120

pd_c_program deep.c 'mid(8)' <<'CC'
__attribute__((noinline)) void leaf(void) { for (int i = 0; i < 50000; i++) sink += i; }
__attribute__((noinline, noclone)) void mid(int n) { if (n) { mid(n - 1); sink++; } else leaf(); }
CC

# run_bounded DATA OUT: fp-perfdata DATA > OUT within RUN_LIMIT seconds, exit 0
run_bounded() {
	timeout "$RUN_LIMIT" fp-perfdata "$1" >"$2" 2>"$2.err"
}

incomplete() { sed -n "s/^I	read	.*	unwind_incomplete=\([0-9]*\)	.*/\1/p" "$1"; }

test_expect_success 'setup: a dwarf capture, and copies with garbage stacks, garbage registers, 16-byte copies' '
	pd_build deep.c &&
	pd_record_dwarf dw.data ./deep &&
	mask=$(perf evlist -v -i dw.data 2>/dev/null | grep -o "sample_regs_user: 0x[0-9a-f]*" | cut -d" " -f2) &&
	dump=$(perf evlist -v -i dw.data 2>/dev/null | grep -o "sample_stack_user: [0-9]*" | cut -d" " -f2) &&
	n=$(fp-perfdata dw.data | grep -c "^S	") &&
	echo "regs $mask, stack copy $dump bytes, $n samples" &&
	for mode in garbage regs short; do
		"$MANGLE" dw.data $mode.data $mode "$dump" "$mask" >$mode.changed &&
		test "$(cat $mode.changed)" -gt 0 && test "$(cat $mode.changed)" -ge "$((n / 2))" || return 1
	done
'

test_expect_success 'garbage stack bytes: every sample kept, the unwinding cut short and counted, bounded' '
	run_bounded garbage.data g.s &&
	perf script -i garbage.data --no-inline 2>/dev/null | fp-read -q >want.s &&
	test "$(grep -c "^S	" g.s)" = "$(grep -c "^S	" want.s)" &&
	test "$(incomplete g.s)" -ge "$(cat garbage.changed)" &&
	awk -F "\t" "\$1 == \"S\" && split(\$10, f, \";\") > 2 * 127 { bad++ } END { exit bad > 0 }" g.s
'

test_expect_success 'garbage registers: each sample has its kernel frames and an [unknown] user frame, as perf script shows' '
	run_bounded regs.data r.s &&
	test "$(incomplete r.s)" -ge "$(cat regs.changed)" &&
	pd_compare regs.data 0.99
'

test_expect_success 'a 16-byte stack copy: the sampled function alone, as perf script shows, counted' '
	run_bounded short.data s.s &&
	test "$(incomplete s.s)" = "$(cat short.changed)" &&
	pd_compare short.data 0.99
'

test_expect_success 'perf record --call-graph dwarf,64: tiny stack copies agree with perf script, all counted' '
	pd_record tiny.data --call-graph dwarf,64 -F 499 -- ./deep &&
	run_bounded tiny.data t.s &&
	n=$(grep -c "^S	" t.s) &&
	test "$(incomplete t.s)" -gt "$((n / 2))" &&
	pd_compare tiny.data 0.99
'

test_done
