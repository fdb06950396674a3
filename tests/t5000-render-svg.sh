#!/bin/sh
test_description='fp-flamegraph: folded files to an SVG flame graph'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-render.sh"
D=$DATA/render

test_expect_success 'the embedded scripts match their .js sources (render/js2c.sh)' '
	sh "$TOP/render/js2c.sh" "$TOP/render/flamegraph.js" flame_js >flame.inc &&
	test_cmp "$TOP/render/flamegraph_js.inc" flame.inc &&
	sh "$TOP/render/js2c.sh" "$TOP/render/heatmap.js" heatmap_js >heatmap.inc &&
	test_cmp "$TOP/render/heatmap_js.inc" heatmap.inc
'

# small.frames was checked by hand: x and w in samples, rect x/width in px
# (580 px for 100 samples), children sorted by name, a frame before its
# children, the root "all" = 100.
test_expect_success 'golden frames for a small folded file' '
	fp-flamegraph --width 600 "$D/small.folded" >small.svg &&
	grep "^<g fp:" small.svg >frames &&
	test_cmp "$D/small.frames" frames
'

test_expect_success 'the output is well-formed XML' '
	xml_ok small.svg
'

test_expect_success 'the root frame shows the total sample count' '
	test "$(svg_root_width small.svg)" = "$(folded_total "$D/small.folded")" &&
	grep -q "<title>all (100 samples, 100%)</title>" small.svg
'

test_expect_success 'frame widths give back the folded input exactly (self counts)' '
	fp-flamegraph --minwidth 0 "$D/small.folded" >all.svg &&
	svg_to_folded all.svg >back &&
	folded_merge "$D/small.folded" >expect &&
	test_cmp expect back
'

test_expect_success 'byte-identical output for identical input' '
	fp-flamegraph --width 600 "$D/small.folded" >again.svg &&
	cmp small.svg again.svg &&
	fp-flamegraph --width 600 <"$D/small.folded" >stdin.svg &&
	cmp small.svg stdin.svg
'

test_expect_success 'input order does not change the output' '
	sort -r "$D/small.folded" >reversed.folded &&
	fp-flamegraph --width 600 reversed.folded >r.svg &&
	cmp small.svg r.svg
'

test_expect_success 'gzip input gives the same graph' '
	gzip -c "$D/small.folded" >small.folded.gz &&
	fp-flamegraph --width 600 small.folded.gz >gz.svg &&
	cmp small.svg gz.svg
'

test_expect_success 'several files are added together' '
	fp-flamegraph --minwidth 0 "$D/small.folded" "$D/small.folded" >two.svg &&
	test "$(svg_root_width two.svg)" = 200
'

test_expect_success 'comments, blank lines and CRLF are fine; bad lines are named once on stderr' '
	fp-flamegraph "$D/messy.folded" >messy.svg 2>err &&
	test "$(svg_root_width messy.svg)" = 3 &&
	test "$(wc -l <err)" -eq 1 &&
	grep -q "messy.folded:4: expected .stack count." err &&
	grep -q "ignored 2 line" err
'

test_expect_success 'no valid input: exit 1, an SVG saying no samples' '
	printf "garbage\n" >bad.folded &&
	expect_exit 1 fp-flamegraph bad.folded >empty.svg 2>err &&
	xml_ok empty.svg &&
	grep -q "no samples" empty.svg &&
	grep -q "no valid input" err
'

test_expect_success 'a missing file: exit 111 naming it' '
	expect_exit 111 fp-flamegraph nosuch.folded >out 2>err &&
	grep -q "nosuch.folded" err
'

test_expect_success 'bad options: exit 100 with a message' '
	expect_exit 100 fp-flamegraph --width x "$D/small.folded" >out 2>err &&
	grep -q "bad --width" err &&
	expect_exit 100 fp-flamegraph --colors nosuch "$D/small.folded" >out 2>err &&
	grep -q "bad --colors" err &&
	expect_exit 100 fp-flamegraph --minwidth 5q "$D/small.folded" >out 2>err &&
	grep -q "bad --minwidth" err &&
	expect_exit 100 fp-flamegraph --bgcolors "red;x" "$D/small.folded" >out 2>err &&
	expect_exit 100 fp-flamegraph --nosuch "$D/small.folded" >out 2>err &&
	grep -q usage err &&
	expect_exit 100 fp-flamegraph --diff "$D/small.folded" >out 2>err
'

test_expect_success '--title, --subtitle and --countname are written, escaped' '
	fp-flamegraph --title "T <1> & \"2\"" --subtitle "sub&title" --countname "ms" \
		"$D/small.folded" >t.svg &&
	xml_ok t.svg &&
	grep -q "<text id=\"title\" [^>]*>T &lt;1&gt; &amp; &quot;2&quot;</text>" t.svg &&
	grep -q "<text id=\"subtitle\" [^>]*>sub&amp;title</text>" t.svg &&
	grep -q "<title>all (100 ms, 100%)</title>" t.svg
'

