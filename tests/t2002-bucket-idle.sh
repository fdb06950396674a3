#!/bin/sh
test_description='fp-bucket: the idle rule keeps interrupt and softirq work done in swapper'
. "$(dirname "$0")/test-lib.sh"
D=$DATA/bucket

# idle.S: real-shaped stacks, each group introduced by a "# idle:" or
# "# counted:" comment saying what the rule must decide.
annotated() { awk -v want="$1" '/^# idle/ { c = "idle"; next } /^# counted/ { c = "counted"; next } /^S/ && c == want' "$D/idle.S"; }
sum_cells() { awk -F '\t' '$1 == "H" { c[$2 " " $3] = $4 } END { for (k in c) n += c[k]; print n + 0 }'; }

test_expect_success 'idle samples are dropped, every other sample passes in order' '
	fp-bucket <"$D/idle.S" >out &&
	annotated counted >expect &&
	grep "^S" out >got &&
	test_cmp expect got
'

test_expect_success 'the I record counts idle samples and cells hold only counted ones' '
	grep -q "^I	bucket	samples=15	counted=8	idle=7	cells=8	columns=3	overflow=0	bad=0\$" out &&
	sum_cells <out >n && echo 8 >expect && test_cmp expect n
'

test_expect_success 'softirq and interrupt work in swapper context is counted' '
	grep "^S" out | grep -c "handle_softirqs\|net_rx_action" >n &&
	echo 4 >expect && test_cmp expect n
'

test_expect_success '--keep-idle counts and passes idle samples too' '
	fp-bucket --keep-idle <"$D/idle.S" >out &&
	grep "^S" "$D/idle.S" >expect && grep "^S" out >got && test_cmp expect got &&
	grep -q "^I	bucket	samples=15	counted=15	idle=7	" out &&
	sum_cells <out >n && echo 15 >expect && test_cmp expect n
'

test_expect_success 'on a real capture the idle count equals an independent awk rule' '
	fp-read "$EXAMPLES/demo-clockloop.perf.gz" >in &&
	awk -F "\t" "\$1 == \"S\" && \$3 == 0 && \$10 !~ /irq|sysvec_|_interrupt/ &&
		\$10 ~ /(^|;)(pv_native_safe_halt|default_idle|intel_idle)\$/ { n++ } END { print n + 0 }" in >expect &&
	test "$(cat expect)" -gt 1000 &&
	fp-bucket <in | sed -n "s/^I	bucket	.*	idle=\([0-9]*\)	.*/\1/p" >got &&
	test_cmp expect got
'

test_done
