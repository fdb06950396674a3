#!/bin/sh
test_description='fp-render: tiny inputs give small outputs (sparse heatmap, cut axis, linear G/H)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-render.sh"

# issue 14 #5. Limits: RSS in kB (ASan adds its shadow memory).
rss_limit=30000 && { [ -z "${FP_ASAN:-}" ] || rss_limit=400000; }

# An S record at TIME ns (comm app, one frame).
s() { printf "S\t%s\t7\t7\t0\t1\tcpu-clock\tapp\tu\tmain\n" "$1"; }

test_expect_success 'two cells 99,900 s apart: small RSS, small heatmap.tsv and heatmap.json' '
	printf "G\t1000\t0\nH\t0\t5\t1\nH\t99900\t5\t1\n" >two.heat &&
	/usr/bin/time -f %M -o kb fp-render --outdir two <two.heat 2>two.err &&
	echo "peak RSS $(cat kb) kB; sizes: $(wc -c two/heatmap.tsv two/heatmap.json | head -2)" &&
	test "$(cat kb)" -lt $rss_limit &&
	test "$(wc -c <two/heatmap.tsv)" -lt 100000 &&
	test "$(wc -c <two/heatmap.json)" -lt 100000 &&
	awk -F "\t" "NR > 1 && \$3 > 0" two/heatmap.tsv >nz &&
	printf "0\t5\t1\n99900\t5\t1\n" >expect && test_cmp expect nz &&
	grep -q "\"columns\":\[0,99900\]," two/heatmap.json &&
	grep -q "\"cut\":99899}" two/heatmap.json
'

test_expect_success 'the cut axis is said: stderr, index.html and the heatmap axis' '
	grep -q "fp-render: warning: stdin:3: the samples span 99901 seconds, .*only the 2 seconds with samples are drawn, 99899 empty seconds are left out" two.err &&
	grep -q "only the 2 seconds with samples are drawn" two/index.html &&
	grep -q "seconds since 0 (only the 2 seconds with samples: 99899 empty seconds left out)" two/heatmap.svg &&
	grep -q "colmap: \[0,99900\]" two/heatmap.svg &&
	xml_ok two/heatmap.svg && page_ok two/index.html
'

# One stray sample at 1 s, the bulk 100,001 s later (more than an axis of
# 100,000 columns): every sample is in the heatmap, as in the flame graph.
test_expect_success 'one stray early sample does not push the other 1,000 off the heatmap' '
	{ s 1000000000; i=0; while [ $i -lt 1000 ]; do s $((100002000000000 + i * 10000000)); i=$((i + 1)); done; } >stray.S &&
	fp-bucket <stray.S | fp-fold --pass-samples | fp-render --outdir stray 2>err &&
	test "$(awk -F "\t" "NR > 1 { t += \$3 } END { print t }" stray/heatmap.tsv)" = 1001 &&
	test "$(folded_total stray/stacks.folded)" = 1001 &&
	grep -q "only the 11 seconds with samples are drawn" err &&
	grep -q "\"columns\":\[0,100001,100002," stray/heatmap.json
'

test_expect_success 'the page timeline indexes cells by their place on the cut axis' '
	sed -n "s/.*\"cells\":\[\([0-9]*\),\([0-9]*\),.*/\1 \2/p" stray/index.html >first &&
	echo "0 0" >expect && test_cmp expect first &&
	grep -q "^10,49,1,0,0,2\],$" stray/index.html
'

test_expect_success 'a --from/--to range on a cut axis is drawn on the columns that hold it' '
	fp-bucket <stray.S | fp-range --from 100001 --to 100002 | fp-fold --pass-samples |
		fp-render --outdir sel 2>/dev/null &&
	grep -q "sel_from: 50, sel_to: 99," sel/heatmap.svg
'

# 20,000 G/H pairs whose geometry changes each time (rows, base), the cell
# far right: each G must cost the cells held, not the width of the heatmap.
test_expect_success '20,000 G/H pairs with changing geometry: linear (seconds, not minutes)' '
	awk "BEGIN { for (i = 0; i < 20000; i++) printf \"G\t%d\t%d\nH\t99999\t0\t1\n\", 50 + i % 2, i }" >gh.heat &&
	timeout -s KILL 20 fp-render --outdir gh --format folded <gh.heat &&
	awk "BEGIN { for (i = 0; i < 20000; i++) printf \"G\t%d\t%d\nH\t%d\t0\t1\n\", 50 + i % 2, i, 200000 + i }" >gh2.heat &&
	timeout -s KILL 20 fp-render --outdir gh2 <gh2.heat 2>/dev/null &&
	printf "second\trow_start_ms\tcount\n" >expect &&
	i=0 && while [ $i -lt 51 ]; do printf "219999\t%s\t%d\n" $((i * 1000 / 51)) $((i == 0)); i=$((i + 1)); done >>expect &&
	sed "s/\.[0-9]*\t/\t/" gh2/heatmap.tsv >got && test_cmp expect got
'

test_done
