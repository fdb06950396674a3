#!/bin/sh
test_description='fp-perfdata --stack-ids: a real capture as K and P records, folded and counted as its S records are'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

chain() { # stream-file
	fp-bucket --all-events <"$1" | fp-range | fp-fold --all-events --pass-samples
}

test_expect_success 'setup: a capture of a workload, both streams' '
	pd_record cap.data -g -F 999 -- "$TOP/build/tests/busy" 300 t 2000 &&
	fp-perfdata cap.data >plain.s 2>plain.err &&
	fp-perfdata --stack-ids cap.data >ids.s 2>ids.err &&
	test "$(grep -c "^S	" plain.s)" -gt 100
'

test_expect_success 'one P per sample, each tail defined once before its first P' '
	! grep -q "^S	" ids.s &&
	test "$(grep -c "^P	" ids.s)" = "$(grep -c "^S	" plain.s)" &&
	awk -F "\t" "
		\$1 == \"K\" { if (\$2 != nk++) bad = 1; def[\$2] = 1 }
		\$1 == \"P\" { if (!(\$7 in def)) bad = 1 }
		END { exit bad }" ids.s &&
	test_cmp plain.err ids.err
'

test_expect_success 'the same heatmap, folded stacks and R records through bucket | range | fold' '
	chain plain.s | grep -v "^[SKP]	" >want &&
	chain ids.s | grep -v "^[SKP]	" >got &&
	test_cmp want got &&
	grep -q "^F	" got && grep -q "^H	" got
'

test_expect_success 'the I record counts the same samples and frames' '
	grep "^I	read	" plain.s >want &&
	grep "^I	read	" ids.s >got &&
	test_cmp want got
'

test_expect_success 'flamepipe report perf.data: the same report with the negotiated stack-id stream as without' '
	flamepipe report -q cap.data -o ids.out &&
	FLAMEPIPE_STACK_IDS=0 flamepipe report -q cap.data -o plain.out &&
	for f in stacks.folded heatmap.tsv heatmap.json flame.svg; do
		test_cmp plain.out/$f ids.out/$f || return 1
	done
'

test_done
