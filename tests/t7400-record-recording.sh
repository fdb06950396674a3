#!/bin/sh
test_description='fp-record: a recording every command reads, indexed by time, readable after SIGKILL'
. "$(dirname "$0")/test-lib.sh"
DEMO=$EXAMPLES/demo-clockloop.perf.gz

fp-read -q "$DEMO" >demo.S || exit 1
grep "^S" demo.S >demo.samples

# fp-record --output OUT --flush-interval MS reading in.fifo, which the test
# holds open on fd 9 (the input of a live capture): its pid in $pid,
# killed if the test ends before it.
start_recording() { # OUT MS
	rm -f in.fifo && mkfifo in.fifo || return 1
	rm -f "$1" && fp-record --output "$1" --flush-interval "$2" <in.fifo >/dev/null &
	pid=$!
	exec 9>in.fifo &&
	test_when_finished "exec 9>&-; kill -9 $pid 2>/dev/null"
}

test_expect_success 'the stream passes through fp-record byte for byte' '
	rm -f rec.gz && fp-record --output rec.gz <demo.S >out &&
	head -n "$(wc -l <demo.S)" out | cmp - demo.S &&
	test "$(tail -n 1 out | cut -f1,2)" = "I	record"
'

test_expect_success 'the recording is gzip holding exactly the S records, one batch per second' '
	rm -f rec.gz && fp-record --output rec.gz <demo.S >/dev/null &&
	gzip -t rec.gz &&
	zcat rec.gz | grep "^S" | cmp - demo.samples &&
	secs=$(cut -f2 demo.samples | awk "{ print int(\$1 / 1e9) }" | sort -u | wc -l) &&
	test "$(fp-read --index rec.gz | grep -vc "^#")" = "$secs"
'

test_expect_success 'fp-read reads a recording as the capture it came from' '
	rm -f rec.gz && fp-record --output rec.gz <demo.S >/dev/null &&
	fp-read rec.gz >back 2>err &&
	grep "^S" back | cmp - demo.samples &&
	grep -q "^I	read	samples=$(wc -l <demo.samples)	.*recording=1" back &&
	test ! -s err
'

test_expect_success 'flamepipe report of a recording equals the report of its source, whole and ranged' '
	rm -f rec.gz && fp-record --output rec.gz <demo.S >/dev/null &&
	flamepipe report -q rec.gz -o a &&
	flamepipe report -q "$DEMO" -o b &&
	test_cmp b/stacks.folded a/stacks.folded &&
	flamepipe report -q rec.gz --from 20.5 --to 31 -o c &&
	flamepipe report -q "$DEMO" --from 20.5 --to 31 -o d &&
	test_cmp d/stacks.folded c/stacks.folded && test -s c/stacks.folded
'

test_expect_success 'fp-read --time keeps [START, END) exactly, on a recording and on perf text' '
	rm -f rec.gz && fp-record --output rec.gz <demo.S >/dev/null &&
	awk -F "\t" "\$2 >= 170250000000 && \$2 < 181000000000" demo.samples >expect &&
	test -s expect &&
	fp-read --time 170.25,181 rec.gz | grep "^S" >got &&
	test_cmp expect got &&
	fp-read -q --time 170.25,181 "$DEMO" | grep "^S" >got2 &&
	test_cmp expect got2 &&
	fp-read --time 270, rec.gz | grep "^S" >tail.got &&
	awk -F "\t" "\$2 >= 270000000000" demo.samples | cmp - tail.got
'

# Damage a batch outside the range: a range read that touched it would
# fail its CRC; one that reads only the range's batches does not notice.
test_expect_success 'a range read touches only the batches of that range' '
	rm -f rec.gz && fp-record --output rec.gz <demo.S >/dev/null &&
	off=$(fp-read --index rec.gz | awk "!/^#/ && \$3 >= 200e9 && n++ == 0 { print \$1 + 100 }") &&
	test -n "$off" &&
	printf "XXXXXXXX" | dd of=rec.gz bs=1 seek="$off" conv=notrunc 2>/dev/null &&
	fp-read --time 170,180 rec.gz >r1 2>err1 &&
	test ! -s err1 && grep -c "^S" r1 >/dev/null &&
	test_must_fail fp-read rec.gz >r2 2>err2 &&
	grep -q "damaged" err2
'

