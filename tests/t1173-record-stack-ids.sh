#!/bin/sh
test_description='fp-record fed the stack-id stream records exactly what it records of the plain S stream'
. "$(dirname "$0")/test-lib.sh"

# two sources one after the other, each numbering its tails from 0 (as a
# restarted source does): the second one's K records redefine the ids
test_expect_success 'setup: the same samples as S records and as K/P records' '
	fp-read -q "$EXAMPLES/multiproc.perf.gz" >a.S &&
	fp-read -q "$EXAMPLES/demo-clockloop.perf.gz" >b.S &&
	fp-read -q --stack-ids "$EXAMPLES/multiproc.perf.gz" >a.ids &&
	fp-read -q --stack-ids "$EXAMPLES/demo-clockloop.perf.gz" >b.ids &&
	cat a.S b.S >plain.stream && cat a.ids b.ids >ids.stream &&
	grep -q "^K	0	" b.ids && grep -q "^P	" ids.stream && ! grep -q "^S	" ids.stream
'

test_expect_success 'the recordings inflate to the same text, batch for batch' '
	fp-record --output plain.gz <plain.stream >plain.out &&
	fp-record --output ids.gz <ids.stream >ids.out &&
	zcat plain.gz >plain.text && zcat ids.gz >ids.text &&
	test_cmp plain.text ids.text &&
	fp-read --index plain.gz | cut -d" " -f3- >plain.index &&
	fp-read --index ids.gz | cut -d" " -f3- >ids.index &&
	test_cmp plain.index ids.index
'

test_expect_success 'the same counts, idle samples too (the idle rule read once per tail)' '
	tail -n 1 plain.out >plain.I && tail -n 1 ids.out >ids.I &&
	grep -q "^I	record	recorded=" plain.I &&
	test_cmp plain.I ids.I &&
	idle=$(tr "\t" "\n" <ids.I | sed -n "s/^idle=//p") &&
	test "$idle" -gt 0 &&
	test "$idle" = "$(fp-bucket --rows 50 <b.S | grep "^I	bucket	" | tail -n 1 | tr "\t" "\n" |
		sed -n "s/^idle=//p")"
'

test_expect_success 'the stream passes through unchanged' '
	head -n "$(wc -l <ids.stream)" ids.out | cmp - ids.stream
'

test_done
