#!/bin/sh
test_description='fp-serve: Origin: null (sandboxed iframes, data: pages) cannot upload or change the live range'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

F=multiproc.perf.gz
mkdir prof &&
start_server prof || exit 1

test_expect_success 'POST /upload with Origin: null is refused with a JSON 403, nothing stored' '
	code=$(post "/upload?filename=null-origin.perf" -H "Origin: null" \
		--data-binary "@$EXAMPLES/$F") &&
	test "$code" = 403 && json_error_ok "$code" &&
	jq -e ".error | test(\"Origin\")" body &&
	! test -e prof/uploads/null-origin.perf
'

test_expect_success 'a multipart form POST with Origin: null is refused too' '
	code=$(post /upload -H "Origin: null" -F "file=@$EXAMPLES/$F;filename=form-null.perf") &&
	test "$code" = 403 && json_error_ok "$code" &&
	! test -e prof/uploads/form-null.perf
'

test_expect_success 'POST /live/range with Origin: null is refused before anything else' '
	code=$(post "/live/range?name=x&start=1" -H "Origin: null") &&
	test "$code" = 403 && json_error_ok "$code"
'

test_expect_success 'the same upload from the page itself (same Origin) still works' '
	code=$(post "/upload?filename=same.perf" -H "Origin: $URL" \
		--data-binary "@$EXAMPLES/$F") &&
	test "$code" = 201 &&
	cmp "$EXAMPLES/$F" prof/uploads/same.perf
'

test_expect_success 'GET with Origin: null still reads (reads change nothing)' '
	test "$(curl -sS -o body -w "%{http_code}" -H "Origin: null" "$URL/profile/")" = 200
'

test_done
