#!/bin/sh
test_description='fp-render: a 600-s capture with many stacks: the page with its views stays bounded (RSS, size)'
. "$(dirname "$0")/test-lib.sh"

# Limits: fp-render's peak RSS in kB (issue 12: 64 MiB; ASan adds its
# shadow memory) and index.html's size in bytes.
rss_limit=65536 && { [ -z "${FP_ASAN:-}" ] || rss_limit=600000; }
page_limit=16777216
SAMPLES=240000

test_expect_success 'the stream of 600 s x 400 samples/s with 5,000 stacks' '
	sh "$TOP/tests/mk-long-capture.sh" 600 400 5000 >long.perf &&
	fp-read long.perf | fp-bucket | fp-range | fp-fold --pass-samples --all-events >long.stream &&
	test "$(grep -c "^R	" long.stream)" = $SAMPLES
'

test_expect_success 'fp-render: peak RSS within 64 MiB, index.html within 16 MB, with its timeline' '
	/usr/bin/time -f %M -o kb fp-render --outdir out <long.stream &&
	echo "peak RSS $(cat kb) kB; index.html $(wc -c <out/index.html) bytes" &&
	test "$(cat kb)" -lt $rss_limit &&
	test "$(wc -c <out/index.html)" -lt $page_limit &&
	grep -q "<script type=\"application/json\" id=\"fp_timeline\">" out/index.html
'

test_expect_success 'the embedded timeline holds every sample, 4 owners, 600 columns, 5,000 stacks' '
	awk "/json\" id=\"fp_timeline\">/ { on = 1; sub(/.*json\" id=\"fp_timeline\">/, \"\") }
		on { if (sub(/<\\/script>.*/, \"\")) { print; exit } print }" out/index.html >tl.json &&
	jq -e ".total == $SAMPLES and (.owners | length) == 20 and .ncols == 600" tl.json &&
	jq -e "[.stacks | length] == [5000]" tl.json
'

test_done
