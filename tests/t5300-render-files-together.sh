#!/bin/sh
test_description='fp-render writes index.html in a thread beside the other files: each file as if written alone, and a failure in either names its file'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-render.sh"

# The default pipeline's stream into fp-render (D/R records, so index.html
# embeds the timeline, the longest file to make).
test_expect_success 'the stream of the multiproc capture, and all its files at once' '
	fp-read "$EXAMPLES/multiproc.perf.gz" | fp-bucket | fp-range | fp-fold --pass-samples --all-events >mp.stream &&
	fp-render --outdir all <mp.stream &&
	for f in index.html flame.svg heatmap.svg heatmap.json heatmap.tsv stacks.folded; do
		test -s all/$f || exit 1
	done &&
	grep -q "id=\"fp_timeline\"" all/index.html
'

test_expect_success 'each file equals the one fp-render writes when it writes only that file' '
	for x in flame-svg:flame.svg heatmap-svg:heatmap.svg heatmap-json:heatmap.json \
		 tsv:heatmap.tsv folded:stacks.folded; do
		fmt=${x%%:*} f=${x#*:} &&
		rm -rf one && fp-render --outdir one --format $fmt <mp.stream &&
		ls one >made && echo $f >want && test_cmp want made &&
		cmp all/$f one/$f || exit 1
	done &&
	# index.html links flame.svg only when it is made: made with it alone
	rm -rf one && fp-render --outdir one --format html,flame-svg <mp.stream &&
	cmp all/index.html one/index.html
'

test_expect_success 'index.html that cannot be written: exit 111 naming it, the other files written' '
	rm -rf out && mkdir -p out/index.html/in-the-way &&
	expect_exit 111 fp-render --outdir out <mp.stream 2>err &&
	grep -q "^fp-render: write out/index.html: " err &&
	for f in flame.svg heatmap.svg heatmap.json heatmap.tsv stacks.folded; do
		cmp all/$f out/$f || exit 1
	done &&
	! ls -A out | grep "^\\."
'

test_expect_success 'another file that cannot be written while index.html is made: exit 111 naming it' '
	rm -rf out && mkdir -p out/flame.svg/in-the-way &&
	expect_exit 111 fp-render --outdir out <mp.stream 2>err &&
	grep -q "^fp-render: write out/flame.svg: " err &&
	cmp all/index.html out/index.html &&
	! ls -A out | grep "^\\."
'

test_expect_success 'a second render into the same DIR replaces every file and leaves no temporary' '
	fp-read "$EXAMPLES/multiproc.perf.gz" | fp-bucket | fp-range --comm mp-sort-merge | fp-fold --pass-samples --all-events >part.stream &&
	fp-render --outdir part <part.stream &&
	fp-render --outdir all <part.stream &&
	for f in index.html flame.svg heatmap.svg heatmap.json heatmap.tsv stacks.folded; do
		cmp part/$f all/$f || exit 1
	done &&
	ls -A all >left &&
	! grep "^\\." left
'

test_done
