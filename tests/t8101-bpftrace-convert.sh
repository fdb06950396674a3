#!/bin/sh
test_description='fp-bpftrace: profile.bt text becomes exact perf script text'
. "$(dirname "$0")/test-lib.sh"

D=$DATA/bpftrace

# convert.bt covers each rewrite: "Attaching" dropped, blank lines inside a
# sample dropped, decimal offsets to +0x hex, 0x<addr> symbols to [unknown],
# missing dso to [kernel.kallsyms] (kernel address) or [unknown], swapper/N
# to swapper, a C++ symbol and a deleted file's "(path (deleted))" dso kept
# whole, "Lost N events" to PERF_RECORD_LOST, a last sample without #end.
test_expect_success 'every rewrite gives the perf script text of convert.perf' '
	fp-bpftrace "$D/convert.bt" >out &&
	test_cmp "$D/convert.perf" out
'

test_expect_success 'fp-read reads the result with no bad line and counts the lost events' '
	fp-bpftrace "$D/convert.bt" | fp-read >S &&
	grep -q "	samples=3	.*	bad_lines=0	lost_events=17	" S &&
	grep -qx "S	100500000000	42	43	0	1	cpu-clock	server	xuxu	orphan;Foo::bar(int) const;\[unknown\];__libc_read" S &&
	grep -q "^S	100000000123	0	0	1	1	cpu-clock	swapper	kk	default_idle;pv_native_safe_halt\$" S
'

test_expect_success 'a real 60-sample capture reads whole: one S record per sample, no bad line' '
	fp-bpftrace "$D/profile-60.bt.txt" | fp-read >S &&
	test $(grep -c "^S" S) = 60 &&
	grep -q "	bad_lines=0	" S
'

test_expect_success 'stdin, gzip and CRLF input give the same text' '
	fp-bpftrace <"$D/convert.bt" >stdin.out &&
	test_cmp "$D/convert.perf" stdin.out &&
	gzip -c "$D/convert.bt" >c.gz && fp-bpftrace c.gz >gz.out &&
	test_cmp "$D/convert.perf" gz.out &&
	sed "s/\$/\r/" "$D/convert.bt" >crlf.bt && fp-bpftrace crlf.bt >crlf.out &&
	test_cmp "$D/convert.perf" crlf.out
'

test_expect_success 'usage errors exit 100' '
	test_must_fail fp-bpftrace --bogus 2>err && grep -q "usage: fp-bpftrace" err &&
	fp-bpftrace a b 2>err; test $? = 100
'

test_done
