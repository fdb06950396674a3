#!/bin/sh
test_description='fp-read: lost events, truncated input, bad lines, warnings (escaped, FILE:LINE, throttled), errors'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-read.sh"

# One good sample, then the given lines.
good_then() {
	printf 'app 1 [000] 1.000000: 1 cpu-clock: \n\t55aa0001 work+0x8 (/x/app)\n\n'
	printf "$@"
}

test_expect_success 'PERF_RECORD_LOST lines are counted as lost events, not samples' '
	read_golden lost &&
	grep -q "	samples=3	.*	lost_events=25	lost_records=3	other_records=1	" out
'

test_expect_success 'input that ends inside the last sample: the sample is kept with its frames' '
	read_golden truncated-stack &&
	grep "^S	" out | tail -n 1 | grep -q "	uu	main;work\$"
'

test_expect_success 'input that ends inside an event line: earlier samples kept, a warning names the line' '
	read_golden truncated-event &&
	grep -q "^W	read	truncated-event.perf:4	expected a perf script event line" out
'

test_expect_success 'a warning names FILE:LINE on stderr and in a W record' '
	good_then "this is not perf script\n" >t.perf &&
	fp-read t.perf >out 2>err &&
	read_warned t.perf:4 "expected a perf script event line .*, got \"this is not perf script\""
'

test_expect_success 'non-printable bytes in a warning are escaped as \xHH, quotes and backslashes too' '
	good_then "bad\001\002\033[31m\tq\"b\\\\\377\n" >t.perf &&
	fp-read t.perf >out 2>err &&
	cat err &&
	grep -F -q "got \"bad\\x01\\x02\\x1b[31m\\x09q\\\"b\\\\\\xff\"" err &&
	grep -F -q "got \"bad\\x01\\x02\\x1b[31m\\x09q\\\"b\\\\\\xff\"" out &&
	! LC_ALL=C grep -q "[[:cntrl:]]" err &&
	test $(grep "^W" out | tr -cd "\t" | wc -c) = 3
'

test_expect_success 'a long bad line is quoted in part, with ...' '
	good_then "%0200d\n" 7 >t.perf &&
	fp-read t.perf 2>err >/dev/null &&
	grep -q "got \"0000000000000000000000000000000000000000\"...\$" err
'

test_expect_success 'warnings are throttled: the first 10, then one total at the end' '
	{ good_then ""; for i in $(seq 25); do echo "junk $i"; done; } >t.perf &&
	fp-read t.perf >out 2>err &&
	test $(grep -c "^W	read	t.perf:[0-9]*	expected" out) = 10 &&
	test $(grep -c "^fp-read: t.perf:[0-9]*: expected" err) = 10 &&
	grep -q "^W	read	t.perf:28	15 more .bad line. warnings not shown (25 in all)\$" out &&
	grep -q "15 more .bad line. warnings not shown (25 in all)" err &&
	grep -q "	bad_lines=25	" out
'

test_expect_success 'throttling is per kind: an over-long line is still reported after many bad lines' '
	{ good_then ""; for i in $(seq 12); do echo "junk $i"; done;
	  printf "app 1 [000] 2.000000: 1 cpu-clock: \n\t"; head -c 1100000 /dev/zero | tr "\0" a; echo;
	  printf "\napp 1 [000] 3.000000: 1 cpu-clock: \n\t55aa0001 work+0x8 (/x/app)\n"; } >t.perf &&
	fp-read t.perf >out 2>err &&
	grep -q "^W	read	t.perf:[0-9]*	line longer than 1048576 bytes skipped, its sample dropped\$" out &&
	grep -q "	samples=2	.*	too_long_lines=1	dropped_samples=1	" out
'

test_expect_success '-q: no stderr, the W records stay' '
	good_then "junk\n" >t.perf &&
	fp-read -q t.perf >out 2>err &&
	test ! -s err && grep -q "^W	" out
'

test_expect_success 'frame lines before any event line are bad lines' '
	printf "\t55aa0001 work+0x8 (/x/app)\n" >t.perf &&
	good_then "" >>t.perf &&
	fp-read t.perf >out 2>err &&
	grep -q "^W	read	t.perf:1	" out && grep -q "	samples=1	" out
'

test_expect_success 'not perf script at all: exit 1, FILE:LINE named, stops after a few lines' '
	head -c 100000 "$(command -v fp-read)" >bin.perf &&
	test_must_fail fp-read bin.perf >out 2>err &&
	cat err &&
	grep -q "^fp-read: bin.perf:1: not perf script text: expected a perf script event line" err &&
	! LC_ALL=C grep -q "[[:cntrl:]]" err &&
	grep -q "^I	read	.*	samples=0	" out
'

test_expect_success 'an empty file: header and statistics, exit 0' '
	: >empty.perf &&
	fp-read empty.perf >out &&
	test $(wc -l <out) = 2 && head -n 1 out | grep -qx "%flamepipe	1" &&
	grep -q "^I	read	lines=0	samples=0	" out
'

test_expect_success 'a missing file: exit 111 and the file named' '
	{ fp-read no-such.perf >out 2>err; test $? = 111; } &&
	grep -q "^fp-read: cannot open .no-such.perf.: No such file or directory\$" err
'

test_expect_success 'a file name with control bytes is escaped in messages' '
	good_then "junk\n" >"$(printf "we\tird.perf")" &&
	fp-read "$(printf "we\tird.perf")" >out 2>err &&
	grep -q "^W	read	we\\\\x09ird.perf:4	" out &&
	test $(grep "^W" out | tr -cd "\t" | wc -c) = 3
'

test_expect_success 'NUL bytes in a name become spaces in the S record' '
	printf "app 1 [000] 1.000000: 1 cpu-clock: \n\t55aa0001 wo\000rk+0x8 (/x/app)\n" >t.perf &&
	fp-read t.perf | grep "^S" | cut -f 10 >got &&
	echo "wo rk" >expect && test_cmp expect got
'

test_done
