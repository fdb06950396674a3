#!/bin/sh
test_description='fp-serve: hostile symbol and file names appear only escaped'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

X=xss.perf
EVIL='<script>alert(1)</script>'
mkdir prof && cp "$DATA/xss.perf" prof/ &&
cp "$DATA/xss.perf" "prof/<img src=x onerror=alert(2)>.perf" &&
start_server prof || exit 1

# no_raw_markup FILE: the raw tag never appears
no_raw_markup() {
	! grep -q "<script>alert" "$1" &&
	! grep -q "<img src=x" "$1" &&
	! grep -q "<b>bold" "$1"
}

test_expect_success 'JSON flame graph: the symbol is escaped, and decodes back exactly' '
	test "$(get "/flamegraph/?filename=$X")" = 200 &&
	no_raw_markup body &&
	grep -q "\\\\u003cscript\\\\u003ealert(1)\\\\u003c/script\\\\u003e" body &&
	jq -r ".. | objects | .n? // empty" body | grep -qxF "$EVIL"
'

test_expect_success 'differential and elided JSON are escaped' '
	test "$(get "/differential/?filename=$X&compareFilename=$X&end=2")" = 200 &&
	no_raw_markup body &&
	test "$(get "/elided/?filename=$X&compareFilename=$X&end=2")" = 200 &&
	no_raw_markup body
'

test_expect_success 'SVG flame graph: names are XML-escaped and it is well-formed' '
	test "$(get "/svg/flamegraph?filename=$X")" = 200 &&
	no_raw_markup body &&
	grep -q "&lt;script&gt;alert(1)&lt;/script&gt;" body &&
	python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" body
'

test_expect_success 'SVG title from a query parameter is escaped' '
	test "$(get "/svg/flamegraph?filename=$X&title=%3Cscript%3Ealert(3)%3C/script%3E")" = 200 &&
	! grep -q "<script>alert(3)" body &&
	python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" body
'

test_expect_success 'a hostile file name is escaped in /profile/ and in the heatmap SVG' '
	test "$(get /profile/)" = 200 &&
	no_raw_markup body &&
	jq -r ".[].filename" body | grep -qxF "<img src=x onerror=alert(2)>.perf" &&
	test "$(get "/svg/heatmap?filename=%3Cimg%20src%3Dx%20onerror%3Dalert(2)%3E.perf")" = 200 &&
	no_raw_markup body &&
	python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" body
'

test_expect_success 'an error message that quotes input is JSON-escaped' '
	code=$(get "/heatmap/?filename=%3Cscript%3Enope") &&
	json_error_ok "$code" &&
	! grep -q "<script>" body
'

test_expect_success 'folded download is text/plain with nosniff' '
	curl -sS -D hdr -o body "$URL/folded?filename=$X" &&
	grep -qi "^content-type: text/plain" hdr &&
	grep -qi "^x-content-type-options: nosniff" hdr
'

test_done