test_expect_success 'a recording killed with SIGKILL mid-capture reads up to its last batch' '
	start_recording live.gz 50 &&
	head -n 2000 demo.S >&9 &&
	wait_for "test \$(fp-read --index live.gz 2>/dev/null | grep -vc \"^#\") -ge 3" 100 &&
	kill -9 $pid && wait $pid; exec 9>&-
	n=$(fp-read --index live.gz | awk "!/^#/ { n += \$5 } END { print n }") &&
	test "$n" -gt 0 &&
	fp-read live.gz >back 2>err &&
	test "$(grep -c "^S" back)" = "$n" &&
	head -n "$n" demo.samples | cmp - "$(grep "^S" back >s; echo s)" &&
	flamepipe report -q live.gz -o rep &&
	test -s rep/stacks.folded
'

test_expect_success 'a batch cut off by the crash is skipped with a warning, the rest is read' '
	rm -f rec.gz && fp-record --output rec.gz <demo.S >/dev/null &&
	head -c 5000 rec.gz >cut.gz &&
	n=$(fp-read --index cut.gz | awk "!/^#/ { n += \$5 } END { print n }") &&
	fp-read cut.gz >back 2>err &&
	test "$(grep -c "^S" back)" = "$n" &&
	grep -q "incomplete batch" err &&
	grep -q "^W	read	.*incomplete batch" back
'

test_expect_success 'a recording still being written can be read at any time' '
	start_recording grow.gz 20 &&
	head -n 500 demo.S >&9 &&
	wait_for "fp-read -q grow.gz 2>/dev/null | grep -q ^S" 100 &&
	a=$(fp-read -q grow.gz | grep -c "^S") &&
	sed -n "501,3000p" demo.S >&9 &&
	wait_for "test \$(fp-read -q grow.gz | grep -c ^S) -gt $a" 100 &&
	exec 9>&- && wait $pid &&
	fp-read grow.gz | grep "^S" | cmp - "$(sed -n "1,3000p" demo.S | grep "^S" >e; echo e)"
'

test_expect_success 'a late sample joins the current batch (its span says so), and range reads still find it' '
	s() { printf "S\t%s\t1\t1\t0\t1\tc\tapp\tu\tmain\n" "$1"; } &&
	{ s 3000000000; s 2999000000; s 3500000000; s 4000000000; } | fp-record --output oo.gz >/dev/null &&
	fp-read --index oo.gz | grep -v "^#" | cut -d" " -f3-5 >ix &&
	printf "2999000000 3500000000 3\n4000000000 4000000000 1\n" >expect &&
	test_cmp expect ix &&
	fp-read --time 2.9,3 oo.gz | grep -c "^S" >n && test "$(cat n)" = 1
'

test_expect_success 'usage errors exit 100 and say what was expected' '
	test_expect_code() { "$@"; test $? = 100; } &&
	test_expect_code fp-record </dev/null 2>e1 &&
	grep -q "usage: fp-record --output FILE" e1 &&
	test_expect_code fp-record --output x.gz --max-size 10Q </dev/null 2>e2 &&
	grep -q "max-size: expected bytes" e2 &&
	test_expect_code fp-record --output x.gz --keep 0 </dev/null 2>e3 &&
	grep -q "keep: expected seconds" e3 &&
	test_expect_code fp-read --time 12 "$DEMO" 2>e4 &&
	grep -q "time: expected START,END" e4
'

test_expect_success 'an output that cannot be created exits 111' '
	rm -f no/such/dir/rec.gz && fp-record --output no/such/dir/rec.gz </dev/null >/dev/null 2>err; test $? = 111 &&
	grep -q "cannot create recording no/such/dir/rec.gz" err
'

test_expect_success 'a sample a year of sample time from the others is counted, not recorded' '
	printf "%%flamepipe\t1\nS\t1000000000\t1\t1\t0\t1\tcpu-clock\ta\tu\tf\nS\t5000000000000000000\t1\t1\t0\t1\tcpu-clock\tb\tu\tg\n" |
		fp-record --output span.fp.gz >span.out 2>span.err &&
	grep -q "^I	record	recorded=1	.*	out_of_span=1" span.out &&
	grep -q "^W	record	.*more than a year" span.out &&
	fp-read span.fp.gz >span.read 2>span.rerr &&
	test "$(grep -c "^S" span.read)" = 1 &&
	! grep -q "incomplete\|damage" span.rerr
'

test_done
