#!/bin/sh
test_description='fp-fold end to end on real perf captures (through fp-read)'
. "$(dirname "$0")/test-lib.sh"
D=$DATA/fold

# multiproc.period.folded was produced by `fp-read | fp-fold --plain
# --weight period` and found byte-identical to stackcollapse-perf.pl's
# output for the same capture (see docs/fp-fold.md, "Parity").
test_expect_success 'multiproc capture folds exactly as stackcollapse-perf.pl does' '
	fp-read "$EXAMPLES/multiproc.perf.gz" | fp-fold --plain --weight period >out &&
	test_cmp "$D/multiproc.period.folded" out
'

for ex in multiproc demo-clockloop multiproc-nocallgraph; do
	f=$EXAMPLES/$ex.perf.gz
	test_expect_success "$ex: folded total (--weight samples) = S records = samples in the capture" "
		fp-read \"$f\" >s &&
		fp-fold <s >out &&
		nsamples=\$(grep -c '^S	' s) &&
		raw=\$(awk_count_samples \"$f\") &&
		total=\$(awk -F '	' '\$1 == \"F\" { t += \$2 } END { print t + 0 }' out) &&
		echo \"S=\$nsamples raw=\$raw folded=\$total\" &&
		test \$nsamples -gt 0 && test \$total = \$nsamples && test \$raw = \$nsamples &&
		grep -q \"^C	end	fold	[0-9]*	\$nsamples\$\" out &&
		grep -q \"^I	fold	samples=\$nsamples	\" out
	"
	test_expect_success "$ex: --weight period total = sum of the S periods" "
		fp-fold --plain --weight period <s >out &&
		want=\$(awk -F '	' '\$1 == \"S\" { t += (\$6 == 0 ? 1 : \$6) } END { printf \"%d\", t }' s) &&
		got=\$(awk '{ t += \$NF } END { printf \"%d\", t }' out) &&
		echo \"periods=\$want folded=\$got\" &&
		test \"\$got\" = \"\$want\"
	"
done

test_expect_success 'the snapshot announces as many stacks as it has F lines' '
	fp-read "$EXAMPLES/demo-clockloop.perf.gz" | fp-fold >out &&
	n=$(grep -c "^F	" out) &&
	grep -q "^C	end	fold	$n	" out
'

test_expect_success 'fp-fold passes fp-read and fp-bucket records on (header, G, H, I)' '
	fp-read "$EXAMPLES/multiproc.perf.gz" | fp-bucket | fp-fold >out &&
	head -n 1 out | grep -qx "%flamepipe	1" &&
	grep -q "^G	" out && grep -q "^H	" out &&
	grep -q "^I	read	" out && grep -q "^I	bucket	" out &&
	! grep -q "^S	" out
'

test_done
