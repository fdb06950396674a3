#!/bin/sh
test_description='renderer output stays well-formed and inert with hostile names'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-render.sh"

# tests/data/xss.perf is perf script text written by hand: comms and symbols
# with < > & quotes, "]]>", "<!--", and a comm named <script>alert(1)</script>.

count_scripts() {
	xmllint --nonet --xpath 'count(//*[local-name()="script"])' "$1"
}
# index.html (HTML, not XML): its "<script" tags and texts, to compare with
# a page of harmless names (the same page: a name must not add one).
page_scripts() {
	grep -o "<script" "$1" | wc -l
}

test_expect_success 'flamepipe report on the hostile capture' '
	flamepipe report -q --keep-idle "$DATA/xss.perf" -o out &&
	for f in heatmap.tsv stacks.folded heatmap.json heatmap.svg flame.svg index.html; do
		test -s out/$f || return 1
	done
'

test_expect_success 'every SVG output is well-formed XML, index.html a whole page' '
	xml_ok out/flame.svg && xml_ok out/heatmap.svg && page_ok out/index.html
'

test_expect_success 'the <script> name is text: no raw tag, no script element more' '
	! grep -F "<script>alert" out/flame.svg out/heatmap.svg out/index.html &&
	test "$(count_scripts out/flame.svg)" = 1 &&
	test "$(count_scripts out/heatmap.svg)" = 1 &&
	flamepipe report -q "$TOP/examples/multiproc.perf.gz" -o harmless &&
	test "$(page_scripts out/index.html)" = "$(page_scripts harmless/index.html)"
'

test_expect_success 'index.html: the samples timeline escapes < > & and parses back to the names' '
	sed -n "/<script type=\"application\/json\" id=\"fp_timeline\">/,/<\/script>/p" out/index.html |
		sed -e "s/^<script[^>]*>//" -e "s/<\/script>\$//" >tl.json &&
	test -s tl.json &&
	! grep -F "<" tl.json && ! grep -F ">" tl.json && ! grep -F "&" tl.json &&
	grep -F "\u003cscript\u003ealert(1)\u003c/script\u003e" tl.json &&
	python3 -c "import json,sys; t=json.load(open(\"tl.json\")); sys.exit(0 if \"<script>alert(1)</script>\" in t[\"names\"] else 1)"
'

test_expect_success 'the escaped name is shown as the frame title text' '
	grep -F "<title>&lt;script&gt;alert(1)&lt;/script&gt; (2 samples" out/flame.svg &&
	n=$(xmllint --nonet --xpath "count(//*[local-name()=\"title\"][starts-with(., \"<script>alert(1)</script> (\")])" out/flame.svg) &&
	test "$n" = 1
'

test_expect_success 'quotes, ampersands, ]]> and <!-- survive as text' '
	grep -F "evil&amp;co" out/flame.svg &&
	grep -F "x]]&gt;y&lt;!--z-" out/flame.svg &&
	grep -F "quote&quot;s" out/flame.svg &&
	grep -F "&lt;b&gt;bold&lt;/b&gt;&amp;nbsp:" out/flame.svg &&
	n=$(xmllint --nonet --xpath "count(//*[local-name()=\"title\"][starts-with(., \"x]]>y<!--z-\")])" out/flame.svg) &&
	test "$n" = 1
'

test_expect_success 'UTF-8 names pass unchanged' '
	grep -F "naïve_ünicode" out/flame.svg
'

test_expect_success 'the folded file keeps the names as they are' '
	grep -F "<script>alert(1)</script>;main;<script>alert 1" out/stacks.folded
'

test_expect_success 'the flame JSON escapes < > & so it can sit inside a script' '
	fp-flamegraph --json out/stacks.folded >t.json &&
	! grep -F "<" t.json && ! grep -F ">" t.json && ! grep -F "&" t.json &&
	grep -F "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" t.json
'

test_expect_success 'invalid UTF-8 and control bytes become U+FFFD, still well-formed' '
	printf "bad\\377\\376name;ctl\\001\\002x;ok 3\\nmixed\\303;\\355\\240\\200sur 2\\n" >bytes.folded &&
	fp-flamegraph bytes.folded >bytes.svg &&
	xml_ok bytes.svg &&
	grep -F "bad��name" bytes.svg &&
	grep -F "ctl��x" bytes.svg &&
	printf "C\\tbegin\\tfold\\nF\\t3\\tbad\\377name;x\\001y\\nC\\tend\\tfold\\t1\\t3\\n" |
		fp-render --outdir r &&
	xml_ok r/flame.svg && page_ok r/index.html
'

test_expect_success 'titles, options and warnings from the stream are escaped too' '
	q=\" &&
	printf "W\\tread\\tx.perf:1\\t%s\\n" "<script>alert(3)</script> & ${q}q${q}" >w.stream &&
	printf "I\\tread\\tlines=<b>1</b>\\n" >>w.stream &&
	printf "C\\tbegin\\tfold\\nF\\t1\\ta;b\\nC\\tend\\tfold\\t1\\t1\\n" >>w.stream &&
	fp-render --outdir w --page-title "<script>alert(4)</script>" \
		--title "]]></script><script>alert(5)</script>" \
		--nametype "]]><script>alert(6)</script>" --subtitle "<i>s</i>" <w.stream &&
	for f in w/flame.svg w/heatmap.svg; do
		xml_ok $f && ! grep -F "<script>alert" $f && test "$(count_scripts $f)" = 1 || return 1
	done &&
	page_ok w/index.html && ! grep -F "<script>alert" w/index.html &&
	printf "C\\tbegin\\tfold\\nF\\t1\\ta;b\\nC\\tend\\tfold\\t1\\t1\\n" | fp-render --outdir plain &&
	test "$(page_scripts w/index.html)" = "$(page_scripts plain/index.html)" &&
	grep -F "&lt;script&gt;alert(3)&lt;/script&gt; &amp; &quot;q&quot;" w/index.html &&
	grep -F "lines=&lt;b&gt;1&lt;/b&gt;" w/index.html &&
	grep -F "\\u003cscript\\u003ealert(6)" w/flame.svg
'

test_expect_success 'every bundled capture gives well-formed SVG and HTML' '
	for c in "$EXAMPLES"/*.perf.gz; do
		name=$(basename "$c" .perf.gz) &&
		flamepipe report -q "$c" -o "cap-$name" &&
		xml_ok "cap-$name/flame.svg" && xml_ok "cap-$name/heatmap.svg" &&
		page_ok "cap-$name/index.html" || return 1
	done
'

test_done
