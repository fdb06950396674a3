#!/bin/sh
test_description='fp-serve: a costly stack regex is answered in milliseconds (a bounded result or a 400), and never blocks other requests'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

F=multiproc.perf.gz
mkdir prof && cp "$EXAMPLES/$F" prof/ &&
# a capture with one 150,000-frame stack ("f;f;...;f")
awk 'BEGIN {
	print "deep 1 [000] 1.000000: 1 cpu-clock:ppp: ";
	for (i = 0; i < 150000; i++) print "\t1 f (/x)";
	print ""
}' >prof/deep.perf &&
start_server prof || exit 1

# status of PATH within SECONDS (curl gives 000 when it times out)
get_within() { # SECONDS PATH
	curl -sS --globoff --max-time "$1" -o body -w '%{http_code}' "$URL$2"
}

test_expect_success 'include=(f;)*x on the deep stack: a bounded result at once' '
	code=$(get_within 10 "/flamegraph/?filename=deep.perf&include=(f;)*x") &&
	test "$code" = 200 &&
	jq -e ".c == []" body
'

test_expect_success 'a regex whose match hits the limit is a JSON 400 naming it, not minutes of CPU' '
	code=$(get_within 10 "/flamegraph/?filename=deep.perf&include=(f;)*%5Bxy%5D") &&
	test "$code" = 400 && json_error_ok "$code" &&
	jq -e ".error | test(\"include regex: no answer within the match limit\")" body &&
	code=$(get_within 10 "/heatmap/?filename=deep.perf&include=(f;)*%5Bxy%5D") &&
	test "$code" = 400 && json_error_ok "$code"
'

test_expect_success '(.*;)*zzz on an ordinary capture is answered like a plain regex' '
	code=$(get_within 10 "/flamegraph/?filename=$F&include=(.*;)*zzz") &&
	test "$code" = 200 && jq -e ".c == []" body &&
	code=$(get_within 10 "/flamegraph/?filename=$F&exclude=(.*;)*zzz") &&
	test "$code" = 200 && jq -e ".c | length > 0" body
'

test_expect_success 'after 6 costly requests at once, an uncached request is still answered promptly' '
	for i in 1 2 3 4 5 6; do
		curl -sS --globoff --max-time 60 -o /dev/null \
			"$URL/flamegraph/?filename=deep.perf&include=(f;)*%5Bx$i%5D" &
	done &&
	code=$(get_within 20 "/flamegraph/?filename=$F&comm=worker2") &&
	test "$code" = 200 && jq -e ".c | length > 0" body &&
	wait
'

test_done
