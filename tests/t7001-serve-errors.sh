#!/bin/sh
test_description='fp-serve: bad queries get 4xx with a JSON error body'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

F=multiproc.perf.gz
mkdir prof && cp "$EXAMPLES/$F" prof/ &&
printf "this is not perf script output\n\x01\x02\n" >prof/garbage.perf &&
start_server prof || exit 1

# expect_error CODE PATH: the status is CODE and the body a JSON error
expect_error() {
	code=$(get "$2") &&
	test "$code" = "$1" || { echo "got $code, expected $1 for $2" >&2; cat body >&2; return 1; }
	json_error_ok "$code"
}

test_expect_success 'rows not a number, 0, too large, negative, empty' '
	expect_error 400 "/heatmap/?filename=$F&rows=abc" &&
	expect_error 400 "/heatmap/?filename=$F&rows=0" &&
	expect_error 400 "/heatmap/?filename=$F&rows=1001" &&
	expect_error 400 "/heatmap/?filename=$F&rows=-5" &&
	expect_error 400 "/heatmap/?filename=$F&rows=" &&
	expect_error 400 "/heatmap/?filename=$F&rows=99999999999999999999"
'

test_expect_success 'start/end malformed' '
	expect_error 400 "/flamegraph/?filename=$F&start=abc" &&
	expect_error 400 "/flamegraph/?filename=$F&start=-1" &&
	expect_error 400 "/flamegraph/?filename=$F&end=1e3" &&
	expect_error 400 "/flamegraph/?filename=$F&start=1.2.3" &&
	expect_error 400 "/flamegraph/?filename=$F&start=1.0000000001" &&
	expect_error 400 "/flamegraph/?filename=$F&start=nan" &&
	expect_error 400 "/differential/?filename=$F&compareFilename=$F&compareStart=x"
'

test_expect_success 'start after end is 416 (FlameScope)' '
	expect_error 416 "/flamegraph/?filename=$F&start=3&end=2"
'

test_expect_success 'missing or unknown filename' '
	expect_error 400 "/heatmap/" &&
	expect_error 400 "/heatmap/?filename=" &&
	expect_error 404 "/heatmap/?filename=nope.perf" &&
	expect_error 400 "/differential/?filename=$F" &&
	expect_error 404 "/flamegraph/?filename=dir/nope"
'

test_expect_success 'bad filters' '
	expect_error 400 "/flamegraph/?filename=$F&pid=abc" &&
	expect_error 400 "/flamegraph/?filename=$F&cpu=1,,2" &&
	expect_error 400 "/flamegraph/?filename=$F&include=(unclosed" &&
	expect_error 400 "/flamegraph/?filename=$F&comm=a%0Aclear" &&
	expect_error 400 "/flamegraph/?filename=$F&exclude=a%0D%0Arange%201%202"
'

test_expect_success 'regexes PCRE2 cannot compile (too large, nothing to repeat) are refused at once with the reason' '
	expect_error 400 "/flamegraph/?filename=$F&include=((a%7B255%7D)%7B255%7D)%7B255%7D" &&
	grep -q "too large" body &&
	expect_error 400 "/flamegraph/?filename=$F&exclude=(((a%7B32%7D)%7B32%7D)%7B32%7D)%7B32%7D" &&
	expect_error 400 "/flamegraph/?filename=$F&include=a%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B%2B" &&
	grep -q "quantifier does not follow a repeatable item" body &&
	test "$(get "/flamegraph/?filename=$F&include=((((((((((((((((((((a)%2B)%2B)%2B)%2B)%2B)%2B)%2B)%2B)%2B)%2B)%2B)%2B)%2B)%2B)%2B)%2B)%2B)%2B)%2B)%2B")" = 200 &&
	test "$(get "/flamegraph/?filename=$F&include=(a)%5C1")" = 200 &&
	test "$(get "/flamegraph/?filename=$F&include=crc.%2Bstep%7Cmix_%5Ba-z%5D%2B")" = 200 &&
	test "$(get "/flamegraph/?filename=$F&include=a%7B2,3%7D")" = 200
'

test_expect_success 'SVG options out of range' '
	expect_error 400 "/svg/flamegraph?filename=$F&width=5" &&
	expect_error 400 "/svg/flamegraph?filename=$F&palette=nosuch" &&
	expect_error 400 "/svg/flamegraph?filename=$F&diff=1"
'

test_expect_success 'a file that is not a capture is a JSON error, not a crash' '
	code=$(get "/heatmap/?filename=garbage.perf") &&
	case $code in 200) jq -e ".maxvalue == 0" body ;; *) json_error_ok "$code" ;; esac &&
	test "$(get /profile/)" = 200
'

test_expect_success 'wrong methods and live routes without a live capture' '
	code=$(curl -sS -o body -w "%{http_code}" -X DELETE "$URL/profile/") &&
	test "$code" = 405 && json_error_ok "$code" &&
	code=$(post "/profile/") && json_error_ok "$code" &&
	expect_error 405 "/upload" &&
	expect_error 404 "/live/events?name=x" &&
	expect_error 400 "/live/flamegraph" &&
	code=$(post "/live/range?name=x&start=1") && test "$code" = 404 && json_error_ok "$code"
'

test_expect_success 'the server is still up after all of it' '
	test "$(get "/heatmap/?filename=$F")" = 200 &&
	kill -0 $serve_pid
'

test_done
