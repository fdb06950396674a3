#!/bin/sh
test_description='fp-serve sends data answers gzip-compressed to a client that accepts gzip: the same bytes once decoded, never unasked, never pages'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

mkdir prof &&
sh "$TOP/tests/mk-long-capture.sh" 30 200 500 >prof/cap.perf &&
start_server prof || exit 1
TREE="/flamegraph/?filename=cap.perf&start=2&end=20"

# fetch PATH [ACCEPT-ENCODING]: the body as sent in ./raw, its headers in ./hdr
fetch() {
	if [ $# -gt 1 ]; then
		set -- "$1" -H "Accept-Encoding: $2"
	fi
	_path=$1
	shift
	curl -sS --globoff --max-time 20 -D hdr -o raw -w '%{http_code}' "$@" "$URL$_path"
}
encoding() { tr -d "\r" <hdr | sed -n "s/^[Cc]ontent-[Ee]ncoding: //p"; }

test_expect_success 'a range tree asked with gzip comes gzip-compressed and decodes to the plain answer' '
	test "$(fetch "$TREE")" = 200 &&
	test -z "$(encoding)" && mv raw tree.plain &&
	test "$(fetch "$TREE" "gzip, deflate, br")" = 200 &&
	test "$(encoding)" = gzip &&
	gzip -dc raw >decoded &&
	cmp tree.plain decoded &&
	echo "# plain $(wc -c <tree.plain) bytes, gzip $(wc -c <raw)" &&
	test "$(wc -c <raw)" -lt "$(($(wc -c <tree.plain) / 4))"
'

test_expect_success 'a compressible answer says it varies with Accept-Encoding, asked or not' '
	fetch "$TREE" >/dev/null && tr -d "\r" <hdr | grep -qix "vary: Accept-Encoding" &&
	fetch "$TREE" gzip >/dev/null && tr -d "\r" <hdr | grep -qix "vary: Accept-Encoding"
'

test_expect_success 'the SVG, the folded text and the heatmap JSON are compressed alike' '
	for p in "/svg/flamegraph?filename=cap.perf&start=0&end=10" \
		"/folded?filename=cap.perf&start=0&end=10" "/heatmap/?filename=cap.perf"
	do
		test "$(fetch "$p")" = 200 && mv raw plain &&
		test "$(fetch "$p" gzip)" = 200 && test "$(encoding)" = gzip &&
		gzip -dc raw | cmp - plain || { echo "# $p" >&2; return 1; }
	done
'

test_expect_success 'gzip;q=0, other encodings and a wildcard get the plain answer' '
	for ae in "gzip;q=0" "gzip; q=0.0" "br" "deflate, identity" "*" "xgzip" "gzipx"
	do
		test "$(fetch "$TREE" "$ae")" = 200 && test -z "$(encoding)" &&
		cmp raw tree.plain || { echo "# Accept-Encoding: $ae" >&2; return 1; }
	done
'

test_expect_success 'gzip with a weight, in any case, among others, is taken' '
	for ae in "GZIP" "br;q=1.0, gzip;q=0.5" "identity, gzip ; q=1" "gzip;level=1"
	do
		test "$(fetch "$TREE" "$ae")" = 200 && test "$(encoding)" = gzip ||
			{ echo "# Accept-Encoding: $ae" >&2; return 1; }
	done
'

test_expect_success 'the page and small answers are never compressed' '
	test "$(fetch / gzip)" = 200 && test -z "$(encoding)" && grep -q "<html" raw &&
	test "$(fetch "/flamegraph/?filename=nosuch.perf" gzip)" = 404 && test -z "$(encoding)"
'

test_done
