#!/bin/sh
test_description='fp-range on the stack-id stream: its K and P records are its own ids, the K and P records it was given when the ids coincide, and always the samples of the plain stream'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-stream.sh"

# expand: K and P records back to the S records they stand for (PROTOCOL.md).
expand() {
	awk -F "\t" -v OFS="\t" '
		$1 == "K" { t[$2] = $3 "\t" $4 "\t" $5 "\t" $6; next }
		$1 == "P" { print "S", $2, $3, $4, $5, $6, t[$7]; next }
		{ print }'
}
# own_ids_ok: K ids dense from 0, each before the first P naming it.
own_ids_ok() {
	awk -F "\t" '
		$1 == "K" { if ($2 != nk++) { print "K id out of order: " $0; bad = 1 }; def[$2] = 1 }
		$1 == "P" { if (!($7 in def)) { print "P before its K: " $0; bad = 1 } }
		END { exit bad }'
}
# same_as_plain IDS PLAIN [OPTS]: fp-range OPTS on both streams writes the
# same records once the stack-id one is expanded, and its ids are its own.
same_as_plain() {
	fp-range $3 <"$1" >ids.out 2>ids.err &&
	fp-range $3 <"$2" >plain.out 2>plain.err &&
	own_ids_ok <ids.out &&
	expand <ids.out >got && test_cmp plain.out got && test_cmp plain.err ids.err
}

test_expect_success 'setup: a capture of several processes, as K and P records and as S' '
	zcat "$EXAMPLES/multiproc.perf.gz" >mp.perf &&
	fp-read --stack-ids mp.perf | fp-bucket --all-events --keep-idle >ids.s &&
	test "$(grep -c "^P	" ids.s)" -gt 1000 &&
	expand <ids.s >plain.s &&
	fp-read mp.perf | fp-bucket --all-events --keep-idle | grep "^S	" >want &&
	grep "^S	" plain.s >got && test_cmp want got
'

test_expect_success 'every K is sampled and no text twice: the K and P records go out as they came' '
	fp-range <ids.s >out &&
	grep "^[KP]	" ids.s >want &&
	grep "^[KP]	" out >got &&
	test_cmp want got
'

test_expect_success 'a K of a text defined before and a K no sample names: P records renumbered' '
	awk -F "\t" -v OFS="\t" "
		\$1 == \"K\" && \$2 == 3 { print; print \"K\", 4, \$3, \$4, \$5, \$6; print \"K\", 5, \"cycles\", \"never\", \"u\", \"sampled\"; next }
		\$1 == \"K\" && \$2 > 3 { \$2 += 2 }
		\$1 == \"P\" && \$7 > 3 { \$7 += 2 }
		\$1 == \"P\" && \$7 == 3 && !twice++ { \$7 = 4 }
		{ print }" ids.s >dup.s &&
	test "$(grep -c "^K	" dup.s)" = "$(($(grep -c "^K	" ids.s) + 2))" &&
	expand <dup.s >dup.plain &&
	same_as_plain dup.s dup.plain &&
	grep "^I	range" ids.out >got &&
	fp-range <ids.s | grep "^I	range" >want &&
	test_cmp want got
'

test_expect_success 'numbers written with leading zeros go out as the writers write them' '
	awk -F "\t" -v OFS="\t" "\$1 == \"P\" && NR % 3 == 0 { \$2 = \"0\" \$2; \$7 = \"00\" \$7 } { print }" \
		ids.s >zeros.s &&
	fp-range <zeros.s >out &&
	grep -c "^P	0" zeros.s >n && test "$(cat n)" -gt 100 &&
	! grep -E "^P(	[0-9-]+)*	-?0[0-9]" out &&
	fp-range <ids.s >want &&
	test_cmp want out
'

test_expect_success 'a restarted source numbers from 0 again with other texts: the same samples' '
	awk -F "\t" -v OFS="\t" "/^[KP]	/ && \$1 == \"K\" && \$2 % 2 { \$5 = \$5 \"u\"; \$6 = \$6 \";restarted\" } /^[KP]	/ { print }" \
		ids.s >second.s &&
	cat ids.s second.s >restart.s &&
	expand <restart.s >restart.plain &&
	same_as_plain restart.s restart.plain &&
	test "$(grep -c "^K	" ids.out)" -gt "$(grep -c "^K	" ids.s)"
'

test_expect_success 'filters and a range given as options: the same samples, own ids' '
	same_as_plain ids.s plain.s "--comm mp-hash-parse,worker2" &&
	test "$(grep -c "^P	" ids.out)" -gt 0 &&
	same_as_plain ids.s plain.s "--include hash --from 0.2" &&
	same_as_plain restart.s restart.plain "--exclude compress"
'

test_expect_success 'a replay after a filter change re-sends P records of the ids already defined' '
	start_range &&
	cat ids.s >&9 &&
	n=$(grep -c "^P	" ids.s) &&
	wait_for "test \$(grep -c \"^P	\" out) = $n" 100 &&
	echo "comm worker2" >ctl &&
	wait_for "grep -q \"^C	flush\" out" 100 &&
	echo "clear" >ctl &&
	wait_for "test \$(grep -c \"^C	flush\" out) = 2" 100 &&
	stop_range &&
	own_ids_ok <out &&
	expand <out | sed -n "/^C	reset/,\$p" | sed "/^C	flush/q" | grep "^S	" >got &&
	awk -F "\t" "\$1 == \"S\" && \$8 == \"worker2\"" plain.s >want &&
	test_cmp want got &&
	expand <out | sed -n "/^C	flush/,\$p" | sed 1d | sed -n "/^C	reset/,\$p" | grep "^S	" >got &&
	grep "^S	" plain.s >want &&
	test_cmp want got
'

test_done
