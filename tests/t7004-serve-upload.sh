#!/bin/sh
test_description='fp-serve: POST /upload stores captures safely, with a size limit'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

F=multiproc.perf.gz
LIMIT=40000	# bytes; multiproc.perf.gz is 22254, demo-clockloop 61907
mkdir prof &&
start_server prof --max-upload $LIMIT || exit 1

test_expect_success 'raw upload with ?filename= is stored under uploads/ and opens' '
	code=$(post "/upload?filename=$F" --data-binary "@$EXAMPLES/$F") &&
	test "$code" = 201 &&
	jq -e ".filename == \"uploads/$F\" and .size == $(wc -c <"$EXAMPLES/$F")" body &&
	cmp "$EXAMPLES/$F" "prof/uploads/$F" &&
	test "$(get "/heatmap/?filename=uploads/$F")" = 200 &&
	jq -e ".maxvalue > 0" body
'

test_expect_success 'the same name again gets a new name, the first file is kept' '
	code=$(post "/upload?filename=$F" --data-binary "@$EXAMPLES/$F") &&
	test "$code" = 201 &&
	jq -e ".filename == \"uploads/multiproc-1.perf.gz\"" body &&
	cmp "$EXAMPLES/$F" prof/uploads/multiproc-1.perf.gz
'

test_expect_success 'multipart/form-data upload (a browser form) works' '
	code=$(post /upload -F "file=@$EXAMPLES/$F;filename=form.perf.gz") &&
	test "$code" = 201 &&
	jq -e ".filename == \"uploads/form.perf.gz\"" body &&
	cmp "$EXAMPLES/$F" prof/uploads/form.perf.gz
'

test_expect_success 'hostile upload names are made safe' '
	code=$(post "/upload?filename=..%2F..%2Fevil%20name%3C%3E.perf" --data-binary "@$EXAMPLES/$F") &&
	test "$code" = 201 &&
	jq -e ".filename == \"uploads/evil_name__.perf\"" body &&
	test -f "prof/uploads/evil_name__.perf" &&
	! test -e "$TRASH/evil_name__.perf" &&
	code=$(post "/upload?filename=..." --data-binary "@$EXAMPLES/$F") &&
	test "$code" = 201 &&
	jq -e ".filename == \"uploads/upload\"" body
'

test_expect_success 'an upload over the limit gets 413 and leaves no file' '
	ls prof/uploads >before &&
	code=$(post "/upload?filename=big.perf.gz" --data-binary "@$EXAMPLES/demo-clockloop.perf.gz") &&
	test "$code" = 413 && json_error_ok "$code" &&
	ls -A prof/uploads >after &&
	test_cmp before after
'

test_expect_success 'a chunked upload over the limit (no Content-Length) gets 413' '
	head -c 100000 /dev/zero >zeros &&
	code=$(post "/upload?filename=chunked.bin" -H "Transfer-Encoding: chunked" --data-binary @zeros) &&
	test "$code" = 413 &&
	! test -e prof/uploads/chunked.bin &&
	test -z "$(ls -A prof/uploads | grep "^\.")"
'

test_expect_success 'a multipart upload over the limit gets 413' '
	code=$(post /upload -F "file=@$EXAMPLES/demo-clockloop.perf.gz") &&
	test "$code" = 413 &&
	! test -e prof/uploads/demo-clockloop.perf.gz
'

test_expect_success 'upload without a name or file part is a 400' '
	code=$(post /upload --data-binary "@$EXAMPLES/$F") &&
	test "$code" = 400 && json_error_ok "$code" &&
	code=$(post /upload -F "other=@$EXAMPLES/$F") &&
	test "$code" = 400 && json_error_ok "$code"
'

test_expect_success 'a cross-site POST (foreign Origin) is refused' '
	code=$(post "/upload?filename=csrf.perf" -H "Origin: http://evil.example" --data-binary x) &&
	test "$code" = 403 && json_error_ok "$code" &&
	! test -e prof/uploads/csrf.perf
'

test_expect_success 'uploads appear in /profile/' '
	test "$(get /profile/)" = 200 &&
	jq -e "any(.[]; .filename == \"uploads/$F\")" body
'

test_done
