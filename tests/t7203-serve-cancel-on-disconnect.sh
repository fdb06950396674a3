#!/bin/sh
test_description='fp-serve: a stage chain is stopped as soon as the client that asked for it goes away'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

mkdir prof &&
# 100,000 unique stacks f;...;f;g (14 f): with the regex below, ~15 s of
# (bounded, legal: under the match limit) backtracking in fp-range
awk 'BEGIN { for (i = 0; i < 100000; i++) {
	printf "c%d 1 [000] %d.%06d: 1 cpu-clock:ppp: \n", i, 1 + i / 100000, i % 1000000;
	print "\t1 g (/x)";
	for (j = 0; j < 14; j++) print "\t1 f (/x)";
	print "" } }' >prof/slow.perf &&
start_server prof || exit 1

children() { pgrep -P "$serve_pid" | wc -l; }

test_expect_success 'a client that gives up after 2 s: every stage of its chain is gone within 5 s' '
	test "$(children)" = 0 &&
	{ curl -sS --max-time 2 -o /dev/null "$URL/flamegraph/?filename=slow.perf&include=(f;%7Cf;)*%5Bxy%5D"; true; } &&
	wait_for "test \$(children) = 0" 50
'

test_expect_success 'the server answers normally afterwards' '
	test "$(get /profile/)" = 200 &&
	jq -e "any(.[]; .filename == \"slow.perf\")" body
'

test_done
