#!/bin/sh
test_description='differential and elided flame graphs'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-render.sh"
D=$DATA/render

# diff-*.folded: before a 50 b 50 (total 100); after a 150 b 50 c 100 (300).
# Normalised: a 50% -> 50% (white), b 50% -> 16.67% (-33.33%, the largest
# fall: pure blue), c 0 -> 33.33% (the largest rise: pure red).
test_expect_success 'golden: widths from AFTER, colour from the normalised change' '
	fp-flamegraph --diff "$D/diff-before.folded" "$D/diff-after.folded" >d.svg &&
	xml_ok d.svg &&
	grep "^<g fp:" d.svg >frames &&
	test_cmp "$D/diff.frames" frames
'

test_expect_success 'the tooltip gives the change in samples and in percent' '
	grep -F "<title>b (50 samples, 16.67%; +0 samples, -33.33%)</title>" d.svg &&
	grep -F "<title>c (100 samples, 33.33%; +100 samples, +33.33%)</title>" d.svg
'

# grade-*.folded: x 40% -> 50% (+10, the largest), y 40% -> 35% and
# z 20% -> 15% (-5 each: half the largest, 210 * 5 / 10 = 105).
test_expect_success 'golden: intensity scales with the change (half the largest -> 105)' '
	fp-flamegraph --diff "$D/grade-before.folded" "$D/grade-after.folded" >g.svg &&
	grep "^<g fp:" g.svg >frames &&
	test_cmp "$D/grade.frames" frames &&
	grep -F "<title>y (35 samples" frames | grep -F "fill=\"rgb(105,105,255)\"" &&
	grep -F "<title>x (50 samples" frames | grep -F "fill=\"rgb(255,0,0)\""
'

test_expect_success 'frame widths sum to the AFTER totals' '
	fp-flamegraph --minwidth 0 --diff "$D/diff-before.folded" "$D/diff-after.folded" >w.svg &&
	svg_to_folded w.svg >back &&
	folded_merge "$D/diff-after.folded" >expect &&
	test_cmp expect back &&
	test "$(svg_root_width w.svg)" = 300
'

test_expect_success '--negate swaps red and blue and the sign of the change' '
	fp-flamegraph --negate --diff "$D/diff-before.folded" "$D/diff-after.folded" >n.svg &&
	grep -F "<title>c (100 samples, 33.33%; -100 samples, -33.33%)</title>" n.svg |
		grep -F "fill=\"rgb(0,0,255)\"" &&
	grep -F "<title>b (50 samples" n.svg | grep -F "fill=\"rgb(255,0,0)\""
'

test_expect_success 'a two-count folded file (difffolded.pl output) draws the same graph' '
	printf "main;a 50 150\nmain;b 50 50\nmain;c 0 100\n" >pair.folded &&
	fp-flamegraph pair.folded >p.svg &&
	cmp d.svg p.svg
'

test_expect_success 'the same change in a longer capture is not "more": normalised' '
	awk "{ \$NF = \$NF * 3; print }" "$D/diff-before.folded" >before3.folded &&
	fp-flamegraph --diff before3.folded "$D/diff-after.folded" >d3.svg &&
	grep "^<g fp:" d3.svg | sed "s/; [-+][0-9]* samples//" >a &&
	sed "s/; [-+][0-9]* samples//" "$D/diff.frames" >b &&
	test_cmp b a
'

test_expect_success 'elided: the stacks only BEFORE has, with its counts' '
	fp-flamegraph --minwidth 0 --elided "$D/diff-after.folded" "$D/diff-before.folded" >e.svg &&
	grep -q ">Elided Frames<" e.svg &&
	svg_to_folded e.svg >back &&
	test_cmp "$D/elided.expect" back
'

test_expect_success 'elided with nothing missing draws "no samples" and exits 1' '
	expect_exit 1 fp-flamegraph --elided "$D/diff-before.folded" "$D/diff-after.folded" >e2.svg 2>err &&
	xml_ok e2.svg && grep -q "no samples" e2.svg
'

test_expect_success 'differential JSON carries the self-count delta' '
	fp-flamegraph --json --diff "$D/diff-before.folded" "$D/diff-after.folded" >d.json &&
	grep -F "{\"name\":\"c\",\"value\":100,\"delta\":100,\"children\":[]}" d.json &&
	grep -F "{\"name\":\"b\",\"value\":50,\"delta\":0,\"children\":[]}" d.json
'

test_expect_success 'byte-identical differential output' '
	fp-flamegraph --diff "$D/diff-before.folded" "$D/diff-after.folded" >again.svg &&
	cmp d.svg again.svg
'

test_expect_success 'two ranges of one capture: report --from/--to twice, then --diff' '
	flamepipe report -q "$EXAMPLES/demo-clockloop.perf.gz" --to 30 -o early &&
	flamepipe report -q "$EXAMPLES/demo-clockloop.perf.gz" --from 30 -o late &&
	fp-flamegraph --diff early/stacks.folded late/stacks.folded >range.svg &&
	xml_ok range.svg &&
	test "$(svg_root_width range.svg)" = "$(folded_total late/stacks.folded)" &&
	grep -q "fill=\"rgb(255,0,0)\"\|fill=\"rgb(0,0,255)\"" range.svg
'

test_done
