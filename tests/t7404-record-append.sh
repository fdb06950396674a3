#!/bin/sh
test_description='fp-record: a recorder that starts or restarts mid-stream loses nothing it was given'
. "$(dirname "$0")/test-lib.sh"
DEMO=$EXAMPLES/demo-clockloop.perf.gz

fp-read -q "$DEMO" >demo.S || exit 1
grep "^S" demo.S >demo.samples
N=$(wc -l <demo.samples)
H=$((N / 2))
{ echo "%flamepipe	1"; head -n "$H" demo.samples; } >first.S
{ echo "%flamepipe	1"; tail -n +"$((H + 1))" demo.samples; } >second.S

test_expect_success 'a second recorder appends to the recording: both halves, in order, one sequence' '
	fp-record --output rec.gz <first.S >/dev/null &&
	fp-record --output rec.gz <second.S >out 2>err &&
	fp-read rec.gz | grep "^S" | cmp - demo.samples &&
	fp-read --index rec.gz | awk "!/^#/ { if (\$6 != n++) bad = 1; if (\$7 != s) bad = 1; s += \$5 }
		END { exit bad }" &&
	grep -q "^I	record	recorded=$N	.*appended_to=$H	" out
'

test_expect_success 'an incomplete last batch (a recorder killed while writing) is cut off, then appended to' '
	rm -f rec.gz && fp-record --output rec.gz <first.S >/dev/null &&
	size=$(wc -c <rec.gz) && kept=$(fp-read --index rec.gz | grep -v "^#" | sed "\$d" | awk "{ n += \$5 } END { print n }") &&
	head -c $((size - 100)) rec.gz >cut.gz && mv cut.gz rec.gz &&
	fp-record --output rec.gz <second.S >/dev/null 2>err &&
	grep -q "cutting off an incomplete last batch" err &&
	fp-read rec.gz >back 2>rerr &&
	test ! -s rerr &&
	test "$(grep -c "^S" back)" = $((kept + N - H))
'

test_expect_success 'a file that is not a recording is refused, not overwritten' '
	echo "precious" >notes.txt &&
	{ fp-record --output notes.txt <first.S >/dev/null 2>err; test $? = 111; } &&
	grep -q "notes.txt exists and is not a flamepipe recording" err &&
	test "$(cat notes.txt)" = precious
'

test_expect_success 'a new recording is 0600 whatever the umask' '
	rm -f rec.gz && (umask 022 && fp-record --output rec.gz <first.S >/dev/null) &&
	test "$(stat -c %a rec.gz)" = 600
'

# A stack-id stream that begins mid-way: the P records of ids defined
# before the recorder started cannot be turned into samples.
test_expect_success 'a stack-id stream joined mid-way: unresolved samples are counted and told, the rest recorded' '
	fp-read -q --stack-ids "$DEMO" >ids &&
	awk "NR > 3000" ids >mid &&
	rm -f rec.gz && fp-record --output rec.gz <mid >out 2>err &&
	grep -q "never saw defined" err &&
	grep -q "^W	record	.*never saw defined" out &&
	p=$(grep -c "^P" mid) &&
	rec=$(sed -n "s/^I	record	recorded=\([0-9]*\)	.*/\1/p" out) &&
	unres=$(sed -n "s/.*	unresolved=\([0-9]*\).*/\1/p" out) &&
	test "$unres" -gt 0 && test $((rec + unres)) = "$p" &&
	test "$(fp-read -q rec.gz | grep -c "^S")" = "$rec"
'

test_done