test_expect_success '--inverted draws an icicle graph: the root at the top' '
	fp-flamegraph --inverted --minwidth 0 "$D/small.folded" >ice.svg &&
	grep -q ">Icicle Graph<" ice.svg &&
	root_y=$(grep "<title>all " ice.svg | sed "s/.*<rect x=\"[^\"]*\" y=\"\([0-9]*\)\".*/\1/") &&
	lex_y=$(grep "<title>lex " ice.svg | sed "s/.*<rect x=\"[^\"]*\" y=\"\([0-9]*\)\".*/\1/") &&
	test "$root_y" -lt "$lex_y" &&
	svg_to_folded ice.svg 16 inverted >back &&
	folded_merge "$D/small.folded" >expect &&
	test_cmp expect back
'

test_expect_success '--reverse merges stacks at their leaves' '
	fp-flamegraph --reverse --minwidth 0 "$D/small.folded" >rev.svg &&
	svg_to_folded rev.svg >back &&
	awk "{ n = \$NF; sub(/ [0-9]+\$/, \"\"); k = split(\$0, f, \";\"); s = f[k];
	      for (i = k - 1; i >= 1; i--) s = s \";\" f[i]; print s, n }" "$D/small.folded" >r.folded &&
	folded_merge r.folded >expect &&
	test_cmp expect back &&
	grep -q "<title>add (30 samples" rev.svg
'

test_expect_success '--flamechart keeps input order (no sorting or merging)' '
	printf "a;x 1\nb 1\na;y 1\n" >chart.folded &&
	fp-flamegraph --flamechart --minwidth 0 chart.folded >chart.svg &&
	grep -q ">Flame Chart<" chart.svg &&
	grep "^<g fp:" chart.svg | sed "s/<\/title>.*//; s/.*<title>//; s/ (.*//" | tr "\n" " " >order &&
	test "$(cat order)" = "all a x b a y "
'

test_expect_success '--minwidth in px and in percent hides narrow frames' '
	printf "a 1000\nb 1\n" >w.folded &&
	fp-flamegraph --minwidth 0 w.folded | grep -c "^<g fp:" >n0 &&
	fp-flamegraph --minwidth 2 w.folded | grep -c "^<g fp:" >n1 &&
	fp-flamegraph --minwidth "0.5%" w.folded | grep -c "^<g fp:" >n2 &&
	test "$(cat n0) $(cat n1) $(cat n2)" = "3 2 2"
'

test_expect_success 'a frame has the same colour in every graph (name hash)' '
	printf "x;main;lex 1\n" >other.folded &&
	fp-flamegraph other.folded >o.svg &&
	c1=$(grep "<title>lex " small.svg | sed "s/.*fill=\"\([^\"]*\)\".*/\1/") &&
	c2=$(grep "<title>lex " o.svg | sed "s/.*fill=\"\([^\"]*\)\".*/\1/") &&
	test -n "$c1" && test "$c1" = "$c2"
'

test_expect_success 'code types: _[k] orange, _[j] green, _[i] aqua, C++ yellow, other red' '
	printf "p;k_[k] 1\np;j_[j] 1\np;i_[i] 1\np;ns::f 1\np;user 1\n" >types.folded &&
	fp-flamegraph types.folded >types.svg &&
	fill() { grep "<title>$1 " types.svg | sed "s/.*fill=\"rgb(\([^\"]*\))\".*/\1/"; } &&
	echo "$(fill k)" | awk -F, "{ exit !(\$1 >= 190 && \$2 >= 90 && \$2 <= 155 && \$3 == 0) }" &&
	echo "$(fill j)" | awk -F, "{ exit !(\$2 >= 200 && \$1 <= 110 && \$1 == \$3) }" &&
	echo "$(fill i)" | awk -F, "{ exit !(\$1 <= 110 && \$2 >= 165 && \$2 == \$3) }" &&
	echo "$(fill ns::f)" | awk -F, "{ exit !(\$1 >= 175 && \$1 == \$2 && \$3 <= 70) }" &&
	echo "$(fill user)" | awk -F, "{ exit !(\$1 >= 200 && \$2 == \$3 && \$2 <= 130) }" &&
	! grep -q "_\[k\]" types.svg
'

test_expect_success 'every palette name of flamegraph.pl is accepted and gives valid XML' '
	for p in flamepipe hot mem io java js perl red green blue aqua yellow purple orange; do
		fp-flamegraph --colors $p "$D/small.folded" >p.svg && xml_ok p.svg || return 1
	done
'

test_expect_success '--json writes the nested tree with inclusive values' '
	fp-flamegraph --json "$D/small.folded" >t.json &&
	grep -q "^{\"name\":\"all\",\"value\":100,\"children\":\[{\"name\":\"idle\",\"value\":15,\"children\":\[\]},{\"name\":\"main\",\"value\":85," t.json
'

test_expect_success 'a 20,000-line folded file renders, well-formed, root = total' '
	awk "BEGIN { for (i = 0; i < 20000; i++) printf \"p%d;f%d;g%d;h%d %d\n\", i % 7, i % 101, i % 997, i, 1 + i % 5 }" >big.folded &&
	fp-flamegraph big.folded >big.svg &&
	xml_ok big.svg &&
	test "$(svg_root_width big.svg)" = "$(folded_total big.folded)"
'

test_done
